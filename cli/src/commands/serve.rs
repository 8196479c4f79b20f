//! `sawah serve` (the opponents over HTTP) and `sawah loadtest` (its load
//! tool): argument parsing and start-up over the `sawah-server` crate.

use crate::commands::bot::lines::LimitArgs;
use anyhow::{Context, Result, bail};
use sawah_engine::registry::Registry;
use sawah_server::Config;
use sawah_server::loadtest::{self, LoadConfig};
use sawah_workflows::bots::BotFiles;
use std::net::SocketAddr;
use std::time::Duration;

/// The arguments of `sawah serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// The solved tables and models it reads.
    #[command(flatten)]
    pub files: BotFiles,
    /// Worker threads that search (default: one per core).
    #[arg(long)]
    pub workers: Option<usize>,
    /// Queue places before requests get 503: a request takes one, a body
    /// one per KiB (at least --max-batch).
    #[arg(long, default_value_t = 1024)]
    pub queue: usize,
    /// Largest request body in bytes.
    #[arg(long, default_value_t = 64 << 10)]
    pub body_limit: usize,
    /// Most requests in one batch.
    #[arg(long, default_value_t = 64)]
    pub max_batch: usize,
    /// An origin browsers may call from (repeat; `*` for any).
    #[arg(long = "cors-origin", value_name = "ORIGIN")]
    pub cors_origins: Vec<String>,
    /// What one request may cost.
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Connections open at once; one past it is answered 503 and closed.
    #[arg(long, default_value_t = 1024)]
    pub max_connections: usize,
    /// Seconds from a connection being ready for a request (opened, or
    /// answered) to the request's headers complete: also the idle
    /// keep-alive timeout.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub header_timeout: f64,
    /// Seconds from a request's headers to its whole body (408 beyond).
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub body_timeout: f64,
    /// Seconds a write may make no progress before the connection is
    /// closed (a client that does not read its answer).
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub write_timeout: f64,
    /// Seconds after SIGTERM for the requests in flight; then the
    /// connections still open are closed. A second signal closes them at
    /// once.
    #[arg(long, default_value_t = 20.0, value_name = "SECONDS")]
    pub shutdown_timeout: f64,
    /// MiB that answers waiting to be read may hold together (503 beyond).
    #[arg(long, default_value_t = 32, value_name = "MIB")]
    pub answer_memory: usize,
}

/// `value` seconds of flag `flag` as a duration: positive and finite.
fn seconds(flag: &str, value: f64) -> Result<Duration> {
    if !(value > 0.0 && value.is_finite() && value < 1e9) {
        bail!("--{flag} must be a positive number of seconds, not {value}");
    }
    Ok(Duration::from_secs_f64(value))
}

/// Loads everything, then serves until SIGTERM or SIGINT.
pub fn serve(registry: Registry, args: ServeArgs) -> Result<()> {
    init_logs();
    let limits = args.limits.limits(true);
    let setup = sawah_workflows::bots::setup(&args.files, true, limits)?;
    let bot = sawah_workflows::bots::native_bot(registry, &setup)?;
    let defaults = Config::default();
    let workers = args.workers.unwrap_or(defaults.workers).max(1);
    let config = Config {
        workers,
        queue: args.queue,
        body_limit: args.body_limit,
        max_batch: args.max_batch,
        cors_origins: args.cors_origins,
        limits,
        max_connections: args.max_connections,
        header_timeout: seconds("header-timeout", args.header_timeout)?,
        body_timeout: seconds("body-timeout", args.body_timeout)?,
        write_timeout: seconds("write-timeout", args.write_timeout)?,
        shutdown_timeout: seconds("shutdown-timeout", args.shutdown_timeout)?,
        answer_memory: args
            .answer_memory
            .checked_mul(1 << 20)
            .filter(|&bytes| bytes > 0)
            .context("--answer-memory must be from 1 MiB up")?,
    };
    config.check()?;
    bot.check_levels_within_depth()
        .map_err(anyhow::Error::msg)?;
    // Listening socket, standard streams and a few files beside the
    // connections.
    sawah_server::conn::ensure_descriptors(config.max_connections as u64 + 64)
        .map_err(anyhow::Error::msg)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .with_context(|| format!("listening on {}", args.addr))?;
        let local = listener.local_addr()?;
        tracing::info!(
            addr = %local,
            workers = config.workers,
            queue = config.queue,
            "sawah serve is ready"
        );
        // One line on stdout for programs that start the server on port 0.
        println!("listening on http://{local}");
        let (shutdown, force) = sawah_server::shutdown_signals();
        sawah_server::serve(listener, bot, &config, shutdown, force).await?;
        tracing::info!("stopped");
        anyhow::Ok(())
    })
}

fn init_logs() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("SAWAH_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// The arguments of `sawah loadtest`.
#[derive(clap::Args, Debug)]
pub struct LoadtestArgs {
    /// The server, http://HOST:PORT.
    pub url: String,
    /// Rule set of the positions.
    #[arg(long, default_value = "ur")]
    pub rules: String,
    /// The bot every request names.
    #[arg(long, default_value = "hard")]
    pub bot: String,
    /// Connections sending at once.
    #[arg(long, default_value_t = 8)]
    pub concurrency: usize,
    /// Stop after this many requests.
    #[arg(long)]
    pub requests: Option<u64>,
    /// Stop after this many seconds.
    #[arg(long)]
    pub seconds: Option<f64>,
    /// Requests per second across all connections (default: as fast as
    /// answered).
    #[arg(long)]
    pub rate: Option<f64>,
    /// `choose` requests per call: more than 1 sends batches to
    /// /v1/request (--rate then counts calls).
    #[arg(long, default_value_t = 1)]
    pub batch: usize,
    /// Distinct positions (from random games) to cycle through.
    #[arg(long, default_value_t = 2000)]
    pub positions: usize,
    /// Seed of the positions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// First answer the same requests in this process with this many
    /// threads for 5 s, and compare the rates.
    #[arg(long, value_name = "THREADS")]
    pub compare: Option<usize>,
    /// The models folder for --compare (as for `sawah serve`).
    #[arg(long, value_name = "DIR")]
    pub models: Option<std::path::PathBuf>,
}

/// Runs a load test and prints its figures.
pub fn loadtest(registry: Registry, args: LoadtestArgs) -> Result<()> {
    if args.seconds.is_some_and(|s| !(s > 0.0 && s.is_finite())) {
        bail!("--seconds must be a positive number");
    }
    if args.rate.is_some_and(|r| !(r > 0.0 && r.is_finite())) {
        bail!("--rate must be a positive number");
    }
    if args.positions == 0 {
        bail!("--positions must be at least 1");
    }
    let bodies =
        loadtest::choose_bodies(&registry, &args.rules, &args.bot, args.positions, args.seed)?;
    let in_process = match args.compare {
        Some(threads) => {
            let files = BotFiles {
                models: args.models.clone(),
                ..Default::default()
            };
            let setup = sawah_workflows::bots::setup(&files, true, Default::default())?;
            let bot = sawah_workflows::bots::native_bot(registry, &setup)?;
            let rate = loadtest::in_process_rate(&bot, &bodies, threads, Duration::from_secs(5));
            println!("in process: {rate:.0} choose/s with {threads} threads (no HTTP)");
            Some(rate)
        }
        None => None,
    };
    let config = LoadConfig {
        url: args.url.clone(),
        concurrency: args.concurrency,
        requests: args.requests,
        duration: args.seconds.map(Duration::from_secs_f64),
        rate: args.rate,
        batch: args.batch,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let report = runtime.block_on(loadtest::run(&config, bodies))?;
    let batches = if args.batch > 1 {
        format!(" (batches of {})", args.batch)
    } else {
        String::new()
    };
    println!(
        "{} {} on {}: {} connections, {} answered{batches} in {:.1} s",
        args.rules,
        args.bot,
        args.url,
        args.concurrency,
        report.latencies.len(),
        report.elapsed.as_secs_f64()
    );
    println!(
        "throughput {:.0}/s  p50 {:.2} ms  p90 {:.2} ms  p99 {:.2} ms  max {:.2} ms",
        report.throughput(),
        report.quantile(0.5),
        report.quantile(0.9),
        report.quantile(0.99),
        report.quantile(1.0)
    );
    let statuses: Vec<String> = report
        .statuses
        .iter()
        .map(|(status, n)| format!("{status}: {n}"))
        .collect();
    println!(
        "errors {} (transport {}{}{})",
        report.errors(),
        report.transport_errors,
        if statuses.is_empty() { "" } else { "; " },
        statuses.join(", ")
    );
    if report.cut_off > 0 {
        println!(
            "{} requests were still unanswered when --seconds ran out (not counted)",
            report.cut_off
        );
    }
    if let Some(bytes) = report.max_resident {
        println!(
            "server resident memory, most seen: {:.1} MB",
            bytes as f64 / 1e6
        );
    }
    if let Some(rate) = in_process {
        println!(
            "HTTP throughput / in-process rate: {:.1}%",
            100.0 * report.throughput() / rate
        );
    }
    Ok(())
}
