//! Connections: accepting them up to a limit, the timeouts that close the
//! ones that stall, and a shutdown that ends.
//!
//! * **Connection limit** (`--max-connections`): a connection past it is
//!   answered 503 with the protocol's error body and closed at once, so
//!   the server's descriptors and memory stay bounded and `/healthz` keeps
//!   answering.
//! * **Header timeout** (`--header-timeout`): hyper's timer runs from the
//!   moment a connection is ready for a request, when it opens or after
//!   its last answer, until the request's headers are complete. It closes
//!   a client that sends its headers a byte at a time, and it is the idle
//!   keep-alive timeout too: one clock for both, as hyper keeps it.
//! * **Body timeout** (`--body-timeout`): the handlers read a body within
//!   it (408 beyond).
//! * **Write timeout** (`--write-timeout`): a write that makes no progress
//!   for that long closes the connection, so a client that does not read
//!   its answer cannot hold it.
//! * **Shutdown**: the first SIGTERM or SIGINT stops accepting and lets
//!   the requests in flight finish, for at most `--shutdown-timeout`; then
//!   the connections still open are closed. A second signal closes them
//!   at once.

use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio::time::Sleep;

/// The most bytes hyper buffers for one connection (request headers
/// included: a longer header gets 431).
pub const MAX_CONNECTION_BUFFER: usize = 16 << 10;

/// How connections are kept.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// Connections open at once.
    pub max_connections: usize,
    /// From ready for a request to its headers complete (idle keep-alive
    /// included).
    pub header_timeout: Duration,
    /// A write that makes no progress for this long closes the connection.
    pub write_timeout: Duration,
    /// After the first signal, how long requests in flight may finish.
    pub shutdown_timeout: Duration,
}

/// The answer to a connection past the limit.
const TOO_MANY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: 109\r\n\r\n{\"error\":{\"kind\":\"overloaded\",\"message\":\"the server has as many connections open as it allows; retry later\"}}";

/// Accepts connections on `listener` and serves `router` on each until
/// `shutdown` completes; then as described in the module docs, with
/// `force` ending the wait at once.
pub async fn accept_loop(
    listener: TcpListener,
    router: axum::Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
    force: impl Future<Output = ()>,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let mut connections = JoinSet::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(MAX_CONNECTION_BUFFER)
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
            // Reap finished connection tasks as they end.
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(error) => {
                // Out of descriptors or a connection reset before accept:
                // wait a moment rather than spin.
                tracing::warn!(%error, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            // Best effort: the answer fits the socket's send buffer.
            let _ = stream.try_write(TOO_MANY);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(TimedIo::new(stream, limits.write_timeout));
        let service = TowerToHyperService::new(router.clone().into_service::<Incoming>());
        let connection = graceful.watch(builder.serve_connection(io, service));
        connections.spawn(async move {
            let _ = connection.await;
            drop(slot);
        });
    }
    drop(listener);
    tracing::info!(
        open = connections.len(),
        "shutting down: finishing the requests in flight"
    );
    tokio::pin!(force);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(limits.shutdown_timeout) => {
            tracing::warn!(open = connections.len(), "the shutdown timeout passed: closing the connections still open");
        }
        () = &mut force => {
            tracing::warn!(open = connections.len(), "a second signal: closing every connection now");
        }
    }
    connections.abort_all();
    while connections.join_next().await.is_some() {}
}

/// A TCP stream whose writes fail once one has made no progress for the
/// write timeout.
pub struct TimedIo {
    stream: TcpStream,
    timeout: Duration,
    stalled: Option<Pin<Box<Sleep>>>,
}

impl TimedIo {
    /// `stream` with `timeout` on writes.
    pub fn new(stream: TcpStream, timeout: Duration) -> TimedIo {
        TimedIo {
            stream,
            timeout,
            stalled: None,
        }
    }

    /// After a write or flush returned `poll`: arms the timer while it is
    /// pending, disarms it on progress, and fails once it has run out.
    fn watch<T>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if poll.is_ready() {
            self.stalled = None;
            return poll;
        }
        let timeout = self.timeout;
        let timer = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        if timer.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client has not read its answer within the write timeout",
            )));
        }
        Poll::Pending
    }
}

impl AsyncRead for TimedIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for TimedIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.watch(cx, poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.watch(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.stream).poll_flush(cx);
        self.watch(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.stream).poll_shutdown(cx);
        self.watch(cx, poll)
    }
}

/// Lets this process open `needed` descriptors: raises the soft limit
/// toward the hard one when it is lower. Errors say what is possible.
#[cfg(unix)]
pub fn ensure_descriptors(needed: u64) -> Result<(), String> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // Safety: getrlimit and setrlimit only read and write the struct given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Err(format!(
            "reading the descriptor limit: {}",
            io::Error::last_os_error()
        ));
    }
    if limit.rlim_cur >= needed {
        return Ok(());
    }
    if limit.rlim_max < needed {
        return Err(format!(
            "this process may open at most {} descriptors (ulimit -Hn) and the server needs {needed}; lower --max-connections or raise the limit",
            limit.rlim_max
        ));
    }
    limit.rlim_cur = needed;
    // Safety: setrlimit only reads the struct given, which lives to the end of the call.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) } != 0 {
        return Err(format!(
            "raising the descriptor limit to {needed}: {}",
            io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// Descriptors are not limited this way off Unix.
#[cfg(not(unix))]
pub fn ensure_descriptors(_needed: u64) -> Result<(), String> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_of_a_connection_past_the_limit_is_well_formed_json() {
        let text = std::str::from_utf8(TOO_MANY).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.contains(&format!("content-length: {}", body.len())));
        let body: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(body["error"]["kind"], "overloaded");
    }
}
