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

/// The rule files the levels build's self-play route is measured on
/// (docs/training.md): ur with four pieces, and a 20-square, 7-piece route
/// past the solver's index.
#[test]
fn the_self_play_route_files_are_what_their_comments_say() {
    let four = RuleSet::from_file(&example("ur-four.toml")).unwrap();
    let ur = race::preset("ur").unwrap();
    assert_eq!(four.pieces(), 4);
    assert_eq!(four.route(Player::Light), ur.route(Player::Light));
    assert_eq!(four.route(Player::Dark), ur.route(Player::Dark));
    assert_eq!(four.dice(), ur.dice());
    assert_eq!(valid_position_count(&four), 2_606_946);
    let long = RuleSet::from_file(&example("long-seven.toml")).unwrap();
    assert_eq!((long.pieces(), long.route(Player::Light).len()), (7, 20));
    assert_eq!(valid_position_count(&long), 15_731_293_851);
    assert!(valid_position_count(&long) > (1 << 30));
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

/// One change to a rule description, as a careless or hostile author
/// might make it.
#[derive(Clone, Debug)]
enum Edit {
    /// A field removed.
    Remove(&'static str),
    /// A field set to any JSON.
    Set(&'static str, serde_json::Value),
    /// An element of a list field set to any JSON.
    SetElement(&'static str, usize, serde_json::Value),
    /// A list field cut to its first elements.
    Truncate(&'static str, usize),
}

const FIELDS: [&str; 10] = [
    "name",
    "description",
    "pieces",
    "board",
    "light_route",
    "dark_route",
    "marks",
    "dice",
    "capture_extra_roll",
    "unknown_key",
];

fn any_json() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        (-3i64..40).prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        (0.0f64..1.0).prop_map(serde_json::Value::from),
        "[a-z\\[\\], \u{1b}]{0,8}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(2, 12, 5, |inner| {
        prop::collection::vec(inner, 0..5).prop_map(serde_json::Value::from)
    })
}

fn any_edit() -> impl proptest::strategy::Strategy<Value = Edit> {
    use proptest::prelude::*;
    let field = prop::sample::select(FIELDS.to_vec());
    prop_oneof![
        field.clone().prop_map(Edit::Remove),
        (field.clone(), any_json()).prop_map(|(f, v)| Edit::Set(f, v)),
        (field.clone(), 0usize..24, any_json()).prop_map(|(f, i, v)| Edit::SetElement(f, i, v)),
        (field, 0usize..24).prop_map(|(f, n)| Edit::Truncate(f, n)),
    ]
}

fn edited(mut spec: serde_json::Value, edits: &[Edit]) -> serde_json::Value {
    let Some(object) = spec.as_object_mut() else {
        return spec;
    };
    for edit in edits {
        match edit {
            Edit::Remove(field) => {
                object.remove(*field);
            }
            Edit::Set(field, value) => {
                object.insert(field.to_string(), value.clone());
            }
            Edit::SetElement(field, at, value) => {
                if let Some(slot) = object
                    .get_mut(*field)
                    .and_then(|list| list.as_array_mut())
                    .and_then(|list| list.get_mut(*at))
                {
                    *slot = value.clone();
                }
            }
            Edit::Truncate(field, len) => {
                if let Some(list) = object.get_mut(*field).and_then(|l| l.as_array_mut()) {
                    list.truncate(*len);
                }
            }
        }
    }
    spec
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
        crate::common::fuzz_cases(2000)
    ))]

    /// Any edit of a preset's description, written as TOML or JSON, loads
    /// or is refused with an error naming the file, never a panic; a rule
    /// set that loads writes out and reads back as the same rules, and
    /// plays.
    #[test]
    fn any_rule_file_loads_or_is_refused_naming_the_file(
        which in 0usize..64,
        edits in proptest::collection::vec(any_edit(), 0..4),
        as_toml in proptest::prelude::any::<bool>(),
        cut in proptest::option::of(0usize..2000),
        seed in proptest::prelude::any::<u64>(),
    ) {
        use sawah_engine::race::RuleFileFormat;
        let names: Vec<&str> = race::all_preset_names().collect();
        let preset = race::preset(names[which % names.len()]).unwrap();
        let spec = edited(serde_json::to_value(preset.spec()).unwrap(), &edits);
        // TOML has no null: such a description is written as JSON.
        let (text, format, shown) = match toml::to_string(&spec) {
            Ok(text) if as_toml => (text, RuleFileFormat::Toml, "fuzz.toml"),
            _ => (spec.to_string(), RuleFileFormat::Json, "fuzz.json"),
        };
        let mut bytes = text.into_bytes();
        if let Some(cut) = cut {
            bytes.truncate(cut);
        }
        match RuleSet::from_bytes(&bytes, shown, format) {
            Ok(rules) => {
                let written = serde_json::to_vec(rules.spec()).unwrap();
                let again = RuleSet::from_bytes(&written, "again.json", RuleFileFormat::Json);
                proptest::prop_assert!(again.as_ref().ok() == Some(&rules), "{:?}", again);
                let mut dice = DiceSource::from_seed(seed);
                let mut position = rules.start();
                for _ in 0..200 {
                    if rules.winner(&position).is_some() {
                        break;
                    }
                    let roll = dice.roll(rules.dice());
                    let legal = rules.legal_moves(&position, roll);
                    position = match legal.first() {
                        None => rules.pass(&position),
                        Some(&mv) => rules.apply(&position, mv).position,
                    };
                }
            }
            Err(error) => {
                let message = error.to_string();
                proptest::prop_assert!(message.contains(shown), "{}", message);
            }
        }
    }
}
