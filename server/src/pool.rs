//! The bounded pool that answers protocol requests off the async threads.
//!
//! Searching is CPU work: it runs on a fixed number of worker threads fed
//! by a queue that counts cost, not jobs. Each request of a job takes one
//! place, and a large body takes one place for every
//! [`BODY_BYTES_PER_PLACE`] bytes, so a batch of 64 takes 64 places and the
//! queue's memory is bounded. When the places are taken a job is refused at
//! once ([`Overloaded`]) instead of waiting in memory.
//!
//! A job's time budget counts from its arrival, so a job that waited past
//! it is refused without being worked on ([`Refused::Expired`]). A job
//! whose client went away is dropped from the queue, and a search of it
//! already running stops at its next check: nothing is computed for
//! clients that are gone.

use crate::schema::{HttpError, HttpErrorBody, ServerErrorKind};
use sawah_protocol::messages::Response;
use sawah_protocol::native::Limits;
use sawah_protocol::{Bot, ErrorKind, ProtocolError, Request};
use serde_json::Value;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::Instant;
use tokio::sync::oneshot;

/// A request body takes one queue place for every this many bytes (and at
/// least one for every request in it).
pub const BODY_BYTES_PER_PLACE: usize = 1 << 10;

/// The queue places a job of `requests` requests read from a body of
/// `body_bytes` bytes takes.
pub fn places(requests: usize, body_bytes: usize) -> usize {
    requests
        .max(body_bytes.div_ceil(BODY_BYTES_PER_PLACE))
        .max(1)
}

/// One request's answer, already written as JSON text: no JSON tree of an
/// answer outlives the worker that made it.
#[derive(Clone, Debug)]
pub struct Answer {
    /// The response object as JSON text.
    pub text: String,
    /// Its error kind, if it is an error.
    pub error: Option<ErrorKind>,
    /// Whether it is the worker's internal error (a bug, logged).
    pub internal: bool,
}

/// Why a queued job got no answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// It waited for a worker past its time budget.
    Expired,
}

/// What became of the jobs so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JobCounts {
    /// Queued.
    pub submitted: u64,
    /// Answered.
    pub answered: u64,
    /// Dropped unfinished because their client went away.
    pub abandoned: u64,
    /// Refused unworked because they waited past their time budget.
    pub expired: u64,
}

/// The queue is full: try again later.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overloaded;

/// Set when the client of a job goes away (its request future is dropped),
/// which cancels the job.
#[derive(Debug, Default)]
pub struct Gone(Arc<AtomicBool>);

impl Gone {
    /// The flag a job's stop watches.
    pub fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.0)
    }
}

impl Drop for Gone {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A request waiting for a worker, read once already by the handler with
/// the protocol's one reader ([`Bot::read_request`], or built typed from a
/// GET route's path): the id its answer echoes, and the typed request or
/// the error it gets. The worker answers it as it is, with no text between.
#[derive(Clone, Debug)]
pub struct Pending {
    /// The request's `"id"`, echoed in its answer.
    pub id: Option<Value>,
    /// The request, or why it did not read.
    pub request: Result<Request, ProtocolError>,
}

/// One job: requests answered in order, each with its own node budget and
/// all within the time budget from `arrived`.
struct Job {
    requests: Vec<Pending>,
    places: usize,
    arrived: Instant,
    gone: Arc<AtomicBool>,
    reply: oneshot::Sender<Result<Vec<Answer>, Refused>>,
}

/// What the workers and the handlers share.
struct Shared {
    /// Queue places taken.
    taken: AtomicUsize,
    /// Jobs dropped because their client went away.
    abandoned: AtomicU64,
    /// Jobs refused because they waited past their time budget.
    expired: AtomicU64,
    /// Jobs queued.
    submitted: AtomicU64,
    /// Jobs answered.
    answered: AtomicU64,
    /// When a worker last took or finished a job (milliseconds since
    /// `epoch`).
    progress: AtomicU64,
    epoch: Instant,
}

impl Shared {
    fn mark_progress(&self) {
        let now = self.epoch.elapsed().as_millis() as u64;
        self.progress.store(now, Ordering::Relaxed);
    }
}

/// Worker threads answering requests with one shared [`Bot`].
pub struct Pool {
    sender: Option<crossbeam_channel::Sender<Job>>,
    workers: Vec<JoinHandle<()>>,
    capacity: usize,
    limits: Limits,
    shared: Arc<Shared>,
}

impl Pool {
    /// `workers` threads (at least one) and `places` queue places; every
    /// request's searches are bounded by `limits`.
    pub fn new(
        bot: Arc<Bot>,
        limits: Limits,
        workers: usize,
        places: usize,
    ) -> std::io::Result<Pool> {
        let (sender, receiver) = crossbeam_channel::unbounded::<Job>();
        let shared = Arc::new(Shared {
            taken: AtomicUsize::new(0),
            abandoned: AtomicU64::new(0),
            expired: AtomicU64::new(0),
            submitted: AtomicU64::new(0),
            answered: AtomicU64::new(0),
            progress: AtomicU64::new(0),
            epoch: Instant::now(),
        });
        let workers = (0..workers.max(1))
            .map(|i| {
                let receiver = receiver.clone();
                let bot = Arc::clone(&bot);
                let shared = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("sawah-worker-{i}"))
                    .spawn(move || {
                        for job in receiver {
                            shared.taken.fetch_sub(job.places, Ordering::Relaxed);
                            shared.mark_progress();
                            work(&bot, &limits, &shared, job);
                            shared.mark_progress();
                        }
                    })
            })
            .collect::<std::io::Result<Vec<_>>>()?;
        Ok(Pool {
            sender: Some(sender),
            workers,
            capacity: places,
            limits,
            shared,
        })
    }

    /// Queues `requests`, which arrived at `arrived` in a body of
    /// `body_bytes` bytes, for a client whose going away sets `gone`; the
    /// answers arrive on the receiver.
    pub fn submit(
        &self,
        requests: Vec<Pending>,
        body_bytes: usize,
        arrived: Instant,
        gone: &Gone,
    ) -> Result<oneshot::Receiver<Result<Vec<Answer>, Refused>>, Overloaded> {
        let places = places(requests.len(), body_bytes);
        let sender = self.sender.as_ref().ok_or(Overloaded)?;
        self.shared
            .taken
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |taken| {
                (taken + places <= self.capacity).then_some(taken + places)
            })
            .map_err(|_| Overloaded)?;
        let (reply, receiver) = oneshot::channel();
        let job = Job {
            requests,
            places,
            arrived,
            gone: gone.flag(),
            reply,
        };
        if sender.send(job).is_err() {
            self.shared.taken.fetch_sub(places, Ordering::Relaxed);
            return Err(Overloaded);
        }
        self.shared.submitted.fetch_add(1, Ordering::Relaxed);
        Ok(receiver)
    }

    /// Queue places taken by jobs waiting for a worker.
    pub fn queued(&self) -> usize {
        self.shared.taken.load(Ordering::Relaxed)
    }

    /// Queue places in all.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Jobs answered, jobs dropped because their client went away, and
    /// jobs refused because they waited past their time budget.
    pub fn jobs(&self) -> JobCounts {
        JobCounts {
            submitted: self.shared.submitted.load(Ordering::Relaxed),
            answered: self.shared.answered.load(Ordering::Relaxed),
            abandoned: self.shared.abandoned.load(Ordering::Relaxed),
            expired: self.shared.expired.load(Ordering::Relaxed),
        }
    }

    /// Whether jobs wait while no worker has taken or finished one for
    /// longer than `stall`: a wedged instance.
    pub fn stalled(&self, stall: std::time::Duration) -> bool {
        let now = self.shared.epoch.elapsed().as_millis() as u64;
        let progress = self.shared.progress.load(Ordering::Relaxed);
        self.queued() > 0 && now.saturating_sub(progress) > stall.as_millis() as u64
    }

    /// The number of worker threads.
    pub fn workers(&self) -> usize {
        self.workers.len()
    }

    /// The limits every request is answered within.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
}

impl Drop for Pool {
    /// Lets the workers finish the queued jobs (those whose clients are
    /// gone are dropped at once), then joins them.
    fn drop(&mut self) {
        self.sender = None;
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

/// Answers `job`, unless its client is gone or it waited past its budget.
fn work(bot: &Bot, limits: &Limits, shared: &Shared, job: Job) {
    if job.gone.load(Ordering::Relaxed) || job.reply.is_closed() {
        shared.abandoned.fetch_add(1, Ordering::Relaxed);
        return;
    }
    if limits
        .time_budget
        .is_some_and(|budget| job.arrived.elapsed() >= budget)
    {
        shared.expired.fetch_add(1, Ordering::Relaxed);
        let _ = job.reply.send(Err(Refused::Expired));
        return;
    }
    let mut answers = Vec::with_capacity(job.requests.len());
    for request in job.requests {
        if job.gone.load(Ordering::Relaxed) {
            shared.abandoned.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let stop = limits.stop_from(job.arrived, Some(Arc::clone(&job.gone)));
        answers.push(answer(bot, request, stop.as_ref()));
    }
    // A client that left during the last request stopped its search: the
    // job was abandoned, not answered.
    if job.gone.load(Ordering::Relaxed) {
        shared.abandoned.fetch_add(1, Ordering::Relaxed);
        return;
    }
    shared.answered.fetch_add(1, Ordering::Relaxed);
    // The client may have gone; nothing to do then.
    let _ = job.reply.send(Ok(answers));
}

/// The answer to `request`. A panic (a bug) answers that request with an
/// internal error and keeps the worker alive.
fn answer(bot: &Bot, request: Pending, stop: Option<&sawah_agents::search::Stop>) -> Answer {
    let Pending { id, request } = request;
    // The answer takes a copy, so that the request is still here to be
    // logged should answering it panic.
    let respond = || {
        let read = request.clone();
        Response::new(id, read.and_then(|typed| bot.answer(typed, stop)))
    };
    match catch_unwind(AssertUnwindSafe(respond)) {
        Ok(response) => Answer {
            error: response.error_kind(),
            text: response.line(),
            internal: false,
        },
        Err(_) => {
            // The request as read, control characters escaped and cut, so a
            // client's text cannot forge or flood log lines.
            let shown = sawah_engine::text::printable(&format!("{request:?}"), 2000);
            tracing::error!(request = %shown, "a request made the bot panic");
            let response = serde_json::json!(HttpError {
                id: None,
                error: HttpErrorBody {
                    kind: ServerErrorKind::Internal.into(),
                    message: "the bot failed on this request; it has been logged".into(),
                },
            });
            Answer {
                text: response.to_string(),
                error: None,
                internal: true,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sawah_engine::registry::Registry;
    use serde_json::json;
    use std::time::Duration;

    fn slow(bot: &Bot) -> Pending {
        let start = bot.respond(&json!({"cmd":"start","rules":"senet"}))["position"].clone();
        let text = json!({"position":start,"roll":3,"bot":"expectiminimax:depth=2"});
        let (id, request) =
            bot.read_request(&text.to_string(), Some(sawah_protocol::Command::Choose));
        assert!(request.is_ok(), "{request:?}");
        Pending { id, request }
    }

    #[test]
    fn a_full_queue_refuses_at_once_and_queued_jobs_finish() {
        let bot = Arc::new(Bot::new(Registry::new()));
        let slow = slow(&bot);
        let pool = Pool::new(bot, Limits::NONE, 1, 2).unwrap();
        let gone = Gone::default();
        let mut accepted = Vec::new();
        let mut refused = 0;
        for _ in 0..20 {
            match pool.submit(vec![slow.clone()], 0, Instant::now(), &gone) {
                Ok(receiver) => accepted.push(receiver),
                Err(Overloaded) => refused += 1,
            }
        }
        assert!(
            refused > 0,
            "20 slow jobs overflow one worker and two places"
        );
        assert!(accepted.len() >= 2);
        drop(pool);
        for receiver in accepted {
            let answers = receiver
                .blocking_recv()
                .expect("every accepted job is answered")
                .expect("within its budget");
            assert!(answers[0].text.contains("\"move\""), "{answers:?}");
        }
    }

    #[test]
    fn a_batch_takes_a_place_for_each_request_and_for_each_kib_of_body() {
        assert_eq!(places(64, 100), 64);
        assert_eq!(places(1, 64 << 10), 64);
        assert_eq!(places(0, 0), 1);
        let bot = Arc::new(Bot::new(Registry::new()));
        let slow = slow(&bot);
        let pool = Pool::new(bot, Limits::NONE, 1, 10).unwrap();
        let gone = Gone::default();
        // The worker may take the first job at once; the queue then holds
        // the rest, and a batch of 11 never fits in 10 places.
        let _first = pool.submit(vec![slow.clone()], 0, Instant::now(), &gone);
        assert_eq!(
            pool.submit(vec![slow.clone(); 11], 0, Instant::now(), &gone)
                .err(),
            Some(Overloaded)
        );
    }

    #[test]
    fn jobs_of_clients_that_went_away_and_jobs_past_their_time_are_not_worked_on() {
        let bot = Arc::new(Bot::new(Registry::new()));
        let slow = slow(&bot);
        let limits = Limits {
            time_budget: Some(Duration::from_millis(200)),
            ..Limits::NONE
        };
        let pool = Pool::new(bot, limits, 1, 100).unwrap();
        let gone = Gone::default();
        let abandoned: Vec<_> = (0..20)
            .map(|_| {
                pool.submit(vec![slow.clone()], 0, Instant::now(), &gone)
                    .unwrap()
            })
            .collect();
        drop(gone);
        drop(abandoned);
        // Arrived long ago: refused without work.
        let still_here = Gone::default();
        let late = pool
            .submit(
                vec![slow.clone()],
                0,
                Instant::now() - Duration::from_secs(1),
                &still_here,
            )
            .unwrap();
        assert_eq!(late.blocking_recv().unwrap().err(), Some(Refused::Expired));
        let jobs = pool.jobs();
        assert!(jobs.abandoned >= 19, "{jobs:?}");
        assert_eq!(jobs.expired, 1);
        assert!(jobs.answered <= 1, "{jobs:?}");
    }
}
