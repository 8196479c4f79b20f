//! Prometheus metrics (`GET /metrics`, OpenMetrics text): requests by
//! route and status, latency histograms by route, the queue depth, requests
//! in flight and the process's resident memory.

use crate::answers::AnswerMemory;
use crate::pool::Pool;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

/// A request's route (the matched pattern, `unmatched` for none) and status.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteStatus {
    route: String,
    status: String,
}

/// A request's route.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Route {
    route: String,
}

fn latency_histogram() -> Histogram {
    // 50 µs to about 1.6 s, doubling.
    Histogram::new(exponential_buckets(0.000_05, 2.0, 16))
}

/// The server's metrics.
pub struct Metrics {
    registry: Registry,
    requests: Family<RouteStatus, Counter>,
    latency: Family<Route, Histogram, fn() -> Histogram>,
    /// Queue places taken by jobs waiting for a worker (set when scraped).
    pub queue_depth: Gauge,
    submitted: Counter<u64, AtomicU64>,
    answered: Counter<u64, AtomicU64>,
    abandoned: Counter<u64, AtomicU64>,
    expired: Counter<u64, AtomicU64>,
    answer_bytes: Gauge<u64, AtomicU64>,
    /// Requests being answered.
    pub in_flight: Gauge,
    resident: Gauge<u64, AtomicU64>,
}

impl Metrics {
    /// Empty metrics, registered.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("sawah");
        let requests = Family::<RouteStatus, Counter>::default();
        let latency: Family<Route, Histogram, fn() -> Histogram> =
            Family::new_with_constructor(latency_histogram);
        let queue_depth = Gauge::default();
        let in_flight = Gauge::default();
        let resident = Gauge::<u64, AtomicU64>::default();
        let submitted = Counter::<u64, AtomicU64>::default();
        registry.register("jobs", "Jobs queued for the workers", submitted.clone());
        let answered = Counter::<u64, AtomicU64>::default();
        let abandoned = Counter::<u64, AtomicU64>::default();
        registry.register(
            "jobs_answered",
            "Jobs answered by the workers",
            answered.clone(),
        );
        let expired = Counter::<u64, AtomicU64>::default();
        let answer_bytes = Gauge::<u64, AtomicU64>::default();
        registry.register(
            "jobs_abandoned",
            "Jobs dropped unfinished because their client went away",
            abandoned.clone(),
        );
        registry.register(
            "jobs_expired",
            "Jobs refused unworked because they waited past their time budget",
            expired.clone(),
        );
        registry.register(
            "answer_memory_bytes",
            "Bytes held by answers waiting to be read",
            answer_bytes.clone(),
        );
        registry.register(
            "http_requests",
            "HTTP requests answered, by route and status",
            requests.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "Time from request to response, by route",
            latency.clone(),
        );
        registry.register(
            "queue_depth",
            "Queue places taken by jobs waiting for a worker",
            queue_depth.clone(),
        );
        registry.register(
            "http_requests_in_flight",
            "Requests being answered",
            in_flight.clone(),
        );
        registry.register(
            "process_resident_memory_bytes",
            "Resident memory of the server process (Linux; 0 elsewhere)",
            resident.clone(),
        );
        Metrics {
            registry,
            requests,
            latency,
            queue_depth,
            submitted,
            answered,
            abandoned,
            expired,
            answer_bytes,
            in_flight,
            resident,
        }
    }

    /// Counts one answered request.
    pub fn observe(&self, route: &str, status: u16, elapsed: Duration) {
        self.requests
            .get_or_create(&RouteStatus {
                route: route.to_string(),
                status: status.to_string(),
            })
            .inc();
        self.latency
            .get_or_create(&Route {
                route: route.to_string(),
            })
            .observe(elapsed.as_secs_f64());
    }

    /// The metrics as OpenMetrics text, with the pool's and the answer
    /// memory's figures read now.
    pub fn encode(&self, pool: &Pool, answers: &AnswerMemory) -> String {
        self.queue_depth.set(pool.queued() as i64);
        let jobs = pool.jobs();
        // Counted by the pool; mirrored here when scraped.
        let relaxed = std::sync::atomic::Ordering::Relaxed;
        self.submitted.inner().store(jobs.submitted, relaxed);
        self.answered.inner().store(jobs.answered, relaxed);
        self.abandoned.inner().store(jobs.abandoned, relaxed);
        self.expired.inner().store(jobs.expired, relaxed);
        self.answer_bytes.set(answers.held_kib() as u64 * 1024);
        self.resident.set(resident_bytes());
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

/// Resident memory of this process in bytes (`/proc/self/statm`), 0 where
/// that is not available.
pub fn resident_bytes() -> u64 {
    let Ok(statm) = std::fs::read_to_string("/proc/self/statm") else {
        return 0;
    };
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|field| field.parse().ok())
        .unwrap_or(0);
    // Safety: sysconf only reads a system constant.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    pages * u64::try_from(page).unwrap_or(4096)
}
