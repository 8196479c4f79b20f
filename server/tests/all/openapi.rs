//! The OpenAPI document in `docs/openapi.json` is the one `sawah serve`
//! gives at `/openapi.json`: the npm package's TypeScript types are
//! generated from that file (`web/js/protocol.d.ts`, checked by the web
//! tests), so a change to the protocol's types that is not written out
//! fails here first.

use std::path::Path;

#[test]
fn the_committed_openapi_document_is_the_one_the_server_serves() {
    let document = sawah_server::api::openapi_document();
    let text = serde_json::to_string_pretty(&document).expect("the document writes") + "\n";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/openapi.json");
    if std::env::var_os("SAWAH_WRITE_OPENAPI").is_some() {
        std::fs::write(&path, &text).expect("docs/openapi.json is writable");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "docs/openapi.json differs from the server's document: regenerate it with \
         SAWAH_WRITE_OPENAPI=1 cargo test -p sawah-server --test openapi, then the \
         TypeScript types with (cd web && npm run types)"
    );
}

/// Every `$ref` in `value`.
fn references(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            if let Some(serde_json::Value::String(target)) = map.get("$ref") {
                out.push(target.clone());
            }
            map.values().for_each(|v| references(v, out));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| references(v, out)),
        _ => {}
    }
}

#[test]
fn every_reference_names_a_schema_and_every_json_answer_has_one() {
    let document = sawah_server::api::openapi_document();
    let schemas = document["components"]["schemas"].as_object().unwrap();
    let mut found = Vec::new();
    references(&document, &mut found);
    assert!(found.len() > 50, "{}", found.len());
    for target in &found {
        let name = target
            .strip_prefix("#/components/schemas/")
            .unwrap_or_else(|| panic!("{target} is not a schema reference"));
        assert!(schemas.contains_key(name), "{target} names no schema");
    }
    // The annotations name a type for every JSON body and answer (only the
    // document itself, /openapi.json, is any object).
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let mut bodies: Vec<&serde_json::Value> = operation["responses"]
                .as_object()
                .unwrap()
                .values()
                .collect();
            bodies.push(&operation["requestBody"]);
            for body in bodies {
                let schema = &body["content"]["application/json"]["schema"];
                if schema.is_null() || path == "/openapi.json" {
                    continue;
                }
                let mut named = Vec::new();
                references(schema, &mut named);
                assert!(!named.is_empty(), "{method} {path}: {schema}");
            }
        }
    }
}
