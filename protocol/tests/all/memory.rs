//! The protocol with everything handed over as bytes, as a browser does:
//! the shipped models from their manifest's bytes answer as the native bot
//! with the models folder does, a changed model is refused, a solved table
//! held in memory plays perfectly, and a bot with no file store never
//! reads a path a request names.

use sawah_agents::manifest::Models;
use sawah_engine::registry::Registry;
use sawah_protocol::{Bot, Command, ErrorKind};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn models_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../models")
}

/// The shipped models, read into memory and handed over by name.
fn models_from_bytes(change: Option<&str>) -> Result<Models, String> {
    let dir = models_dir();
    let manifest = std::fs::read(dir.join("manifest.json")).unwrap();
    Models::from_bytes(&manifest, "manifest.json", |name, _limit| {
        let mut bytes = std::fs::read(dir.join(name)).map_err(|e| e.to_string())?;
        if change == Some(name) {
            let last = bytes.len() - 1;
            bytes[last] ^= 1;
        }
        Ok(bytes)
    })
    .map_err(|e| e.to_string())
}

fn ask(bot: &Bot, request: Value) -> Value {
    bot.respond(&request)
}

#[test]
fn models_handed_over_as_bytes_answer_like_models_from_the_folder() {
    let in_memory = Bot::new(Registry::new())
        .with_models(Some(models_from_bytes(None).unwrap()))
        .unwrap();
    let from_folder = Bot::new(Registry::new())
        .with_models(Some(
            Models::load(&models_dir()).expect("the shipped models load"),
        ))
        .unwrap();
    for rules in ["ur", "sawah", "masters", "senet"] {
        let start = ask(&in_memory, json!({"cmd":"start","rules":rules}))["position"].clone();
        for level in ["easy", "medium", "hard"] {
            for roll in [1, 2, 3] {
                let request = json!({"cmd":"choose","position":start,"roll":roll,"bot":level});
                let answer = ask(&in_memory, request.clone());
                assert!(answer["move"].is_object(), "{rules} {level}: {answer}");
                assert_eq!(answer, ask(&from_folder, request), "{rules} {level}");
            }
        }
    }
}

#[test]
fn a_changed_model_is_refused_with_its_checksum() {
    let error = models_from_bytes(Some("ur.safetensors")).unwrap_err();
    assert!(
        error.contains("ur.safetensors") && error.contains("SHA-256"),
        "{error}"
    );
}

#[test]
fn a_table_held_in_memory_plays_perfectly() {
    // ur-1 is tiny: solve it here, then hand its bytes over.
    let rules = sawah_engine::race::preset("ur-1").unwrap();
    let index = sawah_engine::race::PositionIndex::new(&rules);
    let dir = std::env::temp_dir().join(format!("sawah-protocol-table-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ur-1.sawah");
    // Any values of the right count make a valid table; perfect play then
    // picks the move of highest value by them.
    let values: Vec<f64> = (0..index.len()).map(|i| (i % 97) as f64 / 96.0).collect();
    let info = sawah_agents::table::TableInfo {
        states: index.len(),
        residual: 0.0,
        tolerance: 0.0,
        value_type: sawah_agents::table::ValueType::F32,
    };
    sawah_agents::table::write_table(&path, &rules, &values, &info).unwrap();
    let bytes: std::sync::Arc<[u8]> = std::fs::read(&path).unwrap().into();
    std::fs::remove_dir_all(&dir).unwrap();

    let mut bot = Bot::new(Registry::new()).with_table(Some("ur-1.sawah".to_string()));
    bot.assets_mut()
        .add_table_bytes("ur-1.sawah", bytes.clone());
    let table = sawah_agents::table::Table::from_bytes(bytes, "ur-1.sawah", &rules).unwrap();
    let start = rules.start();
    let start_json = ask(&bot, json!({"cmd":"start","rules":"ur-1"}))["position"].clone();
    let evaluated = ask(&bot, json!({"cmd":"evaluate","position":start_json}));
    assert_eq!(
        evaluated["value"].as_f64(),
        Some(table.value(&start)),
        "{evaluated}"
    );
    // The move chosen is the table's best, with every move's value.
    let chosen = ask(&bot, json!({"cmd":"choose","position":start_json,"roll":2}));
    let moves = rules.legal_moves(&start, 2);
    let values = chosen["values"]
        .as_array()
        .unwrap_or_else(|| panic!("{chosen}"));
    assert_eq!(values.len(), moves.len());
    for (&mv, value) in moves.iter().zip(values) {
        let expected = sawah_agents::perfect::move_value(&rules, &table, &start, mv);
        assert_eq!(value["value"].as_f64(), Some(expected), "{chosen}");
    }
    // A rule set the table is not for is refused by name.
    let other = ask(
        &bot,
        json!({"cmd":"evaluate","position":"ur-2 light 2/-/0 2/-/0","bot":"perfect:table=ur-1.sawah"}),
    );
    assert_eq!(other["error"]["kind"], "invalid_bot", "{other}");
    assert!(
        other["error"]["message"].as_str().unwrap().contains("ur-1"),
        "{other}"
    );
    // The default table serves its own rule set only: another needs a bot.
    let unnamed = ask(
        &bot,
        json!({"cmd":"evaluate","position":"ur-2 light 2/-/0 2/-/0"}),
    );
    assert_eq!(unnamed["error"]["kind"], "missing_field", "{unnamed}");
    assert!(
        unnamed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not for ur-2"),
        "{unnamed}"
    );
}

#[test]
fn a_bot_without_a_file_store_reads_no_path_a_request_names() {
    let bot = Bot::new(Registry::new());
    for bot_spec in [
        "neural:model=/dev/zero",
        "neural:model=../models/ur.safetensors",
        "perfect:table=/etc/passwd",
        "heuristic:weights=/proc/self/environ",
    ] {
        let answer = ask(
            &bot,
            json!({"cmd":"choose","position":"ur light 7/-/0 7/-/0","roll":2,"bot":bot_spec}),
        );
        assert_eq!(
            answer["error"]["kind"], "invalid_bot",
            "{bot_spec}: {answer}"
        );
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("is held here"), "{bot_spec}: {message}");
    }
}

#[test]
fn the_unknown_command_error_lists_every_command() {
    let answer = ask(&Bot::new(Registry::new()), json!({"id":7,"cmd":"fly"}));
    assert_eq!(answer["id"], 7);
    assert_eq!(answer["error"]["kind"], ErrorKind::UnknownCommand.as_str());
    let message = answer["error"]["message"].as_str().unwrap();
    for command in Command::ALL {
        assert!(message.contains(command.name()), "{message}");
    }
}
