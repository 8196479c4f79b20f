//! What every handler shares: the bot, the workers, the limits.

use crate::answers::AnswerMemory;
use crate::metrics::Metrics;
use crate::pool::Pool;
use axum::extract::State;
use sawah_protocol::Bot;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// What every handler shares.
pub struct AppState {
    /// The bot the workers answer with, whose reader the handlers read
    /// each request with.
    pub bot: Arc<Bot>,
    /// The workers.
    pub pool: Pool,
    /// The metrics.
    pub metrics: Metrics,
    /// The memory answers waiting to be read may hold.
    pub answers: AnswerMemory,
    /// Largest request body, in bytes.
    pub body_limit: usize,
    /// From a request's arrival to its whole body read.
    pub body_timeout: Duration,
    /// Most requests in one batch.
    pub max_batch: usize,
    /// False once shutting down (`/readyz` then answers 503).
    pub ready: AtomicBool,
}

/// When a request arrived (its headers were read): set on every request,
/// the start of its body timeout and of its time budget.
#[derive(Clone, Copy, Debug)]
pub struct Arrived(pub Instant);

pub(crate) type Shared = State<Arc<AppState>>;
