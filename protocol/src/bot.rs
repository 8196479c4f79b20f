//! [`Bot`]: answers requests against the rule sets, models and tables it
//! was given.

use crate::error::{ErrorKind, ProtocolError};
use crate::messages::{BotSpec, ListedMove};
use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::manifest::{ManifestError, Models};
use sawah_agents::search::Stop;
use sawah_agents::{Agent, AgentSpec, Assets, MemoryAssets};
use sawah_engine::registry::Registry;
use sawah_engine::{AnyGame, Codec};

/// Serves protocol requests.
///
/// A bot knows a registry of rule sets, may hold the shipped models (so
/// `"bot":"hard"` resolves through their manifest), default solved tables
/// (for `perfect` and for requests that name no bot, each serving the rule
/// set in its header), and any other model, table or weights file handed to
/// it by name. A bot is immutable while it serves: one can answer requests
/// from many threads at once.
#[derive(Debug)]
pub struct Bot {
    registry: Registry,
    assets: MemoryAssets,
    tables: Vec<String>,
    pub(crate) models: Option<Models>,
    pub(crate) max_depth: u8,
}

impl Default for Bot {
    fn default() -> Bot {
        Bot {
            registry: Registry::default(),
            assets: MemoryAssets::default(),
            tables: Vec::new(),
            models: None,
            max_depth: u8::MAX,
        }
    }
}

impl Bot {
    /// A bot that knows the rule sets of `registry` and nothing else: no
    /// models (levels are the built-in presets) and no tables.
    pub fn new(registry: Registry) -> Bot {
        Bot {
            registry,
            ..Bot::default()
        }
    }

    /// The solved table a `perfect` agent plays from when its spec names
    /// none, and that plays when a `choose` or `evaluate` request names no
    /// bot: a name in the bot's assets (natively, a path). It serves the
    /// rule set its header names (a name the bot does not hold serves every
    /// rule set, and is checked when used).
    pub fn with_table(mut self, table: Option<String>) -> Bot {
        self.set_table(table);
        self
    }

    /// [`Bot::with_table`] in place, replacing every default table.
    pub fn set_table(&mut self, table: Option<String>) {
        self.tables = table.into_iter().collect();
    }

    /// Adds a default table ([`Bot::with_table`]) beside those already set,
    /// for another rule set.
    pub fn add_default_table(&mut self, table: String) {
        self.tables.push(table);
    }

    /// The deepest search (plies, the spec's `depth`) a request may ask
    /// for; deeper specs are refused with `invalid_bot` (a server's cost
    /// bound; no bound by default).
    pub fn with_max_depth(mut self, max_depth: u8) -> Bot {
        self.max_depth = max_depth;
        self
    }

    /// The shipped levels: `"bot":"easy"|"medium"|"hard"` resolve through
    /// the manifest (rule sets it does not list use the built-in presets),
    /// its models are held in memory under the names it gives them, and
    /// the rule sets of its rule files become known. Refused when a rule
    /// file redefines a rule set the bot knows with other rules.
    pub fn with_models(mut self, models: Option<Models>) -> Result<Bot, ManifestError> {
        self.set_models(models)?;
        Ok(self)
    }

    /// [`Bot::with_models`] in place (replacing any models set before; the
    /// model files stay held under their names, and rule sets once known
    /// stay known).
    pub fn set_models(&mut self, models: Option<Models>) -> Result<(), ManifestError> {
        if let Some(models) = &models {
            models.register(&mut self.registry)?;
            models.add_to(&mut self.assets);
        }
        self.models = models;
        Ok(())
    }

    /// Where names the bot does not hold are looked up (natively, the file
    /// system; nowhere by default).
    pub fn with_fallback(mut self, fallback: impl Assets + 'static) -> Bot {
        self.assets = std::mem::take(&mut self.assets).with_fallback(fallback);
        self
    }

    /// The models, tables and weights the bot holds, to hand it more.
    pub fn assets_mut(&mut self) -> &mut MemoryAssets {
        &mut self.assets
    }

    /// The shipped models the bot serves levels from, if any.
    pub fn models(&self) -> Option<&Models> {
        self.models.as_ref()
    }

    /// The rule sets this bot knows.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }
    pub(crate) fn rules(&self, name: &str) -> Result<AnyGame, ProtocolError> {
        self.registry
            .get(name)
            .map_err(|e| ProtocolError::new(ErrorKind::UnknownRules, e.to_string()))
    }

    /// The default table for rule set `rules`: the first whose header
    /// names it (or that the bot does not hold, to be checked when used).
    pub(crate) fn default_table(&self, rules: &str) -> Option<&String> {
        self.tables.iter().find(|name| {
            self.assets
                .table_rules(name)
                .is_none_or(|found| found == rules)
        })
    }

    /// The agent a request names in `"bot"` (a spec, string or object, or
    /// a level), built for the game and given `stop`; `perfect` without a
    /// table uses the bot's default table for the rule set. A bot with one
    /// plays and evaluates perfectly from it when a request names no bot;
    /// without one, `"bot"` is required.
    pub(crate) fn agent_of<G: Codec + HasHeuristic + 'static>(
        &self,
        game: &G,
        bot: Option<&BotSpec>,
        stop: Option<&Stop>,
    ) -> Result<(AgentSpec, Box<dyn Agent<G> + Send>), ProtocolError> {
        let perfect = BotSpec::from("perfect");
        let default_table = self.default_table(game.name());
        let bot = match bot {
            None if default_table.is_some() => &perfect,
            None => {
                let hint = if self.tables.is_empty() {
                    "a bot started with a solved table plays perfectly from it without one"
                        .to_string()
                } else {
                    format!(
                        "this bot's solved tables, which play without one, are not for {}",
                        game.name()
                    )
                };
                return Err(ProtocolError::new(
                    ErrorKind::MissingField,
                    format!("the request has no \"bot\" field ({hint})"),
                ));
            }
            Some(bot) => bot,
        };
        let spec = self.spec_of(game, bot)?;
        self.build(game, spec, stop)
    }

    /// The spec `bot` names (a spec, string or object, or a level resolved
    /// through the shipped models), `perfect` without a table given the
    /// bot's default table for the rule set.
    pub(crate) fn resolve<G: Codec>(
        &self,
        game: &G,
        bot: &BotSpec,
    ) -> Result<AgentSpec, ProtocolError> {
        // A level ("hard", "easy:seed=2", "elo=700", {"agent":"hard"},
        // {"elo":700}) resolves through the shipped models, which the bot
        // holds by name.
        let mut spec = bot
            .agent_spec(game.name(), &self.models)
            .map_err(invalid_bot)?;
        // Only perfect play reads a table.
        if spec.table.is_none() && spec.agent == sawah_agents::spec::AgentKind::Perfect {
            spec.table = self.default_table(game.name()).cloned();
        }
        Ok(spec)
    }

    /// The spec `bot` names ([`Bot::resolve`]), refused when it searches
    /// deeper than the bot's depth bound.
    pub(crate) fn spec_of<G: Codec>(
        &self,
        game: &G,
        bot: &BotSpec,
    ) -> Result<AgentSpec, ProtocolError> {
        let spec = self.resolve(game, bot)?;
        if spec.depth > self.max_depth {
            return Err(ProtocolError::new(
                ErrorKind::InvalidBot,
                format!(
                    "{spec} searches {} plies deep; this server allows at most {}",
                    spec.depth, self.max_depth
                ),
            ));
        }
        Ok(spec)
    }

    pub(crate) fn within_depth(&self, spec: &AgentSpec, what: &str) -> Result<(), String> {
        if spec.depth > self.max_depth {
            return Err(format!(
                "{what} ({spec}) searches {} plies, deeper than --max-depth {}; raise --max-depth to {} (levels and the review reference always run)",
                spec.depth, self.max_depth, spec.depth
            ));
        }
        Ok(())
    }

    /// The agent `spec` describes, built for the game and given `stop`.
    pub(crate) fn build<G: Codec + HasHeuristic + 'static>(
        &self,
        game: &G,
        spec: AgentSpec,
        stop: Option<&Stop>,
    ) -> Result<(AgentSpec, Box<dyn Agent<G> + Send>), ProtocolError> {
        let mut agent = spec.build_with(game, &self.assets).map_err(invalid_bot)?;
        agent.set_stop(stop.cloned());
        Ok((spec, agent))
    }
}

/// `moves` from `position` as `legal_moves` answers them (and as a
/// harness lists them in its `choose` requests to outside bots): each
/// move's `from` and `to`, whether it earns another roll, and the position
/// after it with `turn` set to whoever moves next.
pub fn listed_moves<G: Codec>(
    game: &G,
    position: &G::Position,
    moves: &[G::Move],
) -> Vec<ListedMove> {
    moves
        .iter()
        .map(|&mv| {
            let step = game.apply(position, mv);
            ListedMove {
                mv: game.move_json(mv),
                extra_roll: step.extra_roll,
                position: game.position_to_json(&step.position),
            }
        })
        .collect()
}

/// An `invalid_bot` error for a spec that cannot be used.
pub(crate) fn invalid_bot(e: sawah_agents::SpecError) -> ProtocolError {
    ProtocolError::new(ErrorKind::InvalidBot, e.to_string())
}
