//! Reading a request's body within the server's limits (size, time), and
//! draining what a handler left unread: the extractors of the POST routes.

use super::queue::pending;
use super::state::{AppState, Arrived};
use crate::errors::ApiError;
use crate::pool::Pending;
use crate::schema::ServerErrorKind;
use axum::body::Body;
use axum::extract::{FromRequest, Request};
use axum::http::{StatusCode, header};
use http_body_util::BodyExt;
use sawah_protocol::{Command, ErrorKind};
use serde_json::value::RawValue;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Wraps a request's body in [`Unread`].
pub(crate) async fn drain_what_is_left(request: Request) -> Request {
    request.map(|body| Body::new(Unread(Some(body))))
}

/// A request body that, dropped before its end (its handler answered
/// without reading it, or stopped reading it), reads and drops the rest
/// beside the answer, within [`DRAIN_BYTES`] and [`DRAIN_TIME`], as the
/// 413 always did.
pub(crate) struct Unread(Option<Body>);

impl http_body::Body for Unread {
    type Data = bytes::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let Some(body) = self.0.as_mut() else {
            return std::task::Poll::Ready(None);
        };
        let polled = std::pin::Pin::new(body).poll_frame(cx);
        if let std::task::Poll::Ready(None) = polled {
            // Read to its end: nothing is left to drain.
            self.0 = None;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.0.as_ref().is_none_or(http_body::Body::is_end_stream)
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.0.as_ref().map_or_else(
            || http_body::SizeHint::with_exact(0),
            http_body::Body::size_hint,
        )
    }
}

impl Drop for Unread {
    fn drop(&mut self) {
        if let Some(body) = self.0.take()
            && !http_body::Body::is_end_stream(&body)
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(drain(body, 0));
        }
    }
}

/// What `POST /v1/request` takes: a protocol request, or a batch of them,
/// as the JSON text it arrived as (read within the server's limits: 413,
/// 408 and 400 otherwise), with its length and arrival. The handler reads
/// each request once with the protocol's one reader.
pub(crate) struct JsonBody<T> {
    pub(crate) text: Box<RawValue>,
    pub(crate) bytes: usize,
    pub(crate) arrived: Instant,
    pub(crate) request: PhantomData<T>,
}

impl<T> FromRequest<Arc<AppState>> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &Arc<AppState>) -> Result<Self, ApiError> {
        let arrived = arrival(&request);
        let (text, bytes) = read_json(state, request).await?;
        Ok(JsonBody {
            text,
            bytes,
            arrived,
            request: PhantomData,
        })
    }
}

/// What a POST route of one command takes: a protocol request of type
/// `T`, its body read within the server's limits (as [`JsonBody`]'s), then
/// read once into its typed form by the protocol's one reader as the
/// route's command, whatever its `"cmd"`. A request that does not read is
/// still answered, by its error, in order with the rest.
pub(crate) struct RoutedBody<T> {
    pub(crate) pending: Pending,
    pub(crate) bytes: usize,
    pub(crate) arrived: Instant,
    pub(crate) request: PhantomData<T>,
}

impl<T: Routed> FromRequest<Arc<AppState>> for RoutedBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &Arc<AppState>) -> Result<Self, ApiError> {
        let arrived = arrival(&request);
        let (text, bytes) = read_json(state, request).await?;
        Ok(RoutedBody {
            pending: pending(&state.bot, text.get(), Some(T::COMMAND)),
            bytes,
            arrived,
            request: PhantomData,
        })
    }
}

/// A protocol request type a POST route takes, and the command it is.
pub(crate) trait Routed {
    /// The command.
    const COMMAND: Command;
}

/// The arrival of `request` (now, for a request the tracking layer did
/// not see).
pub(crate) fn arrival(request: &Request) -> Instant {
    request
        .extensions()
        .get::<Arrived>()
        .map_or_else(Instant::now, |arrived| arrived.0)
}

/// After refusing a body as too large, the most of it read and dropped,
/// and for how long, while the 413 goes out and before the connection
/// closes: a client that writes its whole request before reading (most
/// HTTP libraries) then reads the 413 instead of a broken pipe, as
/// nginx's lingering close does. Bounded, so a refusal costs at most this.
pub const DRAIN_BYTES: u64 = 4 << 20;
/// See [`DRAIN_BYTES`].
pub const DRAIN_TIME: Duration = Duration::from_secs(2);

/// The body as JSON text (checked to be JSON, not read into a tree), and
/// its length: 413 when `Content-Length` says it is
/// over the limit or more arrives than the limit (the rest of the body is
/// read and dropped beside the answer, within [`DRAIN_BYTES`] and
/// [`DRAIN_TIME`]), 408
/// when it is not all there within the body timeout, 400 if it is not JSON.
pub(crate) async fn read_json(
    state: &AppState,
    request: Request,
) -> Result<(Box<RawValue>, usize), ApiError> {
    let limit = state.body_limit;
    let too_large = || {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorKind::TooLarge,
            format!("the body is larger than {limit} bytes"),
        )
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    let deadline = arrival(&request) + state.body_timeout;
    let mut body = request.into_body();
    if declared.is_some_and(|length| length > limit as u64) {
        // Dropped unread: the rest is drained beside the answer (`Unread`).
        drop(body);
        return Err(too_large());
    }
    let mut bytes: Vec<u8> = Vec::new();
    loop {
        let frame = tokio::time::timeout_at(deadline.into(), body.frame())
            .await
            .map_err(|_| {
                ApiError::new(
                    StatusCode::REQUEST_TIMEOUT,
                    ServerErrorKind::Timeout,
                    format!(
                        "the body did not arrive within {} ms",
                        state.body_timeout.as_millis()
                    ),
                )
            })?;
        let data = match frame {
            None => break,
            Some(Ok(frame)) => match frame.into_data() {
                Ok(data) => data,
                Err(_) => continue,
            },
            Some(Err(error)) => {
                return Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    ErrorKind::InvalidRequest,
                    format!("the body could not be read: {error}"),
                ));
            }
        };
        if bytes.len() + data.len() > limit {
            // Dropped unfinished: the rest is drained beside the answer.
            drop(body);
            return Err(too_large());
        }
        bytes.extend_from_slice(&data);
    }
    let value = serde_json::from_slice(&bytes).map_err(|e| not_json(&e))?;
    Ok((value, bytes.len()))
}

pub(crate) fn not_json(error: &serde_json::Error) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        ErrorKind::InvalidJson,
        format!("the body is not JSON: {error}"),
    )
}

/// Reads and drops what is left of a refused body (`seen` bytes of it
/// already read), up to [`DRAIN_BYTES`] in all and for at most
/// [`DRAIN_TIME`]; run beside the answer, which goes out at once (the
/// connection closes when this ends with the body unfinished).
pub(crate) async fn drain<B>(mut body: B, mut seen: u64)
where
    B: http_body::Body<Data = bytes::Bytes> + Unpin,
{
    let until = tokio::time::Instant::now() + DRAIN_TIME;
    while seen < DRAIN_BYTES {
        match tokio::time::timeout_at(until, body.frame()).await {
            Ok(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    seen += data.len() as u64;
                }
            }
            _ => return,
        }
    }
}
