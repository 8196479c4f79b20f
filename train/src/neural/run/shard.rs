//! The loop of a shard (`sawah train-shard`), which plays its share of
//! each round a learner publishes in a run's exchange until the learner
//! finishes. The files and the protocol are [`super::exchange`]'s.

use super::error::{TrainError, file_error, write_atomically};
use super::exchange::{
    ShareHeader, beat_path, finished, folder_of, newest_round, read_description, samples_path,
    sha256_hex, share, write_samples,
};
use super::options::RunOptions;
use super::trainer::play_games;
use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::neural::NeuralNet;
use sawah_eval::arena::tournament::Shard;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What a shard did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Served {
    /// Rounds whose share it played.
    pub rounds: u64,
    /// Samples it wrote.
    pub samples: u64,
}

/// How often a shard looks for a new round, and beats.
const POLL: Duration = Duration::from_millis(100);
const BEAT: Duration = Duration::from_secs(1);

/// Plays shard `shard`'s share of every round published in the exchange
/// of the run `options.folder` (whose own record gives `options.config`),
/// with `options.teacher` and `options.exact` as the learner has them,
/// until the learner says it has finished. Gives up, with an error that
/// says so, after `idle` without a new round. The other fields of
/// `options` are not used.
pub fn serve<G>(
    game: &G,
    options: RunOptions<'_, G>,
    shard: Shard,
    idle: Duration,
) -> Result<Served, TrainError>
where
    G: HasHeuristic + Sync + 'static,
    G::Position: Send,
{
    let dir = folder_of(&options.folder.dir);
    let description = read_description(&dir)?;
    if description.shards != shard.count {
        return Err(TrainError::Config(format!(
            "the run in {} is shared among {} shards; this is shard {} of {}",
            options.folder.dir.display(),
            description.shards,
            shard.index,
            shard.count
        )));
    }
    if description.rules != game.name() {
        return Err(TrainError::Config(format!(
            "the run in {} plays {}, not {}",
            options.folder.dir.display(),
            description.rules,
            game.name()
        )));
    }
    let config = &options.config;
    let games = share(description.games_per_round, shard);
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        // The beat: a counter the learner watches move.
        let beat = scope.spawn(|| {
            let path = beat_path(&dir, shard);
            let mut count = 0u64;
            while !stop.load(Ordering::Relaxed) {
                count += 1;
                let _ = write_atomically(&path, count.to_string().as_bytes());
                std::thread::sleep(BEAT);
            }
            let _ = std::fs::remove_file(&path);
        });
        let served = (|| {
            let mut served = Served::default();
            let mut last_round = None;
            let mut since = Instant::now();
            while !finished(&dir) {
                match newest_round(&dir)? {
                    Some((round, bytes)) if last_round.is_none_or(|last| round > last) => {
                        let path = samples_path(&dir, round, shard);
                        if !path.exists() {
                            let net = NeuralNet::from_bytes(&bytes)?;
                            // Published for this run's rule set, or refused.
                            net.check_for(game)?;
                            let samples = play_games(
                                game,
                                config,
                                options.teacher,
                                options.exact,
                                &net,
                                round,
                                games.clone(),
                            );
                            let header = ShareHeader {
                                rules: description.rules.clone(),
                                round,
                                shard,
                                games: games.clone(),
                                weights_sha256: sha256_hex(&bytes),
                            };
                            write_samples(&path, &header, &samples)?;
                            served.rounds += 1;
                            served.samples += samples.len() as u64;
                        }
                        last_round = Some(round);
                        since = Instant::now();
                    }
                    _ => {
                        if since.elapsed() >= idle {
                            return Err(file_error(
                                &dir,
                                format!(
                                    "no new round for {} s and the learner has not finished; shard {}/{} stops",
                                    idle.as_secs(),
                                    shard.index,
                                    shard.count
                                ),
                            ));
                        }
                        std::thread::sleep(POLL);
                    }
                }
            }
            Ok(served)
        })();
        stop.store(true, Ordering::Relaxed);
        let _ = beat.join();
        served
    })
}
