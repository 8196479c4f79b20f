//! HTTP statuses: every protocol error kind maps to one 4xx status, and the
//! server's own refusals (no such route, wrong method, too large,
//! overloaded) carry the protocol's error body too.

use crate::pool::Answer;
use crate::schema::{HttpError, HttpErrorBody, HttpErrorKind};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sawah_protocol::ErrorKind;
use serde_json::{Value, json};

/// The status of a protocol answer: 200, or the 4xx of its error kind
/// (500 for a worker's internal error, a bug). `path_names_rules` is set on
/// routes whose path names the rule set, where an unknown one is a missing
/// resource (404) rather than a bad body (422).
pub fn status_of(answer: &Answer, path_names_rules: bool) -> StatusCode {
    if answer.internal {
        return StatusCode::INTERNAL_SERVER_ERROR;
    }
    match answer.error {
        None => StatusCode::OK,
        Some(kind) => kind_status(kind, path_names_rules),
    }
}

/// The status of a protocol error kind.
pub fn kind_status(kind: ErrorKind, path_names_rules: bool) -> StatusCode {
    match kind {
        ErrorKind::InvalidJson | ErrorKind::InvalidRequest | ErrorKind::UnknownCommand => {
            StatusCode::BAD_REQUEST
        }
        ErrorKind::UnknownRules if path_names_rules => StatusCode::NOT_FOUND,
        ErrorKind::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorKind::MissingField
        | ErrorKind::InvalidField
        | ErrorKind::UnknownRules
        | ErrorKind::InvalidPosition
        | ErrorKind::InvalidRoll
        | ErrorKind::InvalidBot
        | ErrorKind::GameNotOver
        | ErrorKind::Unsupported
        | ErrorKind::TooExpensive => StatusCode::UNPROCESSABLE_ENTITY,
    }
}

/// A refusal by the HTTP layer, answered with the protocol's error body.
#[derive(Debug)]
pub struct ApiError {
    /// The status.
    pub status: StatusCode,
    /// The error kind: a protocol kind, or the HTTP layer's own.
    pub kind: HttpErrorKind,
    /// What was wrong.
    pub message: String,
}

impl ApiError {
    /// An error of `status` and `kind` saying `message`.
    pub fn new(
        status: StatusCode,
        kind: impl Into<HttpErrorKind>,
        message: impl Into<String>,
    ) -> ApiError {
        ApiError {
            status,
            kind: kind.into(),
            message: message.into(),
        }
    }

    /// The body `{"error":{"kind":K,"message":M}}` ([`HttpError`]).
    pub fn body(&self) -> Value {
        json!(HttpError {
            id: None,
            error: HttpErrorBody {
                kind: self.kind,
                message: self.message.clone(),
            },
        })
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = json_response(self.status, &self.body());
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        response
    }
}

/// `value` as a JSON response of `status`.
pub fn json_response(status: StatusCode, value: &Value) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        value.to_string(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_protocol_error_kind_is_a_4xx() {
        for kind in ErrorKind::ALL {
            for path_names_rules in [false, true] {
                let status = kind_status(kind, path_names_rules);
                assert!(status.is_client_error(), "{kind}: {status}");
            }
        }
        assert_eq!(
            kind_status(ErrorKind::InvalidPosition, false),
            StatusCode::UNPROCESSABLE_ENTITY
        );
        assert_eq!(
            kind_status(ErrorKind::TooExpensive, false),
            StatusCode::UNPROCESSABLE_ENTITY
        );
        assert_eq!(
            kind_status(ErrorKind::InvalidJson, false),
            StatusCode::BAD_REQUEST
        );
        let fine = Answer {
            text: "{}".into(),
            error: None,
            internal: false,
        };
        assert_eq!(status_of(&fine, false), StatusCode::OK);
        let bug = Answer {
            internal: true,
            ..fine
        };
        assert_eq!(status_of(&bug, false), StatusCode::INTERNAL_SERVER_ERROR);
    }
}
