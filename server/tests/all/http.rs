//! `sawah serve` over loopback: every route, every error status, bad input
//! that never yields a 5xx, batches, overload (503, then recovery) and a
//! graceful shutdown that loses no request in flight.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use proptest::prelude::*;
use sawah_agents::manifest::Models;
use sawah_engine::registry::Registry;
use sawah_protocol::native::{self, Limits, Setup};
use sawah_server::Config;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::sync::oneshot;

/// A server on 127.0.0.1 (a free port) with the shipped models, running on
/// its own runtime until the handle is dropped.
struct TestServer {
    addr: SocketAddr,
    runtime: tokio::runtime::Runtime,
    stop: Option<oneshot::Sender<()>>,
    done: Option<tokio::task::JoinHandle<Result<(), sawah_server::ServeError>>>,
}

fn shipped_models() -> Models {
    Models::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models")).unwrap()
}

impl TestServer {
    fn start(config: Config) -> TestServer {
        config.check().expect("the test's settings");
        let setup = Setup {
            models: Some(shipped_models()),
            tables: Vec::new(),
            untrusted: true,
            limits: config.limits,
        };
        let bot = native::bot(Registry::new(), &setup).unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let (addr, done) = runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let done = tokio::spawn(async move {
                let stopped = async {
                    let _ = stopped.await;
                };
                sawah_server::serve(listener, bot, &config, stopped, std::future::pending()).await
            });
            (addr, done)
        });
        TestServer {
            addr,
            runtime,
            stop: Some(stop),
            done: Some(done),
        }
    }

    fn default() -> TestServer {
        TestServer::start(Config {
            workers: 2,
            queue: 64,
            ..Config::default()
        })
    }

    /// Sends one request on a fresh connection: status, headers, body.
    fn call(&self, method: &str, path: &str, body: impl Into<Bytes>) -> Answer {
        self.runtime
            .block_on(call(self.addr, method, path, body.into()))
    }

    fn get(&self, path: &str) -> Answer {
        self.call("GET", path, Bytes::new())
    }

    fn post(&self, path: &str, body: &Value) -> Answer {
        self.call("POST", path, body.to_string())
    }

    /// Stops the server as SIGTERM would and waits for it to return.
    fn shut_down(mut self) -> Result<(), sawah_server::ServeError> {
        let _ = self.stop.take().unwrap().send(());
        let done = self.done.take().unwrap();
        self.runtime.block_on(done).unwrap()
    }
}

#[derive(Debug)]
struct Answer {
    status: u16,
    headers: hyper::HeaderMap,
    body: Value,
    text: String,
}

async fn call(addr: SocketAddr, method: &str, path: &str, body: Bytes) -> Answer {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, connection) = http1::handshake(TokioIo::new(stream)).await.unwrap();
    tokio::spawn(connection);
    let request = Request::builder()
        .method(method)
        .uri(path)
        .header("host", addr.to_string())
        .header("content-type", "application/json")
        .body(Full::new(body))
        .unwrap();
    let response = sender.send_request(request).await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    Answer {
        status,
        headers,
        body: serde_json::from_str(&text).unwrap_or(Value::Null),
        text,
    }
}

const UR_START: &str = "ur light 7/-/0 7/-/0";

#[test]
fn every_route_answers_as_documented() {
    let server = TestServer::default();
    let rules = server.get("/v1/rules");
    assert_eq!(rules.status, 200);
    assert!(
        rules.body["rules"]
            .as_array()
            .unwrap()
            .contains(&json!("senet"))
    );
    assert!(rules.headers.contains_key("x-request-id"));
    assert_eq!(server.get("/v1/rules/ur").body["rules"]["name"], "ur");
    let start = server.get("/v1/start/ur");
    assert_eq!(start.body["position"]["light"]["waiting"], 7);
    let moves = server.post("/v1/legal-moves", &json!({"position": UR_START, "roll": 2}));
    assert_eq!(moves.status, 200, "{}", moves.text);
    assert!(moves.body["moves"][0]["position"].is_object());
    let chosen = server.post(
        "/v1/choose",
        &json!({"position": UR_START, "roll": 2, "bot": "hard"}),
    );
    assert_eq!(chosen.status, 200, "{}", chosen.text);
    assert!(chosen.body["move"].is_object());
    let value = server.post(
        "/v1/evaluate",
        &json!({"position": UR_START, "bot": "medium"}),
    );
    assert!(
        value.body["value"]
            .as_f64()
            .is_some_and(|v| (0.0..=1.0).contains(&v)),
        "{}",
        value.text
    );
    let hint = server.post("/v1/hint", &json!({"position": UR_START, "roll": 4}));
    assert_eq!(hint.status, 200, "{}", hint.text);
    assert_eq!(
        hint.body["moves"][0]["tags"],
        json!(["enters", "rolls_again", "safe"])
    );
    let review = server.post(
        "/v1/review",
        &json!({"game": {"rules": "ur", "moves": ["2:0-2", "0:pass", "4:0-4"]}}),
    );
    assert_eq!(review.status, 200, "{}", review.text);
    assert_eq!(review.body["turns"].as_array().unwrap().len(), 3);
    let bad = server.post(
        "/v1/review",
        &json!({"game": {"rules": "ur", "moves": ["2:0-9"]}}),
    );
    assert_eq!(bad.status, 422, "{}", bad.text);
    let daily = server.get("/v1/daily/2026-12-02?count=5");
    assert_eq!(
        daily.body["throws"].as_array().unwrap().len(),
        5,
        "{}",
        daily.text
    );
    // The puzzle of the day is the one every front door gives.
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../tests/fixtures/daily-puzzles.json"),
        )
        .unwrap(),
    )
    .unwrap();
    for (rules, id) in fixture["ids"].as_object().unwrap() {
        let date = fixture["date"].as_str().unwrap();
        let daily = server.get(&format!("/v1/puzzles/{rules}/daily/{date}"));
        assert_eq!(daily.body["puzzle"]["id"], *id, "{}", daily.text);
    }
    let by_id = server.get("/v1/puzzles/ur/ur-eb0d40ab");
    assert_eq!(by_id.status, 200, "{}", by_id.text);
    let near = server.get("/v1/puzzles/sawah?rating=300&seed=2");
    assert_eq!(near.status, 200, "{}", near.text);
    let mv = by_id.body["puzzle"]["moves"][0].clone();
    let solved = server.post(
        "/v1/solve-puzzle",
        &json!({"rules": "ur", "puzzle": "ur-eb0d40ab", "move": mv}),
    );
    assert_eq!(solved.status, 200, "{}", solved.text);
    assert!(solved.body["explanation"].is_string());
    for (path, status) in [
        ("/v1/puzzles/ur?rating=high", 422),
        ("/v1/puzzles/ur/ur-00000000", 422),
        ("/v1/puzzles/ur/daily/2026-02-30", 422),
        ("/v1/puzzles/chess/daily/2026-12-05", 404),
    ] {
        assert_eq!(server.get(path).status, status, "{path}");
    }
    let single = server.post(
        "/v1/request",
        &json!({"id": 7, "cmd": "start", "rules": "senet"}),
    );
    assert_eq!(single.body["id"], 7);
    assert_eq!(server.get("/healthz").body["status"], "ok");
    assert_eq!(server.get("/readyz").body["status"], "ready");
    let metrics = server.get("/metrics");
    assert_eq!(metrics.status, 200);
    assert!(
        metrics
            .text
            .contains(r#"sawah_http_requests_total{route="/v1/choose",status="200"} 1"#),
        "{}",
        metrics.text
    );
    assert!(metrics.text.contains("sawah_queue_depth"));
    assert!(
        metrics
            .text
            .contains("sawah_http_request_duration_seconds_bucket")
    );
    let openapi = server.get("/openapi.json");
    for path in [
        "/v1/request",
        "/v1/rules",
        "/v1/rules/{name}",
        "/v1/start/{rules}",
        "/v1/legal-moves",
        "/v1/choose",
        "/v1/evaluate",
        "/v1/review",
        "/v1/hint",
        "/v1/daily/{date}",
        "/v1/puzzles/{rules}",
        "/v1/puzzles/{rules}/daily/{date}",
        "/v1/puzzles/{rules}/{id}",
        "/v1/solve-puzzle",
        "/healthz",
        "/readyz",
        "/metrics",
    ] {
        assert!(
            openapi.body["paths"][path].is_object(),
            "{path} is documented"
        );
    }
    server.shut_down().unwrap();
}

#[test]
fn a_batch_is_answered_in_order_with_each_request_own_answer() {
    let server = TestServer::default();
    let batch = json!([
        {"id": 1, "cmd": "list_rules"},
        {"id": 2, "cmd": "choose", "position": "nonsense"},
        {"id": 3, "cmd": "choose", "position": UR_START, "roll": 2, "bot": "easy"},
        "not an object"
    ]);
    let answer = server.post("/v1/request", &batch);
    assert_eq!(answer.status, 200);
    let answers = answer.body.as_array().unwrap();
    assert_eq!(answers.len(), 4);
    assert_eq!(answers[0]["id"], 1);
    assert_eq!(answers[1]["error"]["kind"], "invalid_position");
    assert!(answers[2]["move"].is_object());
    assert_eq!(answers[3]["error"]["kind"], "invalid_request");
    assert_eq!(server.post("/v1/request", &json!([])).body, json!([]));
    let too_many = Value::Array(vec![json!({"cmd": "list_rules"}); 65]);
    let refused = server.post("/v1/request", &too_many);
    assert_eq!(refused.status, 413);
    assert_eq!(refused.body["error"]["kind"], "too_large");
    server.shut_down().unwrap();
}

#[test]
fn every_error_has_its_status_and_the_protocol_error_body() {
    let server = TestServer::default();
    let cases: Vec<(Answer, u16, &str)> = vec![
        (
            server.call("POST", "/v1/choose", "{not json"),
            400,
            "invalid_json",
        ),
        (
            server.post("/v1/request", &json!({"cmd": "fly"})),
            400,
            "unknown_command",
        ),
        (
            server.post("/v1/request", &json!(42)),
            400,
            "invalid_request",
        ),
        (server.get("/v1/nowhere"), 404, "not_found"),
        (server.get("/v1/rules/nowhere"), 404, "unknown_rules"),
        (server.get("/v1/start/nowhere"), 404, "unknown_rules"),
        (
            server.call("DELETE", "/v1/rules", Bytes::new()),
            405,
            "method_not_allowed",
        ),
        (server.get("/v1/choose"), 405, "method_not_allowed"),
        (
            server.call("POST", "/v1/choose", vec![b' '; 65 * 1024]),
            413,
            "too_large",
        ),
        (
            server.post(
                "/v1/choose",
                &json!({"position": "ur light 9/-/0 7/-/0", "roll": 2, "bot": "easy"}),
            ),
            422,
            "invalid_position",
        ),
        (
            server.post(
                "/v1/choose",
                &json!({"position": UR_START, "roll": 9, "bot": "easy"}),
            ),
            422,
            "invalid_roll",
        ),
        (
            server.post("/v1/choose", &json!({"position": UR_START, "roll": 2})),
            422,
            "missing_field",
        ),
        (
            server.post(
                "/v1/choose",
                &json!({"position": UR_START, "roll": 2, "bot": "neural:model=/etc/passwd"}),
            ),
            422,
            "invalid_bot",
        ),
        (
            server.post(
                "/v1/choose",
                &json!({"position": UR_START, "roll": 2, "bot": "expectiminimax:depth=4"}),
            ),
            422,
            "invalid_bot",
        ),
        (
            server.post(
                "/v1/request",
                &json!({"cmd": "score", "position": UR_START}),
            ),
            422,
            "unsupported",
        ),
        (server.get("/v1/daily/2026-13-01"), 422, "invalid_field"),
        (
            server.get("/v1/daily/2026-12-01?count=many"),
            422,
            "invalid_field",
        ),
    ];
    for (answer, status, kind) in cases {
        assert_eq!(answer.status, status, "{kind}: {}", answer.text);
        assert_eq!(answer.body["error"]["kind"], kind, "{}", answer.text);
        assert!(
            answer.body["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
    }
    server.shut_down().unwrap();
}

/// Limits that let the slow requests below run to the end.
const UNCUT: Limits = Limits {
    max_depth: 4,
    max_nodes: None,
    time_budget: None,
};

/// A batch of `n` searches of a few hundred milliseconds each (a neural
/// network four plies deep without pruning).
fn slow_batch(n: usize) -> Bytes {
    let slow = json!({"cmd": "choose", "position": "ur light 3/1,5,9/1 3/2,6,10/1", "roll": 2,
        "bot": "neural:model=ur.safetensors:depth=4:pruning=false"});
    Bytes::from(Value::Array(vec![slow; n]).to_string())
}

#[test]
fn a_full_queue_answers_503_with_retry_after_then_recovers() {
    let server = TestServer::start(Config {
        workers: 1,
        queue: 3,
        max_batch: 3,
        limits: UNCUT,
        ..Config::default()
    });
    let addr = server.addr;
    let answers: Vec<Answer> = server.runtime.block_on(async {
        let calls: Vec<_> = (0..8)
            .map(|_| tokio::spawn(call(addr, "POST", "/v1/request", slow_batch(3))))
            .collect();
        let mut answers = Vec::new();
        for c in calls {
            answers.push(c.await.unwrap());
        }
        answers
    });
    let refused: Vec<&Answer> = answers.iter().filter(|a| a.status == 503).collect();
    let served = answers.iter().filter(|a| a.status == 200).count();
    assert!(
        !refused.is_empty(),
        "8 slow batches of 3 overflow one worker and three places"
    );
    assert!(served >= 1);
    assert_eq!(served + refused.len(), 8, "only 200 or 503");
    for answer in refused {
        assert_eq!(answer.headers["retry-after"], "1");
        assert_eq!(answer.body["error"]["kind"], "overloaded");
    }
    // Once the queue drains, requests are served again.
    let again = server.post(
        "/v1/choose",
        &json!({"position": UR_START, "roll": 2, "bot": "easy"}),
    );
    assert_eq!(again.status, 200, "{}", again.text);
    server.shut_down().unwrap();
}

#[test]
fn a_node_budget_answers_a_deep_search_from_the_deepest_depth_it_finished_and_says_so() {
    let server = TestServer::start(Config {
        workers: 1,
        limits: Limits {
            max_nodes: Some(1),
            ..UNCUT
        },
        ..Config::default()
    });
    let ask = |bot: &str| {
        server.post(
            "/v1/choose",
            &json!({"position": "ur light 3/1,5,9/1 3/2,6,10/1", "roll": 2, "bot": bot}),
        )
    };
    // Stopped at once after the first, one-roll search: its answer, with
    // the cut named.
    let capped = ask("neural:model=ur.safetensors:depth=4:pruning=false");
    assert_eq!(capped.status, 200, "{}", capped.text);
    let shallow = ask("neural:model=ur.safetensors:depth=0");
    assert_eq!(capped.body["move"], shallow.body["move"]);
    assert_eq!(capped.body["values"], shallow.body["values"]);
    assert_eq!(
        capped.body["cut"],
        json!({"limit": "the node budget of 1 nodes a request", "finished_depth": 0, "depth": 4}),
        "{}",
        capped.text
    );
    // A depth-0 search finishes its one-roll search whatever the budget:
    // nothing was cut.
    assert!(shallow.body.get("cut").is_none(), "{}", shallow.text);
    server.shut_down().unwrap();
}

#[test]
fn shutting_down_finishes_every_request_in_flight() {
    let server = TestServer::start(Config {
        workers: 2,
        queue: 16,
        max_batch: 16,
        limits: UNCUT,
        ..Config::default()
    });
    let addr = server.addr;
    let in_flight: Vec<_> = (0..6)
        .map(|_| {
            server
                .runtime
                .spawn(call(addr, "POST", "/v1/request", slow_batch(2)))
        })
        .collect();
    // Let them arrive, then stop the server while they are being answered.
    std::thread::sleep(Duration::from_millis(150));
    let TestServer {
        runtime,
        mut stop,
        done,
        ..
    } = server;
    let _ = stop.take().unwrap().send(());
    let answers: Vec<Answer> = runtime.block_on(async {
        let mut answers = Vec::new();
        for request in in_flight {
            answers.push(request.await.unwrap());
        }
        answers
    });
    for answer in &answers {
        assert_eq!(answer.status, 200, "{}", answer.text);
        assert_eq!(
            answer.body.as_array().map(Vec::len),
            Some(2),
            "{}",
            answer.text
        );
        assert!(answer.body[1]["move"].is_object(), "{}", answer.text);
    }
    runtime.block_on(done.unwrap()).unwrap().unwrap();
    // Stopped: new connections are refused.
    let refused = runtime.block_on(tokio::net::TcpStream::connect(addr));
    assert!(refused.is_err());
}

#[test]
fn cors_answers_the_configured_origins_only() {
    let server = TestServer::start(Config {
        workers: 1,
        cors_origins: vec!["https://play.example".to_string()],
        ..Config::default()
    });
    let preflight = |origin: &str| {
        let addr = server.addr;
        server.runtime.block_on(async move {
            let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
            let (mut sender, connection) = http1::handshake(TokioIo::new(stream)).await.unwrap();
            tokio::spawn(connection);
            let request = Request::builder()
                .method("OPTIONS")
                .uri("/v1/choose")
                .header("host", addr.to_string())
                .header("origin", origin)
                .header("access-control-request-method", "POST")
                .header("access-control-request-headers", "content-type")
                .body(Full::new(Bytes::new()))
                .unwrap();
            sender
                .send_request(request)
                .await
                .unwrap()
                .headers()
                .clone()
        })
    };
    let allowed = preflight("https://play.example");
    assert_eq!(
        allowed["access-control-allow-origin"],
        "https://play.example"
    );
    let other = preflight("https://elsewhere.example");
    assert!(!other.contains_key("access-control-allow-origin"));
    server.shut_down().unwrap();
}

fn shared_server() -> &'static TestServer {
    static SERVER: std::sync::OnceLock<TestServer> = std::sync::OnceLock::new();
    SERVER.get_or_init(TestServer::default)
}

fn valid_requests() -> Vec<Value> {
    vec![
        json!({"cmd": "legal_moves", "position": UR_START, "roll": 2}),
        json!({"cmd": "choose", "position": UR_START, "roll": 2, "bot": "easy"}),
        json!({"cmd": "evaluate", "position": UR_START, "bot": "heuristic"}),
        json!({"cmd": "start", "rules": "senet"}),
        json!({"cmd": "daily", "date": "2026-12-01", "count": 3}),
    ]
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|x| json!(x)),
        ".{0,20}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(".{0,8}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_get_a_5xx(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let server = shared_server();
        for path in ["/v1/request", "/v1/choose", "/v1/legal-moves"] {
            let answer = server.call("POST", path, bytes.clone());
            prop_assert!(answer.status < 500, "{path}: {}", answer.text);
            prop_assert!(answer.body["error"]["kind"].is_string() || answer.status == 200, "{}", answer.text);
        }
    }

    #[test]
    fn arbitrary_json_never_gets_a_5xx(value in arbitrary_json()) {
        let server = shared_server();
        for path in ["/v1/request", "/v1/evaluate"] {
            let answer = server.post(path, &value);
            prop_assert!(answer.status < 500, "{path}: {}", answer.text);
        }
    }

    #[test]
    fn a_valid_request_with_one_field_replaced_never_gets_a_5xx(
        which in 0usize..5,
        field in prop_oneof![Just("position"), Just("roll"), Just("bot"), Just("rules"), Just("cmd"), Just("date"), Just("count")],
        value in arbitrary_json(),
    ) {
        let server = shared_server();
        let mut request = valid_requests()[which].clone();
        request[field] = value;
        let answer = server.post("/v1/request", &request);
        prop_assert!(answer.status < 500, "{request}: {}", answer.text);
        // Still alive.
        prop_assert_eq!(server.get("/healthz").status, 200);
    }
}

/// Validates answers against the server's own OpenAPI document: the schema
/// it gives for the route, method and status.
struct SchemaCheck {
    document: Value,
}

impl SchemaCheck {
    fn of(server: &TestServer) -> SchemaCheck {
        let document = server.get("/openapi.json").body;
        assert!(document["components"]["schemas"].is_object());
        SchemaCheck { document }
    }

    /// What is wrong with `body` as the answer of status `status` to
    /// `method` on the route `template`, by the document's schema.
    fn errors(&self, method: &str, template: &str, status: u16, body: &Value) -> Vec<String> {
        let schema = &self.document["paths"][template][method]["responses"][status.to_string()]["content"]
            ["application/json"]["schema"];
        assert!(
            schema.is_object(),
            "{method} {template} documents no JSON schema for status {status}"
        );
        let mut root = schema.clone();
        root["components"] = self.document["components"].clone();
        let validator = jsonschema::draft202012::new(&root)
            .unwrap_or_else(|e| panic!("the schema of {method} {template} {status}: {e}"));
        validator
            .iter_errors(body)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect()
    }

    /// Checks `answer` of `method` on the route `template`; returns what
    /// was checked, for the test's list of what was covered.
    fn check(&self, method: &str, template: &str, answer: &Answer) -> String {
        let errors = self.errors(method, template, answer.status, &answer.body);
        assert!(
            errors.is_empty(),
            "{method} {template} {} does not match its schema: {errors:?}\n{}",
            answer.status,
            answer.text
        );
        format!("{method} {template} {}", answer.status)
    }
}

#[test]
fn every_route_answers_as_its_openapi_schema_says() {
    let server = TestServer::default();
    let schema = SchemaCheck::of(&server);
    let review_game = json!({"rules": "ur", "moves": ["2:0-2", "0:pass", "4:0-4"]});
    let position_notation = UR_START;
    let position_json = server.get("/v1/start/senet").body["position"].clone();
    let puzzle = server.get("/v1/puzzles/ur/ur-eb0d40ab");
    let a_move = puzzle.body["puzzle"]["moves"][0].clone();
    let gets: Vec<(&str, String)> = vec![
        ("/v1/rules", "/v1/rules".into()),
        ("/v1/rules/{name}", "/v1/rules/ur".into()),
        ("/v1/rules/{name}", "/v1/rules/senet".into()),
        ("/v1/rules/{name}", "/v1/rules/nowhere".into()),
        ("/v1/start/{rules}", "/v1/start/masters".into()),
        ("/v1/daily/{date}", "/v1/daily/2026-12-02?count=5".into()),
        ("/v1/daily/{date}", "/v1/daily/2026-02-30".into()),
        (
            "/v1/puzzles/{rules}/daily/{date}",
            "/v1/puzzles/ur/daily/2026-12-05".into(),
        ),
        (
            "/v1/puzzles/{rules}/{id}",
            "/v1/puzzles/ur/ur-eb0d40ab".into(),
        ),
        (
            "/v1/puzzles/{rules}/{id}",
            "/v1/puzzles/ur/ur-00000000".into(),
        ),
        (
            "/v1/puzzles/{rules}",
            "/v1/puzzles/sawah?rating=300&seed=2".into(),
        ),
        ("/healthz", "/healthz".into()),
        ("/readyz", "/readyz".into()),
    ];
    let posts: Vec<(&str, Value)> = vec![
        (
            "/v1/legal-moves",
            json!({"position": position_notation, "roll": 2}),
        ),
        (
            "/v1/legal-moves",
            json!({"position": position_json, "roll": 3}),
        ),
        (
            "/v1/legal-moves",
            json!({"position": position_notation, "roll": 9}),
        ),
        (
            "/v1/choose",
            json!({"position": position_notation, "roll": 2, "bot": "hard"}),
        ),
        (
            "/v1/choose",
            json!({"position": position_notation, "roll": 0, "bot": "hard"}),
        ),
        (
            "/v1/choose",
            json!({"position": position_notation, "roll": 2, "bot": "random"}),
        ),
        (
            "/v1/choose",
            json!({"position": position_json, "roll": 2, "bot": {"agent": "expectiminimax", "depth": 1}}),
        ),
        (
            "/v1/choose",
            json!({"position": position_notation, "roll": 2}),
        ),
        (
            "/v1/evaluate",
            json!({"position": position_notation, "bot": "medium"}),
        ),
        ("/v1/review", json!({"game": review_game})),
        (
            "/v1/review",
            json!({"game": {"rules": "ur", "moves": ["2:0-9"]}}),
        ),
        (
            "/v1/hint",
            json!({"position": position_notation, "roll": 4}),
        ),
        ("/v1/hint", json!({"position": position_notation})),
        (
            "/v1/solve-puzzle",
            json!({"rules": "ur", "puzzle": "ur-eb0d40ab", "move": a_move}),
        ),
        ("/v1/request", json!({"id": 7, "cmd": "hello"})),
        ("/v1/request", json!({"id": 8, "cmd": "list_rules"})),
        (
            "/v1/request",
            json!({"cmd": "score", "position": position_json}),
        ),
        ("/v1/request", json!({"cmd": "fly"})),
        (
            "/v1/request",
            json!([
                {"id": 1, "cmd": "start", "rules": "ur"},
                {"id": 2, "cmd": "rules", "rules": "senet"},
                {"id": 3, "cmd": "daily", "date": "2026-12-01", "count": 3},
                {"id": 4, "cmd": "review", "game": {"rules": "ur", "moves": ["2:0-2"]}},
                {"id": 5, "cmd": "puzzle", "rules": "ur", "rating": 500},
                {"id": 6, "cmd": "choose", "position": UR_START, "roll": 9, "bot": "easy"},
            ]),
        ),
    ];
    let mut covered = std::collections::BTreeSet::new();
    // The check can fail: an answer with a wrong field does not pass.
    let mut chosen = server.post("/v1/choose", &posts[3].1);
    schema.check("post", "/v1/choose", &chosen);
    chosen.body["move"]["to"] = json!("home");
    assert!(
        !schema
            .errors("post", "/v1/choose", 200, &chosen.body)
            .is_empty()
    );
    for (template, path) in &gets {
        covered.insert(schema.check("get", template, &server.get(path)));
    }
    for (template, body) in &posts {
        covered.insert(schema.check("post", template, &server.post(template, body)));
    }
    // Every JSON route of the document was checked with at least its 200.
    let paths = schema.document["paths"].as_object().unwrap();
    for (path, methods) in paths {
        for method in methods.as_object().unwrap().keys() {
            let json =
                methods[method]["responses"]["200"]["content"]["application/json"].is_object();
            let name = format!("{method} {path} 200");
            assert!(
                !json || path == "/openapi.json" || covered.contains(&name),
                "{name} was not checked"
            );
        }
    }
    server.shut_down().unwrap();
}
