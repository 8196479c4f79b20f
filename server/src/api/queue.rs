//! Requests read once into what a worker answers, queued on the pool, and
//! their answers written back with their status.

use super::state::AppState;
use crate::errors::{ApiError, status_of};
use crate::pool::{Answer, Gone, Pending, Refused};
use crate::schema::ServerErrorKind;
use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sawah_protocol::messages::Request as ProtocolRequest;
use sawah_protocol::{Bot, Command, ProtocolError, WireRequest};
use serde_json::Value;
use std::time::Instant;

/// Answers `requests` (read from `body_bytes` bytes, arrived at `arrived`)
/// on the pool: 503 when the queue is full or the job waited past its time
/// budget. Dropping the future (the client went away) cancels the job.
pub(crate) async fn answer(
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
pub(crate) fn held_response(state: &AppState, status: StatusCode, text: String) -> Response {
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
pub(crate) async fn answer_one(
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
pub(crate) fn batch_text(answers: &[Answer]) -> String {
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

/// A request's text read once, by the protocol's one reader, into what a
/// worker answers: the command `route` gives it in place of any `"cmd"`.
pub(crate) fn pending(bot: &Bot, text: &str, route: Option<Command>) -> Pending {
    let (id, request) = bot.read_request(text, route);
    Pending { id, request }
}

/// A request read already: a batch's member (its bytes read once, for
/// the batch's check too), answered as a request of its own.
pub(crate) fn member(bot: &Bot, read: Result<WireRequest, ProtocolError>) -> Pending {
    match read {
        Ok(request) => Pending {
            id: request.id(),
            request: bot.parse(&request),
        },
        Err(error) => Pending {
            id: None,
            request: Err(error),
        },
    }
}

/// A typed request a GET route builds from its path.
pub(crate) fn typed(request: ProtocolRequest) -> Pending {
    Pending {
        id: None,
        request: Ok(request),
    }
}

/// A request a GET route builds from its path and query as the JSON a
/// body would carry: a query value that is not a number is passed on as
/// the text it is, so that the protocol's one reader names it in its error
/// as it names a body's (read once, here, as any body is).
pub(crate) fn built(bot: &Bot, request: &Value) -> Pending {
    pending(bot, &request.to_string(), None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sawah_engine::Registry;
    use sawah_protocol::ErrorKind;

    #[test]
    fn a_request_is_read_once_into_what_the_worker_answers() {
        let bot = Bot::new(Registry::new());
        // A route's command stands in place of the body's "cmd"; the id is
        // kept to echo.
        let read = pending(
            &bot,
            r#"{"id":[7],"cmd":"hello","rules":"ur"}"#,
            Some(Command::Start),
        );
        assert_eq!(read.id, Some(serde_json::json!([7])));
        assert!(
            matches!(&read.request, Ok(ProtocolRequest::Start(start)) if start.rules == "ur"),
            "{read:?}"
        );
        // A request that does not read is queued as its error, id and all.
        let read = pending(&bot, r#"{"id":1,"cmd":"fly"}"#, None);
        assert_eq!(read.id, Some(serde_json::json!(1)));
        assert_eq!(read.request.unwrap_err().kind, ErrorKind::UnknownCommand);
        let read = pending(&bot, "not json", None);
        assert_eq!(
            (read.id, read.request.unwrap_err().kind),
            (None, ErrorKind::InvalidJson)
        );
        // A batch's member, read already, is answered the same.
        let text = r#"{"id":2,"cmd":"start","rules":"senet"}"#;
        let member = member(&bot, WireRequest::read(text));
        let alone = pending(&bot, text, None);
        assert_eq!((member.id, member.request), (alone.id, alone.request));
        // A query route's values go to the one reader as a body's would.
        let read = built(
            &bot,
            &serde_json::json!({"cmd":"daily","date":"2026-12-07","count":"many"}),
        );
        let error = read.request.unwrap_err();
        assert_eq!(error.kind, ErrorKind::InvalidField);
        assert!(
            error.message.contains("\"count\" is \"many\""),
            "{}",
            error.message
        );
    }

    #[test]
    fn a_batch_is_written_as_one_array_of_its_answers_in_order() {
        let answer = |text: &str| Answer {
            text: text.into(),
            error: None,
            internal: false,
        };
        assert_eq!(batch_text(&[]), "[]");
        assert_eq!(
            batch_text(&[answer("{\"a\":1}"), answer("{\"b\":2}")]),
            "[{\"a\":1},{\"b\":2}]"
        );
    }
}
