//! What a batch of requests may produce together: a batch is bounded by
//! the sum of its members, not each member alone, so a front door that
//! answers batches holds at most one request's worth of `daily` throws and
//! reviewed turns per batch.

use crate::command::Command;
use crate::error::{ErrorKind, ProtocolError};
use crate::limits::{DEFAULT_DAILY_COUNT, MAX_DAILY_COUNT, MAX_REVIEW_TURNS};
use crate::request::command_of;
use crate::wire::{WireRequest, typed};
use serde::Deserialize;
use serde::de::IgnoredAny;

/// What a review's game holds that a batch counts: its turns.
#[derive(Deserialize)]
struct Turns {
    moves: Vec<IgnoredAny>,
}

/// What one request may produce: throws of the daily game and reviewed
/// turns (a request that is not well formed counts nothing: it is refused
/// on its own).
fn output_of(request: &WireRequest) -> (u64, u64) {
    match command_of(request).ok() {
        Some(Command::Daily) => {
            let count = match request.count {
                None => DEFAULT_DAILY_COUNT,
                Some(count) => typed::<u64>(count).unwrap_or(0),
            };
            (count, 0)
        }
        Some(Command::Review) => {
            let turns = request
                .game
                .and_then(|game| typed::<Turns>(game).ok())
                .map_or(0, |game| game.moves.len());
            (0, turns as u64)
        }
        _ => (0, 0),
    }
}

/// Refuses a batch (`too_large`) whose members together ask for more
/// `daily` throws or reviewed turns than one request may.
pub fn check_batch<'r, 't: 'r>(
    requests: impl IntoIterator<Item = &'r WireRequest<'t>>,
) -> Result<(), ProtocolError> {
    let (throws, turns) = requests
        .into_iter()
        .map(output_of)
        .fold((0u64, 0u64), |(a, b), (c, d)| {
            (a.saturating_add(c), b.saturating_add(d))
        });
    if throws > MAX_DAILY_COUNT {
        return Err(ProtocolError::new(
            ErrorKind::TooLarge,
            format!(
                "the batch asks for {throws} daily throws together; a batch may ask for at most {MAX_DAILY_COUNT}"
            ),
        ));
    }
    if turns > MAX_REVIEW_TURNS as u64 {
        return Err(ProtocolError::new(
            ErrorKind::TooLarge,
            format!(
                "the batch reviews {turns} turns together; a batch may review at most {MAX_REVIEW_TURNS}"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn check_batch(requests: &[Value]) -> Result<(), ProtocolError> {
        let texts: Vec<String> = requests.iter().map(Value::to_string).collect();
        let read: Vec<WireRequest> = texts
            .iter()
            .map(|text| WireRequest::read(text).unwrap())
            .collect();
        super::check_batch(&read)
    }

    #[test]
    fn a_batch_is_bounded_by_the_sum_of_its_members() {
        let daily = |count: u64| json!({"cmd":"daily","date":"2026-01-01","count":count});
        let full: Vec<Value> = vec![daily(MAX_DAILY_COUNT)];
        assert!(check_batch(&full).is_ok());
        let split = vec![daily(MAX_DAILY_COUNT / 2), daily(MAX_DAILY_COUNT / 2)];
        assert!(check_batch(&split).is_ok());
        let over = vec![daily(MAX_DAILY_COUNT / 2 + 1), daily(MAX_DAILY_COUNT / 2)];
        let error = check_batch(&over).unwrap_err();
        assert_eq!(error.kind, ErrorKind::TooLarge);
        assert!(error.message.contains("100001"), "{}", error.message);
        // Absent counts are the default 100 each.
        let defaults = vec![json!({"cmd":"daily","date":"2026-01-01"}); 1001];
        assert!(check_batch(&defaults).is_err());
        let review = |turns: usize| json!({"cmd":"review","game":{"moves": vec!["1:0-1"; turns]}});
        assert!(check_batch(&[review(MAX_REVIEW_TURNS)]).is_ok());
        assert!(check_batch(&[review(MAX_REVIEW_TURNS), review(1)]).is_err());
        // Other requests count nothing.
        assert!(check_batch(&vec![json!({"cmd":"hello"}); 64]).is_ok());
    }
}
