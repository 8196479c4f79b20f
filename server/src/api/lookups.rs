//! The GET routes: rule sets, start positions, the daily throws and
//! puzzles, each a typed request built from its path (and query).

use super::queue::{answer_one, built, typed};
use super::state::Shared;
use crate::errors::ApiError;
use crate::schema::of;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use sawah_protocol::ErrorKind;
use sawah_protocol::messages::{
    PuzzleChoice, PuzzleRequest, Request as ProtocolRequest, RulesRequest,
};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::time::Instant;

/// The names of every rule set.
#[utoipa::path(get, path = "/v1/rules", tag = "rules",
    responses((status = 200, description = "{\"rules\":[names]}", body = inline(of::ListRulesAnswer))))]
pub(crate) async fn list_rules(State(state): Shared) -> Response {
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
pub(crate) async fn rules(
    State(state): Shared,
    name: Result<Path<String>, PathRejection>,
) -> Response {
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
pub(crate) async fn start(
    State(state): Shared,
    rules: Result<Path<String>, PathRejection>,
) -> Response {
    match rules {
        Ok(Path(rules)) => {
            let request = ProtocolRequest::Start(RulesRequest { rules });
            answer_one(&state, typed(request), 0, Instant::now(), true).await
        }
        Err(rejection) => path_error(rejection).into_response(),
    }
}

/// The throws of Senet's game of the day.
#[utoipa::path(get, path = "/v1/daily/{date}", tag = "rules",
    params(("date" = String, Path, description = "YYYY-MM-DD"),
           ("count" = Option<u64>, Query, description = "Throws (default 100)")),
    responses((status = 200, description = "{\"date\":D,\"throws\":[…]}", body = inline(of::DailyAnswer)),
              (status = 422, description = "Not a date, or a count out of range", body = inline(of::HttpError))))]
pub(crate) async fn daily(
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
        built(&state.bot, &Value::Object(request)),
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
pub(crate) async fn puzzle_of_the_day(
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
pub(crate) async fn puzzle_by_id(
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
pub(crate) async fn puzzle_near(
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
        built(&state.bot, &Value::Object(request)),
        0,
        Instant::now(),
        true,
    )
    .await
}

/// A query value as the request's field: the number `N` it reads as, or
/// else (a word, or a number JSON cannot hold, such as `inf`) the text, so
/// the protocol's error names it as it would a body's.
pub(crate) fn number_or_text<N: std::str::FromStr + Into<Value>>(text: &str) -> Value {
    match text.parse::<N>().map(Into::into) {
        Ok(number) if number.is_number() => number,
        _ => Value::String(text.to_string()),
    }
}

pub(crate) fn query_error(rejection: QueryRejection) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        ErrorKind::InvalidRequest,
        format!("the query string does not read: {}", rejection.body_text()),
    )
}

/// A path segment that does not read (not UTF-8 once decoded), as JSON.
pub(crate) fn path_error(rejection: PathRejection) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        ErrorKind::InvalidRequest,
        format!("the path does not read: {}", rejection.body_text()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_value_is_its_number_or_else_the_text_it_is() {
        assert_eq!(number_or_text::<u64>("12"), json!(12));
        assert_eq!(number_or_text::<u64>("-1"), json!("-1"));
        assert_eq!(number_or_text::<f64>("1500.5"), json!(1500.5));
        // A number JSON cannot hold is passed on as text, for the protocol
        // to name in its error.
        assert_eq!(number_or_text::<f64>("inf"), json!("inf"));
        assert_eq!(number_or_text::<f64>("NaN"), json!("NaN"));
        assert_eq!(number_or_text::<u64>("many"), json!("many"));
    }
}
