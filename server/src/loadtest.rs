//! The load tool (`sawah loadtest`): realistic `choose` requests (positions
//! from random games) sent by many keep-alive connections at once, bounded
//! in count and time, with throughput, latency quantiles, errors by status
//! and the server's resident memory (sampled from its `/metrics`).

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use sawah_engine::playout::positions_with_rolls;
use sawah_engine::registry::Registry;
use sawah_engine::{Codec, with_game};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What to send, how hard and for how long.
#[derive(Clone, Debug)]
pub struct LoadConfig {
    /// `http://HOST:PORT` of the server.
    pub url: String,
    /// Connections, each sending one request after the other.
    pub concurrency: usize,
    /// Stop after this many requests (all connections together).
    pub requests: Option<u64>,
    /// Stop after this long.
    pub duration: Option<Duration>,
    /// Requests per second across all connections (none: as fast as they
    /// are answered).
    pub rate: Option<f64>,
    /// `choose` requests per call: 1 sends each to `/v1/choose`, more sends
    /// them as batches to `/v1/request` (the rate then counts calls).
    pub batch: usize,
}

/// What a run measured.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// Requests answered with 200.
    pub ok: u64,
    /// Answers by status other than 200.
    pub statuses: BTreeMap<u16, u64>,
    /// Requests that got no HTTP answer (connection errors).
    pub transport_errors: u64,
    /// Requests still unanswered when `--seconds` ran out (not waited for).
    pub cut_off: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// Latency of every answered request, in milliseconds, sorted.
    pub latencies: Vec<f64>,
    /// Most resident memory the server reported while loaded, in bytes.
    pub max_resident: Option<u64>,
    /// `choose` requests per call.
    pub batch: usize,
}

impl LoadReport {
    /// Answered `choose` requests per second (calls × batch).
    pub fn throughput(&self) -> f64 {
        (self.latencies.len() * self.batch.max(1)) as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The `q` quantile of latency in milliseconds (0 without answers).
    pub fn quantile(&self, q: f64) -> f64 {
        if self.latencies.is_empty() {
            return 0.0;
        }
        let index = ((self.latencies.len() - 1) as f64 * q).round() as usize;
        self.latencies[index.min(self.latencies.len() - 1)]
    }

    /// Every request that was not answered 200.
    pub fn errors(&self) -> u64 {
        self.transport_errors + self.statuses.values().sum::<u64>()
    }
}

/// Why a load run could not start.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The URL is not `http://HOST:PORT`.
    #[error("{0:?} is not an http://HOST:PORT address (https is not supported)")]
    Url(String),
    /// The rule set or bot cannot make requests.
    #[error("{0}")]
    Requests(String),
    /// Neither a request count nor a duration: the run would not end.
    #[error("give --requests or --seconds (a load run is bounded)")]
    Unbounded,
}

/// `count` `choose` request bodies for `rules` and `bot`, at positions with
/// a choice from random games seeded by `seed`.
pub fn choose_bodies(
    registry: &Registry,
    rules: &str,
    bot: &str,
    count: usize,
    seed: u64,
) -> Result<Vec<Bytes>, LoadError> {
    let game = registry
        .get(rules)
        .map_err(|e| LoadError::Requests(e.to_string()))?;
    let bodies = with_game!(&game, g => positions_with_rolls(g, seed, count, 2)
        .into_iter()
        .map(|(position, roll)| {
            Bytes::from(json!({"position": g.position_to_json(&position), "roll": roll, "bot": bot}).to_string())
        })
        .collect());
    Ok(bodies)
}

/// `choose` bodies as protocol requests (each given its `"cmd"`).
fn protocol_requests(bodies: &[Bytes]) -> Vec<Value> {
    bodies
        .iter()
        .filter_map(|body| serde_json::from_slice::<Value>(body).ok())
        .map(|mut request| {
            request["cmd"] = json!("choose");
            request
        })
        .collect()
}

/// `choose` bodies grouped `batch` at a time into protocol batches (each
/// request given its `"cmd"`), cycling through them.
fn batches(bodies: &[Bytes], batch: usize) -> Vec<Bytes> {
    let requests = protocol_requests(bodies);
    (0..requests.len())
        .step_by(batch)
        .map(|start| {
            let group: Vec<&Value> = (start..start + batch)
                .map(|i| &requests[i % requests.len()])
                .collect();
            Bytes::from(json!(group).to_string())
        })
        .collect()
}

/// The address to connect to and the `Host` header of `url`.
fn authority(url: &str) -> Result<String, LoadError> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| LoadError::Url(url.to_string()))?;
    let authority = rest.trim_end_matches('/');
    if authority.is_empty() || authority.contains('/') {
        return Err(LoadError::Url(url.to_string()));
    }
    Ok(authority.to_string())
}

/// Sends `bodies` (round robin) to `POST {url}/v1/choose` as `config` says.
pub async fn run(config: &LoadConfig, bodies: Vec<Bytes>) -> Result<LoadReport, LoadError> {
    let authority = authority(&config.url)?;
    if config.requests.is_none() && config.duration.is_none() {
        return Err(LoadError::Unbounded);
    }
    if bodies.is_empty() {
        return Err(LoadError::Requests("no requests to send".into()));
    }
    let batch = config.batch.max(1);
    let (path, bodies) = if batch == 1 {
        ("/v1/choose", bodies)
    } else {
        ("/v1/request", batches(&bodies, batch))
    };
    let shared = Arc::new(Shared {
        bodies,
        path,
        issued: AtomicU64::new(0),
        limit: config.requests.unwrap_or(u64::MAX),
        deadline: config.duration.map(|d| Instant::now() + d),
        started: Instant::now(),
        interval: config
            .rate
            .map(|rate| Duration::from_secs_f64(1.0 / rate.max(1e-6))),
        authority: authority.clone(),
    });
    let sampling = Arc::new(AtomicBool::new(true));
    let sampler = tokio::spawn(sample_resident(authority, Arc::clone(&sampling)));
    let connections: Vec<_> = (0..config.concurrency.max(1))
        .map(|_| tokio::spawn(connection(Arc::clone(&shared))))
        .collect();
    let mut report = LoadReport::default();
    for connection in connections {
        if let Ok(part) = connection.await {
            report.ok += part.ok;
            report.transport_errors += part.transport_errors;
            report.cut_off += part.cut_off;
            report.latencies.extend(part.latencies);
            for (status, n) in part.statuses {
                *report.statuses.entry(status).or_default() += n;
            }
        }
    }
    report.elapsed = shared.started.elapsed();
    report.batch = batch;
    sampling.store(false, Ordering::Relaxed);
    // The sampler's last scrape may hang on a stuck server: a second at most.
    report.max_resident = tokio::time::timeout(Duration::from_secs(1), sampler)
        .await
        .ok()
        .and_then(Result::ok)
        .flatten();
    report.latencies.sort_by(f64::total_cmp);
    Ok(report)
}

/// What every connection shares.
struct Shared {
    bodies: Vec<Bytes>,
    path: &'static str,
    issued: AtomicU64,
    limit: u64,
    deadline: Option<Instant>,
    started: Instant,
    interval: Option<Duration>,
    authority: String,
}

impl Shared {
    /// The next request's number, or `None` when the run is over; with a
    /// rate, waits for the request's time slot first.
    async fn next(&self) -> Option<u64> {
        let n = self.issued.fetch_add(1, Ordering::Relaxed);
        if n >= self.limit || self.deadline.is_some_and(|d| Instant::now() >= d) {
            return None;
        }
        if let Some(interval) = self.interval {
            let slot = self.started + interval.mul_f64(n as f64);
            // A slot past the deadline is never sent.
            if self.deadline.is_some_and(|d| slot >= d) {
                return None;
            }
            tokio::time::sleep_until(slot.into()).await;
        }
        Some(n)
    }
}

/// One keep-alive connection sending requests until the run is over
/// (reconnecting after a connection error).
async fn connection(shared: Arc<Shared>) -> LoadReport {
    let mut report = LoadReport::default();
    let mut sender = None;
    while let Some(n) = shared.next().await {
        if sender.is_none() {
            sender = match shared.deadline {
                Some(deadline) => {
                    tokio::time::timeout_at(deadline.into(), connect(&shared.authority))
                        .await
                        .ok()
                        .flatten()
                }
                None => connect(&shared.authority).await,
            };
        }
        let Some(open) = sender.as_mut() else {
            report.transport_errors += 1;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let body = shared.bodies[n as usize % shared.bodies.len()].clone();
        let request = Request::post(shared.path)
            .header("host", &shared.authority)
            .header("content-type", "application/json")
            .body(Full::new(body));
        let Ok(request) = request else {
            report.transport_errors += 1;
            continue;
        };
        let started = Instant::now();
        // `--seconds` is a hard bound: a request still unanswered at the
        // deadline is counted as cut off, not waited for.
        let answered = match shared.deadline {
            Some(deadline) => {
                match tokio::time::timeout_at(deadline.into(), send(open, request)).await {
                    Ok(answered) => answered,
                    Err(_) => {
                        report.cut_off += 1;
                        break;
                    }
                }
            }
            None => send(open, request).await,
        };
        match answered {
            Some(status) => {
                report.latencies.push(started.elapsed().as_secs_f64() * 1e3);
                if status == 200 {
                    report.ok += 1;
                } else {
                    *report.statuses.entry(status).or_default() += 1;
                }
            }
            None => {
                report.transport_errors += 1;
                sender = None;
            }
        }
    }
    report
}

type Sender = http1::SendRequest<Full<Bytes>>;

async fn connect(authority: &str) -> Option<Sender> {
    let stream = tokio::net::TcpStream::connect(authority).await.ok()?;
    let _ = stream.set_nodelay(true);
    let (sender, connection) = http1::handshake(TokioIo::new(stream)).await.ok()?;
    tokio::spawn(connection);
    Some(sender)
}

/// Sends one request and reads the whole answer: its status, or `None` on
/// a connection error.
async fn send(sender: &mut Sender, request: Request<Full<Bytes>>) -> Option<u16> {
    sender.ready().await.ok()?;
    let response = sender.send_request(request).await.ok()?;
    let status = response.status().as_u16();
    response.into_body().collect().await.ok()?;
    Some(status)
}

/// The largest `sawah_process_resident_memory_bytes` the server reports,
/// sampled every 250 ms until `running` is cleared.
async fn sample_resident(authority: String, running: Arc<AtomicBool>) -> Option<u64> {
    let mut most = None;
    let mut sender = connect(&authority).await?;
    loop {
        let request = Request::get("/metrics")
            .header("host", &authority)
            .body(Full::new(Bytes::new()))
            .ok()?;
        if sender.ready().await.is_err() {
            return most;
        }
        if let Ok(response) = sender.send_request(request).await
            && let Ok(body) = response.into_body().collect().await
        {
            let text = String::from_utf8_lossy(&body.to_bytes()).into_owned();
            if let Some(bytes) = resident_in(&text) {
                most = Some(most.map_or(bytes, |m: u64| m.max(bytes)));
            }
        }
        if !running.load(Ordering::Relaxed) {
            return most;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

fn resident_in(metrics: &str) -> Option<u64> {
    metrics
        .lines()
        .find(|line| line.starts_with("sawah_process_resident_memory_bytes "))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|value| value.parse::<f64>().ok())
        .map(|value| value as u64)
}

/// The same requests answered in this process by `threads` threads for
/// about `duration`: the rate a server's workers could reach without HTTP.
pub fn in_process_rate(
    bot: &sawah_protocol::Bot,
    bodies: &[Bytes],
    threads: usize,
    duration: Duration,
) -> f64 {
    // As the server's workers take them: the request's text in, the
    // answer's line out.
    let requests: Vec<String> = protocol_requests(bodies)
        .iter()
        .map(Value::to_string)
        .collect();
    if requests.is_empty() {
        return 0.0;
    }
    let answered = AtomicU64::new(0);
    let started = Instant::now();
    std::thread::scope(|scope| {
        for thread in 0..threads.max(1) {
            let (requests, answered) = (&requests, &answered);
            scope.spawn(move || {
                let mut i = thread;
                while started.elapsed() < duration {
                    let text = &requests[i % requests.len()];
                    std::hint::black_box(bot.response_to_text(text, None, None).line());
                    answered.fetch_add(1, Ordering::Relaxed);
                    i += threads;
                }
            });
        }
    });
    answered.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_http_addresses_are_accepted() {
        assert_eq!(
            authority("http://127.0.0.1:8080").unwrap(),
            "127.0.0.1:8080"
        );
        assert_eq!(
            authority("http://127.0.0.1:8080/").unwrap(),
            "127.0.0.1:8080"
        );
        for bad in [
            "https://example.com",
            "127.0.0.1:8080",
            "http://",
            "http://h/x",
        ] {
            assert!(authority(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn resident_memory_is_read_from_the_metrics_text() {
        let text = "# TYPE x gauge\nsawah_process_resident_memory_bytes 123456\n";
        assert_eq!(resident_in(text), Some(123_456));
        assert_eq!(resident_in("nothing"), None);
    }
}
