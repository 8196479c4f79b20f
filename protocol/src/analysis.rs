//! The `review` and `hint` commands: a game measured move by move, and a
//! position's moves ranked, against a reference agent.
//!
//! **The reference**, the same for every front door: the request's `"bot"`
//! when it names one; else perfect play when the bot holds a solved table
//! for the rule set (exact); else the `hard` level's evaluation searching
//! one ply deeper than hard plays, over every move, at most
//! [`MAX_REFERENCE_DEPTH`] plies (Senet always, having no table). The
//! response says which in `"reference"`. Strength estimates come from the
//! scale measured by that reference (`sawah_agents::strength`): by the
//! table, or against the default reference; a reference the request names
//! has none unless it is perfect play.

use crate::Bot;
use crate::error::{ErrorKind, ProtocolError};
use crate::limits::MAX_REVIEW_TURNS;
use crate::messages::{
    Answer, BotSpec, HintAnswer, HintRequest, HintedMove, MoveOrPass, Pass, RollChance,
    RollTableAnswer,
};
use crate::wire::{checked_roll, position_of};
use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::hint::{hint, roll_table};
use sawah_agents::review::{Reference, Review, ReviewError, review};
use sawah_agents::search::Stop;
use sawah_agents::spec::AgentKind;
use sawah_agents::strength::{Calibration, Scale};
use sawah_agents::{Agent, AgentSpec};
use sawah_engine::record::Record;
use sawah_engine::{Codec, Describe, with_game};

/// The level that reviews when there is no table, one ply deeper than it
/// plays, up to [`MAX_REFERENCE_DEPTH`].
pub const REFERENCE_LEVEL: &str = "hard";

/// The deepest the default reference searches, even where hard itself
/// searches deeper: a review values every move of every turn, and at 2
/// plies a whole game takes about half a second natively and a few in a
/// browser; at 3 plies a masters game took 6 s natively, and at masters'
/// hard (three plies for the best two moves, every move valued) 11–15 s.
pub const MAX_REFERENCE_DEPTH: u8 = 2;

type Built<G> = (AgentSpec, Box<dyn Agent<G> + Send>, String, bool);

/// The reference that reviews a rule set's games.
#[derive(Clone, Debug, PartialEq)]
pub struct ReviewReference {
    /// What it plays: perfect play from a table, or a searching agent.
    pub spec: AgentSpec,
    /// How reviews name it ("perfect play by the solved table ur.sawah
    /// (exact)").
    pub name: String,
    /// Whether its values are exact (perfect play from a solved table).
    pub exact: bool,
}

impl Bot {
    /// The default reference where there is no solved table: the level
    /// [`REFERENCE_LEVEL`] one ply deeper, at most [`MAX_REFERENCE_DEPTH`],
    /// valuing every move. The server's own choice, so not held to the
    /// depth bound a request is (see [`Bot::check_levels_within_depth`]).
    pub(crate) fn default_reference_spec<G: Codec>(
        &self,
        game: &G,
    ) -> Result<AgentSpec, ProtocolError> {
        let mut spec = self.resolve(game, &BotSpec::from(REFERENCE_LEVEL))?;
        spec.depth = spec.depth.saturating_add(1).min(MAX_REFERENCE_DEPTH);
        // Every move gets the reference's full search: a review measures
        // the moves hard would not have looked at too.
        spec.focus = None;
        Ok(spec)
    }

    /// The reference a review or hint of rule set `rules` would use with
    /// `bot` as the request's `"bot"` (see the module docs): its spec, how
    /// it is named, and whether it is exact. What the luck meter of
    /// `--luck-adjusted` records of its reference.
    pub fn review_reference(
        &self,
        rules: &str,
        bot: Option<&BotSpec>,
    ) -> Result<ReviewReference, ProtocolError> {
        let game = self.rules(rules)?;
        with_game!(&game, g => self.reference_spec(g, bot))
    }

    /// The reference for a review or hint of `game`: its spec, how it is
    /// named, and whether it is exact.
    fn reference_spec<G: Codec>(
        &self,
        game: &G,
        bot: Option<&BotSpec>,
    ) -> Result<ReviewReference, ProtocolError> {
        let (spec, name) = match bot {
            Some(bot) => {
                let spec = self.spec_of(game, bot)?;
                let typed = bot.to_string();
                // A level is shown with what it resolved to.
                let level = typed.split(':').next().unwrap_or_default();
                let name = if sawah_agents::manifest::LEVELS.contains(&level) {
                    format!("{typed} ({spec})")
                } else {
                    typed
                };
                (spec, name)
            }
            None if self.default_table(game.name()).is_some() => (
                self.spec_of(game, &BotSpec::from("perfect"))?,
                String::new(),
            ),
            None => {
                let spec = self.default_reference_spec(game)?;
                let name = format!(
                    "{REFERENCE_LEVEL} searching {} plies ({}); no solved table",
                    spec.depth, spec
                );
                (spec, name)
            }
        };
        let exact = spec.agent == AgentKind::Perfect;
        let name = if exact {
            let table = spec.table.as_deref().unwrap_or("?");
            let file = table.rsplit(['/', '\\']).next().unwrap_or(table);
            format!("perfect play by the solved table {file} (exact)")
        } else {
            name
        };
        Ok(ReviewReference { spec, name, exact })
    }

    /// The reference for a review or hint of `game`, built and given `stop`.
    fn reference<G: Codec + HasHeuristic + 'static>(
        &self,
        game: &G,
        bot: Option<&BotSpec>,
        stop: Option<&Stop>,
    ) -> Result<Built<G>, ProtocolError> {
        let ReviewReference { spec, name, exact } = self.reference_spec(game, bot)?;
        let (spec, agent) = self.build(game, spec, stop)?;
        Ok((spec, agent, name, exact))
    }

    /// Reviews the game `record` (docs/protocol.md, "Game records": read
    /// from JSON by [`Record::from_json`], or a caller's own game) against
    /// the reference `bot` names (or the default one), with each player's
    /// strength when the reference is exact and the models calibrate the
    /// rule set.
    pub fn review_record(
        &self,
        record: &Record,
        bot: Option<&BotSpec>,
        stop: Option<&Stop>,
    ) -> Result<Review, ProtocolError> {
        if record.moves.len() > MAX_REVIEW_TURNS {
            return Err(ProtocolError::new(
                ErrorKind::TooLarge,
                format!(
                    "\"game\" has {} turns; a review takes at most {MAX_REVIEW_TURNS}",
                    record.moves.len()
                ),
            ));
        }
        let game = self.rules(&record.rules)?;
        let mut reviewed = with_game!(&game, g => self.review_in(g, record, bot, stop))?;
        if let Some(calibration) = self.calibration(&reviewed, bot.is_none()) {
            reviewed.estimate_strength(&calibration);
        }
        Ok(reviewed)
    }

    /// The strength scale for a review: losses by the table for an exact
    /// one, losses against the default reference when it was used; none
    /// for another reference.
    pub fn calibration(&self, review: &Review, default_reference: bool) -> Option<Calibration> {
        let scale = if review.exact {
            Scale::Table
        } else if default_reference {
            Scale::Reference
        } else {
            return None;
        };
        Calibration::from_manifest(self.models.as_ref()?.manifest(), &review.rules, scale)
    }

    fn review_in<G: Codec + HasHeuristic + 'static>(
        &self,
        game: &G,
        record: &Record,
        bot: Option<&BotSpec>,
        stop: Option<&Stop>,
    ) -> Result<Review, ProtocolError> {
        let start = record
            .start_position(game)
            .map_err(|e| ProtocolError::new(ErrorKind::InvalidField, format!("\"game\": {e}")))?;
        let turns = Some(record.moves.len());
        let (reviewed, _, _) = self.with_reference(game, bot, stop, turns, |reference| {
            review(game, start, &record.moves, reference)
        })?;
        Ok(reviewed)
    }

    /// `{"cmd":"hint","position":P,"roll":R[,"bot":B]}`; without a roll,
    /// the roll table.
    pub(crate) fn hint_request(
        &self,
        request: &HintRequest,
        stop: Option<&Stop>,
    ) -> Result<Answer, ProtocolError> {
        let game = self.rules(&request.position.rules)?;
        let bot = request.bot.as_ref();
        with_game!(&game, g => {
            let position = position_of(g, &request.position)?;
            Ok(match request.roll {
                // Without a roll: the roll table, before the dice are thrown.
                None => Answer::RollTable(self.roll_table_in(g, &position, bot, stop)?),
                Some(roll) => {
                    let roll = checked_roll(g, roll)?;
                    Answer::Hint(self.hint_in(g, &position, roll, bot, stop)?)
                }
            })
        })
    }

    /// Builds the reference for `game` (see [`Bot::reference`]) and asks it
    /// `ask`: the answer, how the reference is named, and whether it is
    /// exact. A refusal names the game's `turns` when it is a review's.
    fn with_reference<G: Codec + HasHeuristic + 'static, T>(
        &self,
        game: &G,
        bot: Option<&BotSpec>,
        stop: Option<&Stop>,
        turns: Option<usize>,
        ask: impl FnOnce(&mut Reference<'_, G>) -> Result<T, ReviewError>,
    ) -> Result<(T, String, bool), ProtocolError> {
        let (_, mut agent, name, exact) = self.reference(game, bot, stop)?;
        let mut reference = Reference {
            agent: agent.as_mut(),
            name,
            exact,
            stop: stop.cloned(),
        };
        let answer = ask(&mut reference).map_err(|e| review_error(e, turns))?;
        Ok((answer, reference.name, exact))
    }

    /// The `hint` answer without a roll: every roll's probability and the
    /// mover's win probability after it with the best move (`"move"`, or
    /// `"pass"`), and the position's value before the roll.
    fn roll_table_in<G: Codec + HasHeuristic + Describe + 'static>(
        &self,
        game: &G,
        position: &G::Position,
        bot: Option<&BotSpec>,
        stop: Option<&Stop>,
    ) -> Result<RollTableAnswer, ProtocolError> {
        let (table, reference, exact) =
            self.with_reference(game, bot, stop, None, |reference| {
                roll_table(game, position, reference)
            })?;
        let value: f64 = table.iter().map(|r| r.probability * r.value).sum();
        let rolls = table
            .into_iter()
            .map(|r| RollChance {
                roll: r.roll,
                probability: r.probability,
                value: r.value,
                mv: r.best.map_or(MoveOrPass::Pass(Pass::Pass), |m| {
                    MoveOrPass::Move(game.move_json(m))
                }),
            })
            .collect();
        Ok(RollTableAnswer {
            rolls,
            value,
            reference,
            exact,
        })
    }

    fn hint_in<G: Codec + HasHeuristic + Describe + 'static>(
        &self,
        game: &G,
        position: &G::Position,
        roll: u8,
        bot: Option<&BotSpec>,
        stop: Option<&Stop>,
    ) -> Result<HintAnswer, ProtocolError> {
        let (ranked, reference, exact) =
            self.with_reference(game, bot, stop, None, |reference| {
                hint(game, position, roll, reference)
            })?;
        let moves = ranked
            .into_iter()
            .map(|m| HintedMove {
                mv: game.move_json(m.mv),
                value: m.value,
                loss_pp: m.loss_pp,
                tags: m.tags.tags,
                words: m.tags.words.iter().map(|w| w.to_string()).collect(),
                // + 0.0: a chance of -0.0 (nothing left to hit) is shown as 0.
                hit_chance: m.tags.hit_chance.map(|c| c + 0.0),
            })
            .collect();
        Ok(HintAnswer {
            moves,
            reference,
            exact,
        })
    }
}

/// The protocol error of a review (of a game of `turns` turns) or a hint.
fn review_error(e: ReviewError, turns: Option<usize>) -> ProtocolError {
    match e {
        ReviewError::Replay(e) => {
            ProtocolError::new(ErrorKind::InvalidField, format!("\"game\": {e}"))
        }
        ReviewError::NoValues(_) => ProtocolError::new(ErrorKind::InvalidBot, e.to_string()),
        ReviewError::Stopped(limit) => ProtocolError::new(
            ErrorKind::TooExpensive,
            format!(
                "refused{}: it needs more than {limit}, and values cut short would differ \
                 from the full answer; name a shallower reference in \"bot\"",
                turns.map_or(String::new(), |turns| format!(" (a game of {turns} turns)"))
            ),
        ),
    }
}
