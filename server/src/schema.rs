//! The OpenAPI document's schemas: each route's real request and answer,
//! from the protocol's types ([`sawah_protocol::schema_document`]) and the
//! server's own answers here, so a client generated from `/openapi.json`
//! reads exactly what the server writes.

use sawah_protocol::ErrorKind;
use sawah_protocol::messages::{schema_definitions, schema_generator};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value, json};

/// The kinds of refusal the HTTP layer adds to the protocol's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ServerErrorKind {
    /// No such route.
    NotFound,
    /// The route does not take this method.
    MethodNotAllowed,
    /// The queue is full: retry after `Retry-After` seconds.
    Overloaded,
    /// Shutting down, or wedged.
    Unavailable,
    /// The body did not arrive in time.
    Timeout,
    /// A bug: a worker failed.
    Internal,
}

/// An error kind of an HTTP answer: the protocol's, or the server's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum HttpErrorKind {
    /// A protocol error kind.
    Protocol(ErrorKind),
    /// A refusal by the HTTP layer.
    Server(ServerErrorKind),
}

impl From<ErrorKind> for HttpErrorKind {
    fn from(kind: ErrorKind) -> HttpErrorKind {
        HttpErrorKind::Protocol(kind)
    }
}

impl From<ServerErrorKind> for HttpErrorKind {
    fn from(kind: ServerErrorKind) -> HttpErrorKind {
        HttpErrorKind::Server(kind)
    }
}

/// The error of an HTTP answer.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct HttpErrorBody {
    /// What went wrong, for programs.
    pub kind: HttpErrorKind,
    /// What went wrong, for people.
    pub message: String,
}

/// Every error answer of the server: `{"error":{"kind":K,"message":M}}`,
/// with the request's `"id"` when a protocol request gave one.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct HttpError {
    /// The request's id, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    /// The error.
    pub error: HttpErrorBody,
}

/// The answer of `/healthz`.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Health {
    /// Always `"ok"`.
    pub status: String,
}

/// The answer of `/readyz` when ready.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Readiness {
    /// Always `"ready"`.
    pub status: String,
    /// Worker threads.
    pub workers: usize,
    /// Jobs waiting.
    pub queued: usize,
    /// Places in the queue.
    pub places: usize,
}

/// One route's schemas, by name in `components.schemas`: the request
/// body's (if the route takes one) and the 200 answer's (one of several
/// for routes that answer in more than one form).
struct RouteSchemas {
    path: &'static str,
    method: &'static str,
    request: Option<&'static str>,
    answers: &'static [&'static str],
}

const fn route(
    path: &'static str,
    method: &'static str,
    request: Option<&'static str>,
    answers: &'static [&'static str],
) -> RouteSchemas {
    RouteSchemas {
        path,
        method,
        request,
        answers,
    }
}

/// Every JSON route and its schemas (`/v1/request` is added separately: a
/// request or a batch of them).
const ROUTES: &[RouteSchemas] = &[
    route("/v1/rules", "get", None, &["ListRulesAnswer"]),
    route("/v1/rules/{name}", "get", None, &["RulesAnswer"]),
    route("/v1/start/{rules}", "get", None, &["StartAnswer"]),
    route(
        "/v1/legal-moves",
        "post",
        Some("LegalMovesRequest"),
        &["LegalMovesAnswer"],
    ),
    route(
        "/v1/choose",
        "post",
        Some("ChooseRequest"),
        &["ChooseAnswer"],
    ),
    route(
        "/v1/evaluate",
        "post",
        Some("EvaluateRequest"),
        &["EvaluateAnswer"],
    ),
    route(
        "/v1/review",
        "post",
        Some("ReviewRequest"),
        &["ReviewAnswer"],
    ),
    route(
        "/v1/hint",
        "post",
        Some("HintRequest"),
        &["HintAnswer", "RollTableAnswer"],
    ),
    route("/v1/daily/{date}", "get", None, &["DailyAnswer"]),
    route(
        "/v1/puzzles/{rules}/daily/{date}",
        "get",
        None,
        &["PuzzleAnswer"],
    ),
    route("/v1/puzzles/{rules}/{id}", "get", None, &["PuzzleAnswer"]),
    route("/v1/puzzles/{rules}", "get", None, &["PuzzleAnswer"]),
    route(
        "/v1/solve-puzzle",
        "post",
        Some("SolvePuzzleRequest"),
        &["SolvePuzzleAnswer"],
    ),
    route("/healthz", "get", None, &["Health"]),
    route("/readyz", "get", None, &["Readiness"]),
];

fn reference(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

fn one_of(names: &[&str]) -> Value {
    match names {
        [one] => reference(one),
        many => json!({ "oneOf": many.iter().map(|n| reference(n)).collect::<Vec<_>>() }),
    }
}

/// Every schema the document refers to: the protocol's and the server's.
fn schemas() -> Map<String, Value> {
    let mut schemas = sawah_protocol::schema_document();
    // The server's own answers: schemas of what it writes.
    let mut generator = schema_generator(true);
    let own = vec![
        ("HttpError", generator.subschema_for::<HttpError>()),
        ("Health", generator.subschema_for::<Health>()),
        ("Readiness", generator.subschema_for::<Readiness>()),
    ];
    for (name, schema) in schema_definitions(generator, own) {
        schemas.entry(name).or_insert(schema);
    }
    schemas
}

/// Sets the JSON content schema of `content` (an OpenAPI `content` map) to
/// `schema`, for `application/json`.
fn set_json_schema(holder: &mut Value, schema: Value) {
    holder["content"]["application/json"]["schema"] = schema;
}

/// `document` (utoipa's, which gives the routes, parameters and statuses)
/// with the real schemas: `components.schemas` from the types, each route's
/// request body and 200 answer referring to its own, and every error
/// answer to [`HttpError`].
pub fn with_schemas(mut document: Value) -> Value {
    document["components"]["schemas"] = Value::Object(schemas());
    let batch_of = |name: &str| json!({ "oneOf": [reference(name), { "type": "array", "items": reference(name) }] });
    let mut routes: Vec<(&str, &str, Option<Value>, Value)> = ROUTES
        .iter()
        .map(|r| {
            (
                r.path,
                r.method,
                r.request.map(reference),
                one_of(r.answers),
            )
        })
        .collect();
    routes.push((
        "/v1/request",
        "post",
        Some(batch_of("RequestLine")),
        batch_of("Response"),
    ));
    for (path, method, request, answer) in routes {
        let operation = &mut document["paths"][path][method];
        if let Some(request) = request {
            set_json_schema(&mut operation["requestBody"], request);
        }
        let Some(responses) = operation["responses"].as_object_mut() else {
            continue;
        };
        for (status, response) in responses.iter_mut() {
            let schema = if status == "200" {
                answer.clone()
            } else {
                reference("HttpError")
            };
            set_json_schema(response, schema);
        }
    }
    document
}
