//! Hand-tuning aid for the heuristic weights: coordinate search against a
//! fixed opponent with paired dice. Not part of the product; the weights it
//! finds are copied into `agents/src/heuristic/` by hand.
//!
//! cargo run --release -p sawah-eval --example tune_heuristic -- senet 4000

use rayon::prelude::*;
use sawah_agents::heuristic::{RaceHeuristic, SenetHeuristic, Weights};
use sawah_agents::search::SearchOptions;
use sawah_agents::{Evaluator, RandomAgent, SearchAgent};
use sawah_engine::{Game, Player, race, senet::Senet};
use sawah_eval::arena::matches::{pair_seed, play_game};

/// The tuned evaluation's score against `opponent` (None: random play).
fn score<G, E>(game: &G, evaluator: &E, opponent: Option<&E>, pairs: u64) -> f64
where
    G: Game + Sync,
    E: Evaluator<G> + Clone + Sync,
{
    let total: f64 = (0..pairs)
        .into_par_iter()
        .map(|i| {
            let seed = pair_seed(99, i);
            let mut total = 0.0;
            for seat in [Player::Light, Player::Dark] {
                let mut me = SearchAgent::new(
                    "h".into(),
                    evaluator.clone(),
                    0,
                    None,
                    0.0,
                    0,
                    SearchOptions::default(),
                );
                let mut other: Box<dyn sawah_agents::Agent<G>> = match opponent {
                    None => Box::new(RandomAgent::new(seed)),
                    Some(e) => Box::new(SearchAgent::new(
                        "o".into(),
                        e.clone(),
                        0,
                        None,
                        0.0,
                        0,
                        SearchOptions::default(),
                    )),
                };
                let outcome = if seat == Player::Light {
                    play_game(game, &mut me, other.as_mut(), seed)
                } else {
                    play_game(game, other.as_mut(), &mut me, seed)
                };
                total += f64::from(u8::from(outcome.winner == Some(seat)));
            }
            total
        })
        .sum();
    total / (2 * pairs) as f64
}

fn tune(weights: &mut Weights, pairs: u64, eval: impl Fn(&Weights) -> f64) {
    let mut best = eval(weights);
    println!(
        "start {best:.4} {:?} bias {}",
        weights.weights, weights.bias
    );
    for round in 0..3 {
        for factor in [0.0, 0.5, 2.0, -1.0] {
            let mut trial = weights.clone();
            trial.bias = if factor == 0.0 {
                0.0
            } else {
                trial.bias * factor
            };
            let s = eval(&trial);
            if s > best + 1.0 / (pairs as f64).sqrt() / 2.0 {
                best = s;
                *weights = trial;
                println!("round {round}: bias -> {:.4} {}", best, weights.bias);
            }
        }
        for i in 0..weights.weights.len() {
            for factor in [0.5, 2.0, 4.0, -1.0, 0.0] {
                let mut trial = weights.clone();
                trial.weights[i] = if factor == 0.0 {
                    0.0
                } else {
                    trial.weights[i] * factor
                };
                let s = eval(&trial);
                if s > best + 1.0 / (pairs as f64).sqrt() / 2.0 {
                    best = s;
                    *weights = trial;
                    println!(
                        "round {round}: {} -> {:.4} {:?}",
                        weights.names[i], best, weights.weights
                    );
                }
            }
        }
    }
    println!("final {best:.4} {:?}", weights.weights);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let family = args.get(1).map(String::as_str).unwrap_or("senet");
    let pairs: u64 = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(2000);
    let against_default = args.get(3).is_some_and(|a| a == "vs-default");
    match family {
        "senet" => {
            let game = Senet::new();
            let mut w = SenetHeuristic::default().weights;
            let base = SenetHeuristic::default();
            let opponent = against_default.then_some(&base);
            tune(&mut w, pairs, |w| {
                score(
                    &game,
                    &SenetHeuristic { weights: w.clone() },
                    opponent,
                    pairs,
                )
            });
        }
        name => {
            let game = race::preset(name).expect("a race preset");
            let mut w = RaceHeuristic::default().weights;
            let base = RaceHeuristic::default();
            let opponent = against_default.then_some(&base);
            tune(&mut w, pairs, |w| {
                score(
                    &game,
                    &RaceHeuristic { weights: w.clone() },
                    opponent,
                    pairs,
                )
            });
        }
    }
}
