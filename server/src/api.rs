//! The routes: `POST /v1/request` (one protocol request, or a batch), the
//! resource-style routes for the common commands, health, readiness,
//! metrics and the OpenAPI document. Every protocol answer comes from the
//! worker pool, so the same request gets the same JSON as from `sawah bot`.

use crate::answers::AnswerMemory;
use crate::errors::{ApiError, json_response, status_of};
use crate::metrics::Metrics;
use crate::pool::{Answer, Gone, Pending, Pool, Refused};
use crate::schema::{Health, Readiness, ServerErrorKind, of};
use axum::body::Body;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{FromRequest, MatchedPath, Path, Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use http_body_util::BodyExt;
use sawah_protocol::messages::{
    ChooseRequest, EvaluateRequest, HintRequest, LegalMovesRequest, PuzzleChoice, PuzzleRequest,
    Request as ProtocolRequest, RequestLine, ReviewRequest, RulesRequest, SolvePuzzleRequest,
};
use sawah_protocol::{Bot, Command, ErrorKind, ProtocolError, WireRequest};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

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

type Shared = State<Arc<AppState>>;

/// Every route, each registered with the OpenAPI operation its handler's
/// annotation gives (parameters, statuses, and the types of its body and
/// answers): the one list of routes, which both the router and the
/// OpenAPI document are made from.
fn routes() -> OpenApiRouter<Arc<AppState>> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(request))
        .routes(routes!(list_rules))
        .routes(routes!(rules))
        .routes(routes!(start))
        .routes(routes!(legal_moves))
        .routes(routes!(choose))
        .routes(routes!(evaluate))
        .routes(routes!(review))
        .routes(routes!(hint))
        .routes(routes!(daily))
        .routes(routes!(puzzle_near))
        .routes(routes!(puzzle_of_the_day))
        .routes(routes!(puzzle_by_id))
        .routes(routes!(solve_puzzle))
        .routes(routes!(healthz))
        .routes(routes!(readyz))
        .routes(routes!(metrics))
        .routes(routes!(openapi))
}

/// The router of every route, with metrics and JSON fallbacks. Every
/// request's body is read to its end before the connection closes, or
/// drained ([`Unread`]), whatever answered it: a refusal (404, 405, 413, a
/// route that takes no body) reaches a client that writes its whole
/// request before reading.
pub fn router(state: Arc<AppState>) -> Router {
    let (router, _) = routes().split_for_parts();
    router
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&state),
            track,
        ))
        .layer(axum::middleware::map_request(drain_what_is_left))
        .with_state(state)
}

/// Wraps a request's body in [`Unread`].
async fn drain_what_is_left(request: Request) -> Request {
    request.map(|body| Body::new(Unread(Some(body))))
}

/// A request body that, dropped before its end (its handler answered
/// without reading it, or stopped reading it), reads and drops the rest
/// beside the answer, within [`DRAIN_BYTES`] and [`DRAIN_TIME`], as the
/// 413 always did.
struct Unread(Option<Body>);

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
struct JsonBody<T> {
    text: Box<RawValue>,
    bytes: usize,
    arrived: Instant,
    request: PhantomData<T>,
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
struct RoutedBody<T> {
    pending: Pending,
    bytes: usize,
    arrived: Instant,
    request: PhantomData<T>,
}

impl<T: Routed> FromRequest<Arc<AppState>> for RoutedBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &Arc<AppState>) -> Result<Self, ApiError> {
        let arrived = arrival(&request);
        let (text, bytes) = read_json(state, request).await?;
        Ok(RoutedBody {
            pending: pending(state, text.get(), Some(T::COMMAND)),
            bytes,
            arrived,
            request: PhantomData,
        })
    }
}

/// A protocol request type a POST route takes, and the command it is.
trait Routed {
    /// The command.
    const COMMAND: Command;
}

macro_rules! routed {
    ($($request:ty => $command:ident),* $(,)?) => {
        $(impl Routed for $request {
            const COMMAND: Command = Command::$command;
        })*
    };
}

routed! {
    LegalMovesRequest => LegalMoves,
    ChooseRequest => Choose,
    EvaluateRequest => Evaluate,
    ReviewRequest => Review,
    HintRequest => Hint,
    SolvePuzzleRequest => SolvePuzzle,
}

/// Counts every request by route and status, with its latency, and logs it
/// with its request id: every request at debug level, 5xx answers as errors.
async fn track(State(state): Shared, mut request: Request, next: Next) -> Response {
    let started = Instant::now();
    request.extensions_mut().insert(Arrived(started));
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |path| path.as_str())
        .to_string();
    let id = request
        .headers()
        .get("x-request-id")
        .and_then(|value| value.to_str().ok())
        .unwrap_or("-")
        .to_string();
    let method = request.method().clone();
    state.metrics.in_flight.inc();
    let response = next.run(request).await;
    state.metrics.in_flight.dec();
    let status = response.status().as_u16();
    let elapsed = started.elapsed();
    state.metrics.observe(&route, status, elapsed);
    let micros = elapsed.as_micros() as u64;
    if status >= 500 && status != 503 {
        tracing::error!(id, %method, route, status, micros, "request failed");
    } else {
        tracing::debug!(id, %method, route, status, micros, "request");
    }
    response
}

/// Answers `requests` (read from `body_bytes` bytes, arrived at `arrived`)
/// on the pool: 503 when the queue is full or the job waited past its time
/// budget. Dropping the future (the client went away) cancels the job.
async fn answer(
    state: &AppState,
    requests: Vec<Pending>,
    body_bytes: usize,
    arrived: Instant,
) -> Result<Vec<Answer>, ApiError> {
    let gone = Gone::default();
    let receiver = state
        .pool
        .submit(requests, body_bytes, arrived, &gone)
        .map_err(|_| {
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ServerErrorKind::Overloaded,
                "every worker is busy and the queue is full; retry after the time in Retry-After",
            )
        })?;
    match receiver.await {
        Ok(Ok(answers)) => Ok(answers),
        Ok(Err(Refused::Expired)) => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ServerErrorKind::Overloaded,
            "the request waited for a worker past its time budget; retry after the time in Retry-After",
        )),
        Err(_) => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ServerErrorKind::Unavailable,
            "the server is shutting down",
        )),
    }
}

/// `text` as a JSON response of `status`, held within the answer memory
/// until read (503 when that is spent).
fn held_response(state: &AppState, status: StatusCode, text: String) -> Response {
    match state.answers.body(text.into()) {
        Ok(body) => (
            status,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            Body::new(body),
        )
            .into_response(),
        Err(_) => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ServerErrorKind::Overloaded,
            "answers waiting to be read fill the server's answer memory; retry after the time in Retry-After",
        )
        .into_response(),
    }
}

/// One protocol request answered, with the status of its result.
async fn answer_one(
    state: &AppState,
    request: Pending,
    body_bytes: usize,
    arrived: Instant,
    path_names_rules: bool,
) -> Response {
    match answer(state, vec![request], body_bytes, arrived).await {
        Ok(mut answers) => match answers.pop() {
            Some(answer) => {
                let status = status_of(&answer, path_names_rules);
                held_response(state, status, answer.text)
            }
            // The pool answers every request of a job; never reached.
            None => ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                ServerErrorKind::Internal,
                "the request got no answer; it has been logged",
            )
            .into_response(),
        },
        Err(error) => error.into_response(),
    }
}

/// A batch's answers as one JSON array, written from their texts.
fn batch_text(answers: &[Answer]) -> String {
    let mut text =
        String::with_capacity(answers.iter().map(|a| a.text.len() + 1).sum::<usize>() + 2);
    text.push('[');
    for (i, answer) in answers.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&answer.text);
    }
    text.push(']');
    text
}

/// The arrival of `request` (now, for a request the tracking layer did
/// not see).
fn arrival(request: &Request) -> Instant {
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
async fn read_json(state: &AppState, request: Request) -> Result<(Box<RawValue>, usize), ApiError> {
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

fn not_json(error: &serde_json::Error) -> ApiError {
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
async fn drain<B>(mut body: B, mut seen: u64)
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

/// A request's text read once, by the protocol's one reader, into what a
/// worker answers: the command `route` gives it in place of any `"cmd"`.
fn pending(state: &AppState, text: &str, route: Option<Command>) -> Pending {
    let (id, request) = state.bot.read_request(text, route);
    Pending { id, request }
}

/// A request read already: a batch's member (its bytes read once, for
/// the batch's check too), answered as a request of its own.
fn member(state: &AppState, read: Result<WireRequest, ProtocolError>) -> Pending {
    match read {
        Ok(request) => Pending {
            id: request.id(),
            request: state.bot.parse(&request),
        },
        Err(error) => Pending {
            id: None,
            request: Err(error),
        },
    }
}

/// A typed request a GET route builds from its path.
fn typed(request: ProtocolRequest) -> Pending {
    Pending {
        id: None,
        request: Ok(request),
    }
}

/// A request a GET route builds from its path and query as the JSON a
/// body would carry: a query value that is not a number is passed on as
/// the text it is, so that the protocol's one reader names it in its error
/// as it names a body's (read once, here, as any body is).
fn built(state: &AppState, request: &Value) -> Pending {
    pending(state, &request.to_string(), None)
}

/// One protocol request, or a JSON array of them (a batch, answered with an
/// array in the same order, sharing one time budget).
#[utoipa::path(post, path = "/v1/request", tag = "protocol",
    request_body(content = inline(of::RequestBatch), description = "A protocol request object (docs/protocol.md), or an array of them"),
    responses(
        (status = 200, description = "The response object sawah bot gives (an array for a batch)", body = inline(of::ResponseBatch)),
        (status = 400, description = "Not JSON, not an object, or an unknown command", body = inline(of::HttpError)),
        (status = 408, description = "The body did not arrive within the body timeout", body = inline(of::HttpError)),
        (status = 413, description = "The body or the batch is too large, or a batch asks for more output than one request may", body = inline(of::HttpError)),
        (status = 422, description = "A field, position, roll or bot is wrong", body = inline(of::HttpError)),
        (status = 503, description = "Overloaded: retry after Retry-After seconds", body = inline(of::HttpError))))]
async fn request(State(state): Shared, body: JsonBody<RequestLine>) -> Response {
    let JsonBody {
        text: body,
        bytes,
        arrived,
        ..
    } = body;
    if !body.get().starts_with('[') {
        let request = pending(&state, body.get(), None);
        return answer_one(&state, request, bytes, arrived, false).await;
    }
    let requests: Vec<Box<RawValue>> = match serde_json::from_str(body.get()) {
        Ok(requests) => requests,
        Err(error) => return not_json(&error).into_response(),
    };
    if requests.len() > state.max_batch {
        return ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorKind::TooLarge,
            format!(
                "a batch of {} requests; at most {} per batch",
                requests.len(),
                state.max_batch
            ),
        )
        .into_response();
    }
    if requests.is_empty() {
        return Json(json!([])).into_response();
    }
    // Each member read once. What the members ask for together; a member
    // that does not read is answered with its own error and counts
    // nothing here.
    let read: Vec<Result<WireRequest, ProtocolError>> = requests
        .iter()
        .map(|request| WireRequest::read(request.get()))
        .collect();
    let readable = read.iter().filter_map(|r| r.as_ref().ok());
    if let Err(error) = sawah_protocol::check_batch(readable) {
        return ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorKind::TooLarge,
            error.message,
        )
        .into_response();
    }
    let requests = read.into_iter().map(|read| member(&state, read)).collect();
    match answer(&state, requests, bytes, arrived).await {
        // A batch is 200 whatever its elements say (each element
        // carries its own error, as docs/server.md gives).
        Ok(answers) => held_response(&state, StatusCode::OK, batch_text(&answers)),
        Err(error) => error.into_response(),
    }
}

/// The names of every rule set.
#[utoipa::path(get, path = "/v1/rules", tag = "rules",
    responses((status = 200, description = "{\"rules\":[names]}", body = inline(of::ListRulesAnswer))))]
async fn list_rules(State(state): Shared) -> Response {
    answer_one(
        &state,
        typed(ProtocolRequest::ListRules),
        0,
        Instant::now(),
        false,
    )
    .await
}

/// Everything a front end needs to draw and play a rule set.
#[utoipa::path(get, path = "/v1/rules/{name}", tag = "rules",
    params(("name" = String, Path, description = "Rule set name")),
    responses((status = 200, description = "{\"rules\":{…}}", body = inline(of::RulesAnswer)),
              (status = 404, description = "No such rule set", body = inline(of::HttpError))))]
async fn rules(State(state): Shared, name: Result<Path<String>, PathRejection>) -> Response {
    match name {
        Ok(Path(name)) => {
            let request = ProtocolRequest::Rules(RulesRequest { rules: name });
            answer_one(&state, typed(request), 0, Instant::now(), true).await
        }
        Err(rejection) => path_error(rejection).into_response(),
    }
}

/// A rule set's starting position.
#[utoipa::path(get, path = "/v1/start/{rules}", tag = "rules",
    params(("rules" = String, Path, description = "Rule set name")),
    responses((status = 200, description = "{\"position\":{…}}", body = inline(of::StartAnswer)),
              (status = 404, description = "No such rule set", body = inline(of::HttpError))))]
async fn start(State(state): Shared, rules: Result<Path<String>, PathRejection>) -> Response {
    match rules {
        Ok(Path(rules)) => {
            let request = ProtocolRequest::Start(RulesRequest { rules });
            answer_one(&state, typed(request), 0, Instant::now(), true).await
        }
        Err(rejection) => path_error(rejection).into_response(),
    }
}

/// Every legal move for a roll, with the position after each.
#[utoipa::path(post, path = "/v1/legal-moves", tag = "play",
    request_body(content = inline(of::LegalMovesRequest), description = "{\"position\":P,\"roll\":R}"),
    responses((status = 200, description = "{\"moves\":[…]}", body = inline(of::LegalMovesAnswer)),
              (status = 422, description = "A bad position or roll", body = inline(of::HttpError))))]
async fn legal_moves(State(state): Shared, body: RoutedBody<LegalMovesRequest>) -> Response {
    routed(&state, body).await
}

/// The move a bot plays, with every move's value.
#[utoipa::path(post, path = "/v1/choose", tag = "play",
    request_body(content = inline(of::ChooseRequest), description = "{\"position\":P,\"roll\":R,\"bot\":B}"),
    responses((status = 200, description = "{\"move\":M,\"values\":[…]}", body = inline(of::ChooseAnswer)),
              (status = 422, description = "A bad position, roll or bot", body = inline(of::HttpError)),
              (status = 503, description = "Overloaded", body = inline(of::HttpError))))]
async fn choose(State(state): Shared, body: RoutedBody<ChooseRequest>) -> Response {
    routed(&state, body).await
}

/// A bot's win probability for the side to move.
#[utoipa::path(post, path = "/v1/evaluate", tag = "play",
    request_body(content = inline(of::EvaluateRequest), description = "{\"position\":P,\"bot\":B}"),
    responses((status = 200, description = "{\"value\":V}", body = inline(of::EvaluateAnswer)),
              (status = 422, description = "A bad position or bot", body = inline(of::HttpError)),
              (status = 503, description = "Overloaded", body = inline(of::HttpError))))]
async fn evaluate(State(state): Shared, body: RoutedBody<EvaluateRequest>) -> Response {
    routed(&state, body).await
}

/// A game reviewed move by move: losses, classes, luck, each player's strength.
#[utoipa::path(post, path = "/v1/review", tag = "review",
    request_body(content = inline(of::ReviewRequest), description = "{\"game\":G,\"bot\":B}: a game record (docs/protocol.md) and, optionally, the reference"),
    responses((status = 200, description = "{\"reference\":…,\"turns\":[…],\"light\":{…},\"dark\":{…}}", body = inline(of::ReviewAnswer)),
              (status = 413, description = "A game of more than 5,000 turns", body = inline(of::HttpError)),
              (status = 422, description = "A record that does not read or replay, a bad reference, or a review that would cost more than the node budget (too_expensive)", body = inline(of::HttpError)),
              (status = 503, description = "Overloaded", body = inline(of::HttpError))))]
async fn review(State(state): Shared, body: RoutedBody<ReviewRequest>) -> Response {
    routed(&state, body).await
}

/// Every legal move for a roll, ranked, with what each does; without a
/// roll, the roll table (each roll's chance and the best it leads to).
#[utoipa::path(post, path = "/v1/hint", tag = "review",
    request_body(content = inline(of::HintRequest), description = "{\"position\":P,\"roll\":R,\"bot\":B}; without \"roll\", the roll table"),
    responses((status = 200, description = "{\"moves\":[…],\"reference\":…}, or without a roll {\"rolls\":[{\"roll\",\"probability\",\"value\",\"move\"}…],\"value\":…,\"reference\":…}", body = inline(of::HintAnswer)),
              (status = 422, description = "A bad position, roll or reference, or a hint that would cost more than the node budget (too_expensive)", body = inline(of::HttpError)),
              (status = 503, description = "Overloaded", body = inline(of::HttpError))))]
async fn hint(State(state): Shared, body: RoutedBody<HintRequest>) -> Response {
    routed(&state, body).await
}

/// A POST route's request answered as the command its type is.
async fn routed<T: Routed>(state: &AppState, body: RoutedBody<T>) -> Response {
    answer_one(state, body.pending, body.bytes, body.arrived, false).await
}

/// The throws of Senet's game of the day.
#[utoipa::path(get, path = "/v1/daily/{date}", tag = "rules",
    params(("date" = String, Path, description = "YYYY-MM-DD"),
           ("count" = Option<u64>, Query, description = "Throws (default 100)")),
    responses((status = 200, description = "{\"date\":D,\"throws\":[…]}", body = inline(of::DailyAnswer)),
              (status = 422, description = "Not a date, or a count out of range", body = inline(of::HttpError))))]
async fn daily(
    State(state): Shared,
    date: Result<Path<String>, PathRejection>,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Response {
    let Path(date) = match date {
        Ok(date) => date,
        Err(rejection) => return path_error(rejection).into_response(),
    };
    let Query(query) = match query {
        Ok(query) => query,
        Err(rejection) => return query_error(rejection).into_response(),
    };
    let mut request = Map::new();
    request.insert("cmd".into(), json!("daily"));
    request.insert("date".into(), json!(date));
    if let Some(count) = query.get("count") {
        request.insert("count".into(), number_or_text::<u64>(count));
    }
    answer_one(
        &state,
        built(&state, &Value::Object(request)),
        0,
        Instant::now(),
        false,
    )
    .await
}

/// The puzzle of the day of a rule set: the question (the answer comes
/// from `/v1/solve-puzzle`).
#[utoipa::path(get, path = "/v1/puzzles/{rules}/daily/{date}", tag = "puzzles",
    params(("rules" = String, Path, description = "Rule set name"),
           ("date" = String, Path, description = "YYYY-MM-DD")),
    responses((status = 200, description = "{\"puzzle\":{\"id\",\"rules\",\"position\",\"roll\",\"moves\",\"rating\"},\"count\":N}", body = inline(of::PuzzleAnswer)),
              (status = 404, description = "No such rule set", body = inline(of::HttpError)),
              (status = 422, description = "Not a date, or no puzzle set for the rule set (unsupported)", body = inline(of::HttpError))))]
async fn puzzle_of_the_day(
    State(state): Shared,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Response {
    match path {
        Ok(Path((rules, date))) => {
            let choice = PuzzleChoice::Date { date };
            let request = ProtocolRequest::Puzzle(PuzzleRequest { rules, choice });
            answer_one(&state, typed(request), 0, Instant::now(), true).await
        }
        Err(rejection) => path_error(rejection).into_response(),
    }
}

/// A puzzle by its id.
#[utoipa::path(get, path = "/v1/puzzles/{rules}/{id}", tag = "puzzles",
    params(("rules" = String, Path, description = "Rule set name"),
           ("id" = String, Path, description = "The puzzle's id (ur-5c1d0e7a)")),
    responses((status = 200, description = "{\"puzzle\":{…},\"count\":N}", body = inline(of::PuzzleAnswer)),
              (status = 404, description = "No such rule set", body = inline(of::HttpError)),
              (status = 422, description = "No such puzzle, or no puzzle set", body = inline(of::HttpError))))]
async fn puzzle_by_id(
    State(state): Shared,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Response {
    match path {
        Ok(Path((rules, id))) => {
            let choice = PuzzleChoice::Id { puzzle: id };
            let request = ProtocolRequest::Puzzle(PuzzleRequest { rules, choice });
            answer_one(&state, typed(request), 0, Instant::now(), true).await
        }
        Err(rejection) => path_error(rejection).into_response(),
    }
}

/// A puzzle near a rating: one of the ten rated nearest, picked by `seed`
/// (0, the default: the nearest).
#[utoipa::path(get, path = "/v1/puzzles/{rules}", tag = "puzzles",
    params(("rules" = String, Path, description = "Rule set name"),
           ("rating" = f64, Query, description = "Elo on the rule set's scale"),
           ("seed" = Option<u64>, Query, description = "Which of the nearest (default 0)")),
    responses((status = 200, description = "{\"puzzle\":{…},\"count\":N}", body = inline(of::PuzzleAnswer)),
              (status = 404, description = "No such rule set", body = inline(of::HttpError)),
              (status = 422, description = "No rating, or no puzzle set", body = inline(of::HttpError))))]
async fn puzzle_near(
    State(state): Shared,
    rules: Result<Path<String>, PathRejection>,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Response {
    let Path(rules) = match rules {
        Ok(rules) => rules,
        Err(rejection) => return path_error(rejection).into_response(),
    };
    let Query(query) = match query {
        Ok(query) => query,
        Err(rejection) => return query_error(rejection).into_response(),
    };
    let mut request = Map::new();
    request.insert("cmd".into(), json!("puzzle"));
    request.insert("rules".into(), json!(rules));
    if let Some(rating) = query.get("rating") {
        request.insert("rating".into(), number_or_text::<f64>(rating));
    }
    if let Some(seed) = query.get("seed") {
        request.insert("seed".into(), number_or_text::<u64>(seed));
    }
    answer_one(
        &state,
        built(&state, &Value::Object(request)),
        0,
        Instant::now(),
        true,
    )
    .await
}

/// A puzzle's answer checked and explained.
#[utoipa::path(post, path = "/v1/solve-puzzle", tag = "puzzles",
    request_body(content = inline(of::SolvePuzzleRequest), description = "{\"rules\":R,\"puzzle\":ID,\"move\":M}"),
    responses((status = 200, description = "{\"correct\":…,\"best\":M,\"loss_pp\":…,\"themes\":[…],\"explanation\":…,\"moves\":[…]}", body = inline(of::SolvePuzzleAnswer)),
              (status = 422, description = "No such puzzle, or a move that is not one of its moves", body = inline(of::HttpError))))]
async fn solve_puzzle(State(state): Shared, body: RoutedBody<SolvePuzzleRequest>) -> Response {
    routed(&state, body).await
}

/// A query value as the request's field: the number `N` it reads as, or
/// else (a word, or a number JSON cannot hold, such as `inf`) the text, so
/// the protocol's error names it as it would a body's.
fn number_or_text<N: std::str::FromStr + Into<Value>>(text: &str) -> Value {
    match text.parse::<N>().map(Into::into) {
        Ok(number) if number.is_number() => number,
        _ => Value::String(text.to_string()),
    }
}

fn query_error(rejection: QueryRejection) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        ErrorKind::InvalidRequest,
        format!("the query string does not read: {}", rejection.body_text()),
    )
}

/// A path segment that does not read (not UTF-8 once decoded), as JSON.
fn path_error(rejection: PathRejection) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        ErrorKind::InvalidRequest,
        format!("the path does not read: {}", rejection.body_text()),
    )
}

/// Liveness: the process answers.
#[utoipa::path(get, path = "/healthz", tag = "operations",
    responses((status = 200, description = "{\"status\":\"ok\"}", body = inline(of::Health))))]
async fn healthz() -> Response {
    let health = Health {
        status: "ok".to_string(),
    };
    json_response(StatusCode::OK, &json!(health))
}

/// Readiness: whether this instance can take work soon. 503 only while
/// shutting down, or when work waits and no worker has taken or finished a
/// job for longer than two time budgets (a wedged instance). A queue that
/// is full for a moment is not a reason: it empties within one time
/// budget, since a job that waited past its budget is refused unworked,
/// so a burst does not take the instance out of a load balancer.
#[utoipa::path(get, path = "/readyz", tag = "operations",
    responses((status = 200, description = "{\"status\":\"ready\",\"workers\":N,\"queued\":Q,\"places\":P}", body = inline(of::Readiness)),
              (status = 503, description = "Shutting down, or wedged", body = inline(of::HttpError))))]
async fn readyz(State(state): Shared) -> Response {
    if !state.ready.load(Ordering::Relaxed) {
        return ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ServerErrorKind::Unavailable,
            "shutting down",
        )
        .into_response();
    }
    let stall = state
        .pool
        .limits()
        .time_budget
        .unwrap_or(Duration::from_secs(10))
        .saturating_mul(2);
    if state.pool.stalled(stall) {
        return ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ServerErrorKind::Unavailable,
            format!(
                "work waits and no worker has finished a job for {} ms",
                stall.as_millis()
            ),
        )
        .into_response();
    }
    json_response(
        StatusCode::OK,
        &json!(Readiness {
            status: "ready".to_string(),
            workers: state.pool.workers(),
            queued: state.pool.queued(),
            places: state.pool.capacity(),
        }),
    )
}

/// Prometheus metrics (OpenMetrics text).
#[utoipa::path(get, path = "/metrics", tag = "operations",
    responses((status = 200, description = "OpenMetrics text", content_type = "application/openmetrics-text")))]
async fn metrics(State(state): Shared) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        state.metrics.encode(&state.pool, &state.answers),
    )
        .into_response()
}

/// This document.
#[utoipa::path(get, path = "/openapi.json", tag = "operations",
    responses((status = 200, description = "The OpenAPI document", body = Object)))]
async fn openapi() -> Response {
    json_response(StatusCode::OK, &openapi_document())
}

async fn not_found(request: Request) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ServerErrorKind::NotFound,
        format!(
            "no route {} {}; see /openapi.json",
            request.method(),
            request.uri().path()
        ),
    )
}

async fn method_not_allowed(request: Request) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        ServerErrorKind::MethodNotAllowed,
        format!(
            "{} is not allowed on {}; see /openapi.json",
            request.method(),
            request.uri().path()
        ),
    )
}

#[derive(OpenApi)]
#[openapi(info(
    title = "sawah serve",
    description = "The sawah-ai opponents over HTTP: the bot protocol of docs/protocol.md, one request per call or in batches. Errors are {\"error\":{\"kind\":K,\"message\":M}}."
))]
struct ApiDoc;

/// The OpenAPI document of every route: the router's own (each route's
/// parameters, statuses and types from its handler), with the schemas of
/// those types.
pub fn openapi_document() -> Value {
    let document = routes().into_openapi();
    crate::schema::with_schemas(serde_json::to_value(document).unwrap_or(Value::Null))
}
