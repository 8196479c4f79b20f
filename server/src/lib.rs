//! `sawah serve`: the opponents as a network service, on the same protocol
//! as every other front door (`sawah-protocol`).
//!
//! * An axum router ([`api`]) turns each HTTP call into protocol requests.
//! * A bounded worker pool ([`pool`]) answers them off the async threads;
//!   a full queue is answered 503 with `Retry-After`.
//! * Models and tables are loaded before the port opens (a bad one stops
//!   the start); requests cannot name files by path, and each request's
//!   search is bounded in depth, nodes and time (`sawah_protocol::native`).
//! * SIGTERM or SIGINT stops accepting, finishes the requests in flight and
//!   returns.
//!
//! [`loadtest`] is the load tool that measures it.

pub mod api;
pub mod errors;
pub mod loadtest;
pub mod metrics;
pub mod pool;

use api::AppState;
use axum::http::{HeaderName, HeaderValue, Request};
use sawah_protocol::Bot;
use sawah_protocol::native::Limits;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::request_id::{
    MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};

/// How a server runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Worker threads that answer requests (at least one).
    pub workers: usize,
    /// Jobs that may wait for a worker before requests get 503.
    pub queue: usize,
    /// Largest request body, in bytes.
    pub body_limit: usize,
    /// Most requests in one batch.
    pub max_batch: usize,
    /// Origins browsers may call from (`*` for any); none: no CORS headers.
    pub cors_origins: Vec<String>,
    /// The cost bound of each job.
    pub limits: Limits,
}

impl Default for Config {
    fn default() -> Config {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Config {
            workers: cores,
            queue: 64 * cores,
            body_limit: 64 << 10,
            max_batch: 64,
            cors_origins: Vec::new(),
            limits: Limits::UNTRUSTED,
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
    /// Serving failed.
    #[error("serving: {0}")]
    Io(#[from] std::io::Error),
}

/// Serves `bot` on `listener` until `shutdown` completes, then stops
/// accepting, finishes the requests in flight and returns.
pub async fn serve(
    listener: tokio::net::TcpListener,
    bot: Bot,
    config: &Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let pool = pool::Pool::new(Arc::new(bot), config.limits, config.workers, config.queue)
        .map_err(ServeError::Workers)?;
    let state = Arc::new(AppState {
        pool,
        metrics: metrics::Metrics::new(),
        body_limit: config.body_limit,
        max_batch: config.max_batch,
        ready: AtomicBool::new(true),
    });
    let router = app(Arc::clone(&state), config)?;
    let stopping = Arc::clone(&state);
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown.await;
            stopping.ready.store(false, Ordering::Relaxed);
            tracing::info!("shutting down: finishing the requests in flight");
        })
        .await?;
    Ok(())
}

/// The router with request ids and CORS around it.
fn app(state: Arc<AppState>, config: &Config) -> Result<axum::Router, ServeError> {
    let request_id = HeaderName::from_static("x-request-id");
    let mut router = api::router(state)
        .layer(PropagateRequestIdLayer::new(request_id.clone()))
        .layer(SetRequestIdLayer::new(request_id, RequestIds::new()));
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

/// Completes on SIGTERM or SIGINT (Ctrl-C).
pub async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}
