//! The routes: `POST /v1/request` (one protocol request, or a batch), the
//! resource-style routes for the common commands, health, readiness,
//! metrics and the OpenAPI document. Every protocol answer comes from the
//! worker pool, so the same request gets the same JSON as from `sawah bot`.

mod body;
mod commands;
mod lookups;
mod operations;
mod queue;
mod state;

pub use body::{DRAIN_BYTES, DRAIN_TIME};
pub use state::{AppState, Arrived};

use crate::errors::{ApiError, json_response};
use crate::schema::ServerErrorKind;
use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;
use body::drain_what_is_left;
use serde_json::Value;
use state::Shared;
use std::sync::Arc;
use std::time::Instant;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Every route, each registered with the OpenAPI operation its handler's
/// annotation gives (parameters, statuses, and the types of its body and
/// answers): the one list of routes, which both the router and the
/// OpenAPI document are made from.
fn routes() -> OpenApiRouter<Arc<AppState>> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(commands::request))
        .routes(routes!(lookups::list_rules))
        .routes(routes!(lookups::rules))
        .routes(routes!(lookups::start))
        .routes(routes!(commands::legal_moves))
        .routes(routes!(commands::choose))
        .routes(routes!(commands::evaluate))
        .routes(routes!(commands::review))
        .routes(routes!(commands::hint))
        .routes(routes!(lookups::daily))
        .routes(routes!(lookups::puzzle_near))
        .routes(routes!(lookups::puzzle_of_the_day))
        .routes(routes!(lookups::puzzle_by_id))
        .routes(routes!(commands::solve_puzzle))
        .routes(routes!(operations::healthz))
        .routes(routes!(operations::readyz))
        .routes(routes!(operations::metrics))
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
