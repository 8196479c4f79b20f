//! The crosstable: every pair of agents, head to head, as chess tournament
//! tools print it. For each pairing, from one agent's side: games, wins,
//! losses, games stopped at the roll limit, forfeits either way, the score
//! with its 95% interval, and, in a luck-adjusted run, the adjusted score.
//!
//! The raw score's interval is Wilson's over the games (so a clean sweep,
//! 0 of 20, still has a width); the adjusted one is over pairs, the two
//! games of a pair together, as `sawah match` computes it.

use crate::arena::results::GameRecord;
use crate::stats::{Interval, mean_interval, wilson};
use sawah_engine::Player;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A score with its interval, as written.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Score {
    /// The mean.
    pub score: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

impl From<Interval> for Score {
    fn from(i: Interval) -> Score {
        Score {
            score: i.mean,
            low: i.low,
            high: i.high,
        }
    }
}

/// One pairing, from `agent`'s side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pairing {
    /// The agent whose results these are.
    pub agent: String,
    /// Its opponent.
    pub opponent: String,
    /// Games between them.
    pub games: u64,
    /// Games the agent won (forfeits by the opponent included).
    pub wins: u64,
    /// Games it lost (its own forfeits included).
    pub losses: u64,
    /// Games stopped at the roll limit (half a point each).
    pub stopped: u64,
    /// Games it lost by forfeit (it failed: a crash, a timeout, an
    /// illegal or malformed answer).
    pub forfeits: u64,
    /// Games it won because the opponent forfeited.
    pub opponent_forfeits: u64,
    /// Its score, with a 95% interval.
    pub score: Score,
    /// Its luck-adjusted score, in a luck-adjusted run.
    pub adjusted: Option<Score>,
}

/// Every pairing that played, each once, in the order `agents` gives
/// (the first agent's pairings first, from its side).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Crosstable {
    /// The pairings.
    pub pairings: Vec<Pairing>,
}

/// What one game gave one side.
#[derive(Default)]
struct Tally {
    games: u64,
    wins: u64,
    losses: u64,
    stopped: u64,
    forfeits: u64,
    opponent_forfeits: u64,
    points: f64,
    /// Adjusted points by pair (summed over the pair's games, with the
    /// count of games), when every game carries its luck.
    adjusted: BTreeMap<(u64, u64), (f64, u32)>,
    unmeasured: bool,
}

impl Tally {
    fn add(&mut self, g: &GameRecord, seat: Player) {
        self.games += 1;
        let score = if seat == Player::Light {
            g.light_score()
        } else {
            1.0 - g.light_score()
        };
        self.points += score;
        match g.winner {
            Some(w) if w == seat => self.wins += 1,
            Some(_) => self.losses += 1,
            None => self.stopped += 1,
        }
        if let Some(f) = &g.failure {
            if f.seat == seat {
                self.forfeits += 1;
            } else {
                self.opponent_forfeits += 1;
            }
        }
        match g.adjusted_light_score() {
            Some(light) => {
                let mine = if seat == Player::Light {
                    light
                } else {
                    1.0 - light
                };
                let entry = self.adjusted.entry((g.pair, g.seed)).or_default();
                entry.0 += mine;
                entry.1 += 1;
            }
            None => self.unmeasured = true,
        }
    }

    fn pairing(&self, agent: &str, opponent: &str) -> Pairing {
        let p = self.points / self.games.max(1) as f64;
        let adjusted = (!self.unmeasured && !self.adjusted.is_empty()).then(|| {
            let pairs: Vec<f64> = self
                .adjusted
                .values()
                .map(|(sum, n)| sum / f64::from(*n))
                .collect();
            Score::from(mean_interval(&pairs))
        });
        Pairing {
            agent: agent.to_string(),
            opponent: opponent.to_string(),
            games: self.games,
            wins: self.wins,
            losses: self.losses,
            stopped: self.stopped,
            forfeits: self.forfeits,
            opponent_forfeits: self.opponent_forfeits,
            score: Score::from(wilson(p, self.games as f64)),
            adjusted,
        }
    }
}

impl Crosstable {
    /// The crosstable of `games`, its pairings ordered by `agents` (each
    /// pairing from the side of the agent that comes first there).
    pub fn of(games: &[GameRecord], agents: &[String]) -> Crosstable {
        let rank = |name: &str| agents.iter().position(|a| a == name).unwrap_or(usize::MAX);
        let mut tallies: BTreeMap<(usize, usize), Tally> = BTreeMap::new();
        for g in games {
            let (l, d) = (rank(&g.light), rank(&g.dark));
            if l == d {
                continue;
            }
            let (first, seat) = if l < d {
                ((l, d), Player::Light)
            } else {
                ((d, l), Player::Dark)
            };
            tallies.entry(first).or_default().add(g, seat);
        }
        let name = |i: usize| agents.get(i).cloned().unwrap_or_default();
        Crosstable {
            pairings: tallies
                .iter()
                .map(|(&(a, b), t)| t.pairing(&name(a), &name(b)))
                .collect(),
        }
    }

    /// The crosstable in Markdown: one line per pairing.
    pub fn markdown(&self) -> String {
        let adjusted = self.pairings.iter().any(|p| p.adjusted.is_some());
        let mut out = format!(
            "| agent | opponent | games | won | lost | forfeits (own / opponent's) | score (95% interval) |{}\n|:---|:---|---:|---:|---:|---:|---:|{}\n",
            if adjusted {
                " adj. score (95% interval) |"
            } else {
                ""
            },
            if adjusted { "---:|" } else { "" }
        );
        for p in &self.pairings {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} / {} | {} |{}",
                cell_text(&p.agent),
                cell_text(&p.opponent),
                p.games,
                p.wins,
                p.losses,
                p.forfeits,
                p.opponent_forfeits,
                score_text(&p.score),
                p.adjusted
                    .as_ref()
                    .map(|a| format!(" {} |", score_text(a)))
                    .unwrap_or_default()
            );
        }
        out
    }

    /// The crosstable as CSV rows (`agent,opponent,games,wins,losses,stopped,forfeits,opponent_forfeits,score,score_low,score_high,adjusted_score,adjusted_low,adjusted_high`).
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "agent,opponent,games,wins,losses,stopped,forfeits,opponent_forfeits,score,score_low,score_high,adjusted_score,adjusted_low,adjusted_high\n",
        );
        for p in &self.pairings {
            let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
            let adjusted = p
                .adjusted
                .map(|a| format!("{:.6},{:.6},{:.6}", a.score, a.low, a.high))
                .unwrap_or_else(|| ",,".into());
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{},{},{:.6},{:.6},{:.6},{adjusted}",
                quote(&p.agent),
                quote(&p.opponent),
                p.games,
                p.wins,
                p.losses,
                p.stopped,
                p.forfeits,
                p.opponent_forfeits,
                p.score.score,
                p.score.low,
                p.score.high
            );
        }
        out
    }
}

/// `13/20 = 65% (43% to 82%)` style, as a percentage.
fn score_text(s: &Score) -> String {
    format!(
        "{:.1}% ({:.1}% to {:.1}%)",
        100.0 * s.score,
        100.0 * s.low,
        100.0 * s.high
    )
}

/// An agent's name in a Markdown cell (a `|` would end the cell).
fn cell_text(name: &str) -> String {
    format!("`{}`", name.replace('|', "\\|"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::gamelog::AgentFailure;
    use crate::arena::results::GameEnding;

    fn game(light: &str, dark: &str, winner: Option<Player>, pair: u64) -> GameRecord {
        GameRecord {
            rules: "ur".into(),
            light: light.into(),
            dark: dark.into(),
            pair,
            seed: pair,
            ending: GameEnding::of(winner, None),
            winner,
            length: 10,
            moves: vec![],
            failure: None,
            luck: None,
        }
    }

    #[test]
    fn each_pairing_is_counted_once_from_the_first_agent_s_side() {
        let names: Vec<String> = ["bot", "easy", "random"].map(String::from).to_vec();
        let mut games = Vec::new();
        for pair in 0..10 {
            games.push(game("bot", "easy", Some(Player::Dark), pair));
            games.push(game("easy", "bot", Some(Player::Light), pair));
            games.push(game("random", "bot", Some(Player::Dark), 100 + pair));
            games.push(game("bot", "random", Some(Player::Light), 100 + pair));
        }
        let mut forfeited = game("bot", "random", Some(Player::Dark), 200);
        forfeited.failure = Some(AgentFailure {
            seat: Player::Light,
            kind: Some(sawah_agents::FailureKind::Time),
            message: "no answer in 1.0 s".into(),
        });
        games.push(forfeited);
        let table = Crosstable::of(&games, &names);
        assert_eq!(table.pairings.len(), 2);
        let easy = &table.pairings[0];
        assert_eq!(
            (easy.agent.as_str(), easy.opponent.as_str()),
            ("bot", "easy")
        );
        assert_eq!((easy.games, easy.wins, easy.losses), (20, 0, 20));
        // A clean sweep still has an interval of some width.
        assert_eq!(easy.score.score, 0.0);
        assert!(easy.score.high > 0.1, "{:?}", easy.score);
        let random = &table.pairings[1];
        assert_eq!((random.wins, random.losses, random.forfeits), (20, 1, 1));
        assert!(random.adjusted.is_none());
        let text = table.markdown();
        assert!(
            text.contains("| `bot` | `easy` | 20 | 0 | 20 | 0 / 0 | 0.0% (0.0% to 16.1%) |"),
            "{text}"
        );
        assert!(table.csv().lines().count() == 3);
    }
}
