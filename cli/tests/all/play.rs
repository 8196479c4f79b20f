//! Terminal play with scripted input.

use sawah_cli::commands::play::game::{PlayOptions, play};

use crate::common::scripted;
use sawah_engine::{Player, race};

#[test]
fn a_scripted_person_finishes_a_game_on_every_named_rule_set() {
    for name in race::NAMED_RULE_SETS {
        let rules = race::preset(name).unwrap();
        // Always pick the first move; some bad answers sprinkled in are asked again.
        let input = "0\nabc\n\n1\n".to_string() + &"1\n".repeat(5_000);
        let mut output = Vec::new();
        let options = PlayOptions::seeded(Player::Light, 5);
        let winner = play(&rules, &options, input.as_bytes(), &mut output).unwrap();
        let text = String::from_utf8(output).unwrap();
        assert!(
            winner.is_some(),
            "{name}: game did not finish:\n{}",
            &text[text.len().saturating_sub(2000)..]
        );
        assert!(text.contains("\"0\" is not a move"), "{name}");
        assert!(text.contains("\"abc\" is not a move"), "{name}");
        assert!(text.contains("has borne off every piece"), "{name}");
        assert_fits_80_columns(name, &text);
    }
}

/// Every line the game printed, board, key and text alike, fits an
/// 80-column terminal.
fn assert_fits_80_columns(name: &str, text: &str) {
    // A prompt ends where the person's answer (not in this output) begins.
    let text = text.replace("]: ", "]:\n");
    for line in text.lines() {
        assert!(
            line.chars().count() <= 80,
            "{name}: {} columns: {line:?}",
            line.chars().count()
        );
    }
}

#[test]
fn every_rule_set_fits_80_columns_with_help_hints_and_turn_numbers() {
    let mut names: Vec<&str> = race::NAMED_RULE_SETS.to_vec();
    names.push("senet");
    let mut registry = sawah_engine::Registry::new();
    for name in names {
        let game = registry.resolve(name).unwrap();
        // Help and a hint on the first turns, then the first move always.
        let input = "?\nh\n1\n".repeat(3) + &"1\n".repeat(5_000);
        let mut output = Vec::new();
        let mut options = PlayOptions::seeded(Player::Light, 5);
        options.hints = Some(std::sync::Arc::new(sawah_protocol::Bot::new(
            sawah_engine::Registry::new(),
        )));
        let played = sawah_engine::with_game!(&game, g => sawah_cli::commands::play::game::play_game(g, &options, input.as_bytes(), &mut output)).unwrap();
        let text = String::from_utf8(output).unwrap();
        assert_fits_80_columns(name, &text);
        assert!(
            text.contains(&format!("Rules of {name}:")),
            "{name}: {text}"
        );
        assert!(
            text.contains("Your moves, best first, by "),
            "{name}: {text}"
        );
        assert!(text.contains("Turn 1: "), "{name}");
        // The turn numbers are the record's, as the review numbers them:
        // the last one printed is the winning move, the record's last.
        let last: usize = text
            .lines()
            .filter_map(|l| l.strip_prefix("Turn ")?.split(':').next()?.parse().ok())
            .max()
            .unwrap();
        assert_eq!(last, played.moves.len(), "{name}");
    }
}

#[test]
fn end_of_input_abandons_the_game_without_error() {
    let rules = race::preset("ur").unwrap();
    let mut output = Vec::new();
    let options = PlayOptions::seeded(Player::Dark, 1);
    let winner = play(&rules, &options, "2\n".as_bytes(), &mut output).unwrap();
    assert_eq!(winner, None);
    assert!(
        String::from_utf8(output)
            .unwrap()
            .contains("Game abandoned")
    );
}

#[test]
fn the_board_is_drawn_with_its_shape() {
    let rules = race::preset("ur").unwrap();
    let mut output = Vec::new();
    let options = PlayOptions::seeded(Player::Light, 1);
    play(&rules, &options, "q\n".as_bytes(), &mut output).unwrap();
    let text = String::from_utf8(output).unwrap();
    // The Ur board has a gap of two cells in the outer rows, and light's
    // route numbers 1-4 then 14, 13 on its own row.
    assert!(
        text.contains("  [ 4 ][ 3 ][ 2 ][ 1 ]          [14 ][13 ]"),
        "{text}"
    );
    assert!(
        text.contains("[ * ][   ][   ][   ]          [ * ][   ]"),
        "{text}"
    );
}

#[test]
fn senet_plays_to_the_end_and_shows_the_score() {
    let senet = sawah_engine::senet::Senet::new();
    let input = "1\n".repeat(20_000);
    let mut output = Vec::new();
    let winner = play(
        &senet,
        &PlayOptions::seeded(Player::Light, 3),
        input.as_bytes(),
        &mut output,
    )
    .unwrap();
    let text = String::from_utf8(output).unwrap();
    assert!(winner.is_some());
    assert!(
        text.contains("Score for the first player (light): "),
        "{}",
        &text[text.len().saturating_sub(500)..]
    );
    assert!(text.contains("[ankh]") && text.contains("[nfr ]"));
}

#[test]
fn the_daily_game_uses_the_days_throws_in_order() {
    use sawah_cli::commands::play::game::Rolls;
    use sawah_engine::senet::daily::{DailyThrows, daily_throws};
    let senet = sawah_engine::senet::Senet::new();
    let date = "2026-11-30";
    let mut options = PlayOptions::seeded(Player::Light, 3);
    options.rolls = Rolls::Daily {
        date: date.into(),
        throws: DailyThrows::new(date).unwrap(),
    };
    let mut output = Vec::new();
    play(
        &senet,
        &options,
        "1\n".repeat(20_000).as_bytes(),
        &mut output,
    )
    .unwrap();
    let text = String::from_utf8(output).unwrap();
    assert!(text.contains("The game of the day 2026-11-30"));
    // Every roll printed, by either player, in order, is the day's sequence.
    let rolls: Vec<u8> = text
        .lines()
        .filter_map(|l| {
            l.split_once("rolled ")
                .map(|(_, rest)| rest[..1].parse().unwrap())
        })
        .collect();
    assert!(rolls.len() > 50);
    assert_eq!(rolls, daily_throws(date, rolls.len()).unwrap());
}

#[test]
fn the_computer_can_be_any_agent() {
    let rules = race::preset("babylon").unwrap();
    let mut options = PlayOptions::seeded(Player::Light, 8);
    options.opponent = sawah_agents::AgentSpec::parse("medium", "babylon")
        .unwrap()
        .into();
    let mut output = Vec::new();
    let winner = play(
        &rules,
        &options,
        "1\n".repeat(5_000).as_bytes(),
        &mut output,
    )
    .unwrap();
    let text = String::from_utf8(output).unwrap();
    assert!(winner.is_some());
    assert!(
        text.contains("the computer (expectiminimax:noise=0.015)"),
        "{}",
        &text[..300]
    );
}

#[test]
fn enter_plays_a_forced_move_help_lists_the_moves_and_moves_are_echoed() {
    let rules = race::preset("ur").unwrap();
    let options = PlayOptions::seeded(Player::Light, 3);
    // Seed 3: the first roll is a 2 with one legal move (enter -> 2).
    let mut output = Vec::new();
    play(&rules, &options, "?\n\nq\n".as_bytes(), &mut output).unwrap();
    let text = String::from_utf8(output).unwrap();
    assert!(text.contains("(your only move)"), "{text}");
    assert!(
        text.contains("Your moves: 1) enter -> 2. Type a move's number"),
        "{text}"
    );
    assert!(text.contains("You play enter -> 2."), "{text}");
    // With a choice, Enter alone is not a move.
    let mut output = Vec::new();
    let input = "\n".repeat(3) + "1\n" + &"\n".repeat(20) + "q\n";
    play(&rules, &options, input.as_bytes(), &mut output).unwrap();
    let text = String::from_utf8(output).unwrap();
    assert!(
        text.contains("\"\" is not a move: type a number from 1 to 2"),
        "{text}"
    );
}

#[test]
fn the_board_has_a_key_of_the_player_s_square_numbers_beside_or_below_it() {
    // Board and key side by side would take 104 columns on ur (42 each):
    // the key goes below the board.
    let rules = race::preset("ur").unwrap();
    let options = PlayOptions::seeded(Player::Light, 3);
    let mut output = Vec::new();
    play(&rules, &options, "q\n".as_bytes(), &mut output).unwrap();
    let text = String::from_utf8(output).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let key = lines
        .iter()
        .position(|l| l.trim() == "Your squares:")
        .unwrap_or_else(|| panic!("no key: {text}"));
    assert!(
        lines[..key].iter().any(|l| l.contains("[ * ][   ]")),
        "{text}"
    );
    assert!(
        lines[key..].iter().any(|l| l.contains("[ - ][ - ]")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains("[ 5 ][ 6 ][ 7 ][ 8 ][ 9 ][10 ][11 ][12 ]")),
        "{text}"
    );
}

#[test]
fn a_played_game_is_recorded_so_that_it_replays_to_its_end() {
    let rules = race::preset("ur-2").unwrap();
    let options = PlayOptions::seeded(Player::Dark, 8);
    let input = "1\n".repeat(2_000);
    let played =
        sawah_cli::commands::play::game::play_game(&rules, &options, input.as_bytes(), Vec::new())
            .unwrap();
    let winner = played.winner.expect("the game ends");
    let end = sawah_engine::record::replay(&rules, &played.moves, |_| {}).unwrap();
    assert_eq!(rules.winner(&end), Some(winner));
    // Reviewed (against the built-in hard, searching deeper), the short
    // review speaks to the player.
    let bot = sawah_protocol::Bot::new(sawah_engine::registry::Registry::new());
    let record = sawah_engine::record::Record {
        rules: "ur-2".into(),
        start: None,
        moves: played.moves.clone(),
    };
    let review = bot.review_record(&record, None, None).unwrap();
    let text = sawah_cli::commands::play::short_review(&review, Player::Dark);
    assert!(
        text.contains("You made") && text.contains("Luck: the dice gave you"),
        "{text}"
    );
    assert!(text.contains("Reference: hard searching"), "{text}");
}

#[test]
fn play_writes_the_review_when_the_game_ends() {
    let dir = std::env::temp_dir().join(format!("sawah-play-review-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (file, start) in [
        ("game.md", "# Review of a game of ur-2"),
        ("game.json", "{"),
        ("game.svg", "<svg"),
    ] {
        let path = dir.join(file);
        let path_text = path.to_str().unwrap();
        let args = [
            "play",
            "--rules",
            "ur-2",
            "--opponent",
            "random",
            "--seed",
            "4",
            "--review",
            path_text,
        ];
        let output = scripted(&args, &"1\n".repeat(2_000));
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(stdout.contains("The review is in"), "{stdout}");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with(start),
            "{file}: {}",
            &text[..text.len().min(200)]
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_played_game_is_saved_as_a_record_that_review_reads_and_a_json_review_reads_back() {
    let dir = std::env::temp_dir().join(format!("sawah-play-record-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (record, review) = (dir.join("game.json"), dir.join("review.json"));
    let (record_text, review_text) = (record.to_str().unwrap(), review.to_str().unwrap());
    let args = [
        "play",
        "--rules",
        "ur-2",
        "--opponent",
        "random",
        "--seed",
        "4",
        "--record",
        record_text,
        "--review",
        review_text,
    ];
    let output = scripted(&args, &"1\n".repeat(2_000));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(saved["rules"], "ur-2");
    assert_eq!(saved["light"], "you");
    assert_eq!(saved["dark"], "random");
    // The record and the JSON review both read back as the game.
    let reviewed = |file: &std::path::Path| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sawah"))
            .arg("review")
            .arg(file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let from_record = reviewed(&record);
    assert!(from_record.contains("light (`you`)"), "{from_record}");
    assert_eq!(from_record, reviewed(&review));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn output_paths_are_checked_before_the_game_starts() {
    for flag in ["--record", "--review"] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_sawah"))
            .args([
                "play",
                "--rules",
                "ur-2",
                "--opponent",
                "random",
                flag,
                "/nonexistent/folder/game.json",
            ])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(flag) && stderr.contains("does not exist"),
            "{stderr}"
        );
        // Refused before a board was drawn.
        assert!(
            output.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&output.stdout)
        );
    }
}
