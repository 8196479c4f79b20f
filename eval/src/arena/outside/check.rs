//! `sawah check-bot`: a compliance test to run before a tournament. It
//! sends a bot `choose` requests for positions met in random games of each
//! rule set, the edge cases first (a roll with no legal move, a move that
//! earns another roll, bearing off, a capture, Senet's special houses),
//! and counts its legal, illegal and malformed answers, its crashes, its
//! timeouts, and its latency.

use super::agent::{LOG_HINT, choose_request, chosen_index, looks_like_a_log};
use super::bot::OutsideBot;
use sawah_agents::{Failure, FailureKind};
use sawah_engine::playout::RandomGames;
use sawah_engine::{Codec, Describe, Game, Tag};
use serde::Serialize;
use serde_json::Value;
use std::time::Instant;

/// The kinds of position check-bot makes sure to send.
pub const EDGE_CASES: [&str; 5] = [
    "no legal move",
    "extra roll",
    "bearing off",
    "capture",
    "special house",
];

/// What one rule set's check found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RulesCheck {
    /// The rule set.
    pub rules: String,
    /// Requests sent.
    pub asked: u64,
    /// Answers that named a legal move (or `null` with no legal move).
    pub legal: u64,
    /// Well-formed answers naming a move that is not legal, or a move
    /// where there is none.
    pub illegal: u64,
    /// Answers that are not a JSON object with a `move`, and error answers.
    pub malformed: u64,
    /// Exchanges that broke the link because the bot stopped: it exited,
    /// closed its pipes, or could not be started (each such process is
    /// replaced).
    pub crashes: u64,
    /// Requests not answered within the time for a move (the process is
    /// replaced: its late answer would arrive out of turn).
    pub timeouts: u64,
    /// The edge cases sent (the rule set may not have them all).
    pub edge_cases: Vec<String>,
    /// The edge cases the bot answered legally.
    pub edge_cases_passed: Vec<String>,
    /// Milliseconds from request to answer: median, 99th percentile, worst.
    pub latency_ms: Latency,
    /// The first problems found, in words.
    pub problems: Vec<String>,
}

/// Latency figures in milliseconds.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Latency {
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Worst.
    pub max: f64,
}

impl RulesCheck {
    /// Whether every answer was legal and nothing crashed.
    pub fn passed(&self) -> bool {
        self.asked > 0 && self.legal == self.asked
    }
}

/// Decision points of random games, the edge cases first, then others
/// spread over whole games, `count` in all.
pub fn sample_cases<G: Game + Describe>(
    game: &G,
    seed: u64,
    count: usize,
) -> Vec<(G::Position, u8, Option<&'static str>)> {
    let mut games = RandomGames::new(game, seed);
    let mut edge: Vec<(G::Position, u8, &'static str)> = Vec::new();
    let mut others = Vec::new();
    let mut steps = 0u64;
    // Enough random play to meet every edge case a rule set has.
    while steps < 200_000 && (others.len() < count || edge.len() < EDGE_CASES.len()) {
        steps += 1;
        let (position, roll, moves) = games.turn();
        let case = if moves.is_empty() {
            Some("no legal move")
        } else {
            let has = |wanted: &[Tag]| {
                moves
                    .iter()
                    .any(|&mv| game.tags(&position, mv).iter().any(|t| wanted.contains(t)))
            };
            let extra = moves.iter().any(|&mv| game.apply(&position, mv).extra_roll);
            if extra {
                Some("extra roll")
            } else if has(&[Tag::BearsOff]) {
                Some("bearing off")
            } else if has(&[Tag::Captures]) {
                Some("capture")
            } else if has(&[Tag::Water, Tag::Beauty]) {
                Some("special house")
            } else {
                None
            }
        };
        match case {
            Some(case) if !edge.iter().any(|e| e.2 == case) => edge.push((position, roll, case)),
            _ if !moves.is_empty() && others.len() < count && games.source().below(3) == 0 => {
                others.push((position, roll))
            }
            _ => {}
        }
        games.play(&moves);
    }
    edge.sort_by_key(|e| EDGE_CASES.iter().position(|c| *c == e.2));
    let mut cases: Vec<_> = edge.into_iter().map(|(p, r, c)| (p, r, Some(c))).collect();
    for (p, r) in others {
        if cases.len() >= count {
            break;
        }
        cases.push((p, r, None));
    }
    cases.truncate(count.max(1));
    cases
}

/// What one answer was: legal, or a failure of one kind.
type Verdict = Result<(), Failure>;

/// Sends `bot` `count` positions of `game` (from random games seeded with
/// `seed`) and reports what it answered.
pub fn check_rules<G: Codec + Describe>(
    game: &G,
    bot: &OutsideBot,
    count: usize,
    seed: u64,
) -> RulesCheck {
    let mut report = RulesCheck {
        rules: game.name().to_string(),
        ..RulesCheck::default()
    };
    let mut latencies = Vec::new();
    let mut link = None;
    for (number, (position, roll, case)) in sample_cases(game, seed, count).into_iter().enumerate()
    {
        if let Some(case) = case {
            report.edge_cases.push(case.to_string());
        }
        report.asked += 1;
        let game_id = format!("check-{}-{number}", game.name());
        let (verdict, latency) = ask_case(game, bot, &mut link, &position, roll, &game_id, seed);
        latencies.extend(latency);
        let problem = match verdict {
            Ok(()) => {
                report.legal += 1;
                report.edge_cases_passed.extend(case.map(str::to_string));
                continue;
            }
            Err(failure) => {
                *match failure.kind {
                    FailureKind::Illegal => &mut report.illegal,
                    FailureKind::Malformed => &mut report.malformed,
                    FailureKind::Time => &mut report.timeouts,
                    FailureKind::Crash | FailureKind::Start | FailureKind::Withdrawn => {
                        &mut report.crashes
                    }
                } += 1;
                failure.message
            }
        };
        if report.problems.len() < 8 {
            let shown = sawah_engine::notation::format(&game.position_to_json(&position));
            report
                .problems
                .push(format!("\"{shown}\" roll {roll}: {problem}"));
        }
    }
    if let Some(link) = link {
        bot.put_back(link);
    }
    report.latency_ms = Latency::of(latencies);
    report
}

/// One position sent and its answer judged, with the milliseconds the
/// exchange took; `link` is reused from case to case and replaced when
/// it breaks.
fn ask_case<G: Codec>(
    game: &G,
    bot: &OutsideBot,
    link: &mut Option<Box<dyn super::link::Link>>,
    position: &G::Position,
    roll: u8,
    game_id: &str,
    seed: u64,
) -> (Verdict, Option<f64>) {
    let moves = game.legal_moves(position, roll);
    let id = bot.request_id();
    let limit = bot.referee().move_time;
    let request = choose_request(
        game,
        id,
        bot.def().bot.as_ref(),
        position,
        roll,
        &moves,
        game_id,
        1,
        limit.as_millis() as u64,
        seed,
    );
    let mut current = match link.take() {
        Some(current) => current,
        None => match bot.take_link() {
            Ok(current) => current,
            Err(failure) => return (Err(failure), None),
        },
    };
    let start = Instant::now();
    let answer = current.ask(&request.to_string(), id, limit);
    let latency = Some(start.elapsed().as_secs_f64() * 1e3);
    let answer = match answer {
        Ok(answer) => answer,
        Err(e) => {
            if !e.broken {
                *link = Some(current);
            }
            return (Err(Failure::new(e.kind, e.reason)), latency);
        }
    };
    *link = Some(current);
    (judge(game, &answer, id, &moves), latency)
}

/// An answer judged: a legal move, or `{"move":null}` where none is legal.
fn judge<G: Codec>(game: &G, answer: &[u8], id: u64, moves: &[G::Move]) -> Verdict {
    if !moves.is_empty() {
        return chosen_index(game, answer, id, moves).map(|_| ());
    }
    match serde_json::from_slice::<Value>(answer) {
        Ok(Value::Object(fields)) if fields.get("move") == Some(&Value::Null) => Ok(()),
        Ok(Value::Object(fields)) if fields.contains_key("move") => Err(Failure::new(
            FailureKind::Illegal,
            "no move is legal, so the answer is \"move\":null",
        )),
        _ => Err(Failure::new(
            FailureKind::Malformed,
            format!(
                "no move is legal; expected {{\"id\":{id},\"move\":null}}, got {}{}",
                sawah_engine::text::printable(&String::from_utf8_lossy(answer), 120),
                if looks_like_a_log(answer) {
                    LOG_HINT
                } else {
                    ""
                }
            ),
        )),
    }
}

impl Latency {
    /// The median, 99th percentile and worst of `latencies` (milliseconds).
    fn of(mut latencies: Vec<f64>) -> Latency {
        latencies.sort_by(f64::total_cmp);
        let at = |q: f64| {
            latencies
                .get(((latencies.len() as f64 - 1.0) * q).round() as usize)
                .copied()
                .unwrap_or(0.0)
        };
        Latency {
            p50: at(0.5),
            p99: at(0.99),
            max: latencies.last().copied().unwrap_or(0.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sawah_engine::race;
    use sawah_engine::senet::Senet;

    #[test]
    fn samples_put_every_edge_case_the_rules_have_first() {
        let rules = race::preset("ur").unwrap();
        let cases = sample_cases(&rules, 3, 20);
        assert_eq!(cases.len(), 20);
        let edges: Vec<&str> = cases.iter().filter_map(|c| c.2).collect();
        assert_eq!(
            edges,
            ["no legal move", "extra roll", "bearing off", "capture"]
        );
        let (position, roll, _) = &cases[0];
        assert!(rules.legal_moves(position, *roll).is_empty());
        let senet = Senet::new();
        let edges: Vec<&str> = sample_cases(&senet, 3, 30)
            .iter()
            .filter_map(|c| c.2)
            .collect();
        assert!(edges.contains(&"special house"), "{edges:?}");
        assert!(edges.contains(&"bearing off"), "{edges:?}");
    }
}
