//! The bounded pool that answers protocol requests off the async threads.
//!
//! Searching is CPU work: it runs on a fixed number of worker threads fed
//! by a bounded queue. When the queue is full a job is refused at once
//! ([`Overloaded`]) instead of waiting in memory, so the server answers 503
//! and a load balancer or client can retry elsewhere.

use sawah_protocol::Bot;
use sawah_protocol::native::Limits;
use serde_json::{Value, json};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::thread::JoinHandle;
use tokio::sync::oneshot;

/// One job: requests answered in order, sharing one time budget.
struct Job {
    requests: Vec<Value>,
    reply: oneshot::Sender<Vec<Value>>,
}

/// The queue is full: try again later.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overloaded;

/// Worker threads answering requests with one shared [`Bot`].
pub struct Pool {
    sender: Option<crossbeam_channel::Sender<Job>>,
    workers: Vec<JoinHandle<()>>,
    capacity: usize,
}

impl Pool {
    /// `workers` threads (at least one) and room for `queue` waiting jobs;
    /// every job's searches are bounded by `limits`.
    pub fn new(
        bot: Arc<Bot>,
        limits: Limits,
        workers: usize,
        queue: usize,
    ) -> std::io::Result<Pool> {
        let (sender, receiver) = crossbeam_channel::bounded::<Job>(queue);
        let workers = (0..workers.max(1))
            .map(|i| {
                let receiver = receiver.clone();
                let bot = Arc::clone(&bot);
                std::thread::Builder::new()
                    .name(format!("sawah-worker-{i}"))
                    .spawn(move || {
                        for job in receiver {
                            let responses = answer(&bot, &limits, &job.requests);
                            // The client may have gone; nothing to do then.
                            let _ = job.reply.send(responses);
                        }
                    })
            })
            .collect::<std::io::Result<Vec<_>>>()?;
        Ok(Pool {
            sender: Some(sender),
            workers,
            capacity: queue,
        })
    }

    /// Queues `requests`; their responses arrive on the receiver.
    pub fn submit(
        &self,
        requests: Vec<Value>,
    ) -> Result<oneshot::Receiver<Vec<Value>>, Overloaded> {
        let (reply, receiver) = oneshot::channel();
        let sender = self.sender.as_ref().ok_or(Overloaded)?;
        sender
            .try_send(Job { requests, reply })
            .map_err(|_| Overloaded)?;
        Ok(receiver)
    }

    /// Jobs waiting for a worker.
    pub fn queued(&self) -> usize {
        self.sender.as_ref().map_or(0, |sender| sender.len())
    }

    /// Whether a job would be refused now.
    pub fn is_full(&self) -> bool {
        self.queued() >= self.capacity
    }

    /// The number of worker threads.
    pub fn workers(&self) -> usize {
        self.workers.len()
    }
}

impl Drop for Pool {
    /// Lets the workers finish the queued jobs, then joins them.
    fn drop(&mut self) {
        self.sender = None;
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

/// The responses to `requests`. A panic (a bug) answers that request with
/// an internal error and keeps the worker alive.
fn answer(bot: &Bot, limits: &Limits, requests: &[Value]) -> Vec<Value> {
    let stop = limits.stop();
    requests
        .iter()
        .map(|request| {
            catch_unwind(AssertUnwindSafe(|| bot.respond_within(request, stop.as_ref())))
                .unwrap_or_else(|_| {
                    tracing::error!(%request, "a request made the bot panic");
                    json!({"error": {"kind": "internal", "message": "the bot failed on this request; it has been logged"}})
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sawah_engine::registry::Registry;

    #[test]
    fn a_full_queue_refuses_at_once_and_queued_jobs_finish() {
        let bot = Arc::new(Bot::new(Registry::new()));
        let start = bot.respond(&json!({"cmd":"start","rules":"senet"}))["position"].clone();
        let pool = Pool::new(bot, Limits::NONE, 1, 2).unwrap();
        let slow = json!({"cmd":"choose","position":start,"roll":3,"bot":"expectiminimax:depth=2"});
        let mut accepted = Vec::new();
        let mut refused = 0;
        for _ in 0..20 {
            match pool.submit(vec![slow.clone()]) {
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
            let responses = receiver
                .blocking_recv()
                .expect("every accepted job is answered");
            assert!(responses[0]["move"].is_object(), "{responses:?}");
        }
    }
}
