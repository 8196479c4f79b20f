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
