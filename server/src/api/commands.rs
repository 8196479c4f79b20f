//! The POST routes: `/v1/request` (one protocol request, or a batch) and
//! one route per common command, each taking its typed request.

use super::body::{JsonBody, Routed, RoutedBody, not_json};
use super::queue::{answer, answer_one, batch_text, held_response, member, pending};
use super::state::Shared;
use crate::errors::ApiError;
use crate::schema::of;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use sawah_protocol::messages::{
    ChooseRequest, EvaluateRequest, HintRequest, LegalMovesRequest, RequestLine, ReviewRequest,
    SolvePuzzleRequest,
};
use sawah_protocol::{Command, ErrorKind, ProtocolError, WireRequest};
use serde_json::json;
use serde_json::value::RawValue;

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
pub(crate) async fn request(State(state): Shared, body: JsonBody<RequestLine>) -> Response {
    let JsonBody {
        text: body,
        bytes,
        arrived,
        ..
    } = body;
    if !body.get().starts_with('[') {
        let request = pending(&state.bot, body.get(), None);
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
    let requests = read
        .into_iter()
        .map(|read| member(&state.bot, read))
        .collect();
    match answer(&state, requests, bytes, arrived).await {
        // A batch is 200 whatever its elements say (each element
        // carries its own error, as docs/server.md gives).
        Ok(answers) => held_response(&state, StatusCode::OK, batch_text(&answers)),
        Err(error) => error.into_response(),
    }
}

/// A POST route that answers one command: its handler, registered with
/// the route's OpenAPI operation, taking the command's request type. The
/// type is named once, here, for the body the route reads, the schema the
/// document gives it and the command it is ([`Routed`]).
macro_rules! command_route {
    ($(#[doc = $doc:tt])* $handler:ident($request:ident => $command:ident),
     path = $path:tt, tag = $tag:tt, body = $body:tt, responses($($responses:tt)*)) => {
        impl Routed for $request {
            const COMMAND: Command = Command::$command;
        }

        $(#[doc = $doc])*
        #[utoipa::path(post, path = $path, tag = $tag,
            request_body(content = inline(of::$request), description = $body),
            responses($($responses)*))]
        pub(crate) async fn $handler(State(state): Shared, body: RoutedBody<$request>) -> Response {
            answer_one(&state, body.pending, body.bytes, body.arrived, false).await
        }
    };
}

command_route! {
    /// Every legal move for a roll, with the position after each.
    legal_moves(LegalMovesRequest => LegalMoves),
    path = "/v1/legal-moves", tag = "play",
    body = "{\"position\":P,\"roll\":R}",
    responses((status = 200, description = "{\"moves\":[…]}", body = inline(of::LegalMovesAnswer)),
              (status = 422, description = "A bad position or roll", body = inline(of::HttpError)))
}

command_route! {
    /// The move a bot plays, with every move's value.
    choose(ChooseRequest => Choose),
    path = "/v1/choose", tag = "play",
    body = "{\"position\":P,\"roll\":R,\"bot\":B}",
    responses((status = 200, description = "{\"move\":M,\"values\":[…]}", body = inline(of::ChooseAnswer)),
              (status = 422, description = "A bad position, roll or bot", body = inline(of::HttpError)),
              (status = 503, description = "Overloaded", body = inline(of::HttpError)))
}

command_route! {
    /// A bot's win probability for the side to move.
    evaluate(EvaluateRequest => Evaluate),
    path = "/v1/evaluate", tag = "play",
    body = "{\"position\":P,\"bot\":B}",
    responses((status = 200, description = "{\"value\":V}", body = inline(of::EvaluateAnswer)),
              (status = 422, description = "A bad position or bot", body = inline(of::HttpError)),
              (status = 503, description = "Overloaded", body = inline(of::HttpError)))
}

command_route! {
    /// A game reviewed move by move: losses, classes, luck, each player's strength.
    review(ReviewRequest => Review),
    path = "/v1/review", tag = "review",
    body = "{\"game\":G,\"bot\":B}: a game record (docs/protocol.md) and, optionally, the reference",
    responses((status = 200, description = "{\"reference\":…,\"turns\":[…],\"light\":{…},\"dark\":{…}}", body = inline(of::ReviewAnswer)),
              (status = 413, description = "A game of more than 5,000 turns", body = inline(of::HttpError)),
              (status = 422, description = "A record that does not read or replay, a bad reference, or a review that would cost more than the node budget (too_expensive)", body = inline(of::HttpError)),
              (status = 503, description = "Overloaded", body = inline(of::HttpError)))
}

command_route! {
    /// Every legal move for a roll, ranked, with what each does; without a
    /// roll, the roll table (each roll's chance and the best it leads to).
    hint(HintRequest => Hint),
    path = "/v1/hint", tag = "review",
    body = "{\"position\":P,\"roll\":R,\"bot\":B}; without \"roll\", the roll table",
    responses((status = 200, description = "{\"moves\":[…],\"reference\":…}, or without a roll {\"rolls\":[{\"roll\",\"probability\",\"value\",\"move\"}…],\"value\":…,\"reference\":…}", body = inline(of::HintAnswer)),
              (status = 422, description = "A bad position, roll or reference, or a hint that would cost more than the node budget (too_expensive)", body = inline(of::HttpError)),
              (status = 503, description = "Overloaded", body = inline(of::HttpError)))
}

command_route! {
    /// A puzzle's answer checked and explained.
    solve_puzzle(SolvePuzzleRequest => SolvePuzzle),
    path = "/v1/solve-puzzle", tag = "puzzles",
    body = "{\"rules\":R,\"puzzle\":ID,\"move\":M}",
    responses((status = 200, description = "{\"correct\":…,\"best\":M,\"loss_pp\":…,\"themes\":[…],\"explanation\":…,\"moves\":[…]}", body = inline(of::SolvePuzzleAnswer)),
              (status = 422, description = "No such puzzle, or a move that is not one of its moves", body = inline(of::HttpError)))
}
