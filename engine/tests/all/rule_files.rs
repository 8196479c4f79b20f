//! Rule sets read from files, and the validation of rule descriptions.

use sawah_engine::dice::DiceError;
use sawah_engine::race::{self, Cell, RuleError, RuleFileError, RuleSet, valid_position_count};
use sawah_engine::registry::{Registry, ResolveError};
use sawah_engine::{DiceSource, Player};
use std::path::PathBuf;

fn example(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../rules")).join(name)
}

#[test]
fn presets_round_trip_through_toml_and_json() {
    for name in race::all_preset_names() {
        let rules = race::preset(name).unwrap();
        let toml_text = toml::to_string(rules.spec()).unwrap();
        let from_toml = RuleSet::new(toml::from_str(&toml_text).unwrap()).unwrap();
        assert_eq!(from_toml, rules, "{name}");
        let json_text = serde_json::to_string(rules.spec()).unwrap();
        let from_json = RuleSet::new(serde_json::from_str(&json_text).unwrap()).unwrap();
        assert_eq!(from_json, rules, "{name}");
    }
}

#[test]
fn example_files_load_and_play() {
    let three = RuleSet::from_file(&example("ur-three-sticks.toml")).unwrap();
    assert_eq!(three.name(), "ur-three-sticks");
    assert_eq!(three.pieces(), 5);
    assert_eq!(three.dice().max_roll(), 3);
    assert_eq!(three.route(Player::Dark)[0], Cell::new(2, 3));
    let plain = RuleSet::from_file(&example("egyptian-no-marks.json")).unwrap();
    assert!(!plain.marks_give_extra_roll());
    for rules in [three, plain] {
        let stats = sawah_engine::playout::random_playout(
            &rules,
            rules.start(),
            &mut DiceSource::from_seed(1),
            1_000_000,
        );
        assert!(stats.winner.is_some());
        assert!(valid_position_count(&rules) > 0);
    }
}

#[test]
fn a_registry_resolves_names_and_files() {
    let mut registry = Registry::new();
    let path = example("ur-three-sticks.toml");
    let loaded = registry.resolve(path.to_str().unwrap()).unwrap();
    assert_eq!(loaded.name(), "ur-three-sticks");
    assert_eq!(
        registry.get("ur-three-sticks").unwrap().name(),
        "ur-three-sticks"
    );
    // Resolving the same file again is fine, and so is a file holding a
    // preset's exact rules (a models folder carries its rule sets' files);
    // a file giving other rules under a preset's name is refused.
    registry.resolve(path.to_str().unwrap()).unwrap();
    let dir = std::env::temp_dir().join(format!("sawah-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("copy.json");
    let mut spec = serde_json::to_value(race::preset("ur").unwrap().spec()).unwrap();
    std::fs::write(&copy, spec.to_string()).unwrap();
    assert_eq!(registry.load_file(&copy).unwrap().name(), "ur");
    let clash = dir.join("clash.json");
    spec["pieces"] = serde_json::json!(5);
    std::fs::write(&clash, spec.to_string()).unwrap();
    assert!(matches!(
        registry.load_file(&clash),
        Err(ResolveError::NameTaken { .. })
    ));
    let broken = dir.join("broken.toml");
    std::fs::write(&broken, "name = \"x\"\npieces = \"seven\"\n").unwrap();
    let err = registry.resolve(broken.to_str().unwrap()).unwrap_err();
    assert!(err.to_string().contains("malformed"), "{err}");
    let missing = dir.join("missing.toml");
    assert!(matches!(
        registry.resolve(missing.to_str().unwrap()),
        Err(ResolveError::File(RuleFileError::Io { .. }))
    ));
    let unknown = registry.resolve("chess").unwrap_err().to_string();
    assert!(
        unknown.contains("chess") && unknown.contains("sawah"),
        "{unknown}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

fn sawah_with(change: impl FnOnce(&mut race::RuleSpec)) -> Result<RuleSet, RuleError> {
    let mut spec = race::preset_spec("sawah").unwrap();
    change(&mut spec);
    RuleSet::new(spec)
}

#[test]
fn invalid_descriptions_are_refused_with_the_reason() {
    assert_eq!(
        sawah_with(|s| s.name = "Sawah Rules".into()),
        Err(RuleError::BadName("Sawah Rules".into()))
    );
    assert_eq!(
        sawah_with(|s| s.name = "senet".into()),
        Err(RuleError::ReservedName("senet".into()))
    );
    assert_eq!(
        sawah_with(|s| s.pieces = 0),
        Err(RuleError::BadPieceCount(0))
    );
    assert_eq!(
        sawah_with(|s| s.pieces = 16),
        Err(RuleError::BadPieceCount(16))
    );
    assert_eq!(sawah_with(|s| s.board.clear()), Err(RuleError::EmptyBoard));
    assert_eq!(
        sawah_with(|s| s.board.push(Cell::new(1, 0))),
        Err(RuleError::DuplicateBoardCell(Cell::new(1, 0)))
    );
    assert_eq!(
        sawah_with(|s| s.light_route.push(Cell::new(1, 12))),
        Err(RuleError::RouteOffBoard {
            player: Player::Light,
            square: 17,
            cell: Cell::new(1, 12)
        })
    );
    assert_eq!(
        sawah_with(|s| s.light_route[5] = Cell::new(1, 0)),
        Err(RuleError::RouteRevisits {
            player: Player::Light,
            cell: Cell::new(1, 0),
            first: 5,
            second: 6
        })
    );
    assert_eq!(
        sawah_with(|s| s.dark_route = Some(vec![Cell::new(2, 3)])),
        Err(RuleError::RouteLengthsDiffer { light: 16, dark: 1 })
    );
    assert_eq!(
        sawah_with(|s| s.light_route.clear()),
        Err(RuleError::BadRouteLength {
            player: Player::Light,
            len: 0
        })
    );
    assert_eq!(
        sawah_with(|s| {
            s.board.push(Cell::new(3, 0));
            s.marks.cells.push(Cell::new(3, 0));
        }),
        Err(RuleError::MarkOffRoutes(Cell::new(3, 0)))
    );
    assert_eq!(
        sawah_with(|s| s.marks.cells.push(Cell::new(1, 3))),
        Err(RuleError::DuplicateMark(Cell::new(1, 3)))
    );
    assert!(matches!(
        sawah_with(|s| s.dice = vec![0.5, 0.4]),
        Err(RuleError::Dice(DiceError::SumNotOne { .. }))
    ));
    // Light's corner mark without dark's: the players are not treated alike.
    assert!(matches!(
        sawah_with(|s| s.marks.cells.retain(|&c| c != Cell::new(2, 0))),
        Err(RuleError::Asymmetric(_))
    ));
    // A dark route running the middle row backwards would meet light head on
    // everywhere, but not symmetrically with light's entry.
    assert!(matches!(
        sawah_with(|s| {
            let mut dark: Vec<Cell> = (0..4).map(|c| Cell::new(2, 3 - c)).collect();
            dark.extend((0..12).rev().map(|c| Cell::new(1, c)));
            s.dark_route = Some(dark);
        }),
        Err(RuleError::Asymmetric(_))
    ));
    assert_eq!(
        sawah_with(|s| {
            s.board.push(Cell::new(4, 0));
            s.light_route[0] = Cell::new(4, 0);
        }),
        Err(RuleError::CannotMirror(Cell::new(4, 0)))
    );
}

#[test]
fn file_errors_name_the_file() {
    let dir = std::env::temp_dir().join(format!("sawah-rulefile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad-dice.toml");
    let mut spec = race::preset_spec("ur").unwrap();
    spec.name = "ur-bad".into();
    spec.dice = vec![0.5, 0.25];
    std::fs::write(&path, toml::to_string(&spec).unwrap()).unwrap();
    let message = RuleSet::from_file(&path).unwrap_err().to_string();
    assert!(
        message.contains("bad-dice.toml") && message.contains("sum to 0.75"),
        "{message}"
    );
    let path = dir.join("unknown-field.json");
    std::fs::write(&path, r#"{"name":"x","pieces":1,"colour":"red"}"#).unwrap();
    let message = RuleSet::from_file(&path).unwrap_err().to_string();
    assert!(message.contains("colour"), "{message}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Dice with which a piece can reach a square it can never leave (it
/// leaves only with the exact roll) are refused when the rules load,
/// naming the square: no game on them would have to end.
#[test]
fn rules_where_no_game_has_to_end_are_refused_naming_the_square() {
    // Sawah's route is 16 squares: a piece leaves on the exact 17th step.
    // Only 2s and 4s: the sums are even, so never, from the start on.
    let even = sawah_with(|spec| spec.dice = vec![0.5, 0.0, 0.25, 0.0, 0.25]);
    match &even {
        Err(RuleError::CannotFinish { square, rolls, off }) => {
            assert_eq!((*square, rolls.as_str(), *off), (0, "2, 4", 17));
        }
        other => panic!("{other:?}"),
    }
    let message = even.unwrap_err().to_string();
    assert!(
        message.contains("square 0") && message.contains("never"),
        "{message}"
    );
    // Only 0s: nothing ever moves (the dice refuse it themselves).
    assert!(sawah_with(|spec| spec.dice = vec![1.0, 0.0]).is_err());
    // Only 3s: 17 is no multiple of 3, so from the start never either;
    // 0s and 1s: every square finishes.
    assert!(sawah_with(|spec| spec.dice = vec![0.5, 0.0, 0.0, 0.5]).is_err());
    assert!(sawah_with(|spec| spec.dice = vec![0.5, 0.5]).is_ok());
    // Every preset can end.
    for name in race::all_preset_names() {
        assert!(race::preset(name).is_some(), "{name}");
    }
}
