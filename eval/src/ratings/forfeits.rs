//! Forfeits explained: for each agent that forfeited games, how many of
//! each kind (time, crash, start, malformed, illegal, withdrawn) and the
//! first message of each kind, so a bot's author reads why from the table.

use crate::arena::results::GameRecord;
use sawah_agents::FailureKind;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The most characters of a first message shown in a table.
const SHOWN_CHARS: usize = 240;

/// One kind of forfeit of one agent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KindCount {
    /// The kind (`"unrecorded"` for results written before kinds were).
    pub kind: String,
    /// Games forfeited this way.
    pub games: u64,
    /// The first such game's message, escaped and cut for a terminal.
    pub first: String,
}

/// An agent's forfeits by kind.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AgentForfeits {
    /// The agent.
    pub agent: String,
    /// Its forfeits, by kind in [`FailureKind::ALL`]'s order.
    pub kinds: Vec<KindCount>,
}

/// Every agent's forfeits in `games`, in the order agents first forfeited
/// (empty when nobody forfeited).
pub fn of(games: &[GameRecord]) -> Vec<AgentForfeits> {
    let mut order: Vec<String> = Vec::new();
    let mut by_agent: BTreeMap<String, BTreeMap<Option<FailureKind>, (u64, String)>> =
        BTreeMap::new();
    for game in games {
        let Some(failure) = &game.failure else {
            continue;
        };
        let agent = match failure.seat {
            sawah_engine::Player::Light => &game.light,
            sawah_engine::Player::Dark => &game.dark,
        };
        if !by_agent.contains_key(agent) {
            order.push(agent.clone());
        }
        let entry = by_agent
            .entry(agent.clone())
            .or_default()
            .entry(failure.kind)
            .or_insert_with(|| {
                (
                    0,
                    sawah_engine::text::printable(&failure.message, SHOWN_CHARS),
                )
            });
        entry.0 += 1;
    }
    order
        .into_iter()
        .map(|agent| {
            let kinds = by_agent
                .remove(&agent)
                .unwrap_or_default()
                .into_iter()
                .map(|(kind, (games, first))| KindCount {
                    kind: kind.map_or("unrecorded", FailureKind::as_str).to_string(),
                    games,
                    first,
                })
                .collect();
            AgentForfeits { agent, kinds }
        })
        .collect()
}

/// The forfeits as a Markdown table: agent, kind, games, first message.
pub fn markdown(forfeits: &[AgentForfeits]) -> String {
    let mut out = String::from("| agent | kind | games | the first one |\n|:---|:---|---:|:---|\n");
    for agent in forfeits {
        for kind in &agent.kinds {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                agent.agent,
                kind.kind,
                kind.games,
                kind.first.replace('|', "\\|")
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::gamelog::AgentFailure;
    use crate::arena::results::GameEnding;
    use sawah_engine::Player;

    fn game(light: &str, dark: &str, failure: Option<(Player, FailureKind, &str)>) -> GameRecord {
        GameRecord {
            rules: "ur".into(),
            light: light.into(),
            dark: dark.into(),
            pair: 0,
            seed: 1,
            ending: if failure.is_some() {
                GameEnding::Forfeit
            } else {
                GameEnding::RollLimit
            },
            winner: failure.map(|(seat, _, _)| seat.other()),
            length: 10,
            moves: Vec::new(),
            failure: failure.map(|(seat, kind, message)| AgentFailure {
                seat,
                kind: Some(kind),
                message: message.to_string(),
            }),
            luck: None,
        }
    }

    #[test]
    fn forfeits_are_counted_by_agent_and_kind_with_the_first_message() {
        let games = vec![
            game("bot", "easy", None),
            game(
                "bot",
                "easy",
                Some((Player::Light, FailureKind::Time, "bot: no answer in 1.0 s")),
            ),
            game(
                "easy",
                "bot",
                Some((
                    Player::Dark,
                    FailureKind::Time,
                    "bot: no answer in 1.0 s (second)",
                )),
            ),
            game(
                "easy",
                "bot",
                Some((
                    Player::Dark,
                    FailureKind::Malformed,
                    "bot: a line that is not JSON: \u{1b}[2J",
                )),
            ),
            game(
                "other",
                "easy",
                Some((Player::Light, FailureKind::Crash, "other: exited")),
            ),
        ];
        let forfeits = of(&games);
        assert_eq!(forfeits.len(), 2);
        assert_eq!(forfeits[0].agent, "bot");
        let kinds: Vec<(&str, u64)> = forfeits[0]
            .kinds
            .iter()
            .map(|k| (k.kind.as_str(), k.games))
            .collect();
        assert_eq!(kinds, [("time", 2), ("malformed", 1)]);
        assert_eq!(forfeits[0].kinds[0].first, "bot: no answer in 1.0 s");
        // Escaped for the terminal.
        assert!(
            forfeits[0].kinds[1].first.ends_with("\\u{1b}[2J"),
            "{}",
            forfeits[0].kinds[1].first
        );
        assert_eq!(forfeits[1].agent, "other");
        let table = markdown(&forfeits);
        assert!(
            table.contains("| bot | time | 2 | bot: no answer in 1.0 s |"),
            "{table}"
        );
        assert!(of(&games[..1]).is_empty());
    }
}
