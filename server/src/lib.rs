//! `sawah serve`: the opponents as a network service, on the same protocol
//! as every other front door (`sawah-protocol`).
//!
//! * An axum router ([`api`]) turns each HTTP call into protocol requests.
//! * A bounded worker pool ([`pool`]) answers them off the async threads.
//!   Its queue counts cost; a request's time budget counts from its
//!   arrival; the work of a client that went away is dropped. A full queue
//!   is answered 503 with `Retry-After`.
//! * Answers are held within a memory budget until read ([`answers`]);
//!   connections are limited in number and closed when they stall
//!   ([`conn`]).
//! * Models and tables are loaded before the port opens (a bad one stops
//!   the start); requests cannot name files by path, and each request's
//!   search is bounded in depth, nodes and time (`sawah_protocol::native`):
//!   a limit either leaves an answer exactly as `sawah bot` gives it, or
//!   says what it cut, or refuses.
//! * SIGTERM or SIGINT stops accepting, lets the requests in flight finish
//!   within the shutdown timeout and returns; a second signal returns at
//!   once.
//!
//! [`loadtest`] is the load tool that measures it.
// No function outside tests longer than 100 lines (clippy.toml).
#![warn(clippy::too_many_lines)]

pub mod answers;
pub mod api;
pub mod conn;
pub mod errors;
pub mod loadtest;
pub mod metrics;
pub mod pool;
pub mod schema;

use api::AppState;
use axum::http::{HeaderName, HeaderValue, Request};
use conn::ConnectionLimits;
use sawah_protocol::Bot;
use sawah_protocol::native::Limits;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::request_id::{
    MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};

/// The most `--max-connections` may be (each connection is a descriptor).
pub const MAX_CONNECTIONS: usize = 1 << 20;

/// The longest request id kept; a longer one is replaced by a fresh id.
pub const MAX_REQUEST_ID: usize = 128;

/// How a server runs. Every field is a `sawah serve` flag, listed with its
/// default in `docs/server.md`.
#[derive(Clone, Debug)]
pub struct Config {
    /// Worker threads that answer requests (at least one).
    pub workers: usize,
    /// Queue places (a request takes one, a body one per KiB); at least
    /// `max_batch`.
    pub queue: usize,
    /// Largest request body, in bytes.
    pub body_limit: usize,
    /// Most requests in one batch.
    pub max_batch: usize,
    /// Origins browsers may call from (`*` for any); none: no CORS headers.
    pub cors_origins: Vec<String>,
    /// The cost bound of each request.
    pub limits: Limits,
    /// Connections open at once.
    pub max_connections: usize,
    /// From a connection being ready for a request to its headers complete
    /// (the idle keep-alive timeout too).
    pub header_timeout: Duration,
    /// From the headers to the whole body read.
    pub body_timeout: Duration,
    /// A write that makes no progress for this long closes the connection.
    pub write_timeout: Duration,
    /// After SIGTERM, how long requests in flight may finish.
    pub shutdown_timeout: Duration,
    /// Bytes that answers waiting to be read may hold together.
    pub answer_memory: usize,
}

impl Default for Config {
    fn default() -> Config {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Config {
            workers: cores,
            // As many as connections: one request waiting per connection
            // is never refused for want of a place.
            queue: 1024,
            body_limit: 64 << 10,
            max_batch: 64,
            cors_origins: Vec::new(),
            limits: Limits::UNTRUSTED,
            max_connections: 1024,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(10),
            shutdown_timeout: Duration::from_secs(20),
            answer_memory: 32 << 20,
        }
    }
}

/// Why a server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The worker threads could not start.
    #[error("starting the workers: {0}")]
    Workers(std::io::Error),
    /// A CORS origin is not a valid header value.
    #[error("--cors-origin {0:?} is not a valid origin")]
    Origin(String),
    /// The settings contradict each other.
    #[error("{0}")]
    Config(String),
    /// Serving failed.
    #[error("serving: {0}")]
    Io(#[from] std::io::Error),
}

impl Config {
    /// Checks the settings against each other.
    pub fn check(&self) -> Result<(), ServeError> {
        if self.queue < self.max_batch {
            return Err(ServeError::Config(format!(
                "--queue {} is smaller than --max-batch {}: a full batch could never be queued",
                self.queue, self.max_batch
            )));
        }
        if !(1..=MAX_CONNECTIONS).contains(&self.max_connections) {
            return Err(ServeError::Config(format!(
                "--max-connections must be from 1 to {MAX_CONNECTIONS}, not {}",
                self.max_connections
            )));
        }
        Ok(())
    }
}

/// Serves `bot` on `listener` until `shutdown` completes, then stops
/// accepting, lets the requests in flight finish within the shutdown
/// timeout and returns; `force` completing returns at once.
///
/// # Examples
///
/// A server on a free port of 127.0.0.1, asked for the legal moves of a
/// roll over HTTP, then stopped:
///
/// ```
/// use sawah_engine::registry::Registry;
/// use sawah_protocol::Bot;
/// use sawah_server::{Config, serve};
/// use std::io::{Read, Write};
///
/// let runtime = tokio::runtime::Runtime::new().unwrap();
/// let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
/// let address = listener.local_addr().unwrap();
/// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
/// let server = runtime.spawn(async move {
///     let config = Config::default();
///     let shutdown = async move { stopped.await.unwrap_or(()) };
///     serve(listener, Bot::new(Registry::new()), &config, shutdown, std::future::pending()).await
/// });
///
/// let body = r#"{"position":"ur light 7/-/0 7/-/0","roll":2}"#;
/// let mut client = std::net::TcpStream::connect(address).unwrap();
/// write!(
///     client,
///     "POST /v1/legal-moves HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
///      Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
///     body.len()
/// )
/// .unwrap();
/// let mut answer = String::new();
/// client.read_to_string(&mut answer).unwrap();
/// assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
/// assert!(answer.contains(r#""moves":[{"from":0,"to":2"#), "{answer}");
///
/// stop.send(()).unwrap();
/// runtime.block_on(server).unwrap().unwrap();
/// ```
pub async fn serve(
    listener: tokio::net::TcpListener,
    bot: Bot,
    config: &Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
    force: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    config.check()?;
    let bot = Arc::new(bot);
    let pool = pool::Pool::new(
        Arc::clone(&bot),
        config.limits,
        config.workers,
        config.queue,
    )
    .map_err(ServeError::Workers)?;
    let state = Arc::new(AppState {
        bot,
        pool,
        metrics: metrics::Metrics::new(),
        answers: answers::AnswerMemory::new(config.answer_memory),
        body_limit: config.body_limit,
        body_timeout: config.body_timeout,
        max_batch: config.max_batch,
        ready: AtomicBool::new(true),
    });
    let router = app(Arc::clone(&state), config)?;
    let stopping = Arc::clone(&state);
    let shutdown = async move {
        shutdown.await;
        stopping.ready.store(false, Ordering::Relaxed);
    };
    let limits = ConnectionLimits {
        max_connections: config.max_connections,
        header_timeout: config.header_timeout,
        write_timeout: config.write_timeout,
        shutdown_timeout: config.shutdown_timeout,
    };
    conn::accept_loop(listener, router, limits, shutdown, force).await;
    // The workers drop the jobs of the connections just closed; joining
    // them blocks, so off the async threads.
    let _ = tokio::task::spawn_blocking(move || drop(state)).await;
    Ok(())
}

/// The router with request ids and CORS around it.
fn app(state: Arc<AppState>, config: &Config) -> Result<axum::Router, ServeError> {
    let request_id = HeaderName::from_static("x-request-id");
    let mut router = api::router(state)
        .layer(PropagateRequestIdLayer::new(request_id.clone()))
        .layer(SetRequestIdLayer::new(request_id, RequestIds::new()))
        .layer(axum::middleware::map_request(drop_long_request_id));
    if !config.cors_origins.is_empty() {
        router = router.layer(cors(&config.cors_origins)?);
    }
    Ok(router)
}

fn cors(origins: &[String]) -> Result<CorsLayer, ServeError> {
    let allow = if origins.iter().any(|origin| origin == "*") {
        AllowOrigin::any()
    } else {
        let values = origins
            .iter()
            .map(|origin| {
                HeaderValue::from_str(origin).map_err(|_| ServeError::Origin(origin.clone()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        AllowOrigin::list(values)
    };
    Ok(CorsLayer::new()
        .allow_origin(allow)
        .allow_methods([axum::http::Method::GET, axum::http::Method::POST])
        .allow_headers([axum::http::header::CONTENT_TYPE])
        .expose_headers([HeaderName::from_static("x-request-id")]))
}

/// Removes an `x-request-id` longer than [`MAX_REQUEST_ID`] (or not
/// visible ASCII), so a fresh one replaces it rather than echoing it back.
async fn drop_long_request_id<B>(mut request: Request<B>) -> Request<B> {
    let keep = request.headers().get("x-request-id").is_none_or(|id| {
        id.len() <= MAX_REQUEST_ID && id.as_bytes().iter().all(|b| b.is_ascii_graphic())
    });
    if !keep {
        request.headers_mut().remove("x-request-id");
    }
    request
}

/// Request ids for requests that bring none: this process's start time and
/// id, then a counter, so ids differ across processes and restarts.
#[derive(Clone)]
struct RequestIds {
    prefix: Arc<str>,
    next: Arc<AtomicU64>,
}

impl RequestIds {
    fn new() -> RequestIds {
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_secs());
        RequestIds {
            prefix: format!("{started:x}-{:x}", std::process::id()).into(),
            next: Arc::new(AtomicU64::new(1)),
        }
    }
}

impl MakeRequestId for RequestIds {
    fn make_request_id<B>(&mut self, _: &Request<B>) -> Option<RequestId> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        HeaderValue::from_str(&format!("{}-{n}", self.prefix))
            .ok()
            .map(RequestId::new)
    }
}

/// The first and the second SIGTERM or SIGINT (Ctrl-C): the two futures
/// [`serve`] takes. Call within the runtime.
pub fn shutdown_signals() -> (
    impl Future<Output = ()> + Send + 'static,
    impl Future<Output = ()> + Send + 'static,
) {
    let (count, seen) = tokio::sync::watch::channel(0u32);
    tokio::spawn(async move {
        #[cfg(unix)]
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        loop {
            let interrupt = async {
                let _ = tokio::signal::ctrl_c().await;
            };
            #[cfg(unix)]
            let term = async {
                match terminate.as_mut() {
                    Some(signal) => {
                        signal.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            #[cfg(not(unix))]
            let term = std::future::pending::<()>();
            tokio::select! {
                () = interrupt => {}
                () = term => {}
            }
            count.send_modify(|n| *n += 1);
        }
    });
    let nth = |n: u32| {
        let mut seen = seen.clone();
        async move {
            let _ = seen.wait_for(|&count| count >= n).await;
        }
    };
    (nth(1), nth(2))
}
