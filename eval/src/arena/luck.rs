//! Luck-adjusted results: a game's result with the luck of the dice taken
//! out, as GNU Backgammon does.
//!
//! The luck of a roll is, for the side that rolled, the reference's value
//! of the best move after that roll minus the reference's expected value
//! over every roll it could have thrown (the review's `luck_pp`). A seat's
//! luck-adjusted score is its result, minus its own luck, plus its
//! opponent's.
//!
//! * **Unbiased with any reference.** Each roll's luck averages to zero
//!   under the dice, whatever the reference's values, so the adjusted score
//!   has the raw score's expectation.
//! * **Exact with a solved table.** With perfect values, a game's result is
//!   the start value plus every roll's luck (the mover's, signed by seat)
//!   minus every move's loss; taking the luck out leaves the start value
//!   minus light's losses plus dark's, which no roll of the dice changes.
//!   Without a table the reference's errors leave some luck in, and the
//!   spread shrinks less.

use sawah_agents::identity::AgentFile;
use sawah_engine::record::Record;
use sawah_protocol::Bot;
use sawah_protocol::messages::{Answer, BotSpec, HintRequest, Request, RulesRequest};
use serde::{Deserialize, Serialize};

/// The reference that measured a run's luck, as the results header keeps
/// it: two runs' adjustments are comparable only when their references are
/// the same agent reading the same files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LuckReference {
    /// How it is named ("perfect play by the solved table ur.sawah (exact)").
    pub name: String,
    /// Its spec, with files named by their file names alone.
    pub spec: String,
    /// The files it reads (table, model) with their checksums.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<AgentFile>,
}

impl LuckReference {
    /// Whether luck measured by `self` and by `other` may be compared: the
    /// same spec, reading files with the same contents.
    pub fn same_as(&self, other: &LuckReference) -> bool {
        self.spec == other.spec && self.files == other.files
    }
}

/// Each side's luck in one game, in win probability (the sum of its rolls'
/// luck, 1 = a whole game).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameLuck {
    /// Light's luck.
    pub light: f64,
    /// Dark's luck.
    pub dark: f64,
}

impl GameLuck {
    /// The luck-adjusted score of the light seat (`light_seat` true) or
    /// the dark seat, whose result was `result` (1 a win, 0 a loss).
    pub fn adjusted(&self, result: f64, light_seat: bool) -> f64 {
        if light_seat {
            result - self.light + self.dark
        } else {
            result - self.dark + self.light
        }
    }
}

/// Measures the luck of played games.
pub trait LuckMeter: Sync {
    /// The luck of each side in the game of `tokens` (one token per roll,
    /// from the rule set's start).
    fn luck(&self, tokens: &[String]) -> Result<GameLuck, String>;

    /// The reference that measures it.
    fn reference(&self) -> &LuckReference;
}

/// Luck measured by the review of the bot protocol: the reference a
/// `review` request uses (a solved table the bot holds for the rule set,
/// else `hard` one ply deeper, or the reference named), so a match's luck
/// is what `sawah review` would show for each of its games.
pub struct ReviewLuck {
    bot: Bot,
    rules: String,
    reference: Option<BotSpec>,
    identity: LuckReference,
}

impl ReviewLuck {
    /// A meter for rule set `rules` reviewing with `bot` against
    /// `reference` (`None`: the default reference). The reference is
    /// checked now, on the start position's roll table (every roll), so a
    /// bad one (an unknown spec, or an agent without values such as
    /// `random`) fails before any game.
    pub fn new(bot: Bot, rules: &str, reference: Option<BotSpec>) -> Result<ReviewLuck, String> {
        let found = bot
            .review_reference(rules, reference.as_ref())
            .map_err(|e| e.message)?;
        let files = found.spec.files().map_err(|e| e.to_string())?;
        let identity = LuckReference {
            name: found.name,
            spec: found.spec.portable().to_string(),
            files,
        };
        let start = match bot.answer(
            Request::Start(RulesRequest {
                rules: rules.into(),
            }),
            None,
        ) {
            Ok(Answer::Start(start)) => start.position,
            Ok(_) => {
                return Err(format!(
                    "{rules}: the bot answered start with another answer"
                ));
            }
            Err(e) => return Err(e.message),
        };
        let table = Request::Hint(HintRequest {
            position: start,
            roll: None,
            bot: reference.clone(),
        });
        bot.answer(table, None).map_err(|e| e.message)?;
        Ok(ReviewLuck {
            bot,
            rules: rules.to_string(),
            reference,
            identity,
        })
    }
}

impl LuckMeter for ReviewLuck {
    fn luck(&self, tokens: &[String]) -> Result<GameLuck, String> {
        let record = Record {
            rules: self.rules.clone(),
            start: None,
            moves: tokens.to_vec(),
        };
        let review = self
            .bot
            .review_record(&record, self.reference.as_ref(), None)
            .map_err(|e| e.message)?;
        Ok(GameLuck {
            light: review.light.luck_pp / 100.0,
            dark: review.dark.luck_pp / 100.0,
        })
    }

    fn reference(&self) -> &LuckReference {
        &self.identity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seat_s_adjusted_score_takes_out_its_luck_and_gives_back_its_opponent_s() {
        let luck = GameLuck {
            light: 0.30,
            dark: -0.05,
        };
        assert!((luck.adjusted(1.0, true) - 0.65).abs() < 1e-12);
        assert!((luck.adjusted(0.0, false) - 0.35).abs() < 1e-12);
        // The two seats' adjusted scores still sum to one.
        assert!((luck.adjusted(1.0, true) + luck.adjusted(0.0, false) - 1.0).abs() < 1e-12);
    }
}
