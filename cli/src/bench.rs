//! `sawah bench`: random-playout speed on one core, and game lengths under random play.

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
