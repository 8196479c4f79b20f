//! Tournaments: a schedule of paired games between agents, played in
//! parallel, every finished game appended to the folder's results file, so
//! a stopped tournament resumes where it stopped and shards merge.
//!
//! The schedule is a pure function of (agents, format, games per pairing,
//! seed). Pair `p` of every pairing uses the dice seed
//! [`pair_seed`]`(seed, p)` for both of its games, with the seats swapped;
//! so a two-agent tournament plays exactly the games of `sawah match` with
//! the same seed, and every pairing meets the same dice. Each agent's seed
//! is its spec's seed XOR the dice seed (noisy agents vary from pair to pair
//! and the game stays a function of its record). Shard `K/N` plays the pairs
//! with `pairing + pair ≡ K − 1 (mod N)`, pairings numbered in schedule order.

use crate::arena::entrant::Entrant;
use crate::arena::gamelog::PlayedGame;
use crate::arena::luck::LuckMeter;
use crate::arena::matches::pair_seed;
use crate::arena::pairing::{Pair, Seating};
use crate::arena::results::{self, GameRecord, Header, ResultsError};
use rayon::prelude::*;
use sawah_agents::SpecError;
use sawah_agents::heuristic::HasHeuristic;
use sawah_engine::{Codec, Player};
use std::collections::HashSet;
use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::Mutex;
use std::time::Instant;
use thiserror::Error;

/// Who plays whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Every agent against every other.
    RoundRobin,
    /// The first agent against each of the others.
    Gauntlet,
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Format, String> {
        match s {
            "round-robin" => Ok(Format::RoundRobin),
            "gauntlet" => Ok(Format::Gauntlet),
            other => Err(format!(
                "unknown format {other:?}; use round-robin or gauntlet"
            )),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::RoundRobin => "round-robin",
            Format::Gauntlet => "gauntlet",
        })
    }
}

/// A share of the schedule: shard `index` (from 1) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which share, from 1.
    pub index: u64,
    /// How many shares.
    pub count: u64,
}

impl Shard {
    /// The whole schedule.
    pub const ALL: Shard = Shard { index: 1, count: 1 };

    /// Whether this shard plays pair `pair` of pairing number `pairing`:
    /// shard `(pairing + pair) mod N`, so every shard gets an even share of
    /// every pairing (and its own table is as connected as the whole).
    pub fn owns(&self, pairing: usize, pair: u64) -> bool {
        (pairing as u64 % self.count + pair % self.count) % self.count == self.index - 1
    }
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("a shard is K/N with 1 <= K <= N (e.g. 2/8), not {s:?}");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u64 = k.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// The shard `text` names: `K/N`, or `auto` (or `auto/N`) for the
    /// task's share in a cluster job, read through `env`:
    ///
    /// * a Slurm job array: `SLURM_ARRAY_TASK_ID` (from
    ///   `SLURM_ARRAY_TASK_MIN`, in steps of `SLURM_ARRAY_TASK_STEP`) and
    ///   `SLURM_ARRAY_TASK_COUNT`; or, when the count is given
    ///   (`SAWAH_SHARD_COUNT`, or `auto/N`), `SLURM_ARRAY_TASK_ID` is the
    ///   shard's number itself, 1 to N, so that resubmitting one task of
    ///   the array (`sbatch --array=7`, an array of one) runs shard 7 of N;
    /// * a Kubernetes Indexed Job: `JOB_COMPLETION_INDEX` (from 0), the
    ///   count from `auto/N` or `SAWAH_SHARD_COUNT` (set it in the Job's
    ///   manifest to its `completions`).
    ///
    /// Refused, naming the variables, when neither is there, or when
    /// `auto/N` disagrees with the job's count.
    pub fn resolve(text: &str, env: impl Fn(&str) -> Option<String>) -> Result<Shard, String> {
        let text = text.trim();
        let Some(rest) = text.strip_prefix("auto") else {
            return text.parse();
        };
        let given: Option<u64> = match rest.strip_prefix('/') {
            None if rest.is_empty() => None,
            Some(n) => Some(n.trim().parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                format!("--shard auto/N needs a count N of 1 or more, not {text:?}")
            })?),
            None => return Err(format!("--shard is K/N, auto or auto/N, not {text:?}")),
        };
        let number = |name: &str| -> Result<Option<u64>, String> {
            match env(name) {
                None => Ok(None),
                Some(value) => value
                    .trim()
                    .parse()
                    .map(Some)
                    .map_err(|_| format!("{name}={value:?} is not a whole number")),
            }
        };
        let stated = match (given, number("SAWAH_SHARD_COUNT")?) {
            (Some(n), Some(m)) if n != m => {
                return Err(format!(
                    "--shard {text} says {n} shards, but SAWAH_SHARD_COUNT says {m}"
                ));
            }
            (Some(n), _) | (None, Some(n)) => Some(n),
            (None, None) => None,
        };
        let shard = if let (Some(id), Some(count)) = (number("SLURM_ARRAY_TASK_ID")?, stated) {
            // The count is stated: the task id is the shard's number.
            if id == 0 || id > count {
                return Err(format!(
                    "SLURM_ARRAY_TASK_ID={id} is not a shard of {count}: with the count given (SAWAH_SHARD_COUNT or --shard auto/N), the array's task ids are the shard numbers, 1 to {count} (sbatch --array=1-{count}; resubmit one with --array=K)"
                ));
            }
            Shard { index: id, count }
        } else if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
            let count = number("SLURM_ARRAY_TASK_COUNT")?.ok_or(
                "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not: run in a Slurm job array (sbatch --array=1-N)",
            )?;
            let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(1);
            let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
            if id < min || (id - min) % step != 0 {
                return Err(format!(
                    "SLURM_ARRAY_TASK_ID={id} is not in the array (from {min} in steps of {step})"
                ));
            }
            Shard {
                index: (id - min) / step + 1,
                count,
            }
        } else if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            let Some(count) = stated else {
                return Err("JOB_COMPLETION_INDEX is set but the count is not: give --shard auto/N or set SAWAH_SHARD_COUNT to the Job's completions".into());
            };
            Shard {
                index: index + 1,
                count,
            }
        } else {
            return Err("--shard auto reads the task's index from a Slurm job array (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with --shard auto/N or SAWAH_SHARD_COUNT), and none is set; give --shard K/N".into());
        };
        if let Some(n) = given
            && n != shard.count
        {
            return Err(format!(
                "--shard {text} says {n} shards, but the job has {}",
                shard.count
            ));
        }
        if shard.count == 0 || shard.index > shard.count {
            return Err(format!(
                "the job's variables give shard {}/{}, which is not a share of the schedule",
                shard.index, shard.count
            ));
        }
        Ok(shard)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// One pair of games: pairing `first` vs `second`, pair number `pair`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairJob {
    /// The pairing's number in schedule order.
    pub pairing: usize,
    /// The pairing's first agent (light in the pair's first game).
    pub first: usize,
    /// The pairing's second agent.
    pub second: usize,
    /// The pair's number within its pairing.
    pub pair: u64,
    /// The dice seed both games use.
    pub dice_seed: u64,
}

/// Everything that defines a tournament.
#[derive(Clone, Debug)]
pub struct Tournament {
    /// The rule set id.
    pub rules: String,
    /// The digest of the rule set's description.
    pub rules_digest: String,
    /// The agents: ours by their specs, and outside bots.
    pub agents: Vec<Entrant>,
    /// The agents' names in tables and results: as the user wrote them
    /// (`medium`, `expectiminimax:depth=2`), one per agent.
    pub labels: Vec<String>,
    /// Who plays whom.
    pub format: Format,
    /// Games per pairing (rounded up to whole pairs).
    pub games_per_pairing: u64,
    /// The seed everything follows from.
    pub seed: u64,
    /// The share of the schedule this run plays.
    pub shard: Shard,
    /// The command that started it, as the results header records it.
    pub command: Option<String>,
}

impl Tournament {
    /// The agents' names (their labels).
    pub fn names(&self) -> Vec<String> {
        self.labels.clone()
    }

    /// What each outside bot said of itself in answer to `hello`, in agent
    /// order (`None` for our agents and silent bots); empty when no agent
    /// said anything, as in tournaments of our agents alone.
    pub fn identities(&self) -> Vec<Option<crate::arena::outside::Identity>> {
        let identities: Vec<_> = self
            .agents
            .iter()
            .map(|agent| match agent {
                Entrant::Outside(bot) => bot.identity().cloned(),
                Entrant::Builtin(_) => None,
            })
            .collect();
        if identities.iter().all(Option::is_none) {
            Vec::new()
        } else {
            identities
        }
    }

    /// The pairings as (first, second) agent indices.
    pub fn pairings(&self) -> Vec<(usize, usize)> {
        let n = self.agents.len();
        match self.format {
            Format::RoundRobin => (0..n)
                .flat_map(|i| ((i + 1)..n).map(move |j| (i, j)))
                .collect(),
            Format::Gauntlet => (1..n).map(|j| (0, j)).collect(),
        }
    }

    /// Pairs per pairing.
    pub fn pairs_per_pairing(&self) -> u64 {
        self.games_per_pairing.div_ceil(2)
    }

    /// The whole schedule, pair-major (pair 0 of every pairing, then pair
    /// 1, …) so a partial run is balanced across pairings.
    pub fn schedule(&self) -> Vec<PairJob> {
        let pairings = self.pairings();
        (0..self.pairs_per_pairing())
            .flat_map(|pair| {
                let dice_seed = pair_seed(self.seed, pair);
                pairings
                    .iter()
                    .enumerate()
                    .map(move |(pairing, &(first, second))| PairJob {
                        pairing,
                        first,
                        second,
                        pair,
                        dice_seed,
                    })
            })
            .collect()
    }

    /// This run's share of the schedule.
    pub fn jobs(&self) -> Vec<PairJob> {
        self.schedule()
            .into_iter()
            .filter(|job| self.shard.owns(job.pairing, job.pair))
            .collect()
    }

    /// The header of this run's results file: the agents by their
    /// portable specs, with the checksums of the files they read.
    pub fn header(&self, luck: Option<&dyn LuckMeter>) -> Result<Header, TournamentError> {
        let files = self
            .agents
            .iter()
            .map(|spec| spec.files())
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Header {
            kind: results::KIND.to_string(),
            format_version: results::FORMAT_VERSION,
            rules: self.rules.clone(),
            rules_digest: self.rules_digest.clone(),
            agents: self.names(),
            specs: self.agents.iter().map(Entrant::portable).collect(),
            files,
            identities: self.identities(),
            format: self.format.to_string(),
            games_per_pairing: self.pairs_per_pairing() * 2,
            seed: self.seed,
            shard: self.shard.to_string(),
            code_version: env!("CARGO_PKG_VERSION").to_string(),
            luck: luck.map(|meter| meter.reference().clone()),
            command: self.command.clone(),
        })
    }
}

/// Why a tournament could not run.
#[derive(Debug, Error)]
pub enum TournamentError {
    /// Fewer than two agents, or one named twice.
    #[error("{0}")]
    Setup(String),
    /// An agent spec that does not build for this rule set.
    #[error("agent {agent}: {source}")]
    Spec {
        /// The spec.
        agent: String,
        /// Why.
        #[source]
        source: SpecError,
    },
    /// The results file.
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// A file an agent reads, read for its checksum.
    #[error("{0}")]
    AgentFile(#[from] sawah_agents::identity::FileError),
    /// A game whose luck could not be measured.
    #[error("measuring the luck of {light} vs {dark} (dice seed {seed}): {message}")]
    Luck {
        /// Light's name.
        light: String,
        /// Dark's name.
        dark: String,
        /// The dice seed.
        seed: u64,
        /// Why.
        message: String,
    },
}

/// What the observer hears after each game.
#[derive(Clone, Debug)]
pub struct Progress {
    /// Games finished in this shard, including those from before a resume.
    pub done: u64,
    /// Games in this shard.
    pub total: u64,
    /// Points and games per agent so far, in agent order.
    pub standings: Vec<(String, f64, u64)>,
    /// Games lost to an agent failure so far.
    pub failures: u64,
    /// Thread time this run spent playing games, in seconds (summed over
    /// the threads).
    pub play_seconds: f64,
    /// Thread time this run spent measuring luck, in seconds: the cost of
    /// `--luck-adjusted`, shown beside the play's.
    pub luck_seconds: f64,
}

/// How a run went.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// Games already in the file when the run started.
    pub resumed: u64,
    /// Games played by this run.
    pub played: u64,
    /// Bytes of a partial last line cut off before resuming.
    pub cut_bytes: u64,
    /// Every game in the file, in file order, without their moves (read the
    /// file for those): memory stays small in long tournaments.
    pub games: Vec<GameRecord>,
    /// Thread time this run spent playing, in seconds.
    pub play_seconds: f64,
    /// Thread time this run spent measuring luck, in seconds.
    pub luck_seconds: f64,
}

struct Shared {
    writer: results::ResultsWriter,
    games: Vec<GameRecord>,
    progress: Progress,
    error: Option<TournamentError>,
}

fn record_of(
    rules: &str,
    light: &str,
    dark: &str,
    job: &PairJob,
    played: PlayedGame,
) -> GameRecord {
    GameRecord::of_played(rules, (light, dark), (job.pair, job.dice_seed), played)
}

fn count(progress: &mut Progress, names: &[String], game: &GameRecord) {
    progress.done += 1;
    let light_score = game.light_score();
    for (entry, name) in progress.standings.iter_mut().zip(names) {
        if *name == game.light {
            entry.1 += light_score;
            entry.2 += 1;
        } else if *name == game.dark {
            entry.1 += 1.0 - light_score;
            entry.2 += 1;
        }
    }
    if game.failure.is_some() {
        progress.failures += 1;
    }
}

/// Plays this run's share of `tournament` into `dir` (resuming whatever is
/// there), calling `observe` after every game.
pub fn run<G>(
    game: &G,
    tournament: &Tournament,
    dir: &Path,
    observe: &(dyn Fn(&Progress) + Sync),
) -> Result<RunSummary, TournamentError>
where
    G: HasHeuristic + Codec + Sync + 'static,
{
    run_with_luck(game, tournament, dir, None, observe)
}

/// [`run`], measuring every game's luck with `luck` when given (in the
/// game's own task, so the cost spreads over the threads) and writing it
/// beside the result, the reference in the header.
pub fn run_with_luck<G>(
    game: &G,
    tournament: &Tournament,
    dir: &Path,
    luck: Option<&dyn LuckMeter>,
    observe: &(dyn Fn(&Progress) + Sync),
) -> Result<RunSummary, TournamentError>
where
    G: HasHeuristic + Codec + Sync + 'static,
{
    check_agents(game, tournament)?;
    let names = tournament.names();
    let (writer, existing, cut_bytes) = results::open_for_run(dir, &tournament.header(luck)?)?;
    let done: HashSet<(String, String, u64)> = existing.iter().map(GameRecord::key).collect();
    let jobs = tournament.jobs();
    let mut progress = Progress {
        done: 0,
        total: 2 * jobs.len() as u64,
        standings: names.iter().map(|n| (n.clone(), 0.0, 0)).collect(),
        failures: 0,
        play_seconds: 0.0,
        luck_seconds: 0.0,
    };
    for game in &existing {
        count(&mut progress, &names, game);
    }
    let resumed = existing.len() as u64;
    observe(&progress);
    let shared = Mutex::new(Shared {
        writer,
        games: existing,
        progress,
        error: None,
    });
    let pending = pending_games(&jobs, &names, &done);
    pending
        .par_iter()
        .with_max_len(1)
        .for_each(|&(job, swapped)| {
            if shared.lock().map(|s| s.error.is_some()).unwrap_or(true) {
                return;
            }
            let played = play_game(game, tournament, &names, job, swapped, luck);
            let Ok(mut s) = shared.lock() else { return };
            let (record, seconds) = match played {
                Ok(played) => played,
                Err(e) => {
                    s.error = Some(e);
                    return;
                }
            };
            if let Err(e) = s.writer.append(&record) {
                s.error = Some(e.into());
                return;
            }
            count(&mut s.progress, &names, &record);
            s.progress.play_seconds += seconds.0;
            s.progress.luck_seconds += seconds.1;
            s.games.push(GameRecord {
                moves: Vec::new(),
                ..record
            });
            observe(&s.progress);
        });
    let shared = shared
        .into_inner()
        .map_err(|_| TournamentError::Setup("a game thread panicked".into()))?;
    if let Some(e) = shared.error {
        return Err(e);
    }
    Ok(RunSummary {
        resumed,
        played: shared.games.len() as u64 - resumed,
        cut_bytes,
        games: shared.games,
        play_seconds: shared.progress.play_seconds,
        luck_seconds: shared.progress.luck_seconds,
    })
}

/// Plays one game of `job` (the seats swapped when `swapped`) and measures
/// its luck with `luck`: the record, and the seconds spent playing and
/// measuring.
fn play_game<G>(
    game: &G,
    tournament: &Tournament,
    names: &[String],
    job: PairJob,
    swapped: bool,
    luck: Option<&dyn LuckMeter>,
) -> Result<(GameRecord, (f64, f64)), TournamentError>
where
    G: HasHeuristic + Codec + Sync + 'static,
{
    let started = Instant::now();
    let (light, dark) = seats(&job, swapped);
    let pair = Pair::new(
        &tournament.agents[job.first],
        &tournament.agents[job.second],
        job.dice_seed,
    );
    let seating = if swapped {
        Seating::Swapped
    } else {
        Seating::FirstLight
    };
    // Every spec built once before the games, so these builds succeed; a
    // failure here (a table file removed mid-run) is recorded against the agent.
    let played = pair
        .play_recorded(game, seating)
        .unwrap_or_else(|(seat, e)| forfeit(seat, e));
    let mut record = record_of(&tournament.rules, &names[light], &names[dark], &job, played);
    let play_seconds = started.elapsed().as_secs_f64();
    // Without a luck meter no time is measuring luck (not even the
    // instant between two clock readings: it would be told as "luck").
    let mut luck_seconds = 0.0;
    if let Some(meter) = luck {
        let measuring = Instant::now();
        let measured = meter
            .luck(&record.moves)
            .map_err(|message| TournamentError::Luck {
                light: record.light.clone(),
                dark: record.dark.clone(),
                seed: record.seed,
                message,
            })?;
        record.luck = Some(measured.into());
        luck_seconds = measuring.elapsed().as_secs_f64();
    }
    Ok((record, (play_seconds, luck_seconds)))
}

/// Refuses a tournament that cannot run: labels that do not match the
/// agents, fewer than two agents, one listed twice, or a spec of ours that
/// does not build for the rule set (outside bots were started already).
fn check_agents<G: HasHeuristic + 'static>(
    game: &G,
    tournament: &Tournament,
) -> Result<(), TournamentError> {
    let names = tournament.names();
    if names.len() != tournament.agents.len() {
        return Err(TournamentError::Setup(
            "one label per agent is needed".into(),
        ));
    }
    if names.len() < 2 {
        return Err(TournamentError::Setup(
            "a tournament needs at least two agents".into(),
        ));
    }
    let mut seen = HashSet::new();
    for name in &names {
        if !seen.insert(name) {
            return Err(TournamentError::Setup(format!(
                "agent {name} is listed twice; give the copies different seeds (e.g. {name}:seed=2) to play an agent against itself"
            )));
        }
    }
    for spec in tournament.agents.iter().filter_map(Entrant::spec) {
        spec.build(game).map_err(|source| TournamentError::Spec {
            agent: spec.to_string(),
            source,
        })?;
    }
    Ok(())
}

/// The games of `jobs` not yet in the file (`done`, by their keys): each
/// job's two games, the seats swapped in the second.
fn pending_games(
    jobs: &[PairJob],
    names: &[String],
    done: &HashSet<(String, String, u64)>,
) -> Vec<(PairJob, bool)> {
    jobs.iter()
        .flat_map(|job| [(*job, false), (*job, true)])
        .filter(|(job, swapped)| {
            let (light, dark) = seats(job, *swapped);
            !done.contains(&(names[light].clone(), names[dark].clone(), job.dice_seed))
        })
        .collect()
}

fn seats(job: &PairJob, swapped: bool) -> (usize, usize) {
    if swapped {
        (job.second, job.first)
    } else {
        (job.first, job.second)
    }
}

fn forfeit(seat: Player, error: SpecError) -> PlayedGame {
    PlayedGame {
        outcome: crate::arena::matches::GameOutcome {
            winner: Some(seat.other()),
            rolls: 0,
            forfeit: true,
        },
        moves: Vec::new(),
        failure: Some(crate::arena::gamelog::AgentFailure {
            seat,
            kind: Some(sawah_agents::FailureKind::Start),
            message: format!("could not start: {error}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_shards_come_from_slurm_arrays_and_kubernetes_indexed_jobs() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let shard = |text: &str, pairs: &'static [(&'static str, &'static str)]| {
            Shard::resolve(text, env(pairs)).map(|s| s.to_string())
        };
        let slurm = &[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
        ];
        assert_eq!(shard("auto", slurm), Ok("3/4".into()));
        assert_eq!(shard("auto/4", slurm), Ok("3/4".into()));
        // A count given is the count, and the task id the shard's number:
        // one task of the array resubmitted (`sbatch --array=7`, an array
        // of one task whose MIN is 7) is shard 7 of the count.
        assert_eq!(shard("auto/5", slurm), Ok("3/5".into()));
        let resubmitted = &[
            ("SLURM_ARRAY_TASK_ID", "7"),
            ("SLURM_ARRAY_TASK_COUNT", "1"),
            ("SLURM_ARRAY_TASK_MIN", "7"),
            ("SAWAH_SHARD_COUNT", "8"),
        ];
        assert_eq!(shard("auto", resubmitted), Ok("7/8".into()));
        assert_eq!(shard("auto/8", resubmitted), Ok("7/8".into()));
        assert!(
            shard("auto/9", resubmitted)
                .unwrap_err()
                .contains("SAWAH_SHARD_COUNT says 8")
        );
        let past = &[("SLURM_ARRAY_TASK_ID", "9"), ("SAWAH_SHARD_COUNT", "8")];
        assert!(shard("auto", past).unwrap_err().contains("1 to 8"));
        let zero = &[("SLURM_ARRAY_TASK_ID", "0"), ("SAWAH_SHARD_COUNT", "8")];
        assert!(shard("auto", zero).unwrap_err().contains("--array=1-8"));
        // Arrays from 0 (--array=0-3) and in steps (--array=0-6:2).
        let from_zero = &[
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
        ];
        assert_eq!(shard("auto", from_zero), Ok("1/4".into()));
        let stepped = &[
            ("SLURM_ARRAY_TASK_ID", "6"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
        ];
        assert_eq!(shard("auto", stepped), Ok("4/4".into()));
        let k8s = &[("JOB_COMPLETION_INDEX", "0")];
        assert_eq!(shard("auto/8", k8s), Ok("1/8".into()));
        assert!(
            shard("auto", k8s)
                .unwrap_err()
                .contains("SAWAH_SHARD_COUNT")
        );
        let k8s_counted = &[("JOB_COMPLETION_INDEX", "7"), ("SAWAH_SHARD_COUNT", "8")];
        assert_eq!(shard("auto", k8s_counted), Ok("8/8".into()));
        let none = shard("auto", &[]).unwrap_err();
        assert!(
            none.contains("SLURM_ARRAY_TASK_ID") && none.contains("JOB_COMPLETION_INDEX"),
            "{none}"
        );
        assert!(shard("auto", &[("SLURM_ARRAY_TASK_ID", "x")]).is_err());
        assert_eq!(shard("2/3", &[]), Ok("2/3".into()));
        assert!(shard("automatic", &[]).is_err());
    }

    fn tournament(agents: &[&str], format: Format, games: u64, shard: Shard) -> Tournament {
        Tournament {
            rules: "ur-2".into(),
            rules_digest: "x".into(),
            agents: agents
                .iter()
                .map(|a| Entrant::from(sawah_agents::AgentSpec::parse(a, "ur-2").unwrap()))
                .collect(),
            labels: agents.iter().map(|a| a.to_string()).collect(),
            format,
            games_per_pairing: games,
            seed: 7,
            shard,
            command: None,
        }
    }

    #[test]
    fn schedules_pair_every_agent_and_round_up_to_pairs() {
        let t = tournament(
            &["random", "heuristic", "easy", "medium"],
            Format::RoundRobin,
            5,
            Shard::ALL,
        );
        assert_eq!(t.pairings().len(), 6);
        assert_eq!(t.schedule().len(), 6 * 3);
        assert_eq!(t.header(None).unwrap().games_per_pairing, 6);
        let g = tournament(
            &["random", "heuristic", "easy", "medium"],
            Format::Gauntlet,
            4,
            Shard::ALL,
        );
        assert_eq!(g.pairings(), vec![(0, 1), (0, 2), (0, 3)]);
    }

    #[test]
    fn shards_split_the_schedule_without_overlap() {
        let whole = tournament(
            &["random", "heuristic", "easy"],
            Format::RoundRobin,
            10,
            Shard::ALL,
        )
        .jobs();
        let mut union = Vec::new();
        for index in 1..=3 {
            let shard = Shard { index, count: 3 };
            union.extend(
                tournament(
                    &["random", "heuristic", "easy"],
                    Format::RoundRobin,
                    10,
                    shard,
                )
                .jobs(),
            );
        }
        assert_eq!(union.len(), whole.len());
        let set: HashSet<_> = union.iter().map(|j| (j.first, j.second, j.pair)).collect();
        assert_eq!(set.len(), whole.len());
        // Every shard plays every pairing.
        for index in 1..=3 {
            let shard = Shard { index, count: 3 };
            let jobs = tournament(
                &["random", "heuristic", "easy"],
                Format::RoundRobin,
                10,
                shard,
            )
            .jobs();
            let pairings: HashSet<usize> = jobs.iter().map(|j| j.pairing).collect();
            assert_eq!(pairings.len(), 3, "shard {shard}");
        }
    }

    #[test]
    fn each_pair_shares_its_dice_with_the_seats_swapped() {
        let rules = sawah_engine::race::preset("ur-2").unwrap();
        let t = tournament(
            &["random", "heuristic", "easy"],
            Format::RoundRobin,
            10,
            Shard::ALL,
        );
        let dir = std::env::temp_dir().join(format!("sawah-pairs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let summary = run(&rules, &t, &dir, &|_| {}).unwrap();
        assert_eq!(summary.games.len(), 30);
        let mut by_pair: std::collections::HashMap<(String, String, u64), Vec<&GameRecord>> =
            Default::default();
        for g in &summary.games {
            let mut seats = [g.light.clone(), g.dark.clone()];
            seats.sort();
            let [a, b] = seats;
            by_pair.entry((a, b, g.pair)).or_default().push(g);
        }
        assert_eq!(by_pair.len(), 15);
        for ((_, _, pair), games) in by_pair {
            assert_eq!(games.len(), 2);
            assert_eq!(games[0].seed, games[1].seed);
            assert_eq!(games[0].seed, pair_seed(7, pair));
            assert_eq!(games[0].light, games[1].dark);
            assert_eq!(games[0].dark, games[1].light);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn shard_strings_are_checked() {
        assert_eq!(
            "2/8".parse::<Shard>().unwrap(),
            Shard { index: 2, count: 8 }
        );
        for bad in ["0/3", "4/3", "1/0", "x", "1/", "-1/2"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
