//! `sawah bench`: random-playout speed on one core, and game lengths under random play.

use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::search::{Search, SearchOptions};
use sawah_engine::playout::positions_with_rolls;
use sawah_engine::playout::random_playout;
use sawah_engine::{DiceSource, Game};
use std::time::{Duration, Instant};

/// What one benchmark run measured.
#[derive(Clone, Debug)]
pub struct PlayoutBench {
    /// Rule set id.
    pub rules: String,
    /// Finished games.
    pub games: u64,
    /// Moves made (passes not counted).
    pub moves: u64,
    /// Rolls made (passes and extra rolls included).
    pub plies: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// Rolls per game, sorted ascending.
    pub lengths: Vec<u32>,
}

impl PlayoutBench {
    /// Moves per second.
    pub fn moves_per_second(&self) -> f64 {
        self.moves as f64 / self.elapsed.as_secs_f64()
    }

    /// The game length (in rolls) at quantile `q` in [0, 1].
    pub fn length_quantile(&self, q: f64) -> u32 {
        if self.lengths.is_empty() {
            return 0;
        }
        let index = ((self.lengths.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
        self.lengths[index]
    }
}

/// Plays random games (roll, generate, pick uniformly, apply) on this thread
/// for at least `duration`.
pub fn random_playouts<G: Game>(game: &G, seed: u64, duration: Duration) -> PlayoutBench {
    let mut source = DiceSource::from_seed(seed);
    let start = Instant::now();
    let (mut games, mut moves, mut plies) = (0, 0, 0);
    let mut lengths = Vec::new();
    while start.elapsed() < duration {
        for _ in 0..64 {
            let stats = random_playout(game, game.start(), &mut source, u64::MAX);
            games += 1;
            moves += stats.moves;
            plies += stats.plies;
            lengths.push(u32::try_from(stats.plies).unwrap_or(u32::MAX));
        }
    }
    let elapsed = start.elapsed();
    lengths.sort_unstable();
    PlayoutBench {
        rules: game.name().to_string(),
        games,
        moves,
        plies,
        elapsed,
        lengths,
    }
}

/// Plain expectiminimax against Star2 choosing a move at `ply` on `count`
/// positions from random games: nodes, time, nodes per second, and whether
/// they chose the same moves. One line of text per search kind.
pub fn search<G: HasHeuristic>(game: &G, ply: u8, count: usize, seed: u64) -> String {
    let evaluator = game.heuristic();
    let samples = positions_with_rolls(game, seed, count, 2);
    let mut lines = Vec::new();
    let mut choices: Vec<Vec<usize>> = Vec::new();
    let mut totals = Vec::new();
    for (label, pruning) in [("plain", false), ("star2", true)] {
        let options = SearchOptions {
            pruning,
            ..SearchOptions::default()
        };
        let start = Instant::now();
        let mut nodes = 0;
        let mut chosen = Vec::with_capacity(samples.len());
        for (position, roll) in &samples {
            let moves = game.legal_moves(position, *roll);
            let mut search = Search::new(game, &evaluator, options);
            let index = if pruning {
                search.best_move(position, &moves, ply + 1).0
            } else {
                sawah_agents::evaluator::best_index(&search.move_values(position, &moves, ply + 1))
            };
            nodes += search.nodes;
            chosen.push(index);
        }
        let seconds = start.elapsed().as_secs_f64();
        lines.push(format!(
            "{:<12} {label}: {nodes:>10} nodes ({:>8.0} per position), {:>7.3} s, {:>6.2} M nodes/s, {:>6.2} ms per move",
            game.name(),
            nodes as f64 / samples.len() as f64,
            seconds,
            nodes as f64 / seconds / 1e6,
            seconds * 1e3 / samples.len() as f64,
        ));
        choices.push(chosen);
        totals.push(nodes);
    }
    lines.push(format!(
        "{:<12} star2 visits {:.2}x fewer nodes; same move in {} of {} positions",
        game.name(),
        totals[0] as f64 / totals[1] as f64,
        choices[0]
            .iter()
            .zip(&choices[1])
            .filter(|(a, b)| a == b)
            .count(),
        samples.len()
    ));
    lines.join("\n")
}

/// What the neural benchmark measured.
#[derive(Clone, Debug)]
pub struct NeuralBench {
    /// Rule set id.
    pub rules: String,
    /// Layer widths.
    pub widths: Vec<usize>,
    /// Trainable parameters.
    pub parameters: usize,
    /// Evaluations made (encode + forward, one position at a time).
    pub evaluations: u64,
    /// Wall time.
    pub elapsed: Duration,
}

/// Evaluates positions from random games one at a time (batch size 1:
/// encode, then the forward pass) on this thread for at least `duration`.
pub fn neural<G: HasHeuristic>(
    game: &G,
    net: &sawah_agents::neural::NeuralNet,
    seed: u64,
    duration: Duration,
) -> NeuralBench {
    let positions: Vec<G::Position> = positions_with_rolls(game, seed, 4096, 0)
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    let start = Instant::now();
    let mut evaluations = 0u64;
    let mut sum = 0.0;
    while start.elapsed() < duration {
        for p in &positions {
            sum += net.evaluate(game, std::hint::black_box(p));
        }
        evaluations += positions.len() as u64;
    }
    std::hint::black_box(sum);
    NeuralBench {
        rules: game.name().to_string(),
        widths: net.widths(),
        parameters: net.parameters(),
        evaluations,
        elapsed: start.elapsed(),
    }
}

/// Latency of one agent's `choose` over positions from random games.
#[derive(Clone, Debug)]
pub struct ChooseBench {
    /// Milliseconds per decision, sorted ascending.
    pub millis: Vec<f64>,
}

impl ChooseBench {
    /// The latency at quantile `q` in [0, 1], in milliseconds.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.millis.is_empty() {
            return 0.0;
        }
        self.millis[((self.millis.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize]
    }
}

/// Times `agent` choosing a move (agent built once, as a server keeps it)
/// on `positions` positions with at least two legal moves.
pub fn choose_latency<G: HasHeuristic>(
    game: &G,
    agent: &mut dyn sawah_agents::Agent<G>,
    positions: usize,
    seed: u64,
) -> ChooseBench {
    let mut millis: Vec<f64> = positions_with_rolls(game, seed, positions, 2)
        .into_iter()
        .map(|(position, roll)| {
            let moves = game.legal_moves(&position, roll);
            let start = Instant::now();
            std::hint::black_box(agent.choose(game, &position, roll, &moves));
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    millis.sort_by(f64::total_cmp);
    ChooseBench { millis }
}

/// Microseconds `bot` takes to answer each of `lines`, in order, after
/// answering them all `warmup` times untimed.
pub fn protocol_latency(bot: &sawah_protocol::Bot, lines: &[&str], warmup: usize) -> Vec<f64> {
    for _ in 0..warmup {
        for line in lines {
            std::hint::black_box(bot.handle_line(line));
        }
    }
    lines
        .iter()
        .map(|line| {
            let start = Instant::now();
            std::hint::black_box(bot.handle_line(line));
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect()
}
