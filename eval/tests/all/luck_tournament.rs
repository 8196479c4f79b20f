//! Luck-adjusted tournaments on ur-2 with its solved table: the results
//! file carries every game's luck and the reference, the adjusted Elo
//! agrees with the match's adjusted scores, resuming and merging keep to
//! one reference, and shards merge into the unsharded run's table.

use sawah_agents::AgentSpec;
use sawah_eval::arena::entrant::Entrant;
use sawah_eval::arena::luck::{LuckMeter, ReviewLuck};
use sawah_eval::arena::matches::play_match_with_luck;
use sawah_eval::arena::merge::{MergeError, merge};
use sawah_eval::arena::results::{self, GameRecord};
use sawah_eval::arena::tournament::{Format, Shard, Tournament, run_with_luck};
use sawah_eval::ratings::report::{EloTable, TableOptions, elo_table};
use std::path::PathBuf;

struct Fixture {
    rules: sawah_engine::race::RuleSet,
    meter: ReviewLuck,
    path: String,
    table: std::sync::Arc<sawah_agents::table::Table>,
}

fn fixture(name: &str) -> Fixture {
    let (rules, table, path) = crate::common::solved_ur2(name);
    let meter = ReviewLuck::new(crate::common::table_bot(&table, &path), "ur-2", None).unwrap();
    Fixture {
        rules,
        meter,
        path,
        table,
    }
}

fn tournament(agents: &[&str], games: u64, shard: Shard) -> Tournament {
    Tournament {
        rules: "ur-2".into(),
        rules_digest: "test".into(),
        agents: agents
            .iter()
            .map(|a| Entrant::Builtin(AgentSpec::parse(a, "ur-2").unwrap()))
            .collect(),
        labels: agents.iter().map(|a| a.to_string()).collect(),
        format: Format::RoundRobin,
        games_per_pairing: games,
        seed: 11,
        shard,
        command: None,
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sawah-luck-t-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn adjusted_table(games: &[GameRecord], order: &[String], reference: &str) -> EloTable {
    let options = TableOptions {
        anchor: (None, 0.0),
        luck_reference: Some(reference.to_string()),
        ..TableOptions::default()
    };
    elo_table("ur-2", games, order, &options, &Default::default()).unwrap()
}

#[test]
fn a_two_agent_tournament_carries_the_adjusted_scores_of_the_same_match() {
    let f = fixture("lt-match");
    let agents = ["heuristic", "expectiminimax:depth=1"];
    let t = tournament(&agents, 40, Shard::ALL);
    let dir = scratch("match");
    let summary = run_with_luck(&f.rules, &t, &dir, Some(&f.meter), &|_| {}).unwrap();
    let file = results::read(&dir).unwrap();
    assert_eq!(file.header.luck.as_ref(), Some(f.meter.reference()));
    assert_eq!(summary.games.len(), 40);
    // The first agent's adjusted pair scores (points per game), by pair.
    let mut by_pair = [0.0; 20];
    for game in &file.games {
        let light = game
            .adjusted_light_score()
            .expect("every game carries its luck");
        by_pair[game.pair as usize] += 0.5
            * if game.light == agents[0] {
                light
            } else {
                1.0 - light
            };
    }
    let [first, second] = agents.map(|a| Entrant::Builtin(AgentSpec::parse(a, "ur-2").unwrap()));
    let matched = play_match_with_luck(&f.rules, &first, &second, 40, 11, &f.meter).unwrap();
    let expected = matched.adjusted_pair_scores.unwrap();
    for (pair, (got, want)) in by_pair.iter().zip(&expected).enumerate() {
        assert!((got - want).abs() < 1e-12, "pair {pair}: {got} vs {want}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_agent_and_a_copy_of_itself_rate_exactly_equal_on_adjusted_scores() {
    let f = fixture("lt-copy");
    let agents = ["expectiminimax:depth=1", "expectiminimax:depth=1:seed=2"];
    let t = tournament(&agents, 60, Shard::ALL);
    let dir = scratch("copy");
    let summary = run_with_luck(&f.rules, &t, &dir, Some(&f.meter), &|_| {}).unwrap();
    let table = adjusted_table(&summary.games, &t.names(), &f.meter.reference().name);
    let luck = table.luck.as_ref().unwrap();
    for row in &table.rows {
        let adjusted = row.adjusted.as_ref().unwrap();
        assert!(adjusted.elo.abs() < 1e-6, "{table:?}");
        assert!(adjusted.ci_high - adjusted.ci_low < 1e-3, "{table:?}");
        // The raw table does not know: its interval is a game's spread.
        assert!(
            row.ci_high - row.ci_low > 50.0 || row.agent == agents[0],
            "{table:?}"
        );
    }
    assert_eq!(luck.shares.len(), 1);
    assert!(
        (luck.shares[0].2 - 1.0).abs() < 1e-9,
        "all the luck out between equals"
    );
    // Between equals, moving first is worth light's mean adjusted score:
    // the start value plus the mean of dark's losses minus light's, what
    // the dice cannot change.
    let light_mean = summary
        .games
        .iter()
        .map(|g| g.adjusted_light_score().unwrap())
        .sum::<f64>()
        / summary.games.len() as f64;
    let first_move_score = 1.0 / (1.0 + 10f64.powf(-luck.first_move_elo.0 / 400.0));
    assert!(
        (first_move_score - light_mean).abs() < 1e-9,
        "{luck:?} mean {light_mean}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn resuming_with_another_luck_setting_is_refused_by_name() {
    let f = fixture("lt-resume");
    let t = tournament(&["random", "heuristic"], 4, Shard::ALL);
    let dir = scratch("resume");
    run_with_luck(&f.rules, &t, &dir, Some(&f.meter), &|_| {}).unwrap();
    let err = run_with_luck(&f.rules, &t, &dir, None, &|_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("luck reference"), "{err}");
    let other = ReviewLuck::new(
        crate::common::table_bot(&f.table, &f.path),
        "ur-2",
        Some("expectiminimax:depth=1".into()),
    )
    .unwrap();
    let err = run_with_luck(&f.rules, &t, &dir, Some(&other), &|_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("luck reference"), "{err}");
    // The same reference resumes: nothing left to play.
    let summary = run_with_luck(&f.rules, &t, &dir, Some(&f.meter), &|_| {}).unwrap();
    assert_eq!((summary.played, summary.resumed), (0, 4));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shards_merge_into_the_unsharded_adjusted_table_and_one_reference_only() {
    let f = fixture("lt-shards");
    let agents = ["random", "heuristic", "expectiminimax:depth=1"];
    let whole_dir = scratch("whole");
    let whole = run_with_luck(
        &f.rules,
        &tournament(&agents, 20, Shard::ALL),
        &whole_dir,
        Some(&f.meter),
        &|_| {},
    )
    .unwrap();
    let mut shard_dirs = Vec::new();
    for index in 1..=2 {
        let dir = scratch(&format!("shard{index}"));
        let t = tournament(&agents, 20, Shard { index, count: 2 });
        run_with_luck(&f.rules, &t, &dir, Some(&f.meter), &|_| {}).unwrap();
        shard_dirs.push(dir);
    }
    let merged = merge(&shard_dirs, true, &mut |_| {}).unwrap();
    assert_eq!(merged.luck.as_ref(), Some(f.meter.reference()));
    let order: Vec<String> = agents.iter().map(|a| a.to_string()).collect();
    let reference = &f.meter.reference().name;
    let from_shards = adjusted_table(&merged.games, &order, reference);
    let unsharded = adjusted_table(&whole.games, &order, reference);
    for (a, b) in from_shards.rows.iter().zip(&unsharded.rows) {
        assert_eq!(a.agent, b.agent);
        let (a, b) = (a.adjusted.as_ref().unwrap(), b.adjusted.as_ref().unwrap());
        assert!((a.elo - b.elo).abs() < 1e-9 && (a.ci_low - b.ci_low).abs() < 1e-9);
    }

    // A folder without luck, or with another reference's, is refused.
    let raw_dir = scratch("raw");
    run_with_luck(
        &f.rules,
        &tournament(&agents, 4, Shard::ALL),
        &raw_dir,
        None,
        &|_| {},
    )
    .unwrap();
    let refused = |dirs: &[PathBuf], words: &str| match merge(dirs, true, &mut |_| {}) {
        Err(MergeError::Conflict(text)) => assert!(text.contains(words), "{text}"),
        other => panic!("{words}: {other:?}"),
    };
    refused(
        &[whole_dir.clone(), raw_dir.clone()],
        "without --luck-adjusted",
    );
    let other = ReviewLuck::new(
        crate::common::table_bot(&f.table, &f.path),
        "ur-2",
        Some("expectiminimax:depth=1".into()),
    )
    .unwrap();
    let other_dir = scratch("other");
    let t = tournament(&agents, 4, Shard::ALL);
    run_with_luck(&f.rules, &t, &other_dir, Some(&other), &|_| {}).unwrap();
    refused(&[whole_dir.clone(), other_dir.clone()], "one reference");
    // Without --luck-adjusted they all merge, on raw scores.
    let all = [whole_dir.clone(), raw_dir.clone(), other_dir.clone()];
    assert!(merge(&all, false, &mut |_| {}).unwrap().luck.is_none());
    for dir in shard_dirs.iter().chain(&all) {
        std::fs::remove_dir_all(dir).unwrap();
    }
}
