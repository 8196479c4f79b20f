//! Health, readiness and metrics.

use super::state::Shared;
use crate::errors::{ApiError, json_response};
use crate::schema::{Health, Readiness, ServerErrorKind, of};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Liveness: the process answers.
#[utoipa::path(get, path = "/healthz", tag = "operations",
    responses((status = 200, description = "{\"status\":\"ok\"}", body = inline(of::Health))))]
pub(crate) async fn healthz() -> Response {
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
pub(crate) async fn readyz(State(state): Shared) -> Response {
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
pub(crate) async fn metrics(State(state): Shared) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        state.metrics.encode(&state.pool, &state.answers),
    )
        .into_response()
}
