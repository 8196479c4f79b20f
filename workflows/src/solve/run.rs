//! `sawah solve` and `sawah quantize`: exact tables from the command line.

use anyhow::{Context, Result, bail};
use sawah_engine::AnyGame;
use sawah_engine::registry::Registry;
use std::path::PathBuf;

/// Bytes in a GiB.
const GIB: f64 = (1u64 << 30) as f64;

/// `sawah solve`: solves a race rule set, reporting each layer pair, and
/// writes its table.
pub fn solve(registry: &mut Registry, args: &super::SolveArgs) -> Result<()> {
    let AnyGame::Race(rules) = registry.resolve(&args.rules)? else {
        bail!(
            "senet is not solved whole; solve its endgames with --pieces K (at most K pieces per side on the board)"
        );
    };
    let options = solve_options(args.tolerance, args.memory, !args.no_extrapolation)?;
    let layers = if args.partial {
        let layers = partial_layers(&rules, options.memory, args.out.is_some())?;
        println!(
            "{}: solving {layers} ({} of {} positions) within --memory {} GiB",
            rules.name(),
            sawah_engine::race::PositionIndex::of_layers(&rules, &layers).len(),
            sawah_engine::race::PositionIndex::new(&rules).len(),
            args.memory
        );
        layers
    } else {
        sawah_engine::race::LayerSet::whole(rules.pieces())
    };
    let solved = solve_table(
        &rules,
        &layers,
        options,
        args.out.as_deref(),
        args.values,
        args.verbose,
    )?;
    print_layers(&solved.solution);
    let sweeps: u32 = solved.solution.layers.iter().map(|l| l.sweeps).sum();
    let start = match solved.start_value {
        Some(value) => format!(
            "first player's win probability at the start: {value:.10} ({:.10}%)",
            100.0 * value
        ),
        None => format!("a partial table: {layers}"),
    };
    println!(
        "{}: {} states, {} layer pairs, {} sweeps, residual {:.2e}, {:.1} s{}; {start}",
        rules.name(),
        solved.solution.values.len(),
        solved.solution.layers.len(),
        sweeps,
        solved.solution.residual,
        solved.seconds,
        solved
            .peak_bytes
            .map(|bytes| format!(", peak memory {:.2} GiB", bytes as f64 / GIB))
            .unwrap_or_default(),
    );
    if let Some(path) = &args.out {
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// The late layers of `rules` whose solve fits `memory` bytes (every
/// layer when the whole table fits), or why none do.
pub fn partial_layers(
    rules: &sawah_engine::race::RuleSet,
    memory: u64,
    checkpoints: bool,
) -> Result<sawah_engine::race::LayerSet> {
    sawah_solver::partial::largest_layers_within(rules, memory, checkpoints).with_context(|| {
        let last = sawah_engine::race::LayerSet::from_diagonal(
            rules.pieces(),
            2 * (rules.pieces() - 1),
        );
        let needed = sawah_solver::partial::memory_needed(rules, &last, checkpoints)
            .map(|bytes| format!("{:.3} GiB", bytes as f64 / GIB))
            .unwrap_or_else(|| "more positions than the solver indexes".into());
        format!(
            "not even the last layer pair of {} (one piece of each side left) fits --memory {:.3} GiB: it needs {needed}",
            rules.name(),
            memory as f64 / GIB
        )
    })
}

/// A solve's outcome.
pub struct Solved {
    /// The solution.
    pub solution: sawah_solver::Solution,
    /// The first player's win probability at the start (a whole solve's).
    pub start_value: Option<f64>,
    /// Seconds it took.
    pub seconds: f64,
    /// The process's peak resident memory during the solve, where known.
    pub peak_bytes: Option<u64>,
}

/// Solves `rules` under a progress bar, writing the table to `out` when
/// given (layer pairs kept in OUT.layers/ until then, so a killed solve
/// resumes where it stopped).
pub fn solve_table(
    rules: &sawah_engine::race::RuleSet,
    layers: &sawah_engine::race::LayerSet,
    options: sawah_solver::SolveOptions,
    out: Option<&std::path::Path>,
    values: sawah_agents::table::ValueType,
    verbose: bool,
) -> Result<Solved> {
    let tolerance = options.tolerance;
    let checkpoints = out.map(|path| {
        let mut folder = path.as_os_str().to_owned();
        folder.push(".layers");
        PathBuf::from(folder)
    });
    let start = std::time::Instant::now();
    let solution = solve_with_progress(rules, layers, options, checkpoints.as_deref(), verbose)?;
    let seconds = start.elapsed().as_secs_f64();
    // The process's peak so far, the solve's (the table written below is
    // streamed from the values already held).
    let peak_bytes = sawah_solver::peak_resident_bytes();
    let start_value = solution.get(&rules.start());
    if let Some(path) = out {
        let info = sawah_agents::table::TableInfo {
            states: solution.values.len() as u64,
            residual: solution.residual,
            tolerance,
            value_type: values,
        };
        sawah_agents::table::write_partial_table_from(
            path,
            rules,
            layers,
            solution.values.iter().copied(),
            &info,
        )?;
        if let Some(folder) = &checkpoints {
            std::fs::remove_dir_all(folder).with_context(|| {
                format!("wrote the table, but cannot remove {}", folder.display())
            })?;
        }
    }
    Ok(Solved {
        solution,
        start_value,
        seconds,
        peak_bytes,
    })
}

/// Solves `rules` under a progress bar over the layer pairs (by positions),
/// its message the current pair, sweep and largest change; with `verbose`,
/// a line per sweep too. The bar is hidden when stderr is not a terminal.
fn solve_with_progress(
    rules: &sawah_engine::race::RuleSet,
    layers: &sawah_engine::race::LayerSet,
    options: sawah_solver::SolveOptions,
    checkpoints: Option<&std::path::Path>,
    verbose: bool,
) -> Result<sawah_solver::Solution> {
    // A bar over the layer pairs (by positions), its message the current
    // pair, sweep and largest change; hidden when stderr is not a terminal.
    let index = sawah_engine::race::PositionIndex::of_layers(rules, layers);
    let unfinished: u64 = layers
        .pairs()
        .iter()
        .map(|&pair| index.pair_len(pair))
        .sum();
    let bar = crate::progress::bar(
        unfinished,
        "{elapsed_precise} [{bar:40}] {percent:>3}% of positions (ETA {eta_mean})  {msg}",
    );
    let mut current = sawah_engine::race::LayerPair::new(u8::MAX, u8::MAX);
    let solution = sawah_solver::solve_layers(rules, layers, options, checkpoints, |report| {
        if let Some(reason) = &report.ignored_checkpoint {
            bar.suspend(|| {
                eprintln!(
                    "layers {}: checkpoint ignored ({reason}); solving the pair again",
                    report.scores
                )
            });
        }
        if report.scores != current {
            current = report.scores;
            bar.inc(report.states);
        }
        bar.set_message(format!(
            "layers {}: sweep {}, Bellman pass {}, change {:.2e}",
            report.scores, report.sweeps, report.bellman_passes, report.residual
        ));
        if verbose {
            bar.suspend(|| {
                    eprintln!(
                        "  layers {}: sweep {} ({} on chosen moves, {} extrapolated, {:.2} read in full) Bellman pass {} ({:.2} generated) change {:.3e} ({:.2} s)",
                        report.scores,
                        report.sweeps,
                        report.choice_sweeps,
                        report.extrapolations,
                        report.read_in_full,
                        report.bellman_passes,
                        report.generated_passes,
                        report.residual,
                        report.elapsed.as_secs_f64()
                    )
                });
        }
    })?;
    bar.finish_and_clear();
    Ok(solution)
}

/// The solver's options from `sawah solve`'s flags, checked.
pub fn solve_options(
    tolerance: f64,
    memory_gib: f64,
    extrapolate: bool,
) -> Result<sawah_solver::SolveOptions> {
    if !(tolerance.is_finite() && tolerance > 0.0) {
        bail!("--tolerance must be a positive number, not {tolerance}");
    }
    if !(memory_gib.is_finite() && memory_gib > 0.0 && memory_gib <= 1e6) {
        bail!("--memory must be a positive number of GiB, not {memory_gib}");
    }
    Ok(sawah_solver::SolveOptions {
        tolerance,
        memory: (memory_gib * GIB) as u64,
        extrapolate,
        ..Default::default()
    })
}

/// One line per layer pair: how it was solved (or that it was resumed).
fn print_layers(solution: &sawah_solver::Solution) {
    for layer in &solution.layers {
        let how = if layer.sweeps == 0 {
            "resumed from checkpoint".to_string()
        } else {
            format!(
                "{:>4} sweeps ({:>4} on chosen moves, the rest {:.2} in full; {:>2} extrapolations), {:>2} Bellman passes ({:.2} generated), {} candidates",
                layer.sweeps,
                layer.choice_sweeps,
                layer.read_in_full,
                layer.extrapolations,
                layer.bellman_passes,
                layer.generated_passes,
                layer.candidates
            )
        };
        println!(
            "layers {}+mirror: {:>11} states, {how}, residual {:.2e}, {:.2} s",
            layer.scores,
            layer.states,
            layer.residual,
            layer.elapsed.as_secs_f64()
        );
    }
}

/// ", peak memory N GiB": the process's peak so far, where it is known.
fn peak_memory() -> String {
    sawah_solver::peak_resident_bytes()
        .map(|bytes| format!(", peak memory {:.2} GiB", bytes as f64 / GIB))
        .unwrap_or_default()
}

/// `sawah solve --rules senet [--pieces K]`: Senet's endgame table, every
/// position with at most K pieces per side on the board (5, the whole game,
/// when left out).
pub fn solve_senet_endgames(args: &super::SolveArgs) -> Result<()> {
    let request = EndgameSolve {
        pieces: args.pieces.unwrap_or(sawah_engine::senet::PIECES),
        tolerance: args.tolerance,
        values: args.values,
        memory_gib: args.memory,
        verbose: args.verbose,
    };
    let states = solve_endgame_table(&request, args.out.as_deref())?;
    if let Some(path) = &args.out {
        println!("wrote {} ({states} positions)", path.display());
    }
    Ok(())
}

/// What a Senet endgame solve is asked.
#[derive(Clone, Copy, Debug)]
pub struct EndgameSolve {
    /// At most this many pieces per side on the board (1 to 5).
    pub pieces: u8,
    /// The tolerance of the read-only passes.
    pub tolerance: f64,
    /// How the table stores values.
    pub values: sawah_agents::table::ValueType,
    /// Memory the solve may use, in GiB.
    pub memory_gib: f64,
    /// Print every sweep, not only every layer pair.
    pub verbose: bool,
}

/// A duration for people: seconds, minutes, hours or days.
fn about(seconds: f64) -> String {
    match seconds {
        s if s < 90.0 => format!("{s:.0} s"),
        s if s < 5400.0 => format!("{:.0} min", s / 60.0),
        s if s < 2.0 * 86400.0 => format!("{:.1} h", s / 3600.0),
        s => format!("{:.1} days", s / 86400.0),
    }
}

/// The plan of a Senet endgame solve as one line, and the refusal when it
/// needs more than `memory_gib` (nothing large is allocated before it).
/// With it, whether the choices fit too ([`EndgameOptions::choices`]).
fn endgame_plan(pieces: u8, memory_gib: f64) -> Result<(String, bool)> {
    let plan = sawah_solver::senet_endgame::plan(pieces)
        .map_err(|_| anyhow::anyhow!("--pieces must be 1 to 5, not {pieces}"))?;
    if !(memory_gib.is_finite() && memory_gib > 0.0 && memory_gib <= 1e6) {
        bail!("--memory must be a positive number of GiB, not {memory_gib}");
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let needed = plan.bytes as f64 / GIB;
    let shown = if needed >= 0.01 {
        format!("{needed:.2} GiB")
    } else {
        format!("{:.1} MiB", needed * 1024.0)
    };
    let what = if pieces == sawah_engine::senet::PIECES {
        "the whole game of senet (every position with 1 to 5 pieces a side on the board)"
            .to_string()
    } else {
        format!("senet endgames with at most {pieces} pieces per side on the board")
    };
    let with_choices = (plan.bytes + plan.choice_bytes) as f64 / GIB;
    let choices = with_choices <= memory_gib;
    let line = format!(
        "{what}: {} positions (the largest layer pair {}); needs {shown} (8 bytes a position), {:.2} GiB more to keep the moves chosen ({}); about {} on this machine's {cores} cores",
        plan.positions,
        plan.largest_pair,
        plan.choice_bytes as f64 / GIB,
        if choices {
            "kept"
        } else {
            "not kept: --memory is short of them, so every sweep goes over every move"
        },
        about(plan.seconds_on(cores, choices)),
    );
    if plan.bytes as f64 > memory_gib * GIB {
        let fits = (1..pieces)
            .rev()
            .find(|&k| {
                sawah_solver::senet_endgame::plan(k)
                    .is_ok_and(|p| p.bytes as f64 <= memory_gib * GIB)
            })
            .map(|k| {
                format!(
                    "; within it, --pieces {k} solves the endgames with at most {k} pieces a side"
                )
            })
            .unwrap_or_default();
        bail!(
            "{line}.\n--memory allows {memory_gib} GiB, so nothing was solved: a machine with at least {:.0} GiB of memory would do (about {} on 16 cores), with --memory {:.0} ({:.0} GiB and --memory {:.0} to keep the choices: about {}); with --out it saves every layer pair as it finishes and resumes from them after a kill (docs/solver.md){fits}",
            (needed * 1.05 + 1.0).ceil(),
            about(plan.seconds_on(16, false)),
            (needed * 1.02 + 0.5).ceil(),
            (with_choices * 1.05 + 1.0).ceil(),
            (with_choices * 1.02 + 0.5).ceil(),
            about(plan.seconds_on(16, true)),
        );
    }
    Ok((line, choices))
}

/// Solves Senet's endgames under a progress bar, a line per layer pair,
/// and writes the table to `out` when given (each finished pair kept in
/// OUT.layers/ until then, so a killed solve resumes where it stopped).
/// Returns the positions solved.
pub fn solve_endgame_table(request: &EndgameSolve, out: Option<&std::path::Path>) -> Result<u64> {
    let pieces = request.pieces;
    let (plan, choices) = endgame_plan(pieces, request.memory_gib)?;
    println!("{plan}");
    let options = sawah_solver::senet_endgame::EndgameOptions {
        pieces,
        tolerance: request.tolerance,
        choices,
        ..Default::default()
    };
    let index = sawah_engine::senet::endgame::EndgameIndex::new(pieces)
        .with_context(|| format!("--pieces must be 1 to 5, not {pieces}"))?;
    let checkpoints = out.map(|path| {
        let mut folder = path.as_os_str().to_owned();
        folder.push(".layers");
        PathBuf::from(folder)
    });
    let start = std::time::Instant::now();
    let bar = crate::progress::bar(
        index.len(),
        "{elapsed_precise} [{bar:40}] {percent:>3}% of positions (ETA {eta_mean})  {msg}",
    );
    let solution = sawah_solver::senet_endgame::solve_senet_endgames(
        options,
        checkpoints.as_deref(),
        |report| {
            let (a, b) = report.layers;
            bar.set_message(format!(
                "layers ({a}, {b}): sweep {}, change {:.2e}",
                report.sweeps, report.residual
            ));
            if request.verbose && !report.resumed {
                bar.suspend(|| {
                    eprintln!(
                        "layers ({a}, {b}): sweep {:>4}, change {:.3e}",
                        report.sweeps, report.residual
                    )
                });
            }
            if !report.finished {
                return;
            }
            bar.inc(report.states);
            bar.suspend(|| {
                if let Some(reason) = &report.ignored_checkpoint {
                    eprintln!("layers ({a}, {b}): checkpoint ignored ({reason}); solving the pair again");
                }
                if report.resumed {
                    println!(
                        "layers ({a}, {b})+mirror: {:>11} states, resumed from checkpoint (residual {:.2e})",
                        report.states, report.residual
                    );
                } else if report.resumed_sweeps > 0 {
                    println!(
                        "layers ({a}, {b})+mirror: {:>11} states, {:>4} sweeps (the first {} by an earlier run, resumed), residual {:.2e}, {:.2} s",
                        report.states,
                        report.sweeps,
                        report.resumed_sweeps,
                        report.residual,
                        report.elapsed.as_secs_f64()
                    );
                } else {
                    println!(
                        "layers ({a}, {b})+mirror: {:>11} states, {:>4} sweeps, residual {:.2e}, {:.2} s",
                        report.states,
                        report.sweeps,
                        report.residual,
                        report.elapsed.as_secs_f64()
                    );
                }
            });
        },
    )?;
    bar.finish_and_clear();
    let peak = peak_memory();
    let sweeps: u32 = solution.layers.iter().map(|l| l.sweeps).sum();
    println!(
        "senet endgames with at most {pieces} pieces per side: {} states, {} layer pairs, {sweeps} sweeps, residual {:.2e}, {:.1} s{peak}",
        solution.values.len(),
        solution.layers.len(),
        solution.residual,
        start.elapsed().as_secs_f64(),
    );
    if let Some(path) = out {
        let info = sawah_agents::table::TableInfo {
            states: solution.values.len() as u64,
            residual: solution.residual,
            tolerance: request.tolerance,
            value_type: request.values,
        };
        sawah_agents::endgame::write_endgame_table(path, &solution.index, &solution.values, &info)?;
        if let Some(folder) = &checkpoints {
            std::fs::remove_dir_all(folder).with_context(|| {
                format!("wrote the table, but cannot remove {}", folder.display())
            })?;
        }
    }
    Ok(solution.values.len() as u64)
}

/// `sawah quantize`: rewrites a table with u16 values and states the
/// largest difference from the source table it measured.
pub fn quantize(
    registry: &mut Registry,
    rules: &str,
    table: &std::path::Path,
    out: &std::path::Path,
) -> Result<()> {
    use sawah_agents::table::{Table, TableInfo, ValueType, write_table_from};
    let AnyGame::Race(rules) = registry.resolve(rules)? else {
        bail!("tables exist for the race family only; senet is not solved");
    };
    if table == out {
        bail!("--out must differ from --table ({})", table.display());
    }
    let source = Table::open(table, &rules)?;
    if source.info().value_type != ValueType::F32 {
        bail!(
            "{} already holds {} values; quantize reads an f32 table",
            table.display(),
            source.info().value_type
        );
    }
    let info = TableInfo {
        value_type: ValueType::U16,
        ..source.info().clone()
    };
    write_table_from(out, &rules, source.values(), &info)?;
    let written = Table::open(out, &rules)?;
    let largest = source
        .values()
        .zip(written.values())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!(
        "wrote {} ({} u16 values); largest difference from {}: {largest:.2e} (bound {:.2e})",
        out.display(),
        info.states,
        table.display(),
        ValueType::U16.rounding_error()
    );
    Ok(())
}
