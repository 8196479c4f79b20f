//! Game analysis against a solved table: how much win probability each
//! agent gave away per move.

use crate::arena::gamelog::{ReplayError, play_recorded, replay};
use crate::arena::matches::pair_seed;
use crate::arena::results::{GameRecord, ResultsError};
use rayon::prelude::*;
use sawah_agents::table::Table;
use sawah_agents::{AgentSpec, SpecError, perfect};
use sawah_engine::race::RuleSet;
use sawah_engine::{Game, Player};
use std::collections::HashMap;

/// Total loss and number of real choices (more than one legal move) of one agent.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Loss {
    /// Win probability given away, summed over its choices.
    pub total: f64,
    /// Moves with more than one legal choice.
    pub choices: u64,
}

impl Loss {
    /// Mean loss per real choice (0 with none).
    pub fn mean(&self) -> f64 {
        if self.choices == 0 {
            0.0
        } else {
            self.total / self.choices as f64
        }
    }
}

/// Replays `games` and adds up, per agent, the win probability each of its
/// moves gave away against the best move by `table`. Forced moves (a single
/// legal move) and passes are not counted, as in backgammon's error rates.
/// A game whose moves do not replay is reported by its index and reason.
pub fn loss_per_agent(
    rules: &RuleSet,
    table: &Table,
    games: &[GameRecord],
) -> Result<HashMap<String, Loss>, AnalysisError> {
    let per_game: Vec<[(String, Loss); 2]> = games
        .par_iter()
        .enumerate()
        .map(|(k, game)| {
            let mut by_seat = [Loss::default(); 2];
            replay(rules, &game.moves, |step| {
                if let (Some(mv), true) = (step.played, step.legal.len() > 1) {
                    let seat = rules.turn(step.position);
                    let loss = perfect::loss(rules, table, step.position, step.roll, mv);
                    by_seat[seat.index()].total += loss;
                    by_seat[seat.index()].choices += 1;
                }
            })
            .map_err(|source| AnalysisError::Replay {
                game: k + 1,
                light: game.light.clone(),
                dark: game.dark.clone(),
                source,
            })?;
            Ok([
                (game.light.clone(), by_seat[Player::Light.index()]),
                (game.dark.clone(), by_seat[Player::Dark.index()]),
            ])
        })
        .collect::<Result<_, AnalysisError>>()?;
    let mut out: HashMap<String, Loss> = HashMap::new();
    for [light, dark] in per_game {
        for (name, loss) in [light, dark] {
            let entry = out.entry(name).or_default();
            entry.total += loss.total;
            entry.choices += loss.choices;
        }
    }
    Ok(out)
}

/// [`loss_per_agent`] over every game in the results files of `dirs`,
/// streamed in chunks (memory stays flat), each game counted once even if
/// several folders hold it.
pub fn loss_in_folders(
    rules: &RuleSet,
    table: &Table,
    dirs: &[std::path::PathBuf],
) -> Result<HashMap<String, Loss>, AnalysisError> {
    const CHUNK: usize = 2048;
    let mut seen = std::collections::HashSet::new();
    let mut out: HashMap<String, Loss> = HashMap::new();
    let mut chunk: Vec<GameRecord> = Vec::with_capacity(CHUNK);
    let mut flush = |chunk: &mut Vec<GameRecord>| -> Result<(), AnalysisError> {
        for (name, loss) in loss_per_agent(rules, table, chunk)? {
            let entry = out.entry(name).or_default();
            entry.total += loss.total;
            entry.choices += loss.choices;
        }
        chunk.clear();
        Ok(())
    };
    for dir in dirs {
        let mut failure = None;
        crate::arena::results::read_with(dir, |game| {
            if failure.is_none() && seen.insert(game.key()) {
                chunk.push(game);
                if chunk.len() == CHUNK
                    && let Err(e) = flush(&mut chunk)
                {
                    failure = Some(e);
                }
            }
            Ok(())
        })?;
        if let Some(e) = failure {
            return Err(AnalysisError::InFolder {
                dir: dir.display().to_string(),
                source: Box::new(e),
            });
        }
    }
    flush(&mut chunk)?;
    Ok(out)
}

/// Why games could not be analysed.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// A game's moves do not replay.
    #[error("game {game} ({light} vs {dark}): {source}")]
    Replay {
        /// The game's number in its batch, from 1.
        game: usize,
        /// The light player.
        light: String,
        /// The dark player.
        dark: String,
        /// Which move and why.
        source: ReplayError,
    },
    /// A results file could not be read.
    #[error("{0}")]
    Results(#[from] ResultsError),
    /// A game in a folder's results.
    #[error("{dir}: {source}")]
    InFolder {
        /// The folder.
        dir: String,
        /// What was wrong there.
        source: Box<AnalysisError>,
    },
}

/// Why the loss against perfect play could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum LossError {
    /// An agent could not be built.
    #[error("{spec}: {source}")]
    Agent {
        /// The agent's spec.
        spec: String,
        /// Why.
        source: SpecError,
    },
    /// A game did not replay (a bug in an agent or the recorder).
    #[error("{0}")]
    Replay(#[from] AnalysisError),
    /// No move of the agent had a choice, so there is nothing to average.
    #[error("in {games} games against perfect play, {spec} never had a choice of moves")]
    NoChoices {
        /// The agent's spec.
        spec: String,
        /// Games played.
        games: u64,
    },
}

/// Mean win probability `agent` gives away per move with a choice, by
/// `table`, in `games` games (rounded up to pairs, seats swapped, seeded by
/// pair) against perfect play from the table named `table_name`.
pub fn loss_against_perfect(
    rules: &RuleSet,
    table: &Table,
    table_name: &str,
    agent: &AgentSpec,
    games: u64,
) -> Result<f64, LossError> {
    let failed = |spec: &AgentSpec| {
        let spec = spec.to_string();
        move |source| LossError::Agent { spec, source }
    };
    let perfect = AgentSpec::parse(&format!("perfect:table={table_name}"), rules.name()).map_err(
        |source| LossError::Agent {
            spec: format!("perfect:table={table_name}"),
            source,
        },
    )?;
    // Build both once up front, so an unusable spec is an error, not a
    // game quietly left out.
    agent.build(rules).map_err(failed(agent))?;
    perfect.build(rules).map_err(failed(&perfect))?;
    let records: Vec<GameRecord> = (0..games.div_ceil(2))
        .into_par_iter()
        .map(|pair| {
            let seed = pair_seed(0x1055, pair);
            let mut out = Vec::with_capacity(2);
            for swapped in [false, true] {
                let mut own = agent.build(rules).map_err(failed(agent))?;
                let mut best = perfect.build(rules).map_err(failed(&perfect))?;
                let (played, light, dark) = if swapped {
                    let played = play_recorded(rules, best.as_mut(), own.as_mut(), seed);
                    (played, "perfect", "agent")
                } else {
                    let played = play_recorded(rules, own.as_mut(), best.as_mut(), seed);
                    (played, "agent", "perfect")
                };
                out.push(GameRecord::of_played(
                    rules.name(),
                    (light, dark),
                    (pair, seed),
                    played,
                ));
            }
            Ok(out)
        })
        .collect::<Result<Vec<_>, LossError>>()?
        .into_iter()
        .flatten()
        .collect();
    let losses = loss_per_agent(rules, table, &records)?;
    match losses.get("agent") {
        Some(loss) if loss.choices > 0 => Ok(loss.mean()),
        _ => Err(LossError::NoChoices {
            spec: agent.to_string(),
            games: records.len() as u64,
        }),
    }
}
