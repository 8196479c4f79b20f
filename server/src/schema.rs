//! The OpenAPI document's schemas: each route's annotation names the types
//! of its body and answers ([`Typed`]), and the document's
//! `components.schemas` are made from those types: the protocol's
//! ([`sawah_protocol::schema_document`]) and the server's own answers
//! here, so a client generated from `/openapi.json` reads exactly what the
//! server writes.

use sawah_protocol::ErrorKind;
use sawah_protocol::messages::{schema_definitions, schema_generator};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};
use std::marker::PhantomData;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{Array, OneOf, Ref, Schema};
use utoipa::{PartialSchema, ToSchema};

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

/// A type with a JSON Schema (the protocol's requests and answers, the
/// server's own answers) named in a route's annotation: a reference to its
/// entry in `components.schemas`, which [`with_schemas`] fills from the
/// types. Routes name their body and answers through the aliases in
/// [`of`] (`inline(of::ChooseAnswer)`), so the handler's annotation is the
/// route's schema; a test checks that every reference names a schema.
pub struct Typed<T>(PhantomData<T>);

fn reference_to<T: JsonSchema>() -> RefOr<Schema> {
    RefOr::Ref(Ref::from_schema_name(T::schema_name()))
}

impl<T: JsonSchema> PartialSchema for Typed<T> {
    fn schema() -> RefOr<Schema> {
        reference_to::<T>()
    }
}

impl<T: JsonSchema> ToSchema for Typed<T> {}

/// Either of two typed answers (`/v1/hint`: the ranked moves, or without
/// a roll the roll table).
pub struct Either<A, B>(PhantomData<(A, B)>);

impl<A: JsonSchema, B: JsonSchema> PartialSchema for Either<A, B> {
    fn schema() -> RefOr<Schema> {
        let mut one_of = OneOf::new();
        one_of.items = vec![reference_to::<A>(), reference_to::<B>()];
        RefOr::T(Schema::OneOf(one_of))
    }
}

impl<A: JsonSchema, B: JsonSchema> ToSchema for Either<A, B> {}

/// One `T` or an array of them (`/v1/request`: a request or a batch).
pub struct Batch<T>(PhantomData<T>);

impl<T: JsonSchema> PartialSchema for Batch<T> {
    fn schema() -> RefOr<Schema> {
        let mut one_of = OneOf::new();
        one_of.items = vec![
            reference_to::<T>(),
            RefOr::T(Schema::Array(Array::new(reference_to::<T>()))),
        ];
        RefOr::T(Schema::OneOf(one_of))
    }
}

impl<T: JsonSchema> ToSchema for Batch<T> {}

/// The types the routes' annotations name, as schema references: utoipa's
/// annotations take a type's own path, not a generic one, so each is named
/// here once (`body = inline(of::ChooseAnswer)`).
pub mod of {
    use super::{Batch, Either, Typed};
    use sawah_protocol::messages as m;

    /// A request or a batch of them (`POST /v1/request`).
    pub type RequestBatch = Batch<m::RequestLine>;
    /// A response or a batch of them (`POST /v1/request`).
    pub type ResponseBatch = Batch<m::Response>;
    /// Every error answer.
    pub type HttpError = Typed<super::HttpError>;
    /// `/healthz`.
    pub type Health = Typed<super::Health>;
    /// `/readyz`.
    pub type Readiness = Typed<super::Readiness>;
    /// `POST /v1/legal-moves`.
    pub type LegalMovesRequest = Typed<m::LegalMovesRequest>;
    /// `POST /v1/choose`.
    pub type ChooseRequest = Typed<m::ChooseRequest>;
    /// `POST /v1/evaluate`.
    pub type EvaluateRequest = Typed<m::EvaluateRequest>;
    /// `POST /v1/review`.
    pub type ReviewRequest = Typed<m::ReviewRequest>;
    /// `POST /v1/hint`.
    pub type HintRequest = Typed<m::HintRequest>;
    /// `POST /v1/solve-puzzle`.
    pub type SolvePuzzleRequest = Typed<m::SolvePuzzleRequest>;
    /// The answer of `legal_moves`.
    pub type LegalMovesAnswer = Typed<m::LegalMovesAnswer>;
    /// The answer of `choose`.
    pub type ChooseAnswer = Typed<m::ChooseAnswer>;
    /// The answer of `evaluate`.
    pub type EvaluateAnswer = Typed<m::EvaluateAnswer>;
    /// The answer of `review`.
    pub type ReviewAnswer = Typed<sawah_agents::review::Review>;
    /// The answer of `hint`: the ranked moves, or without a roll the roll table.
    pub type HintAnswer = Either<m::HintAnswer, m::RollTableAnswer>;
    /// The answer of `start`.
    pub type StartAnswer = Typed<m::StartAnswer>;
    /// The answer of `rules`.
    pub type RulesAnswer = Typed<m::RulesAnswer>;
    /// The answer of `list_rules`.
    pub type ListRulesAnswer = Typed<m::ListRulesAnswer>;
    /// The answer of `daily`.
    pub type DailyAnswer = Typed<m::DailyAnswer>;
    /// The answer of `puzzle`.
    pub type PuzzleAnswer = Typed<m::PuzzleAnswer>;
    /// The answer of `solve_puzzle`.
    pub type SolvePuzzleAnswer = Typed<m::SolvePuzzleAnswer>;
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

/// `document` (the router's: every route with its parameters, statuses
/// and the types its annotation names) with `components.schemas` made
/// from those types.
pub fn with_schemas(mut document: Value) -> Value {
    document["components"]["schemas"] = Value::Object(schemas());
    document
}
