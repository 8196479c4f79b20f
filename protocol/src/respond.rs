//! Answering requests: a request line, a JSON request or a typed one to
//! its answer, each command to the part of the bot that answers it (the
//! moves and searches here; reviews and hints in `analysis`, puzzles in
//! `puzzles`). Above every other part of [`Bot`], so nothing below calls
//! back up into it.

use crate::Command;
use crate::bot::{Bot, listed_moves};
use crate::error::{ErrorKind, ProtocolError};
use crate::messages::{
    Answer, BotSpec, ChooseAnswer, ChooseRequest, Cut, DailyAnswer, DailyRequest, EvaluateAnswer,
    EvaluateRequest, HelloAnswer, LegalMovesAnswer, LegalMovesRequest, ListRulesAnswer, MoveValue,
    Request, Response, RulesAnswer, ScoreAnswer, ScoreRequest, StartAnswer,
};
use crate::wire::{WireRequest, checked_roll, position_of};
use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::search::Stop;
use sawah_agents::{Agent, AgentSpec, evaluator::terminal_value};
use sawah_engine::senet::daily;
use sawah_engine::{AnyGame, Codec, with_game};
use serde_json::Value;

impl Bot {
    /// Checks that every level this bot serves, on every rule set it knows,
    /// and the default review reference search within its depth bound, so
    /// a request that names a level, or no bot, is never refused for the
    /// bound: the server's own choices always run. An error says which
    /// level breaks it and what to do.
    pub fn check_levels_within_depth(&self) -> Result<(), String> {
        for name in self.registry().names() {
            let game = self.rules(&name).map_err(|e| e.message)?;
            with_game!(&game, g => {
                for level in sawah_agents::manifest::LEVELS {
                    let spec = self.resolve(g, &BotSpec::from(level)).map_err(|e| e.message)?;
                    self.within_depth(&spec, &format!("{level} on {name}"))?;
                }
                let reference = self.default_reference_spec(g).map_err(|e| e.message)?;
                self.within_depth(&reference, &format!("the review reference for {name}"))?;
            });
        }
        Ok(())
    }

    /// Answers one request line with one response line (no newline). Every
    /// line gets an answer; a line that is not a JSON object gets an error.
    ///
    /// # Examples
    ///
    /// `sawah bot`'s loop in one call: the legal moves of a roll of 2 at
    /// the start of ur (a position may be given in notation), then a line
    /// that is not JSON:
    ///
    /// ```
    /// use sawah_engine::Registry;
    /// use sawah_protocol::Bot;
    /// use serde_json::Value;
    ///
    /// let bot = Bot::new(Registry::new());
    /// let line = bot.handle_line(
    ///     r#"{"id":7,"cmd":"legal_moves","position":"ur light 7/-/0 7/-/0","roll":2}"#,
    /// );
    /// let answer: Value = serde_json::from_str(&line).unwrap();
    /// assert_eq!(answer["id"], 7);
    /// assert_eq!(answer["moves"].as_array().unwrap().len(), 1);
    ///
    /// let error: Value = serde_json::from_str(&bot.handle_line("hello?")).unwrap();
    /// assert_eq!(error["error"]["kind"], "invalid_json");
    /// ```
    pub fn handle_line(&self, line: &str) -> String {
        self.handle_line_within(line, None)
    }

    /// [`Bot::handle_line`] with searches stopped by `stop` (see
    /// [`Bot::response_within`]).
    pub fn handle_line_within(&self, line: &str, stop: Option<&Stop>) -> String {
        self.response_to_text(line, None, stop).line()
    }

    /// The typed response to one request's JSON text (a line, an HTTP
    /// body, a member of a batch): read once ([`Bot::read_request`]), then
    /// answered ([`Bot::answer`]). `route`, when given, is the command the
    /// request is for whatever its `"cmd"` (an HTTP route such as
    /// `POST /v1/choose`).
    pub fn response_to_text(
        &self,
        text: &str,
        route: Option<Command>,
        stop: Option<&Stop>,
    ) -> Response {
        let (id, read) = self.read_request(text, route);
        Response::new(id, read.and_then(|request| self.answer(request, stop)))
    }

    /// One request's JSON text read by serde from its bytes
    /// ([`WireRequest::read`]) into its typed form ([`Bot::parse`]): the id
    /// its answer echoes, and the request or the error it gets. `route`
    /// is as [`Bot::response_to_text`]'s. What a front door that answers
    /// later (the HTTP server's workers) keeps in place of the text.
    pub fn read_request(
        &self,
        text: &str,
        route: Option<Command>,
    ) -> (Option<Value>, Result<Request, ProtocolError>) {
        match WireRequest::read(text) {
            Ok(request) => {
                let request = match route {
                    Some(command) => request.with_command(command),
                    None => request,
                };
                (request.id(), self.parse(&request))
            }
            Err(error) => (None, Err(error)),
        }
    }

    /// Answers one request (a JSON value) with its response object: the
    /// request's `"id"` first, then the result's fields or `"error"`.
    ///
    /// # Examples
    ///
    /// The start of a game of ur, and the computer's move after a roll of 2:
    ///
    /// ```
    /// use sawah_engine::Registry;
    /// use sawah_protocol::Bot;
    /// use serde_json::json;
    ///
    /// let bot = Bot::new(Registry::new());
    /// let start = bot.respond(&json!({"cmd": "start", "rules": "ur"}));
    /// let answer = bot.respond(&json!({
    ///     "id": 1,
    ///     "cmd": "choose",
    ///     "position": start["position"],
    ///     "roll": 2,
    ///     "bot": "expectiminimax:depth=1",
    /// }));
    /// assert_eq!(answer["id"], 1);
    /// assert!(answer["move"].is_object());
    ///
    /// // Errors are answers too, with a kind a program can act on.
    /// let bad = bot.respond(&json!({"cmd": "choose", "rules": "ur", "roll": 9}));
    /// assert!(bad["error"]["kind"].is_string());
    /// ```
    pub fn respond(&self, request: &Value) -> Value {
        // A value from a caller in process is read as the text it writes,
        // so it takes the one path every front door's bytes take.
        self.response_to_text(&request.to_string(), None, None)
            .value()
    }

    /// The typed response to one request read from its text: its `"id"`
    /// and the answer, or the error it gets. Every search the request
    /// starts is stopped when `stop` fires (a server's time budget or node
    /// cap): the answer then comes from the deepest search finished, at
    /// least one roll deep; until it fires, the answer is exactly
    /// [`Bot::respond`]'s. Every front door writes this value as
    /// it is; a caller in process reads the answer or the error kind from
    /// it without going through JSON.
    pub fn response_within(&self, request: &WireRequest, stop: Option<&Stop>) -> Response {
        let result = self
            .parse(request)
            .and_then(|typed| self.answer(typed, stop));
        Response::new(request.id(), result)
    }

    /// The answer to a request read by [`Bot::parse`].
    ///
    /// # Examples
    ///
    /// A typed request in, a typed answer out, with no JSON in between; an
    /// error has the kind every front door reports:
    ///
    /// ```
    /// use sawah_engine::Registry;
    /// use sawah_protocol::messages::{Answer, Request, RulesRequest};
    /// use sawah_protocol::{Bot, ErrorKind};
    ///
    /// let bot = Bot::new(Registry::new());
    /// let start = |rules: &str| Request::Start(RulesRequest { rules: rules.into() });
    /// let Ok(Answer::Start(answer)) = bot.answer(start("ur"), None) else {
    ///     panic!("a start answer")
    /// };
    /// assert_eq!(answer.position.light.waiting, Some(7));
    /// assert!(answer.position.dark.squares.is_empty());
    ///
    /// let error = bot.answer(start("chess"), None).unwrap_err();
    /// assert_eq!(error.kind, ErrorKind::UnknownRules);
    /// ```
    pub fn answer(&self, request: Request, stop: Option<&Stop>) -> Result<Answer, ProtocolError> {
        Ok(match request {
            Request::LegalMoves(request) => {
                let game = self.rules(&request.position.rules)?;
                Answer::LegalMoves(with_game!(&game, g => legal_moves(g, &request))?)
            }
            Request::Choose(request) => {
                let game = self.rules(&request.position.rules)?;
                Answer::Choose(with_game!(&game, g => self.choose(g, &request, stop))?)
            }
            Request::Evaluate(request) => {
                let game = self.rules(&request.position.rules)?;
                Answer::Evaluate(with_game!(&game, g => self.evaluate(g, &request, stop))?)
            }
            Request::Start(request) => {
                let game = self.rules(&request.rules)?;
                Answer::Start(StartAnswer {
                    position: with_game!(&game, g => g.position_to_json(&g.start())),
                })
            }
            Request::Rules(request) => {
                let game = self.rules(&request.rules)?;
                Answer::Rules(RulesAnswer {
                    rules: with_game!(&game, g => g.rules_export()),
                })
            }
            Request::ListRules => Answer::ListRules(ListRulesAnswer {
                rules: self.registry().names(),
            }),
            Request::Score(request) => Answer::Score(self.score(&request)?),
            Request::Daily(request) => Answer::Daily(daily_throws(request)?),
            Request::Review(request) => Answer::Review(Box::new(self.review_record(
                &request.game,
                request.bot.as_ref(),
                stop,
            )?)),
            Request::Hint(request) => self.hint_request(&request, stop)?,
            Request::Puzzle(request) => Answer::Puzzle(self.puzzle_request(&request)?),
            Request::SolvePuzzle(request) => {
                Answer::SolvePuzzle(self.solve_puzzle_request(&request)?)
            }
            Request::Hello => Answer::Hello(HelloAnswer {
                name: "sawah-ai".to_string(),
                version: env!("CARGO_PKG_VERSION").to_string(),
                author: "sawah-ai".to_string(),
                protocol: 1,
            }),
        })
    }

    fn choose<G: Codec + HasHeuristic + 'static>(
        &self,
        game: &G,
        request: &ChooseRequest,
        stop: Option<&Stop>,
    ) -> Result<ChooseAnswer, ProtocolError> {
        let position = position_of(game, &request.position)?;
        checked_roll(game, request.roll)?;
        let (spec, mut agent) = self.agent_of(game, request.bot.as_ref(), stop)?;
        let moves = game.legal_moves(&position, request.roll);
        if moves.is_empty() {
            return Ok(ChooseAnswer {
                mv: None,
                values: Some(Vec::new()),
                cut: None,
            });
        }
        let choice = agent.decide(game, &position, request.roll, &moves);
        let values = choice.values.map(|values| {
            moves
                .iter()
                .zip(values)
                .map(|(&mv, value)| MoveValue {
                    mv: game.move_json(mv),
                    value,
                })
                .collect()
        });
        Ok(ChooseAnswer {
            mv: Some(game.move_json(choice.chosen)),
            values,
            cut: cut_of(stop, &spec, agent.as_ref()),
        })
    }

    fn evaluate<G: Codec + HasHeuristic + 'static>(
        &self,
        game: &G,
        request: &EvaluateRequest,
        stop: Option<&Stop>,
    ) -> Result<EvaluateAnswer, ProtocolError> {
        let position = position_of(game, &request.position)?;
        let (spec, mut agent) = self.agent_of(game, request.bot.as_ref(), stop)?;
        if let Some(value) = terminal_value(game, &position) {
            return Ok(EvaluateAnswer { value, cut: None });
        }
        let value = agent.evaluate(game, &position).ok_or_else(|| {
            ProtocolError::new(
                ErrorKind::Unsupported,
                format!("{spec} has no evaluation; use heuristic or expectiminimax"),
            )
        })?;
        Ok(EvaluateAnswer {
            value,
            cut: cut_of(stop, &spec, agent.as_ref()),
        })
    }

    fn score(&self, request: &ScoreRequest) -> Result<ScoreAnswer, ProtocolError> {
        let game = self.rules(&request.position.rules)?;
        let AnyGame::Senet(senet) = &game else {
            return Err(ProtocolError::new(
                ErrorKind::Unsupported,
                format!("score is defined for senet only, not {}", game.name()),
            ));
        };
        let position = position_of(&**senet, &request.position)?;
        let score = senet.score(&position).ok_or_else(|| {
            ProtocolError::new(
                ErrorKind::GameNotOver,
                "the game is not over: score needs a finished position",
            )
        })?;
        Ok(ScoreAnswer { score })
    }
}

/// When `stop` cut the search short, says how: the limit, the plies the
/// search finished (the answer's depth) and the plies the spec asked for.
/// An answer without a cut is exactly the one given with no limits.
fn cut_of<G: sawah_engine::Game>(
    stop: Option<&Stop>,
    spec: &AgentSpec,
    agent: &(dyn Agent<G> + Send),
) -> Option<Cut> {
    stop.and_then(Stop::reason).map(|limit| Cut {
        limit: limit.to_string(),
        finished_depth: agent.finished_depth(),
        depth: spec.depth,
    })
}

fn legal_moves<G: Codec>(
    game: &G,
    request: &LegalMovesRequest,
) -> Result<LegalMovesAnswer, ProtocolError> {
    let position = position_of(game, &request.position)?;
    let moves = game.legal_moves(&position, checked_roll(game, request.roll)?);
    Ok(LegalMovesAnswer {
        moves: listed_moves(game, &position, &moves),
    })
}

fn daily_throws(request: DailyRequest) -> Result<DailyAnswer, ProtocolError> {
    let count = request.count.unwrap_or(crate::limits::DEFAULT_DAILY_COUNT);
    let throws = daily::daily_throws(&request.date, count as usize)
        .map_err(|e| ProtocolError::new(ErrorKind::InvalidField, format!("\"date\": {e}")))?;
    Ok(DailyAnswer {
        date: request.date,
        throws,
    })
}
