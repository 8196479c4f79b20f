//! `sawah tournament`, `sawah elo` and `sawah sprt`: arguments, checked and
//! handed to `crate::tournament::run`.

pub mod run;
pub mod sprt_args;
pub mod text;

pub use sprt_args::SprtCommandArgs;

use anyhow::{Context, Result};
use sawah_engine::registry::Registry;
use sawah_eval::arena::tournament::Shard;
use std::path::PathBuf;

use run::TournamentArgs;

/// How an Elo table is made (shared by `tournament` and `elo`).
#[derive(clap::Args, Debug)]
pub struct RatingArgs {
    /// The agent whose rating is fixed, and its rating (NAME=ELO; default
    /// random=0, or the first agent if random is not playing).
    #[arg(long, value_name = "NAME=ELO")]
    pub anchor: Option<String>,
    /// Virtual drawn games per pairing, so a clean sweep still gets a finite rating.
    #[arg(long, default_value_t = 2.0)]
    pub prior: f64,
    /// A solved table: adds each agent's mean win probability lost per
    /// move (and, in a tournament, is the table of `perfect` agents that name none).
    #[arg(long, value_name = "PATH")]
    pub table: Option<String>,
}

/// The arguments of `sawah tournament`.
#[derive(clap::Args, Debug)]
pub struct TournamentCommandArgs {
    /// Rule set name or rule file path.
    #[arg(long, default_value = "sawah")]
    pub rules: String,
    /// The agents: specs or presets separated by commas (repeatable),
    /// e.g. random,heuristic,easy,expectiminimax:depth=2; a spec in its
    /// JSON form keeps its own commas ({"agent":"expectiminimax","depth":2}).
    #[arg(long, required = true, value_name = "SPEC,SPEC,...")]
    pub agents: Vec<String>,
    /// Games per pairing (rounded up to whole pairs).
    #[arg(long, default_value_t = 200)]
    pub games: u64,
    /// round-robin (everyone plays everyone) or gauntlet (the first
    /// agent plays each of the others).
    #[arg(long, default_value = "round-robin", value_parser = clap::value_parser!(String))]
    pub format: String,
    /// Seed for the schedule's dice (and the agents' choices).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output folder (results and Elo tables).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Play shard K of N: a disjoint, deterministic share of the schedule
    /// (merge the folders with `sawah elo`). `auto` (or `auto/N`) reads K
    /// and N from a Slurm job array or a Kubernetes Indexed Job
    /// (docs/tournaments.md).
    #[arg(long, default_value = "1/1", value_name = "K/N")]
    pub shard: String,
    /// The shipped models' folder, where levels (easy, medium, hard)
    /// resolve; default: ./models, then the models embedded in the binary.
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
    /// How the Elo table is made.
    #[command(flatten)]
    pub rating: RatingArgs,
    /// Outside bots (`--bots`) and how they are refereed.
    #[command(flatten)]
    pub outside: crate::entrants::OutsideArgs,
    /// Luck adjustment (`--luck-adjusted`, `--reference`).
    #[command(flatten)]
    pub luck: crate::luck::LuckArgs,
}

/// The arguments of `sawah elo`.
#[derive(clap::Args, Debug)]
pub struct EloArgs {
    /// Tournament folders (each with a results.jsonl).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Where to write elo.md, elo.csv, crosstable.csv, elo.json and elo.svg; without it
    /// the table is only printed.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// How the Elo table is made.
    #[command(flatten)]
    pub rating: RatingArgs,
    /// Also rate on luck-adjusted scores: every folder must have been
    /// played with --luck-adjusted, its luck measured by one reference.
    #[arg(long)]
    pub luck_adjusted: bool,
    /// The models folder whose levels' ratings set the scale when the
    /// levels played and no --anchor is given (default: ./models, then the
    /// models embedded in the binary), as `sawah tournament` sets it.
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
}

/// Plays (or resumes) the tournament and writes its Elo table; `command`
/// is the command line as run, recorded in the table.
pub fn tournament_command(
    registry: &mut Registry,
    args: TournamentCommandArgs,
    command: &str,
) -> Result<()> {
    let TournamentCommandArgs {
        rules,
        agents,
        games,
        format,
        seed,
        out,
        shard,
        models,
        rating: RatingArgs {
            anchor,
            prior,
            table,
        },
        outside,
        luck,
    } = args;
    let format = format
        .parse()
        .map_err(anyhow::Error::msg)
        .context("--format")?;
    let shard = Shard::resolve(&shard, |name| std::env::var(name).ok())
        .map_err(anyhow::Error::msg)
        .context("--shard")?;
    let anchor_given = anchor.is_some();
    let agents = agents.iter().flat_map(|list| split_specs(list)).collect();
    let args = TournamentArgs {
        rules,
        agents,
        games,
        format,
        seed,
        out,
        shard,
        anchor: anchor.unwrap_or_else(|| "random=0".into()),
        prior,
        table,
        models,
        outside,
        luck,
        command: Some(run::in_this_folder(&run::with_shard(command, &shard))),
    };
    run::tournament(registry, args, anchor_given)?;
    Ok(())
}

/// The specs of a comma-separated list: commas inside a JSON spec's braces
/// or quotes do not separate.
fn split_specs(list: &str) -> Vec<String> {
    let mut specs = Vec::new();
    let (mut depth, mut quoted, mut escaped) = (0usize, false, false);
    let mut current = String::new();
    for c in list.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '{' if !quoted => depth += 1,
            '}' if !quoted => depth = depth.saturating_sub(1),
            ',' if !quoted && depth == 0 => {
                specs.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    specs.push(current);
    specs
}

/// Merges tournament folders into one Elo table; `command` is the command
/// line as run, recorded in the table.
pub fn elo_command(registry: &mut Registry, args: EloArgs, command: &str) -> Result<()> {
    let EloArgs {
        dirs,
        out,
        rating: RatingArgs {
            anchor,
            prior,
            table,
        },
        luck_adjusted,
        models,
    } = args;
    let anchor_given = anchor.is_some();
    let anchor = anchor.unwrap_or_else(|| "random=0".into());
    run::elo(
        registry,
        run::EloRun {
            dirs: &dirs,
            out: out.as_deref(),
            anchor: &anchor,
            anchor_given,
            prior,
            table: table.as_deref(),
            luck_adjusted,
            models: models.as_deref(),
            command: Some(&run::in_this_folder(command)),
        },
    )?;
    Ok(())
}

/// Runs the sequential test.
pub fn sprt_command(registry: &mut Registry, args: SprtCommandArgs) -> Result<()> {
    run::sprt_command(registry, args)
}

#[cfg(test)]
mod tests {
    use super::split_specs;

    #[test]
    fn json_specs_keep_their_commas() {
        assert_eq!(split_specs("random,easy"), ["random", "easy"]);
        assert_eq!(
            split_specs(r#"random,{"agent":"expectiminimax","depth":2},hard"#),
            ["random", r#"{"agent":"expectiminimax","depth":2}"#, "hard"]
        );
        assert_eq!(
            split_specs(r#"{"agent":"neural","model":"a,b}.safetensors"},x"#),
            [r#"{"agent":"neural","model":"a,b}.safetensors"}"#, "x"]
        );
        // An empty entry stays, for the check that names it.
        assert_eq!(split_specs("random,,easy"), ["random", "", "easy"]);
    }
}
