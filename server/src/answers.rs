//! The memory answers may hold while they wait to be written.
//!
//! A finished answer holds its bytes until the client has read them. Every
//! answer body takes permits from one budget (`--answer-memory`) and gives
//! them back when it is dropped: written, or its connection closed (a
//! client that does not read is closed by the write timeout). When the
//! budget is spent, new answers are refused with 503 rather than held, so
//! clients that read slowly cannot pile answers up.
//!
//! The body hands the bytes to the connection in copied chunks of
//! [`CHUNK`] bytes, so what the connection holds beyond the budget is one
//! chunk per connection, never a whole answer.

use bytes::{Buf, Bytes};
use http_body::{Body, Frame, SizeHint};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The bytes a body hands over at a time.
pub const CHUNK: usize = 16 << 10;

/// The answer memory is spent: try again later.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Full;

/// The budget of answer bytes held at once, in KiB permits.
#[derive(Clone, Debug)]
pub struct AnswerMemory {
    permits: Arc<Semaphore>,
    kib: usize,
}

impl AnswerMemory {
    /// A budget of `bytes` (at least 1 KiB).
    pub fn new(bytes: usize) -> AnswerMemory {
        let kib = bytes.div_ceil(1024).clamp(1, Semaphore::MAX_PERMITS);
        AnswerMemory {
            permits: Arc::new(Semaphore::new(kib)),
            kib,
        }
    }

    /// `text` as a body that holds its share of the budget until dropped,
    /// or [`Full`] when the budget has no room for it now (an answer larger
    /// than the whole budget never fits).
    pub fn body(&self, text: Bytes) -> Result<HeldBody, Full> {
        let kib = text.len().div_ceil(1024).max(1);
        let permits = u32::try_from(kib).map_err(|_| Full)?;
        let permit = Arc::clone(&self.permits)
            .try_acquire_many_owned(permits)
            .map_err(|_| Full)?;
        Ok(HeldBody {
            data: text,
            _permit: permit,
        })
    }

    /// KiB held by answers now.
    pub fn held_kib(&self) -> usize {
        self.kib - self.permits.available_permits()
    }
}

/// An answer body holding its share of the answer memory.
pub struct HeldBody {
    data: Bytes,
    _permit: OwnedSemaphorePermit,
}

impl Body for HeldBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if self.data.is_empty() {
            return Poll::Ready(None);
        }
        let n = self.data.len().min(CHUNK);
        let chunk = Bytes::copy_from_slice(&self.data[..n]);
        self.data.advance(n);
        Poll::Ready(Some(Ok(Frame::data(chunk))))
    }

    fn is_end_stream(&self) -> bool {
        self.data.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.data.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_hold_their_bytes_until_dropped_and_refuse_past_the_budget() {
        let memory = AnswerMemory::new(64 << 10);
        let first = memory.body(Bytes::from(vec![b'x'; 40 << 10])).unwrap();
        assert_eq!(memory.held_kib(), 40);
        assert!(memory.body(Bytes::from(vec![b'x'; 30 << 10])).is_err());
        let small = memory.body(Bytes::from_static(b"{}")).unwrap();
        assert_eq!(memory.held_kib(), 41);
        drop(first);
        drop(small);
        assert_eq!(memory.held_kib(), 0);
        assert!(memory.body(Bytes::from(vec![b'x'; 65 << 10])).is_err());
    }
}
