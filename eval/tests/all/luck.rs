//! Luck-adjusted results on a tiny solved rule set: exact against a hand
//! computation from the table, exactly 0.5 for an agent against itself,
//! and the same expectation as the raw score with far less spread.

use sawah_agents::table::Table;
use sawah_agents::{AgentSpec, RandomAgent};
use sawah_engine::Player;
use sawah_engine::race::RuleSet;
use sawah_eval::arena::entrant::Entrant;
use sawah_eval::arena::gamelog::play_recorded;
use sawah_eval::arena::luck::{LuckMeter, ReviewLuck};
use sawah_eval::arena::matches::{pair_seed, play_match, play_match_with_luck};
use sawah_protocol::Bot;
use std::sync::Arc;

/// ur-2 solved exactly, a luck meter by perfect play from it, and a bot
/// holding the table.
fn solved() -> (RuleSet, Arc<Table>, ReviewLuck, Bot) {
    let (rules, table, path) = crate::common::solved_ur2("luck");
    let meter = ReviewLuck::new(crate::common::table_bot(&table, &path), "ur-2", None).unwrap();
    let bot = crate::common::table_bot(&table, &path);
    (rules, table, meter, bot)
}

fn spec(text: &str) -> Entrant {
    Entrant::Builtin(AgentSpec::parse(text, "ur-2").unwrap())
}

#[test]
fn with_a_table_the_adjusted_score_is_the_start_value_minus_the_losses() {
    let (rules, table, meter, bot) = solved();
    assert!(
        meter.reference().name.contains("exact"),
        "{:?}",
        meter.reference()
    );
    let start_value = table.value(&rules.start());
    for seed in 0..20 {
        // Random play loses a lot in both seats: the losses decide.
        let mut light = RandomAgent::new(seed);
        let mut dark = RandomAgent::new(seed + 100);
        let played = play_recorded(&rules, &mut light, &mut dark, pair_seed(7, seed));
        let luck = meter.luck(&played.moves).unwrap();
        let result = f64::from(u8::from(played.outcome.winner == Some(Player::Light)));
        // By hand from the table: the start value, then each move's loss
        // (the best move's value minus the played one's, both the table's).
        // Equal up to the table's f32 rounding and the solver's residual,
        // summed over the game's turns.
        let record = sawah_engine::record::Record {
            rules: "ur-2".into(),
            start: None,
            moves: played.moves.clone(),
        };
        let review = bot.review_record(&record, None, None).unwrap();
        let (mut light_loss, mut dark_loss) = (0.0, 0.0);
        for turn in &review.turns {
            let loss = turn.value_best - turn.value_played;
            match turn.player {
                Player::Light => light_loss += loss,
                Player::Dark => dark_loss += loss,
            }
        }
        let by_hand = start_value - light_loss + dark_loss;
        let adjusted = luck.adjusted(result, true);
        assert!(
            (adjusted - by_hand).abs() < 1e-5,
            "seed {seed}: adjusted {adjusted}, by hand {by_hand}"
        );
        // And from dark's seat, its complement.
        assert!((luck.adjusted(1.0 - result, false) - (1.0 - by_hand)).abs() < 1e-5);
    }
}

#[test]
fn an_agent_against_itself_scores_exactly_one_half_in_every_pair() {
    let (rules, _, meter, _) = solved();
    let same = spec("expectiminimax:depth=1");
    let result = play_match_with_luck(&rules, &same, &same, 40, 3, &meter).unwrap();
    let adjusted = result.adjusted_pair_scores.as_ref().unwrap();
    assert_eq!(adjusted.len(), 20);
    for (pair, score) in adjusted.iter().enumerate() {
        assert!((score - 0.5).abs() < 1e-12, "pair {pair}: {score}");
    }
}

#[test]
fn the_adjusted_score_keeps_the_raw_expectation_with_far_less_spread() {
    let (rules, _, meter, _) = solved();
    let (strong, weak) = (spec("expectiminimax:depth=1"), spec("heuristic:noise=0.05"));
    let luck = play_match_with_luck(&rules, &strong, &weak, 2000, 11, &meter).unwrap();
    // The luck-measuring match plays the very games of the plain one.
    let plain = play_match(&rules, &strong, &weak, 2000, 11).unwrap();
    assert_eq!(luck.pair_scores, plain.pair_scores);
    let (raw, adjusted) = (luck.score(), luck.adjusted_score().unwrap());
    // Unbiased: the two estimates agree within their intervals.
    assert!(
        adjusted.mean > raw.low && adjusted.mean < raw.high,
        "raw {raw:?}, adjusted {adjusted:?}"
    );
    // With a table, at least 5× fewer games for the same width: the
    // interval at least √5 ≈ 2.24× narrower.
    let ratio = (raw.high - raw.low) / (adjusted.high - adjusted.low);
    assert!(ratio >= 5f64.sqrt(), "only {ratio:.2}× narrower");
}

#[test]
fn an_sprt_on_adjusted_scores_accepts_a_better_agent_and_rejects_an_equal_one() {
    use sawah_eval::ratings::sprt::{Decision, EloModel, SprtParams, SprtSchedule, run_with_luck};
    let (rules, _, meter, _) = solved();
    let params = SprtParams {
        elo0: 0.0,
        elo1: 10.0,
        alpha: 0.05,
        beta: 0.05,
        model: EloModel::Logistic,
    };
    let schedule = SprtSchedule {
        seed: 5,
        batch: 32,
        max_pairs: 20_000,
    };
    let better = run_with_luck(
        &rules,
        &spec("expectiminimax:depth=1"),
        &spec("heuristic:noise=0.05"),
        &params,
        schedule,
        &meter,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(better.decision, Decision::AcceptH1, "{better:?}");
    let equal = run_with_luck(
        &rules,
        &spec("heuristic:noise=0.05:seed=1"),
        &spec("heuristic:noise=0.05:seed=2"),
        &params,
        schedule,
        &meter,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(equal.decision, Decision::AcceptH0, "{equal:?}");
    let moments = equal.adjusted.unwrap();
    assert_eq!(moments.n, equal.counts.pairs());
    assert!((moments.mean() - 0.5).abs() < 0.02, "{}", moments.mean());
}

#[test]
fn with_a_solved_table_the_roll_table_weighs_up_to_the_position_s_value() {
    // The roll table is what a roll's luck is measured from: with perfect
    // values, the rolls' best values weighted by their chances are the
    // table's value of the position before the roll.
    let (rules, table, _, bot) = solved();
    let mut position = rules.start();
    let mut dice = sawah_engine::DiceSource::from_seed(3);
    for _ in 0..12 {
        if rules.winner(&position).is_some() {
            break;
        }
        let json = sawah_engine::Codec::position_to_json(&rules, &position);
        let answer = bot.respond(&serde_json::json!({"cmd": "hint", "position": json}));
        let value = answer["value"].as_f64().unwrap();
        let exact = table.value(&position);
        assert!(
            (value - exact).abs() < 1e-5,
            "{value} against {exact}: {answer}"
        );
        let roll = dice.roll(rules.dice());
        let moves = rules.legal_moves(&position, roll);
        position = match moves.first() {
            Some(&mv) => rules.apply(&position, mv).position,
            None => rules.pass(&position),
        };
    }
}
