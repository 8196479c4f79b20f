//! Agent specs: strength as configuration.
//!
//! A spec names the agent and its options. It is written either as JSON,
//! `{"agent":"expectiminimax","depth":2,"eval":"heuristic","noise":0.02}`,
//! or as a string, `expectiminimax:depth=2:noise=0.02` (the name, then
//! `:key=value` options; commas stay free to separate agents in lists).
//! Both forms are accepted wherever a bot is named. The presets `easy`,
//! `medium` and `hard` resolve to a spec per rule set.

use crate::agent::{Agent, RandomAgent, SearchAgent};
use crate::assets::Assets;
use crate::evaluator::NoisyEvaluator;
use crate::heuristic::HasHeuristic;
use crate::neural::NeuralEvaluator;
use crate::search::SearchOptions;
pub use crate::spec_error::{AGENTS, PRESETS, SpecError};
pub use crate::spec_object::{OptionValue, SpecObject};
use serde_json::Value;
use std::fmt;

/// Every option and what it means, for error messages and help.
pub const OPTIONS: [(&str, &str); 12] = [
    (
        "weights",
        "learned weights for the hand-made evaluation (heuristic, expectiminimax; from `sawah train`)",
    ),
    (
        "model",
        "model file (neural; from `sawah export`, see docs/training.md)",
    ),
    (
        "table",
        "solved table file (perfect; sawah bot --table gives a default)",
    ),
    (
        "endgame",
        "Senet endgame table file (from `sawah solve --rules senet --pieces K`): exact values where it covers a position (neural, expectiminimax, heuristic)",
    ),
    (
        "depth",
        "plies: rolls looked ahead after the move, 0-4 (expectiminimax; heuristic is depth 0)",
    ),
    ("eval", "leaf evaluation: heuristic"),
    (
        "noise",
        "standard deviation of deterministic noise on evaluations, 0-1",
    ),
    (
        "temperature",
        "softmax temperature over move values (0 = always the best), 0-1",
    ),
    (
        "nodes",
        "node budget for iterative deepening (stops after the depth that passes it)",
    ),
    (
        "focus",
        "the deepest ply searches only this many moves, the best by the ply before, and the choice is among them (1-64; default every move)",
    ),
    (
        "seed",
        "seed for noise and softmax choices (and the random agent)",
    ),
    (
        "pruning",
        "true (Star2 with move ordering and a transposition table) or false (plain expectiminimax)",
    ),
];

/// Which agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentKind {
    /// Uniformly random legal moves.
    Random,
    /// Greedy over the positions after each move, by the hand-made evaluation.
    Heuristic,
    /// Expectiminimax search over the evaluation.
    Expectiminimax,
    /// The best move by a solved table (race family).
    Perfect,
    /// Expectiminimax over a neural network's evaluation (depth 0: greedy).
    Neural,
}

impl AgentKind {
    fn name(self) -> &'static str {
        match self {
            AgentKind::Random => "random",
            AgentKind::Heuristic => "heuristic",
            AgentKind::Expectiminimax => "expectiminimax",
            AgentKind::Perfect => "perfect",
            AgentKind::Neural => "neural",
        }
    }
}

/// A fully resolved agent description.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentSpec {
    /// Which agent.
    pub agent: AgentKind,
    /// Plies: rolls looked ahead after the move (0 for heuristic).
    pub depth: u8,
    /// Standard deviation of the evaluation noise.
    pub noise: f64,
    /// Softmax temperature over move values (0: best move).
    pub temperature: f64,
    /// Node budget for iterative deepening.
    pub nodes: Option<u64>,
    /// The deepest ply searches only this many moves (the best by the ply
    /// before), and the choice is among them.
    pub focus: Option<usize>,
    /// Seed for noise, softmax and random choices.
    pub seed: u64,
    /// Star2 pruning (true) or plain expectiminimax (false).
    pub pruning: bool,
    /// The solved table a perfect agent plays from.
    pub table: Option<String>,
    /// The model file a neural agent evaluates with.
    pub model: Option<String>,
    /// Learned weights for the hand-made evaluation.
    pub weights: Option<String>,
    /// A Senet endgame table giving exact values where it applies.
    pub endgame: Option<String>,
}

fn options_of(agent: AgentKind) -> &'static [&'static str] {
    match agent {
        AgentKind::Random => &["seed"],
        AgentKind::Heuristic => &["eval", "weights", "noise", "temperature", "seed", "endgame"],
        AgentKind::Expectiminimax => &[
            "depth",
            "eval",
            "weights",
            "noise",
            "temperature",
            "nodes",
            "focus",
            "seed",
            "pruning",
            "endgame",
        ],
        AgentKind::Perfect => &["table"],
        AgentKind::Neural => &[
            "model",
            "depth",
            "noise",
            "temperature",
            "nodes",
            "focus",
            "seed",
            "pruning",
            "endgame",
        ],
    }
}

impl AgentSpec {
    /// The defaults of an agent.
    pub fn new(agent: AgentKind) -> AgentSpec {
        AgentSpec {
            agent,
            depth: match agent {
                AgentKind::Expectiminimax => 1,
                _ => 0,
            },
            noise: 0.0,
            temperature: 0.0,
            nodes: None,
            focus: None,
            seed: 0,
            pruning: true,
            table: None,
            model: None,
            weights: None,
            endgame: None,
        }
    }

    /// The spec behind a preset for a rule set (see docs/agents.md; to be
    /// recalibrated when trained models exist).
    pub fn preset(level: &str, rules: &str) -> Option<AgentSpec> {
        let _ = rules; // the same ladder for every rule set until calibration says otherwise
        let spec = match level {
            "easy" => AgentSpec {
                noise: 0.06,
                ..AgentSpec::new(AgentKind::Heuristic)
            },
            "medium" => AgentSpec {
                noise: 0.015,
                ..AgentSpec::new(AgentKind::Expectiminimax)
            },
            "hard" => AgentSpec {
                depth: 2,
                ..AgentSpec::new(AgentKind::Expectiminimax)
            },
            _ => return None,
        };
        Some(spec)
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), SpecError> {
        if !options_of(self.agent).contains(&key) {
            return Err(SpecError::UnknownOption {
                agent: self.agent.name().to_string(),
                option: key.to_string(),
                valid: options_of(self.agent).join(", "),
            });
        }
        let bad = |expected: &str| SpecError::BadValue {
            option: key.to_string(),
            value: value.to_string(),
            expected: expected.to_string(),
        };
        let unit = |v: &str| -> Result<f64, SpecError> {
            v.parse::<f64>()
                .ok()
                .filter(|x| (0.0..=1.0).contains(x))
                .ok_or_else(|| bad("a number from 0 to 1"))
        };
        match key {
            "depth" => {
                self.depth = value
                    .parse()
                    .ok()
                    .filter(|d| (0..=4).contains(d))
                    .ok_or_else(|| bad("a whole number from 0 to 4"))?
            }
            "eval" if value != "heuristic" => {
                return Err(bad("heuristic (the only evaluation so far)"));
            }
            "eval" => {}
            "noise" => self.noise = unit(value)?,
            "temperature" => self.temperature = unit(value)?,
            "nodes" => {
                self.nodes = Some(
                    value
                        .parse()
                        .ok()
                        .filter(|&n| n > 0)
                        .ok_or_else(|| bad("a positive whole number"))?,
                )
            }
            "focus" => {
                self.focus = Some(
                    value
                        .parse()
                        .ok()
                        .filter(|k| (1..=64).contains(k))
                        .ok_or_else(|| bad("a whole number from 1 to 64"))?,
                )
            }
            "seed" => {
                self.seed = value
                    .parse()
                    .map_err(|_| bad("a whole number from 0 to 2^64-1"))?
            }
            "pruning" => self.pruning = value.parse().map_err(|_| bad("true or false"))?,
            "table" => self.table = Some(value.to_string()),
            "model" => self.model = Some(value.to_string()),
            "weights" => self.weights = Some(value.to_string()),
            "endgame" => self.endgame = Some(value.to_string()),
            _ => unreachable!("options_of lists only the options handled here"),
        }
        Ok(())
    }

    /// Parses the string form, a preset name (resolved for `rules`), or
    /// the JSON form written as text (`{"agent":"expectiminimax","depth":2}`,
    /// as a command line may give it).
    ///
    /// # Examples
    ///
    /// Both forms give the same agent, which is built for a game and asked
    /// for a move:
    ///
    /// ```
    /// use sawah_agents::AgentSpec;
    /// use sawah_engine::{Game, race};
    ///
    /// let text = AgentSpec::parse("expectiminimax:depth=2", "ur").unwrap();
    /// let json = AgentSpec::parse(r#"{"agent":"expectiminimax","depth":2}"#, "ur").unwrap();
    /// assert_eq!(text, json);
    /// assert_eq!(text.to_string(), "expectiminimax:depth=2");
    ///
    /// let ur = race::preset("ur").unwrap();
    /// let mut agent = text.build(&ur).unwrap();
    /// let start = ur.start();
    /// let moves = ur.legal_moves(&start, 2);
    /// let chosen = agent.choose(&ur, &start, 2, &moves);
    /// assert!(moves.contains(&chosen));
    ///
    /// // A bad option is named.
    /// let err = AgentSpec::parse("expectiminimax:depth=9", "ur").unwrap_err();
    /// assert!(err.to_string().contains("depth"));
    /// ```
    pub fn parse(text: &str, rules: &str) -> Result<AgentSpec, SpecError> {
        AgentSpec::parse_with(text, rules, &NoLevels)
    }

    /// [`AgentSpec::parse`], with a name that `levels` knows (a level such
    /// as `hard`, or `elo=N`) resolved by it to its spec, whose options the
    /// text's own then change (`hard:seed=3`).
    pub fn parse_with(
        text: &str,
        rules: &str,
        levels: &dyn Levels,
    ) -> Result<AgentSpec, SpecError> {
        if text.trim_start().starts_with('{') {
            let value: Value = serde_json::from_str(text.trim())
                .map_err(|e| SpecError::NotASpec(format!("{text} ({e})")))?;
            return AgentSpec::from_json_with(&value, rules, levels);
        }
        let mut parts = text.trim().split(':');
        let name = parts.next().unwrap_or_default();
        let mut spec = match levels.resolve(name, rules)? {
            Some(spec) => spec,
            None => AgentSpec::named(name, rules)?,
        };
        for option in parts {
            let (key, value) = option
                .split_once('=')
                .ok_or_else(|| SpecError::Malformed(option.to_string()))?;
            spec.set(key.trim(), value.trim())?;
        }
        Ok(spec)
    }

    /// The agent or built-in preset called `name`, with default options.
    fn named(name: &str, rules: &str) -> Result<AgentSpec, SpecError> {
        Ok(match name {
            "random" => AgentSpec::new(AgentKind::Random),
            "heuristic" => AgentSpec::new(AgentKind::Heuristic),
            "expectiminimax" => AgentSpec::new(AgentKind::Expectiminimax),
            "perfect" => AgentSpec::new(AgentKind::Perfect),
            "neural" => AgentSpec::new(AgentKind::Neural),
            dial if dial.starts_with("elo=") => {
                let value = &dial["elo=".len()..];
                return Err(match value.trim().parse::<f64>() {
                Ok(elo) if elo.is_finite() => SpecError::NoDial(rules.to_string()),
                _ => SpecError::BadValue {
                    option: "elo".into(),
                    value: value.into(),
                    expected: "a number, the Elo to play at on the rule set's calibration scale (e.g. elo=700)".into(),
                },
            });
            }
            preset => AgentSpec::preset(preset, rules)
                .ok_or_else(|| SpecError::UnknownAgent(preset.to_string()))?,
        })
    }

    /// Parses either form from JSON: a string, or an object with `"agent"`
    /// (or `"preset"`) and options as fields.
    pub fn from_json(value: &Value, rules: &str) -> Result<AgentSpec, SpecError> {
        AgentSpec::from_json_with(value, rules, &NoLevels)
    }

    /// [`AgentSpec::from_json`], with the agent's name resolved through
    /// `levels` as [`AgentSpec::parse_with`] does.
    pub fn from_json_with(
        value: &Value,
        rules: &str,
        levels: &dyn Levels,
    ) -> Result<AgentSpec, SpecError> {
        match value {
            Value::String(text) => AgentSpec::parse_with(text, rules, levels),
            Value::Object(fields) => {
                Self::from_object_with(&SpecObject::from_map(fields)?, rules, levels)
            }
            other => Err(SpecError::NotASpec(other.to_string())),
        }
    }

    /// The object form of a spec: `"agent"` (or `"preset"`) and options as
    /// fields (`{"agent":"expectiminimax","depth":2}`); or a strength,
    /// `"elo"` and options (`{"elo":700,"seed":2}`), which `levels`
    /// resolves as it does the text `elo=700`, with `"agent"`, if given,
    /// only the dial's own `"neural"`.
    pub fn from_object_with(
        fields: &SpecObject,
        rules: &str,
        levels: &dyn Levels,
    ) -> Result<AgentSpec, SpecError> {
        let (mut spec, named) = match fields.get("elo") {
            Some(elo) => (Self::dialled(fields, elo, rules, levels)?, ["agent", "elo"]),
            None => {
                let name = fields
                    .get("agent")
                    .or_else(|| fields.get("preset"))
                    .and_then(OptionValue::as_str)
                    .ok_or_else(|| SpecError::NotASpec(fields.to_json().to_string()))?;
                (
                    AgentSpec::parse_with(name, rules, levels)?,
                    ["agent", "preset"],
                )
            }
        };
        for (key, value) in fields.iter() {
            if !named.contains(&key) {
                spec.set(key, &value.as_text())?;
            }
        }
        Ok(spec)
    }

    /// The strength dial's spec for the object form's `"elo"`.
    fn dialled(
        fields: &SpecObject,
        elo: &OptionValue,
        rules: &str,
        levels: &dyn Levels,
    ) -> Result<AgentSpec, SpecError> {
        let elo = elo
            .as_f64()
            .filter(|e| e.is_finite())
            .ok_or_else(|| SpecError::EloNotANumber(elo.to_json().to_string()))?;
        match fields.get("agent") {
            None => {}
            Some(OptionValue::Text(agent)) if agent == AgentKind::Neural.name() => {}
            Some(other) => return Err(SpecError::EloNotNeural(other.to_json().to_string())),
        }
        AgentSpec::parse_with(&format!("elo={elo}"), rules, levels)
    }

    /// Builds the agent for a game, reading the files it names from the
    /// file system natively (see [`crate::assets::default_assets`]).
    pub fn build<G: HasHeuristic + 'static>(
        &self,
        game: &G,
    ) -> Result<Box<dyn Agent<G> + Send>, SpecError> {
        self.build_with(game, crate::assets::default_assets())
    }

    /// Builds the agent for a game, taking the files it names (model,
    /// table, weights) from `assets`.
    pub fn build_with<G: HasHeuristic + 'static>(
        &self,
        game: &G,
        assets: &dyn Assets,
    ) -> Result<Box<dyn Agent<G> + Send>, SpecError> {
        Ok(match self.agent {
            AgentKind::Perfect => {
                let table = self
                    .table
                    .as_deref()
                    .ok_or_else(|| SpecError::NeedsTable(game.name().to_string()))?;
                return game.perfect_agent(table, assets);
            }
            AgentKind::Random => Box::new(RandomAgent::new(self.seed)),
            AgentKind::Neural => {
                let name = self
                    .model
                    .as_deref()
                    .ok_or_else(|| SpecError::NeedsModel(game.name().to_string()))?;
                let net = assets.model(name)?;
                net.check_for(game)
                    .map_err(|e| SpecError::Model(std::sync::Arc::new(e)))?;
                self.search_agent(game, NeuralEvaluator::new(net), assets)?
            }
            AgentKind::Heuristic | AgentKind::Expectiminimax => {
                let heuristic = match &self.weights {
                    Some(name) => game.heuristic_from_assets(name, assets)?,
                    None => game.heuristic(),
                };
                self.search_agent(game, heuristic, assets)?
            }
        })
    }

    /// Search over `evaluator` (with the spec's endgame table, if it names
    /// one) with this spec's depth, noise, temperature, node budget, seed
    /// and pruning (every evaluating agent is one).
    fn search_agent<G, E>(
        &self,
        game: &G,
        evaluator: E,
        assets: &dyn Assets,
    ) -> Result<Box<dyn Agent<G> + Send>, SpecError>
    where
        G: HasHeuristic + 'static,
        E: crate::evaluator::Evaluator<G> + Send + 'static,
    {
        Ok(match &self.endgame {
            Some(table) => {
                self.search_over(game.with_endgames(Box::new(evaluator), table, assets)?)
            }
            None => self.search_over(evaluator),
        })
    }

    fn search_over<G, E>(&self, evaluator: E) -> Box<dyn Agent<G> + Send>
    where
        G: HasHeuristic + 'static,
        E: crate::evaluator::Evaluator<G> + Send + 'static,
    {
        let options = SearchOptions {
            pruning: self.pruning,
            ..SearchOptions::default()
        };
        Box::new(
            SearchAgent::new(
                self.to_string(),
                NoisyEvaluator::new(evaluator, self.noise, self.seed),
                self.depth,
                self.nodes,
                self.temperature,
                self.seed,
                options,
            )
            .with_focus(self.focus),
        )
    }
}

/// Where level names resolve: the shipped models' manifest
/// ([`crate::manifest::Models`]) knows `easy`, `medium`, `hard` and
/// `elo=N` for the rule sets it lists. The one resolver of level names,
/// whatever holds the models (a folder, the binary, a browser's memory).
pub trait Levels {
    /// The spec the name `name` stands for on rule set `rules`, or `None`
    /// when it is not a level here (the name is then read as an agent or a
    /// built-in preset); an error when the level's own spec is wrong.
    fn resolve(&self, name: &str, rules: &str) -> Result<Option<AgentSpec>, SpecError>;
}

/// No levels: every name is an agent or a built-in preset.
pub struct NoLevels;

impl Levels for NoLevels {
    fn resolve(&self, _name: &str, _rules: &str) -> Result<Option<AgentSpec>, SpecError> {
        Ok(None)
    }
}

impl<L: Levels> Levels for Option<L> {
    fn resolve(&self, name: &str, rules: &str) -> Result<Option<AgentSpec>, SpecError> {
        match self {
            Some(levels) => levels.resolve(name, rules),
            None => Ok(None),
        }
    }
}

impl fmt::Display for AgentSpec {
    /// The canonical string form: the name and every option that differs from the defaults.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let defaults = AgentSpec::new(self.agent);
        write!(f, "{}", self.agent.name())?;
        if self.depth != defaults.depth {
            write!(f, ":depth={}", self.depth)?;
        }
        if self.noise != defaults.noise {
            write!(f, ":noise={}", self.noise)?;
        }
        if self.temperature != defaults.temperature {
            write!(f, ":temperature={}", self.temperature)?;
        }
        if let Some(nodes) = self.nodes {
            write!(f, ":nodes={nodes}")?;
        }
        if let Some(focus) = self.focus {
            write!(f, ":focus={focus}")?;
        }
        if self.seed != defaults.seed {
            write!(f, ":seed={}", self.seed)?;
        }
        if self.pruning != defaults.pruning {
            write!(f, ":pruning={}", self.pruning)?;
        }
        if let Some(model) = &self.model {
            write!(f, ":model={model}")?;
        }
        if let Some(weights) = &self.weights {
            write!(f, ":weights={weights}")?;
        }
        if let Some(table) = &self.table {
            write!(f, ":table={table}")?;
        }
        if let Some(endgame) = &self.endgame {
            write!(f, ":endgame={endgame}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_and_json_forms_agree() {
        let a = AgentSpec::parse("expectiminimax:depth=2:noise=0.02", "sawah").unwrap();
        let b = AgentSpec::from_json(
            &serde_json::json!({"agent":"expectiminimax","depth":2,"eval":"heuristic","noise":0.02}),
            "sawah",
        )
        .unwrap();
        assert_eq!(a, b);
        assert_eq!(a.depth, 2);
        assert_eq!(a.noise, 0.02);
        assert_eq!(a.to_string(), "expectiminimax:depth=2:noise=0.02");
        assert_eq!(AgentSpec::parse(&a.to_string(), "sawah").unwrap(), a);
    }

    /// A dial that knows one strength: `elo=700` is neural at noise 0.1.
    struct OneDial;

    impl Levels for OneDial {
        fn resolve(&self, name: &str, _rules: &str) -> Result<Option<AgentSpec>, SpecError> {
            Ok((name == "elo=700").then(|| AgentSpec {
                noise: 0.1,
                model: Some("ur.safetensors".into()),
                ..AgentSpec::new(AgentKind::Neural)
            }))
        }
    }

    #[test]
    fn a_strength_as_an_object_is_the_text_strength_with_its_options() {
        let text = AgentSpec::parse_with("elo=700:seed=3", "ur", &OneDial).unwrap();
        for object in [
            serde_json::json!({"elo": 700, "seed": 3}),
            serde_json::json!({"seed": "3", "elo": 700.0, "agent": "neural"}),
        ] {
            assert_eq!(
                AgentSpec::from_json_with(&object, "ur", &OneDial).unwrap(),
                text
            );
            // The object form read from text (a command line) too.
            assert_eq!(
                AgentSpec::parse_with(&object.to_string(), "ur", &OneDial).unwrap(),
                text
            );
        }
        let not_a_number = serde_json::json!({"elo": "high"});
        let e = AgentSpec::from_json_with(&not_a_number, "ur", &OneDial).unwrap_err();
        assert_eq!(e.to_string(), "\"elo\" is \"high\"; it must be a number");
        let other_agent = serde_json::json!({"elo": 700, "agent": "heuristic"});
        let e = AgentSpec::from_json_with(&other_agent, "ur", &OneDial).unwrap_err();
        assert!(e.to_string().contains("\"agent\" is \"heuristic\""), "{e}");
        // Without a dial the strength says so, as the text form does.
        let e = AgentSpec::from_json(&serde_json::json!({"elo": 700}), "ur").unwrap_err();
        assert!(
            matches!(&e, SpecError::NoDial(rules) if rules == "ur"),
            "{e}"
        );
    }

    #[test]
    fn presets_resolve_and_take_options() {
        let hard = AgentSpec::parse("hard", "ur").unwrap();
        assert_eq!(hard.agent, AgentKind::Expectiminimax);
        let custom = AgentSpec::parse("hard:seed=4", "ur").unwrap();
        assert_eq!(custom.seed, 4);
        let json = AgentSpec::from_json(&serde_json::json!({"preset":"easy"}), "ur").unwrap();
        assert_eq!(json, AgentSpec::parse("easy", "ur").unwrap());
    }

    #[test]
    fn bad_specs_say_what_is_valid() {
        let e = AgentSpec::parse("alphazero", "sawah")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("random, heuristic, expectiminimax") && e.contains("easy"),
            "{e}"
        );
        let e = AgentSpec::parse("random:depth=3", "sawah")
            .unwrap_err()
            .to_string();
        assert!(e.contains("options: seed"), "{e}");
        let e = AgentSpec::parse("expectiminimax:depth=9", "sawah")
            .unwrap_err()
            .to_string();
        assert!(e.contains("0 to 4"), "{e}");
        let e = AgentSpec::parse("expectiminimax:depth", "sawah")
            .unwrap_err()
            .to_string();
        assert!(e.contains("key=value"), "{e}");
        let e = AgentSpec::parse("heuristic:noise=-1", "sawah")
            .unwrap_err()
            .to_string();
        assert!(e.contains("0 to 1"), "{e}");
        assert!(AgentSpec::from_json(&serde_json::json!(3), "sawah").is_err());
        assert!(AgentSpec::from_json(&serde_json::json!({"depth":2}), "sawah").is_err());
        assert!(
            AgentSpec::from_json(
                &serde_json::json!({"agent":"heuristic","noise":[1]}),
                "sawah"
            )
            .is_err()
        );
    }
}
