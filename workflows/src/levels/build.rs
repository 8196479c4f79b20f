//! What the stages of a build share, and how one stage is run: each is met
//! in the work folder (`work::Work::meet`), skipped when it finished with
//! the same inputs, run (or resumed) otherwise.

use super::args::BuildArgs;
use super::folder::{Entries, RulesSource, Staging};
use super::plan::Plan;
use super::work::{Inputs, Met, Work};
use anyhow::Result;
use sawah_engine::{Registry, with_game};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::path::PathBuf;
use std::time::Instant;

/// Every stage, in the order they run.
pub const NAMES: [&str; 10] = [
    "solve",
    "small-network",
    "hard-network",
    "hard-search",
    "calibration",
    "reference",
    "check",
    "puzzles",
    "verify",
    "report",
];

/// What the stages share.
pub struct Build<'a> {
    /// The rule sets known (the one built among them).
    pub registry: &'a mut Registry,
    /// The work folder.
    pub work: &'a mut Work,
    /// The rule set and its rule file.
    pub source: &'a RulesSource,
    /// The parameters.
    pub plan: Plan,
    /// The command's arguments.
    pub args: &'a BuildArgs,
    /// The staging folder (the models folder as it is assembled).
    pub staging: Staging,
    /// The rule set's manifest entries so far.
    pub entries: Entries,
    /// The solved table, on the exact route.
    pub table: Option<PathBuf>,
    /// The exact values of the late positions, on the self-play route: a
    /// partial table (race) or an endgame table (Senet).
    pub endgame: Option<PathBuf>,
}

/// The models folder's contents for the rule set, ready to publish.
pub struct Built {
    /// The staging folder holding the files.
    pub staging: PathBuf,
    /// The rule set's entries.
    pub entries: Entries,
    /// The files of the report, in the staging folder.
    pub extra_files: Vec<String>,
}

impl Build<'_> {
    /// The rule set's name.
    pub fn name(&self) -> &str {
        self.source.game.name()
    }

    /// The inputs every stage shares: the rule set's digest and the seed.
    pub fn base_inputs(&self) -> Inputs {
        let digest = with_game!(&self.source.game, g => sawah_engine::Codec::rules_digest(g));
        [
            ("rules".to_string(), self.name().to_string()),
            ("rules digest".to_string(), digest),
            ("seed".to_string(), self.args.seed.to_string()),
            ("effort".to_string(), self.args.effort.to_string()),
        ]
        .into()
    }

    /// A seed of its own for one use (`what`) of the build's seed.
    pub fn seed_for(&self, what: &str) -> u64 {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in what.bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        sawah_engine::seed::mix64(self.args.seed ^ hash)
    }

    /// Runs stage `stage` unless its record is there: `body` does the
    /// work in the stage's folder and returns its result and the files
    /// it wrote there. Prints one line when the stage is done.
    pub fn stage<R, F>(&mut self, stage: &str, inputs: &Inputs, body: F) -> Result<R>
    where
        R: Serialize + DeserializeOwned,
        F: FnOnce(&mut Self, &super::work::StageDir) -> Result<(R, Vec<String>)>,
    {
        let position = NAMES.iter().position(|n| *n == stage).unwrap_or(0) + 1;
        let heading = format!("[{position}/{}] {stage}", NAMES.len());
        match self.work.meet::<R>(stage, inputs)? {
            Met::Done(result) => {
                println!("{heading}: done before");
                Ok(result)
            }
            Met::ToRun(dir) => {
                println!("{heading}…");
                let started = Instant::now();
                let (result, outputs) = body(self, &dir)?;
                let outputs: Vec<&str> = outputs.iter().map(String::as_str).collect();
                let seconds = started.elapsed().as_secs_f64();
                let result = self.work.finish(stage, inputs, &outputs, result, seconds)?;
                println!("{heading}: done in {}", crate::progress::duration(seconds));
                Ok(result)
            }
        }
    }
}
