//! The protocol's requests and answers as types: what travels on every
//! front door, one serde type per command each way.
//!
//! A [`Bot`](crate::Bot) reads a request object into a [`Request`] once
//! (`crate::request`), with the protocol's own error for each fault, and
//! every answer is one of the `…Answer` types here, serialised. The JSON
//! Schema of these types ([`schema_document`]) is where the OpenAPI
//! document of `sawah serve` and the npm package's TypeScript types come
//! from, so neither can drift from what the bot really reads and writes.

use sawah_agents::puzzle::{NaturalMove, RatingBound};
use sawah_agents::review::Review;
use sawah_agents::spec::SpecObject;
use sawah_engine::Player;
use sawah_engine::export::RulesExport;
use sawah_engine::json::{MoveJson, PositionJson};
use sawah_engine::record::Record;
use sawah_engine::tags::Tag;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A position as a request may give it: the JSON form, or the one-line
/// notation of `docs/protocol.md` (`"ur light 7/-/0 7/-/0"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum PositionInput {
    /// The JSON form.
    Json(PositionJson),
    /// The notation.
    Notation(String),
}

/// A request's position read as [`PositionInput`] says: the notation is
/// turned into the JSON form (its rule set is checked when it is used).
fn position_input<'de, D: serde::Deserializer<'de>>(d: D) -> Result<PositionJson, D::Error> {
    match PositionInput::deserialize(d)? {
        PositionInput::Json(json) => Ok(json),
        PositionInput::Notation(text) => {
            sawah_engine::notation::parse(&text).map_err(serde::de::Error::custom)
        }
    }
}

/// Who plays or measures: an agent spec as text (`"expectiminimax:depth=2"`),
/// a level (`"hard"`, `"elo=700"`), or the spec as an object
/// (`{"agent":"expectiminimax","depth":2}`, `{"elo":700}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum BotSpec {
    /// A spec or level as text.
    Text(String),
    /// A spec as an object: the agent (or a strength) and its options,
    /// each a string, number or boolean.
    // Which names there are depends on the agent named;
    // `AgentSpec::from_object_with` checks them.
    #[schemars(with = "Map<String, Value>")]
    Object(SpecObject),
}

impl BotSpec {
    /// The spec `bot` is as JSON: a string or an object, anything else
    /// refused with the agents' own error.
    pub fn from_value(bot: &Value) -> Result<BotSpec, sawah_agents::SpecError> {
        match bot {
            Value::String(text) => Ok(BotSpec::Text(text.clone())),
            Value::Object(fields) => Ok(BotSpec::Object(SpecObject::from_map(fields)?)),
            other => Err(sawah_agents::SpecError::NotASpec(other.to_string())),
        }
    }

    /// The spec it names for rule set `rules`, with levels (`hard`,
    /// `elo=700`) resolved by `levels`.
    pub fn agent_spec(
        &self,
        rules: &str,
        levels: &dyn sawah_agents::spec::Levels,
    ) -> Result<sawah_agents::AgentSpec, sawah_agents::SpecError> {
        match self {
            BotSpec::Text(text) => sawah_agents::AgentSpec::parse_with(text, rules, levels),
            BotSpec::Object(fields) => {
                sawah_agents::AgentSpec::from_object_with(fields, rules, levels)
            }
        }
    }
}

impl From<&str> for BotSpec {
    fn from(text: &str) -> BotSpec {
        BotSpec::Text(text.to_string())
    }
}

/// The spec as a request gave it: text as it is, an object as JSON.
impl std::fmt::Display for BotSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BotSpec::Text(text) => f.write_str(text),
            BotSpec::Object(fields) => match serde_json::to_string(fields) {
                Ok(json) => f.write_str(&json),
                Err(_) => Err(std::fmt::Error),
            },
        }
    }
}

/// A game record (`docs/protocol.md`, "Game records"): the rule set and the
/// moves, as `"moves"` tokens (`"2:0-2"`, `"0:pass"`) or `"turns"`.
// A schema builder only: requests read records with the engine's `Record`
// (`ReviewRequest::game`), so `rest` says in the schema that other fields
// are allowed and is never filled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GameRecord {
    /// The rule set's name.
    pub rules: String,
    /// The position the game started from (the rule set's start when
    /// absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<PositionInput>,
    /// The moves as tokens, `roll:from-to` or `roll:pass`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moves: Option<Vec<String>>,
    /// The moves as turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns: Option<Vec<RecordTurn>>,
    /// Anything else a record carries (players, tags) is kept.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// One turn of a game record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecordTurn {
    /// The roll.
    pub roll: u8,
    /// The move, or `"pass"`.
    #[serde(rename = "move")]
    pub mv: MoveOrPass,
}

/// A move, or `"pass"` when the roll allowed none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum MoveOrPass {
    /// The move.
    Move(MoveJson),
    /// No legal move.
    Pass(Pass),
}

/// The word `"pass"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Pass {
    /// No legal move.
    #[serde(rename = "pass")]
    Pass,
}

/// `legal_moves`: every legal move for a roll.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LegalMovesRequest {
    /// The position.
    #[serde(deserialize_with = "position_input")]
    #[schemars(with = "PositionInput")]
    pub position: PositionJson,
    /// The roll.
    pub roll: u8,
}

/// `choose`: the move a bot plays.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChooseRequest {
    /// The position.
    #[serde(deserialize_with = "position_input")]
    #[schemars(with = "PositionInput")]
    pub position: PositionJson,
    /// The roll.
    pub roll: u8,
    /// Who plays; perfect play from the bot's solved table when absent
    /// (required where the bot has none for the rule set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotSpec>,
    /// What a tournament referee adds for an outside bot (`docs/bots.md`),
    /// absent otherwise.
    #[serde(flatten)]
    pub referee: Option<RefereeFields>,
}

/// The fields a tournament referee adds to the `choose` requests it sends
/// an outside bot, so the bot needs no rules of its own.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RefereeFields {
    /// Every legal move, as `legal_moves` lists them; the answer's move
    /// must be one of them.
    pub moves: Vec<ListedMove>,
    /// The game's id in the results.
    pub game_id: String,
    /// The turn's number in the game, from 1.
    pub turn: u64,
    /// The bot's time for this move, in milliseconds.
    pub time_ms: u64,
    /// A seed for the bot's own randomness, fixed for the position.
    pub seed: u64,
}

/// `evaluate`: a bot's win probability for the side to move.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EvaluateRequest {
    /// The position.
    #[serde(deserialize_with = "position_input")]
    #[schemars(with = "PositionInput")]
    pub position: PositionJson,
    /// Who evaluates (as in [`ChooseRequest::bot`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotSpec>,
}

/// `start` and `rules`: a rule set by name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RulesRequest {
    /// The rule set's name.
    pub rules: String,
}

/// `score`: Sawah's single-player score of a finished Senet game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScoreRequest {
    /// The finished position.
    #[serde(deserialize_with = "position_input")]
    #[schemars(with = "PositionInput")]
    pub position: PositionJson,
}

/// `daily`: the throws of Senet's game of the day.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DailyRequest {
    /// `"senet"`, the only rule set with a daily game (may be left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    /// The day, `YYYY-MM-DD`.
    pub date: String,
    /// How many throws (default 100, at most 100,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
}

/// `review`: a game measured move by move.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewRequest {
    /// The game, read by the engine's record reader (its errors name the
    /// turn at fault, `turn 3: …`).
    #[schemars(with = "GameRecord")]
    pub game: Record,
    /// The reference (see `docs/protocol.md`; the best the bot has when
    /// absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotSpec>,
}

/// `hint`: a position's moves ranked for a roll, or without a roll the roll
/// table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HintRequest {
    /// The position.
    #[serde(deserialize_with = "position_input")]
    #[schemars(with = "PositionInput")]
    pub position: PositionJson,
    /// The roll; absent (or null) for the roll table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roll: Option<u8>,
    /// The reference, as in [`ReviewRequest::bot`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotSpec>,
}

/// `puzzle`: a puzzle from the shipped set of a rule set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PuzzleRequest {
    /// The rule set.
    pub rules: String,
    /// Which puzzle.
    #[serde(flatten)]
    pub choice: PuzzleChoice,
}

/// How a puzzle is asked for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum PuzzleChoice {
    /// By its id.
    Id {
        /// The id (`ur-5c1d0e7a`).
        puzzle: String,
    },
    /// The puzzle of the day.
    Date {
        /// The day, `YYYY-MM-DD`.
        date: String,
    },
    /// One of the ten rated nearest a rating.
    Rating {
        /// An Elo on the rule set's scale.
        rating: f64,
        /// Which of the ten (0, the default: the nearest).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seed: Option<u64>,
    },
}

/// `solve_puzzle`: a puzzle's answer checked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SolvePuzzleRequest {
    /// The rule set.
    pub rules: String,
    /// The puzzle's id.
    pub puzzle: String,
    /// The move played.
    #[serde(rename = "move")]
    pub mv: MoveJson,
}

/// A protocol request, by its `"cmd"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum Request {
    /// Every legal move for a roll, with the position after each.
    LegalMoves(LegalMovesRequest),
    /// The move an agent plays, with every move's value.
    Choose(ChooseRequest),
    /// An agent's win probability for the side to move.
    Evaluate(EvaluateRequest),
    /// A rule set's starting position.
    Start(RulesRequest),
    /// Everything a front end needs to draw and play a rule set.
    Rules(RulesRequest),
    /// The names of every known rule set.
    ListRules,
    /// Sawah's single-player score of a finished Senet game.
    Score(ScoreRequest),
    /// The throws of Senet's game of the day.
    Daily(DailyRequest),
    /// A game reviewed move by move.
    Review(ReviewRequest),
    /// Every legal move for a roll, ranked; or the roll table.
    Hint(HintRequest),
    /// Who answers.
    Hello,
    /// A puzzle from the shipped set.
    Puzzle(PuzzleRequest),
    /// A puzzle's answer checked and explained.
    SolvePuzzle(SolvePuzzleRequest),
}

/// A request as a line of `sawah bot` or the body of `POST /v1/request`
/// carries it: the caller's `"id"`, echoed in the answer, and the command.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RequestLine {
    /// Any JSON value; the answer carries it back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    /// The command and its fields.
    #[serde(flatten)]
    pub request: Request,
}

/// A legal move and what it leads to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ListedMove {
    /// The move.
    #[serde(flatten)]
    pub mv: MoveJson,
    /// Whether the mover rolls again.
    pub extra_roll: bool,
    /// The position after it, `turn` set to whoever moves next.
    pub position: PositionJson,
}

/// The answer to `legal_moves`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LegalMovesAnswer {
    /// Every legal move, in the engine's order (empty: the roll passes).
    pub moves: Vec<ListedMove>,
}

/// A move and the bot's value of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MoveValue {
    /// The move.
    #[serde(flatten)]
    pub mv: MoveJson,
    /// The mover's win probability after it, by the bot.
    pub value: f64,
}

/// Present when a server limit stopped a search early.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Cut {
    /// The limit that stopped it, in words ("the node budget of 5000000
    /// nodes a request").
    pub limit: String,
    /// The plies the search finished: the answer's depth.
    pub finished_depth: Option<u8>,
    /// The plies the spec asked for.
    pub depth: u8,
}

/// The answer to `choose`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChooseAnswer {
    /// The move played; null when the roll has no legal move.
    #[serde(rename = "move")]
    pub mv: Option<MoveJson>,
    /// Every legal move's value, in the engine's order; null for an agent
    /// that values no moves (random).
    pub values: Option<Vec<MoveValue>>,
    /// Set when a limit cut the search short.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<Cut>,
}

/// The answer to `evaluate`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EvaluateAnswer {
    /// The side to move's win probability.
    pub value: f64,
    /// Set when a limit cut the search short.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<Cut>,
}

/// The answer to `start`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StartAnswer {
    /// The starting position.
    pub position: PositionJson,
}

/// The answer to `rules`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RulesAnswer {
    /// The rule set.
    pub rules: RulesExport,
}

/// The answer to `list_rules`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ListRulesAnswer {
    /// Every rule set's name.
    pub rules: Vec<String>,
}

/// The answer to `score`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScoreAnswer {
    /// The score.
    pub score: u32,
}

/// The answer to `daily`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DailyAnswer {
    /// The day.
    pub date: String,
    /// The throws, in order.
    pub throws: Vec<u8>,
}

/// A ranked move of a hint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HintedMove {
    /// The move.
    #[serde(flatten)]
    pub mv: MoveJson,
    /// The mover's win probability after it, by the reference.
    pub value: f64,
    /// What it gives away against the best move, in percentage points.
    pub loss_pp: f64,
    /// What it does.
    pub tags: Vec<Tag>,
    /// The tags in words.
    pub words: Vec<String>,
    /// The chance the opponent hits the moved piece next roll, where it can
    /// be hit.
    pub hit_chance: Option<f64>,
}

/// The answer to `hint` with a roll.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HintAnswer {
    /// Every legal move, best first.
    pub moves: Vec<HintedMove>,
    /// What measured them.
    pub reference: String,
    /// Whether the values are exact.
    pub exact: bool,
}

/// One roll of a roll table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RollChance {
    /// The roll.
    pub roll: u8,
    /// Its probability.
    pub probability: f64,
    /// The mover's win probability after the best move for it.
    pub value: f64,
    /// That move, or `"pass"`.
    #[serde(rename = "move")]
    pub mv: MoveOrPass,
}

/// The answer to `hint` without a roll: the roll table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RollTableAnswer {
    /// Every roll.
    pub rolls: Vec<RollChance>,
    /// The mover's win probability before the roll.
    pub value: f64,
    /// What measured them.
    pub reference: String,
    /// Whether the values are exact.
    pub exact: bool,
}

/// The answer to `hello`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HelloAnswer {
    /// The program.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Who wrote it.
    pub author: String,
    /// The protocol's version.
    pub protocol: u32,
}

/// A puzzle's question (the answer comes with `solve_puzzle`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PuzzleQuestion {
    /// Its id.
    pub id: String,
    /// The rule set.
    pub rules: String,
    /// The position.
    pub position: PositionJson,
    /// The roll to play.
    pub roll: u8,
    /// Every legal move.
    pub moves: Vec<MoveJson>,
    /// Its rating on the rule set's Elo scale.
    pub rating: f64,
    /// Set when the rating is outside the dial's range.
    pub rating_bound: Option<RatingBound>,
}

/// The answer to `puzzle`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PuzzleAnswer {
    /// The puzzle.
    pub puzzle: PuzzleQuestion,
    /// How many puzzles the set holds.
    pub count: usize,
}

/// A puzzle move's value and loss.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PuzzleMoveLoss {
    /// The move.
    #[serde(rename = "move")]
    pub mv: MoveJson,
    /// The mover's exact win probability after it.
    pub value: f64,
    /// What it gives away against the best move, in percentage points.
    pub loss_pp: f64,
}

/// The answer to `solve_puzzle`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SolvePuzzleAnswer {
    /// The puzzle's id.
    pub puzzle: String,
    /// Whether the move finds the answer (reaches the best move's position).
    pub correct: bool,
    /// The move played.
    #[serde(rename = "move")]
    pub mv: MoveJson,
    /// Its value.
    pub value: f64,
    /// The best move.
    pub best: MoveJson,
    /// Its value.
    pub best_value: f64,
    /// What the move played gave away, in percentage points.
    pub loss_pp: f64,
    /// How far the best move beats any move reaching another position.
    pub margin_pp: f64,
    /// The answer's themes.
    pub themes: Vec<String>,
    /// The natural move, which is wrong.
    pub natural: NaturalMove,
    /// The puzzle's rating.
    pub rating: f64,
    /// One sentence on the answer.
    pub explanation: String,
    /// Every legal move, valued.
    pub moves: Vec<PuzzleMoveLoss>,
}

/// An error answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorAnswer {
    /// The request's id, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    /// The error.
    pub error: crate::ProtocolError,
}

/// Any answer of the protocol, as [`Bot::answer`](crate::Bot::answer)
/// gives it.
// Built once per request and written out at once: boxing the larger
// answers would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Answer {
    /// `legal_moves`.
    LegalMoves(LegalMovesAnswer),
    /// `choose`.
    Choose(ChooseAnswer),
    /// `evaluate`.
    Evaluate(EvaluateAnswer),
    /// `start`.
    Start(StartAnswer),
    /// `rules`.
    Rules(RulesAnswer),
    /// `list_rules`.
    ListRules(ListRulesAnswer),
    /// `score`.
    Score(ScoreAnswer),
    /// `daily`.
    Daily(DailyAnswer),
    /// `review`.
    Review(Box<Review>),
    /// `hint` with a roll.
    Hint(HintAnswer),
    /// `hint` without one.
    RollTable(RollTableAnswer),
    /// `hello`.
    Hello(HelloAnswer),
    /// `puzzle`.
    Puzzle(PuzzleAnswer),
    /// `solve_puzzle`.
    SolvePuzzle(SolvePuzzleAnswer),
}

/// A response line: the request's id, then an answer's fields or the error.
#[allow(clippy::large_enum_variant)] // as `Answer`
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Response {
    /// An answer.
    Answer {
        /// The request's id, when it had one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<Value>,
        /// The answer's fields.
        #[serde(flatten)]
        answer: Answer,
    },
    /// An error.
    Error(ErrorAnswer),
}

impl Response {
    /// The response to a request with `id` whose answer is `result`.
    pub fn new(id: Option<Value>, result: Result<Answer, crate::ProtocolError>) -> Response {
        match result {
            Ok(answer) => Response::Answer { id, answer },
            Err(error) => Response::Error(ErrorAnswer { id, error }),
        }
    }

    /// The response as one line of JSON (no newline), as `sawah bot`
    /// writes it and `sawah serve` sends it. Every answer writes (its maps
    /// have string keys); should one ever fail, the line says so as an
    /// error.
    pub fn line(&self) -> String {
        serde_json::to_string(self)
            .unwrap_or_else(|e| serde_json::to_string(&unwritten(&e)).unwrap_or_default())
    }

    /// The response as a JSON value (for callers in process that index
    /// it), written as [`Response::line`] writes it.
    pub fn value(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(|e| serde_json::json!(unwritten(&e)))
    }

    /// The error's kind, when the response is an error.
    pub fn error_kind(&self) -> Option<crate::ErrorKind> {
        match self {
            Response::Error(answer) => Some(answer.error.kind),
            Response::Answer { .. } => None,
        }
    }
}

/// The error answer for a response that does not write: every answer
/// writes (its maps have string keys), so this is a bug's answer, said as
/// one rather than a panic or an empty line.
fn unwritten(e: &serde_json::Error) -> ErrorAnswer {
    ErrorAnswer {
        id: None,
        error: crate::ProtocolError::new(
            crate::ErrorKind::InvalidRequest,
            format!("the answer does not write: {e}"),
        ),
    }
}

/// Players named by [`Player`] in answers (kept so the schema lists it).
pub type Side = Player;

/// The schemas of what a bot reads, or of what it writes: a request's
/// optional fields may be left out, an answer's fields are there whenever
/// it writes them (null included), and each side's schema says so.
pub fn schema_generator(answers: bool) -> schemars::SchemaGenerator {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| {
        s.definitions_path = "/components/schemas".into();
    });
    let settings = if answers {
        settings.for_serialize()
    } else {
        settings.for_deserialize()
    };
    settings.into_generator()
}

/// The schemas `generator` made, each `roots` entry under its name
/// (a root that only refers to its own definition adds nothing), written
/// for OpenAPI tools as well as JSON Schema ones.
pub fn schema_definitions(
    mut generator: schemars::SchemaGenerator,
    roots: Vec<(&str, schemars::Schema)>,
) -> Map<String, Value> {
    let mut schemas = Map::new();
    for (name, mut schema) in generator.take_definitions(true) {
        ref_siblings_to_all_of(&mut schema);
        schemas.insert(name, schema);
    }
    for (name, schema) in roots {
        let own = format!("#/components/schemas/{name}");
        let mut schema = schema.to_value();
        if schema.get("$ref").and_then(Value::as_str) != Some(own.as_str()) {
            ref_siblings_to_all_of(&mut schema);
            schemas.insert(name.to_string(), schema);
        }
    }
    schemas
}

/// The requests' schemas by name ([`schema_document`]).
fn request_schemas() -> Map<String, Value> {
    let mut g = schema_generator(false);
    let roots = vec![
        ("RequestLine", g.subschema_for::<RequestLine>()),
        ("LegalMovesRequest", g.subschema_for::<LegalMovesRequest>()),
        ("ChooseRequest", g.subschema_for::<ChooseRequest>()),
        ("EvaluateRequest", g.subschema_for::<EvaluateRequest>()),
        ("HintRequest", g.subschema_for::<HintRequest>()),
        ("ReviewRequest", g.subschema_for::<ReviewRequest>()),
        (
            "SolvePuzzleRequest",
            g.subschema_for::<SolvePuzzleRequest>(),
        ),
    ];
    schema_definitions(g, roots)
}

/// The answers' schemas by name ([`schema_document`]).
fn answer_schemas() -> Map<String, Value> {
    let mut g = schema_generator(true);
    let roots = vec![
        ("Response", g.subschema_for::<Response>()),
        ("LegalMovesAnswer", g.subschema_for::<LegalMovesAnswer>()),
        ("ChooseAnswer", g.subschema_for::<ChooseAnswer>()),
        ("EvaluateAnswer", g.subschema_for::<EvaluateAnswer>()),
        ("StartAnswer", g.subschema_for::<StartAnswer>()),
        ("RulesAnswer", g.subschema_for::<RulesAnswer>()),
        ("ListRulesAnswer", g.subschema_for::<ListRulesAnswer>()),
        ("ScoreAnswer", g.subschema_for::<ScoreAnswer>()),
        ("DailyAnswer", g.subschema_for::<DailyAnswer>()),
        ("ReviewAnswer", g.subschema_for::<Review>()),
        ("HintAnswer", g.subschema_for::<HintAnswer>()),
        ("RollTableAnswer", g.subschema_for::<RollTableAnswer>()),
        ("HelloAnswer", g.subschema_for::<HelloAnswer>()),
        ("PuzzleAnswer", g.subschema_for::<PuzzleAnswer>()),
        ("SolvePuzzleAnswer", g.subschema_for::<SolvePuzzleAnswer>()),
        ("ErrorAnswer", g.subschema_for::<ErrorAnswer>()),
    ];
    schema_definitions(g, roots)
}

/// Every request and answer type by name, with its JSON Schema: the
/// `components.schemas` of the OpenAPI document (references between them
/// are `#/components/schemas/NAME`). A type that travels both ways (a
/// position, a move) has one schema, the same either way (a test checks).
pub fn schema_document() -> Map<String, Value> {
    let mut schemas = request_schemas();
    for (name, schema) in answer_schemas() {
        schemas.entry(name).or_insert(schema);
    }
    schemas
}

/// Rewrites every `{"$ref":R, …constraints}` in `schema` as
/// `{"allOf":[{"$ref":R}], …constraints}`. JSON Schema 2020-12 reads both
/// alike, but OpenAPI 3.0 tools (openapi-typescript among them) ignore
/// what stands beside a `$ref`, such as the `"cmd"` of a tagged request.
fn ref_siblings_to_all_of(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            let constrained = map
                .keys()
                .any(|key| !matches!(key.as_str(), "$ref" | "description"));
            if constrained && let Some(reference) = map.remove("$ref") {
                let entry = serde_json::json!({ "$ref": reference });
                match map.get_mut("allOf") {
                    Some(Value::Array(all)) => all.push(entry),
                    _ => {
                        map.insert("allOf".into(), Value::Array(vec![entry]));
                    }
                }
            }
            map.values_mut().for_each(ref_siblings_to_all_of);
        }
        Value::Array(items) => items.iter_mut().for_each(ref_siblings_to_all_of),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_type_that_travels_both_ways_has_one_schema() {
        let requests = request_schemas();
        let answers = answer_schemas();
        let shared: Vec<&String> = requests
            .keys()
            .filter(|k| answers.contains_key(*k))
            .collect();
        assert!(
            shared.iter().any(|name| *name == "PositionJson"),
            "{shared:?}"
        );
        for name in shared {
            assert_eq!(requests[name], answers[name], "{name}");
        }
    }

    /// `value`, read as a `T` and written again, is `value`.
    fn reads_back<T: serde::de::DeserializeOwned + Serialize>(value: &Value) {
        let typed: T = serde_json::from_value(value.clone())
            .unwrap_or_else(|e| panic!("{value} does not read as its type: {e}"));
        assert_eq!(&serde_json::to_value(typed).unwrap(), value);
    }

    #[test]
    fn the_bots_answers_and_requests_read_back_as_their_types() {
        use serde_json::json;
        let bot = crate::Bot::new(sawah_engine::Registry::new());
        let start = "ur light 7/-/0 7/-/0";
        let ask = |request: Value| {
            let mut answer = bot.respond(&request);
            answer.as_object_mut().unwrap().remove("id");
            answer
        };
        let choose =
            json!({"cmd": "choose", "position": start, "roll": 2, "bot": "expectiminimax:depth=1"});
        reads_back::<LegalMovesAnswer>(&ask(
            json!({"cmd": "legal_moves", "position": start, "roll": 4}),
        ));
        reads_back::<ChooseAnswer>(&ask(choose.clone()));
        reads_back::<ChooseAnswer>(&ask(
            json!({"cmd": "choose", "position": start, "roll": 0, "bot": "random"}),
        ));
        reads_back::<EvaluateAnswer>(&ask(
            json!({"cmd": "evaluate", "position": start, "bot": "heuristic"}),
        ));
        reads_back::<StartAnswer>(&ask(json!({"cmd": "start", "rules": "senet"})));
        reads_back::<RulesAnswer>(&ask(json!({"cmd": "rules", "rules": "ur"})));
        reads_back::<DailyAnswer>(&ask(
            json!({"cmd": "daily", "date": "2026-12-05", "count": 3}),
        ));
        reads_back::<HintAnswer>(&ask(
            json!({"cmd": "hint", "position": start, "roll": 4, "bot": "heuristic"}),
        ));
        reads_back::<RollTableAnswer>(&ask(
            json!({"cmd": "hint", "position": start, "bot": "heuristic"}),
        ));
        reads_back::<HelloAnswer>(&ask(json!({"cmd": "hello"})));
        reads_back::<ErrorAnswer>(&bot.respond(&json!({"id": 3, "cmd": "fly"})));
        // A request with a position in notation reads as the JSON form.
        let line: RequestLine =
            serde_json::from_value(json!({"id": 1, "cmd": "choose", "position": start, "roll": 2}))
                .unwrap();
        let Request::Choose(request) = line.request else {
            panic!("{line:?}");
        };
        assert_eq!(request.position.light.waiting, Some(7));
        assert!(
            serde_json::from_value::<RequestLine>(
                json!({"cmd": "choose", "position": "ur light x", "roll": 2})
            )
            .is_err()
        );
    }

    #[test]
    fn an_answer_field_written_as_null_is_required_and_nullable() {
        let answers = answer_schemas();
        let choose = &answers["ChooseAnswer"];
        let required = choose["required"].as_array().expect("required fields");
        assert!(required.contains(&Value::from("move")), "{choose}");
        assert!(!required.contains(&Value::from("cut")), "{choose}");
        let requests = request_schemas();
        let choose = &requests["ChooseRequest"];
        let required = choose["required"].as_array().expect("required fields");
        assert!(!required.contains(&Value::from("bot")), "{choose}");
    }
}
