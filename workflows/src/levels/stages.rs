//! The stages of a build run in order, each handing the next what it made
//! (the context they share is `build`).

use super::args::BuildArgs;
use super::build::{Build, Built};
use super::folder::{Entries, RulesSource, Staging};
use super::plan::Plan;
use super::work::Work;
use super::{calibrate, networks, report, report_text, search, solve};
use anyhow::Result;
use sawah_agents::manifest::RuleFile;
use sawah_engine::Registry;

/// Runs every stage in order and returns the folder's contents.
pub fn run_all(
    registry: &mut Registry,
    work: &mut Work,
    source: &RulesSource,
    plan: &Plan,
    args: &BuildArgs,
) -> Result<Built> {
    let staging = Staging::open(work.dir())?;
    let mut build = Build {
        registry,
        work,
        source,
        plan: plan.clone(),
        args,
        staging,
        entries: Entries::default(),
        table: None,
        endgame: None,
    };
    stage_rule_file(&mut build)?;
    let solved = solve::run(&mut build)?;
    let small = networks::small(&mut build)?;
    let hard = networks::hard(&mut build)?;
    let chosen = search::run(&mut build, &hard)?;
    let calibration = calibrate::calibration(&mut build, &small, &hard, &chosen)?;
    calibrate::reference(&mut build, &calibration)?;
    let check = calibrate::check(&mut build, &calibration)?;
    let puzzles = report::puzzles(&mut build)?;
    let verify = report::verify(&mut build)?;
    let extra_files = report_text::report(
        &mut build,
        &report::Findings {
            late: solved.late.as_ref(),
            small: &small,
            hard: &hard,
            search: &chosen,
            calibration: &calibration,
            check: &check,
            puzzles: &puzzles,
            verify: &verify,
        },
    )?;
    Ok(Built {
        staging: build.staging.dir.clone(),
        entries: build.entries,
        extra_files,
    })
}

/// Puts the rule file (for a rule set that is not built in) into the
/// staging folder with its manifest entry, so the folder loads from the
/// first stage on.
fn stage_rule_file(build: &mut Build) -> Result<()> {
    if let Some((file, bytes)) = &build.source.file {
        build.staging.put_bytes(file, bytes)?;
        build.entries.rule_file = Some(RuleFile {
            rules: build.name().to_string(),
            file: file.clone(),
            sha256: format!("{:x}", <sha2::Sha256 as sha2::Digest>::digest(bytes)),
        });
    }
    build.staging.write_manifest(&build.entries)
}
