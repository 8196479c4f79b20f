//! The typed path: a `Request` built in process gets the answer and the
//! checks a request line gets, the response a front door writes is the
//! typed one, and fields that were open JSON are read into their types
//! with the protocol's own errors.

use sawah_engine::Registry;
use sawah_engine::json::MoveJson;
use sawah_protocol::messages::{
    Answer, BotSpec, ChooseRequest, HintRequest, LegalMovesRequest, Request, Response,
};
use sawah_protocol::{Bot, ErrorKind};
use serde_json::{Value, json};

fn start(bot: &Bot, rules: &str) -> sawah_engine::json::PositionJson {
    let request = Request::Start(sawah_protocol::messages::RulesRequest {
        rules: rules.into(),
    });
    match bot.answer(request, None) {
        Ok(Answer::Start(start)) => start.position,
        other => panic!("a start answer, not {other:?}"),
    }
}

#[test]
fn a_typed_request_is_checked_as_a_request_line_is() {
    let bot = Bot::new(Registry::new());
    let position = start(&bot, "ur");
    // A roll the dice cannot throw, and a position with a piece too many,
    // are refused in process with the error (kind and words) a line gets.
    for roll in [5, 9, 255] {
        let typed = bot
            .answer(
                Request::LegalMoves(LegalMovesRequest {
                    position: position.clone(),
                    roll,
                }),
                None,
            )
            .unwrap_err();
        let line = bot.respond(&json!({"cmd": "legal_moves", "position": position, "roll": roll}));
        assert_eq!(typed.kind, ErrorKind::InvalidRoll);
        assert_eq!(line["error"]["message"], typed.message.as_str());
        let hint = bot
            .answer(
                Request::Hint(HintRequest {
                    position: position.clone(),
                    roll: Some(roll),
                    bot: Some(BotSpec::from("heuristic")),
                }),
                None,
            )
            .unwrap_err();
        assert_eq!(hint, typed);
        let choose = bot
            .answer(
                Request::Choose(ChooseRequest {
                    position: position.clone(),
                    roll,
                    bot: Some(BotSpec::from("random")),
                    referee: None,
                }),
                None,
            )
            .unwrap_err();
        assert_eq!(choose, typed);
    }
    let mut crowded = position.clone();
    crowded.light.waiting = Some(8);
    let error = bot
        .answer(
            Request::LegalMoves(LegalMovesRequest {
                position: crowded.clone(),
                roll: 2,
            }),
            None,
        )
        .unwrap_err();
    assert_eq!(error.kind, ErrorKind::InvalidPosition);
    let line = bot.respond(&json!({"cmd": "legal_moves", "position": crowded, "roll": 2}));
    assert_eq!(line["error"]["message"], error.message.as_str());
}

#[test]
fn the_response_line_is_the_typed_response_written_once() {
    let bot = Bot::new(Registry::new());
    for line in [
        r#"{"id":[1,"a"],"cmd":"legal_moves","position":"ur light 5/2,6/0 6/7/0","roll":3}"#,
        r#"{"id":2,"cmd":"choose","position":"ur light 5/2,6/0 6/7/0","roll":3,"bot":"heuristic"}"#,
        r#"{"id":3,"cmd":"hint","position":"senet light 1,3,5,7,9/0 2,4,6,8,10/0","bot":"heuristic"}"#,
        r#"{"id":4,"cmd":"legal_moves","position":"ur light 5/2,6/0 6/7/0","roll":"3"}"#,
        r#"{"cmd":"fly"}"#,
        r#"[1]"#,
    ] {
        let request: Value = serde_json::from_str(line).unwrap();
        let response = bot.response_to_text(line, None, None);
        assert_eq!(bot.handle_line(line), response.line());
        assert_eq!(
            bot.respond(&request),
            serde_json::to_value(&response).unwrap()
        );
        let error = bot.respond(&request)["error"]["kind"].clone();
        assert_eq!(
            response.error_kind().map(|kind| Value::from(kind.as_str())),
            (!error.is_null()).then_some(error),
            "{line}"
        );
        if let Response::Answer { id, .. } = &response {
            assert_eq!(id.as_ref(), request.get("id"));
        }
    }
}

#[test]
fn a_bot_field_that_is_not_a_spec_is_refused_as_it_always_was() {
    let bot = Bot::new(Registry::new());
    for spec in [json!(3), json!(null), json!([1]), json!(true)] {
        let answer = bot.respond(&json!({
            "cmd": "choose", "position": "ur light 7/-/0 7/-/0", "roll": 2, "bot": spec,
        }));
        assert_eq!(answer["error"]["kind"], "invalid_bot", "{spec}: {answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains(&spec.to_string()),
            "{answer}"
        );
    }
    // An object spec is typed and read by the agents' reader.
    let answer = bot.respond(&json!({
        "cmd": "choose", "position": "ur light 7/-/0 7/-/0", "roll": 2,
        "bot": {"agent": "expectiminimax", "depth": 1, "seed": 4},
    }));
    assert!(answer["move"].is_object(), "{answer}");
}

#[test]
fn a_puzzle_move_is_read_as_a_move() {
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
    let bot = Bot::new(Registry::new())
        .with_models(Some(sawah_agents::manifest::Models::load(&models).unwrap()))
        .unwrap();
    for mv in [
        json!("pass"),
        json!({"from": "a", "to": 2}),
        json!({"from": 1}),
    ] {
        let answer = bot.respond(&json!({
            "cmd": "solve_puzzle", "rules": "ur", "puzzle": "ur-eb0d40ab", "move": mv,
        }));
        assert_eq!(answer["error"]["kind"], "invalid_field", "{mv}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("is not a move"), "{message}");
    }
    let off = MoveJson {
        from: 11,
        to: sawah_engine::json::MoveTarget::Off(sawah_engine::json::Off::Off),
    };
    let answer = bot.respond(&json!({
        "cmd": "solve_puzzle", "rules": "ur", "puzzle": "ur-eb0d40ab", "move": off,
    }));
    assert_eq!(answer["move"], json!({"from": 11, "to": "off"}), "{answer}");
}

#[test]
fn json_nested_past_serdes_limit_in_a_field_gets_an_error_that_says_so() {
    let bot = Bot::new(Registry::new());
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let line = format!(
        r#"{{"cmd":"choose","position":"ur light 7/-/0 7/-/0","roll":2,"bot":{{"agent":"heuristic","x":{deep}}}}}"#
    );
    let answer: Value = serde_json::from_str(&bot.handle_line(&line)).unwrap();
    assert_eq!(answer["error"]["kind"], "invalid_bot", "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("nested too deeply"), "{message}");
    let line =
        format!(r#"{{"cmd":"legal_moves","position":"ur light 7/-/0 7/-/0","roll":{deep}}}"#);
    let answer: Value = serde_json::from_str(&bot.handle_line(&line)).unwrap();
    assert_eq!(answer["error"]["kind"], "invalid_roll", "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("nested too deeply"), "{message}");
}
