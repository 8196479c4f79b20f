//! The `bench` subcommands: playouts, search, neural evaluation, choosing
//! a move, and the bot protocol, each printing its figures.

use sawah_workflows::measure;

use anyhow::{Context, Result, bail};
use sawah_engine::registry::Registry;
use sawah_engine::with_game;
use std::path::PathBuf;
use std::time::Duration;

/// The arguments of `sawah bench-search`.
#[derive(clap::Args, Debug)]
pub struct BenchSearchArgs {
    /// Rule sets to measure (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "sawah,senet")]
    pub rules: Vec<String>,
    /// Depth in plies (rolls looked ahead after the move).
    #[arg(long, default_value_t = 3)]
    pub depth: u8,
    /// Positions (with a roll and at least two legal moves) per rule set.
    #[arg(long, default_value_t = 50)]
    pub positions: usize,
    /// Seed for the random games the positions come from.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The arguments of `sawah bench-choose`.
#[derive(clap::Args, Debug)]
pub struct BenchChooseArgs {
    /// Rule sets (comma-separated).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "sawah,babylon,marks-roll-only,ur,masters,masters-5,senet"
    )]
    pub rules: Vec<String>,
    /// Agents or levels (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "easy,medium,hard")]
    pub agents: Vec<String>,
    /// Positions per agent.
    #[arg(long, default_value_t = 2000)]
    pub positions: usize,
    /// Seed for the positions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The shipped models' folder, where levels resolve; default: ./models,
    /// then the models embedded in the binary.
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
}

/// The arguments of `sawah bench-neural`.
#[derive(clap::Args, Debug)]
pub struct BenchNeuralArgs {
    /// Rule sets to measure (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "ur,senet")]
    pub rules: Vec<String>,
    /// Hidden layer widths of a network with random weights (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "64")]
    pub hidden: Vec<usize>,
    /// Measure this model file instead (its rule set must be the one given).
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
    /// Seconds per rule set.
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
    /// Seed for the positions (and random weights).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The arguments of `sawah bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Rule sets to measure (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "sawah,ur,senet")]
    pub rules: Vec<String>,
    /// Seconds per rule set.
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
    /// Seed for the dice and choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The arguments of `sawah bench-protocol`.
#[derive(clap::Args, Debug)]
pub struct BenchProtocolArgs {
    /// JSON-lines file of requests.
    #[arg(value_name = "FILE")]
    pub requests: PathBuf,
    /// The models folder (as for `sawah bot`).
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
    /// Answer the whole file this many times first, untimed (warm-up).
    #[arg(long, default_value_t = 1)]
    pub warmup: usize,
}

/// Nodes and speed of plain expectiminimax and Star2.
pub fn bench_search(registry: &mut Registry, args: BenchSearchArgs) -> Result<()> {
    let BenchSearchArgs {
        rules,
        depth,
        positions,
        seed,
    } = args;
    if depth > 4 {
        bail!("--depth is in plies and goes up to 4, not {depth}");
    }
    if positions == 0 {
        bail!("--positions must be at least 1");
    }
    println!("search at depth {depth} (plies) on {positions} positions per rule set, seed {seed}");
    for name in rules {
        let game = registry.resolve(&name)?;
        let report = with_game!(&game, g => measure::search(g, depth, positions, seed));
        println!("{report}");
    }
    Ok(())
}

/// How long agents take to choose a move.
pub fn bench_choose(registry: &mut Registry, args: BenchChooseArgs) -> Result<()> {
    let BenchChooseArgs {
        rules,
        agents,
        positions,
        seed,
        models,
    } = args;
    if positions == 0 {
        bail!("--positions must be at least 1");
    }
    let models = sawah_workflows::models::find(models.as_deref())?;
    println!(
        "choose latency, one thread, {positions} positions with a choice per agent, seed {seed}"
    );
    for name in rules {
        let game = registry.resolve(&name)?;
        for text in &agents {
            let spec = sawah_workflows::models::spec_of(&models, text, game.name())
                .with_context(|| format!("agent {text}"))?;
            let result = with_game!(&game, g => {
                let mut agent = spec.build(g)?;
                measure::choose_latency(g, agent.as_mut(), positions, seed)
            });
            println!(
                "{:<16} {:<8} p50 {:>7.3} ms  p99 {:>7.3} ms  max {:>7.3} ms  ({})",
                game.name(),
                text,
                result.quantile(0.5),
                result.quantile(0.99),
                result.quantile(1.0),
                spec.portable()
            );
        }
    }
    Ok(())
}

/// Neural evaluations per second.
pub fn bench_neural(registry: &mut Registry, args: BenchNeuralArgs) -> Result<()> {
    let BenchNeuralArgs {
        rules,
        hidden,
        model,
        seconds,
        seed,
    } = args;
    if !(seconds.is_finite() && seconds > 0.0) {
        bail!("--seconds must be a positive number, not {seconds}");
    }
    if hidden.is_empty() || hidden.iter().any(|&w| w == 0 || w > 1024) {
        bail!("--hidden: widths from 1 to 1024");
    }
    println!("neural evaluation, batch size 1, one thread, {seconds} s per rule set, seed {seed}");
    for name in rules {
        let game = registry.resolve(&name)?;
        let result = with_game!(&game, g => {
            let net = match &model {
                Some(path) => sawah_agents::neural::NeuralNet::load(path, g)?,
                None => sawah_agents::neural::NeuralNet::with_random_weights(g, &hidden, seed)?,
            };
            measure::neural(g, &net, seed, Duration::from_secs_f64(seconds))
        });
        println!(
            "{:<16} layers {:?} ({} parameters): {:.2} M evaluations/s ({:.0} ns each)",
            result.rules,
            result.widths,
            result.parameters,
            result.evaluations as f64 / result.elapsed.as_secs_f64() / 1e6,
            result.elapsed.as_secs_f64() * 1e9 / result.evaluations as f64
        );
    }
    Ok(())
}

/// Random playouts per second.
pub fn bench_playouts(registry: &mut Registry, args: BenchArgs) -> Result<()> {
    let BenchArgs {
        rules,
        seconds,
        seed,
    } = args;
    if !(seconds.is_finite() && seconds > 0.0) {
        bail!("--seconds must be a positive number, not {seconds}");
    }
    println!("random playouts, one thread, {seconds} s per rule set, seed {seed}");
    for name in rules {
        let game = registry.resolve(&name)?;
        let duration = Duration::from_secs_f64(seconds);
        let result = with_game!(&game, g => measure::random_playouts(g, seed, duration));
        println!(
            "{:<16} {:>6.2} M moves/s  {:>8} games  {:>6.1} moves/game  rolls/game: mean {:.1}, min {}, median {}, p90 {}, p99 {}, max {}",
            result.rules,
            result.moves_per_second() / 1e6,
            result.games,
            result.moves as f64 / result.games as f64,
            result.plies as f64 / result.games as f64,
            result.length_quantile(0.0),
            result.length_quantile(0.5),
            result.length_quantile(0.9),
            result.length_quantile(0.99),
            result.length_quantile(1.0),
        );
    }
    Ok(())
}

/// Every request line of a file answered in this process, timed.
pub fn bench_protocol(registry: Registry, args: BenchProtocolArgs) -> Result<()> {
    let BenchProtocolArgs {
        requests,
        models,
        warmup,
    } = args;
    let files = sawah_workflows::bots::BotFiles {
        models,
        ..Default::default()
    };
    let setup = sawah_workflows::bots::setup(&files, false, Default::default())?;
    let server = sawah_workflows::bots::native_bot(registry, &setup)?;
    let bytes = sawah_engine::files::read_bounded(&requests, 256 << 20)
        .with_context(|| format!("requests {}", requests.display()))?;
    let text = String::from_utf8(bytes)
        .with_context(|| format!("requests {}: not UTF-8 text", requests.display()))?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    for (line, micros) in measure::protocol_latency(&server, &lines, warmup)
        .into_iter()
        .enumerate()
    {
        println!("{{\"line\":{line},\"micros\":{micros:.1}}}");
    }
    Ok(())
}
