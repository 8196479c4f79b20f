//! Stage `report`: the levels report, for people (Markdown: every figure
//! with the command that measures it again) and as JSON, and hard's
//! figures in the manifest.

use super::build::Build;
use super::folder::{report_json_name, report_md_name};
use super::plan::{Route, SEARCH_TARGET};
use super::report::{Findings, Verify, in_band};
use crate::report::VariantReport;
use anyhow::Result;
use sawah_agents::manifest::ScoreVersus;
use serde_json::json;
use std::fmt::Write as _;

/// The hard target against perfect play (luck-adjusted), as the issue of
/// record states it.
const HARD_TARGET: f64 = 0.495;

/// The report.
pub fn markdown(build: &Build, f: &Findings, variant: &VariantReport) -> String {
    let mut out = String::new();
    let name = build.name();
    let _ = writeln!(out, "# Levels of {name}\n");
    // The rule file travels in the folder: named by its name there.
    let rules = match &build.source.file {
        Some((file, _)) => file.clone(),
        None => build.args.rules.clone(),
    };
    let folder = build
        .args
        .out
        .file_name()
        .map_or_else(|| "OUT".to_string(), |n| n.to_string_lossy().into_owned());
    // Every argument that changes what is built (the stand-ins are
    // written in below); --shards and --work change only where.
    let mut given = String::new();
    if build.args.endgame.is_some() {
        given.push_str(" --endgame ENDGAME");
    }
    if build.args.table.is_some() {
        given.push_str(" --table TABLE");
    }
    if build.args.effort != 1.0 {
        given.push_str(&format!(" --effort {}", build.args.effort));
    }
    let _ = writeln!(
        out,
        "Made by `sawah levels build --rules {rules} --out {folder} --seed {} --memory {}{given}` ({}).\n",
        build.args.seed,
        build.args.memory,
        sawah_train::neural::run::code_version()
    );
    match &build.plan.route {
        Route::Exact { states } => {
            let _ = writeln!(
                out,
                "Solved exactly ({states} positions): the networks are distilled from the table, and every level is measured against perfect play.\n"
            );
        }
        Route::SelfPlay { reason } => {
            let known = match &f.late {
                Some(late) => format!(
                    "The positions known exactly are {} ({} positions, solved within the build's memory): they are the targets wherever training meets them and the leaves of every search that reaches them. ",
                    late.what, late.states
                ),
                None => {
                    "No layer of the game fit the build's memory, so no position is known exactly. "
                        .into()
                }
            };
            let _ = writeln!(
                out,
                "Not solved whole ({reason}). Each network learned by self-play TD(λ), then from searches over itself, one roll deep, on every move's result where the choice matters (expert iteration). {known}The levels are measured against expectiminimax two plies deep, and hard exactly where the positions are known.\n"
            );
        }
    }
    let mut table_note = String::new();
    if build.args.table.is_some() {
        table_note
            .push_str("; `TABLE` for the whole table given to `--table`, which stays where it was");
    }
    if build.args.endgame.is_some() {
        table_note.push_str("; `ENDGAME` for the table of exact values given to `--endgame`, which stays where it was");
    }
    let _ = writeln!(
        out,
        "The commands below run from the models folder (the folder this report is in); `WORK` stands for the build's work folder (`--work`, by default `OUT.work/RULES` beside the folder), where the tables and the tournaments' results are kept{table_note}.\n"
    );
    levels_section(&mut out, build, f);
    hard_section(&mut out, f);
    calibration_section(&mut out, f);
    networks_section(&mut out, f);
    puzzles_section(&mut out, f);
    let _ = writeln!(out, "## The rule set\n");
    let variant_md = crate::report::markdown(variant);
    // The variant report's own heading becomes a paragraph here.
    let body = variant_md
        .split_once('\n')
        .map_or(variant_md.as_str(), |(_, rest)| rest);
    let _ = writeln!(out, "{}", body.trim());
    out.push('\n');
    out
}

fn levels_section(out: &mut String, build: &Build, f: &Findings) {
    let _ = writeln!(
        out,
        "## Levels\n\nElo on {}'s scale (random = 0).\n\n| level | plays | Elo (95% CI) | loss per move |\n|---|---|---:|---:|",
        build.name()
    );
    for level in &build.entries.levels {
        let m = &level.measured;
        let elo = m.elo;
        let ci = m
            .elo_ci
            .map(|[low, high]| format!(" ({low} to {high})"))
            .unwrap_or_default();
        let loss = m
            .loss_per_move
            .map_or("-".into(), |l| format!("{:.4} pp", 100.0 * l));
        let _ = writeln!(
            out,
            "| {} | `{}` | {}{ci} | {loss} |",
            level.level,
            level.spec,
            elo.map_or("-".into(), |e| format!("{e:.0}"))
        );
    }
    if let Some(perfect) = f.calibration.perfect_elo {
        let _ = writeln!(
            out,
            "| (perfect play) | the solved table | {perfect:.0} | 0 |"
        );
    }
    let _ = writeln!(
        out,
        "\nHard's Elo is the calibration's; easy's and medium's are the check's (their noise was chosen on the calibration's dial).\n"
    );
}

fn hard_section(out: &mut String, f: &Findings) {
    let v = f.verify;
    let _ = writeln!(out, "## Hard\n");
    match v.adjusted {
        Some((score, low, high)) => {
            let _ = writeln!(
                out,
                "* Against perfect play, luck-adjusted, on a seed no other stage used: **{score:.4}** ({low:.4} to {high:.4}) over {} games; target at least {HARD_TARGET}: {}. `{}`",
                v.games,
                if score >= HARD_TARGET {
                    "met"
                } else {
                    "**not met**"
                },
                v.command
            );
        }
        None => {
            let _ = writeln!(
                out,
                "* Against {}: {:.4} ({:.4} to {:.4}) over {} games. `{}`",
                v.opponent, v.raw.0, v.raw.1, v.raw.2, v.games, v.command
            );
        }
    }
    if let Some(c) = &v.covered {
        let _ = writeln!(
            out,
            "* Where the positions are known exactly ({}): {} of hard's {} decisions in those games ({:.1}%), **{:.4} pp** lost per decision, {} mistakes, {} blunders. `{}`",
            c.what,
            c.covered,
            c.decisions,
            100.0 * c.covered as f64 / c.decisions.max(1) as f64,
            c.loss_pp,
            c.mistakes,
            c.blunders,
            c.command
        );
    }
    for versus in [&v.perfect, &v.shipped].into_iter().flatten() {
        let (score, low, high) = versus.adjusted.unwrap_or(versus.raw);
        let _ = writeln!(
            out,
            "* Against {}{}: {score:.4} ({low:.4} to {high:.4}) over {} games. `{}`",
            versus.opponent,
            if versus.adjusted.is_some() {
                ", luck-adjusted"
            } else {
                ""
            },
            versus.games,
            versus.command
        );
    }
    let timed: Vec<String> = f
        .search
        .candidates
        .iter()
        .filter_map(|c| c.p99_ms.map(|p99| format!("`{}` {p99:.2} ms", c.search)))
        .collect();
    if !timed.is_empty() || f.search.candidates.is_empty() {
        let _ = writeln!(
            out,
            "* Search: `{}`, the deepest whose `choose` p99 on one thread is within {} ms (without perfect play the search stage has nothing else to measure candidates by){}.",
            f.search.search,
            super::search::LATENCY_BUDGET_MS,
            if timed.is_empty() {
                String::new()
            } else {
                format!("; measured: {}", timed.join(", "))
            }
        );
    } else {
        let _ = writeln!(
            out,
            "* Search: `{}`, the cheapest of {} to score at least {SEARCH_TARGET} against perfect play in the search stage{}.",
            f.search.search,
            f.search
                .candidates
                .iter()
                .map(|c| match c.adjusted {
                    Some((s, _, _)) => format!("`{}` {s:.4}", c.search),
                    None => format!("`{}`", c.search),
                })
                .collect::<Vec<_>>()
                .join(", "),
            if f.search.met_target {
                ""
            } else {
                " (none did: the best is kept)"
            }
        );
    }
    let _ = writeln!(
        out,
        "* `choose` on one thread: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms (target p99 at most 20 ms native). `{}`\n",
        v.latency_ms.0, v.latency_ms.1, v.latency_ms.2, v.latency_command
    );
}

fn calibration_section(out: &mut String, f: &Findings) {
    let c = f.calibration;
    let _ = writeln!(out, "## Calibration\n");
    if let Some((low, high)) = f.check.gaps() {
        let _ = writeln!(
            out,
            "* Gaps: easy → medium {low:.0} Elo, medium → hard {high:.0} Elo; the shipped sets' band is 150 to 300: {}.",
            if in_band(low) && in_band(high) {
                "in it"
            } else {
                "**outside it**"
            }
        );
    }
    let _ = writeln!(
        out,
        "* Noise: medium {} (sought {:.0} Elo), easy {} (sought {:.0} Elo), read off the dial.",
        c.noise.0, c.targets.0, c.noise.1, c.targets.1
    );
    for (target, elo, low, high) in &f.check.dial {
        let _ = writeln!(
            out,
            "* The dial at {target:.0}: {elo:.0} ({low:.0} to {high:.0}), {:+.0} Elo.",
            elo - target
        );
    }
    let points: Vec<String> = c
        .dial
        .iter()
        .map(|(noise, elo)| format!("{noise}: {elo:.0}"))
        .collect();
    let _ = writeln!(out, "* Dial points (noise: Elo): {}.", points.join(", "));
    for note in &c.notes {
        let _ = writeln!(out, "* Note: {note}.");
    }
    let _ = writeln!(
        out,
        "\nThe calibration, {} games: `{}`\n\nThe check, {} games: `{}`\n",
        c.tournament.games,
        c.tournament.command,
        f.check.tournament.games,
        f.check.tournament.command
    );
    let _ = writeln!(
        out,
        "| agent | Elo (95% CI) | loss per move |\n|---|---:|---:|"
    );
    for row in &c.tournament.rows {
        let _ = writeln!(
            out,
            "| `{}` | {:.0} ({:.0} to {:.0}) | {} |",
            row.agent,
            row.elo,
            row.ci.0,
            row.ci.1,
            row.loss_pp.map_or("-".into(), |l| format!("{l:.4} pp"))
        );
    }
    out.push('\n');
}

fn networks_section(out: &mut String, f: &Findings) {
    let _ = writeln!(out, "## Networks\n");
    for (what, n) in [("small (easy, medium, dial)", f.small), ("hard", f.hard)] {
        let losses: Vec<String> = n
            .loss_vs_perfect_pp
            .iter()
            .flatten()
            .map(|l| format!("{l:.4} pp"))
            .collect();
        let measured = if losses.is_empty() {
            String::new()
        } else {
            format!(
                "; loss per move against perfect play after each pass: {}",
                losses.join(", ")
            )
        };
        let _ = writeln!(
            out,
            "* {what}: layers {:?}, {} parameters, {} bytes; passes of {:?} games{}{measured}.",
            n.hidden,
            n.parameters,
            n.bytes,
            n.passes,
            n.init
                .as_ref()
                .map(|i| format!(", starting from {i}"))
                .unwrap_or_default(),
        );
    }
    out.push('\n');
}

fn puzzles_section(out: &mut String, f: &Findings) {
    let p = f.puzzles;
    let _ = writeln!(out, "## Puzzles\n");
    if p.count > 0 {
        let _ = writeln!(
            out,
            "{} puzzles from {} games, rated {:.0} to {:.0} (median {:.0}).",
            p.count, p.games, p.ratings.0, p.ratings.2, p.ratings.1
        );
    }
    if let Some(note) = &p.note {
        let _ = writeln!(out, "{note}.");
    }
    if let Some(command) = &p.command {
        let _ = writeln!(out, "`{command}`");
    }
    out.push('\n');
}

/// Runs the report stage: the variant report, the levels report in
/// Markdown and JSON, and hard's figures in the manifest. Returns the
/// report's files in the staging folder.
pub fn report(build: &mut Build, findings: &Findings) -> Result<Vec<String>> {
    let mut inputs = build.base_inputs();
    inputs.insert("games".into(), build.plan.report_games.to_string());
    let variant = build.stage("report", &inputs, |build, _dir| {
        let args = crate::report::ReportOptions {
            rules: build.name().to_string(),
            table: build.table.clone(),
            games: build.plan.report_games,
            seed: build.seed_for("report"),
            models: Some(build.staging.dir.clone()),
        };
        let report = crate::report::variant_report(build.registry, &args)?;
        Ok((report, Vec::new()))
    })?;
    put_hard_figures(build, findings.verify);
    build.staging.write_manifest(&build.entries)?;
    // The figures were measured on the staging folder, which holds the
    // rule set's files as the models folder will, and read tables and
    // results in the work folder: the commands name the models folder
    // `.` (they run from it) and the work folder `WORK`, so a folder
    // shipped elsewhere carries no path of the machine it was built on
    // (the files given to `--table` and `--endgame`, outside both, are
    // `TABLE` and `ENDGAME`).
    let given = [
        (build.args.table.as_deref(), "TABLE"),
        (build.args.endgame.as_deref(), "ENDGAME"),
    ];
    let portable = |text: &str| portable_paths(text, &build.staging.dir, build.work.dir(), &given);
    let json = serde_json::to_string(&levels_json(build, findings, &variant))?;
    let json: serde_json::Value = serde_json::from_str(&portable(&json))?;
    let markdown = portable(&markdown(build, findings, &variant));
    let (md_name, json_name) = (report_md_name(build.name()), report_json_name(build.name()));
    build.staging.put_bytes(&md_name, markdown.as_bytes())?;
    let mut text = serde_json::to_string_pretty(&json)?;
    text.push('\n');
    build.staging.put_bytes(&json_name, text.as_bytes())?;
    Ok(vec![md_name, json_name])
}

/// `text` with the staging folder's path written `.`, the work folder's
/// `WORK` and each file the operator gave its stand-in (`--table`'s
/// `TABLE`, `--endgame`'s `ENDGAME`), each as given and absolute.
fn portable_paths(
    text: &str,
    staged: &std::path::Path,
    work: &std::path::Path,
    given: &[(Option<&std::path::Path>, &'static str)],
) -> String {
    let mut forms: Vec<(String, &str)> = Vec::new();
    let mut paths = vec![(Some(work), "WORK"), (Some(staged), ".")];
    paths.extend_from_slice(given);
    for (path, name) in paths.into_iter().filter_map(|(p, n)| Some((p?, n))) {
        forms.push((path.display().to_string(), name));
        if let Ok(absolute) = std::path::absolute(path) {
            forms.push((absolute.display().to_string(), name));
        }
    }
    // Longest first: the staging folder lies inside the work folder, and a
    // relative form inside an absolute one must not leave half a path.
    forms.sort_by_key(|(form, _)| std::cmp::Reverse(form.len()));
    let mut text = text.to_string();
    for (form, name) in forms.iter().filter(|(f, _)| !f.is_empty()) {
        text = text.replace(form.as_str(), name);
    }
    text
}

/// Hard's measured figures in its manifest entry.
fn put_hard_figures(build: &mut Build, verify: &Verify) {
    if let Some(hard) = build.entries.levels.iter_mut().find(|l| l.level == "hard") {
        let measured = &mut hard.measured;
        if let Some((score, low, high)) = verify.adjusted {
            measured.score_vs_perfect = Some(score);
            measured.score_vs_perfect_ci = Some([low, high]);
            measured.score_vs_perfect_luck_adjusted = Some(true);
        } else {
            measured
                .versus
                .insert(ScoreVersus::against(&verify.opponent), verify.raw.0);
        }
        measured.choose_p99_ms = Some(verify.latency_ms.1);
    }
}

/// The report as JSON.
fn levels_json(build: &Build, f: &Findings, variant: &VariantReport) -> serde_json::Value {
    let gaps = f.check.gaps();
    json!({
        "rules": build.name(),
        "seed": build.args.seed,
        "route": match &build.plan.route {
            Route::Exact { states } => json!({"exact": true, "states": states}),
            Route::SelfPlay { reason } => json!({"exact": false, "reason": reason, "known_exactly": f.late}),
        },
        "code_version": sawah_train::neural::run::code_version(),
        "levels": build.entries.levels.iter().map(|l| json!({
            "level": l.level, "spec": l.spec, "measured": l.measured,
        })).collect::<Vec<_>>(),
        "networks": [
            {"stage": f.small.stage, "hidden": f.small.hidden, "passes": f.small.passes,
             "init": f.small.init, "loss_vs_perfect_pp": f.small.loss_vs_perfect_pp,
             "parameters": f.small.parameters, "bytes": f.small.bytes},
            {"stage": f.hard.stage, "hidden": f.hard.hidden, "passes": f.hard.passes,
             "init": f.hard.init, "loss_vs_perfect_pp": f.hard.loss_vs_perfect_pp,
             "parameters": f.hard.parameters, "bytes": f.hard.bytes},
        ],
        "hard_search": f.search,
        "calibration": f.calibration,
        "check": {
            "tournament": f.check.tournament,
            "gaps": gaps.map(|(a, b)| [a, b]),
            "gaps_in_band": gaps.map(|(a, b)| in_band(a) && in_band(b)),
            "dial": f.check.dial.iter().map(|(target, elo, low, high)| json!({
                "target": target, "elo": elo, "low": low, "high": high, "error": elo - target,
            })).collect::<Vec<_>>(),
        },
        "verify": f.verify,
        "puzzles": f.puzzles,
        "variant": variant,
    })
}

#[cfg(test)]
mod tests {
    use super::portable_paths;
    use std::path::Path;

    #[test]
    fn a_report_names_the_folders_and_the_table_by_their_stand_ins() {
        let text = "sawah match hard perfect --models /b/out.work/r/folder --table /t/r.sawah \
                    && sawah review /b/out.work/r/verify/results.jsonl --table rel/r.sawah";
        let work = Path::new("/b/out.work/r");
        let staged = Path::new("/b/out.work/r/folder");
        let table = |path: &'static str| [(Some(Path::new(path)), "TABLE")];
        let absolute = portable_paths(text, staged, work, &table("/t/r.sawah"));
        assert_eq!(
            absolute,
            "sawah match hard perfect --models . --table TABLE \
                    && sawah review WORK/verify/results.jsonl --table rel/r.sawah"
        );
        let relative = portable_paths(text, staged, work, &table("rel/r.sawah"));
        assert!(relative.contains("--table TABLE"), "{relative}");
        assert!(!relative.contains("rel/r.sawah"), "{relative}");
        // Without --table, a table path is left as it is.
        assert!(portable_paths(text, staged, work, &[(None, "TABLE")]).contains("/t/r.sawah"));
    }
}
