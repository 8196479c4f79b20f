//! The bot protocol for the browser: a thin wasm-bindgen layer over
//! `sawah-protocol`. The JavaScript package (`web/js/`) wraps it in a typed
//! API; this layer only moves strings and bytes across.
//!
//! Every answer is `sawah_protocol::Bot::handle_line`'s, so a request gets
//! the same response here as from `sawah bot`. Files (models, tables,
//! weights) are handed over as bytes under a name; nothing is read from
//! anywhere else.
// No function outside tests longer than 100 lines (clippy.toml).
#![warn(clippy::too_many_lines)]

use sawah_agents::manifest::Models;
use sawah_engine::registry::Registry;
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;

/// A bot: the rule sets, the models and tables handed to it, and the
/// protocol.
///
/// # Examples
///
/// The browser's calls, made natively: a request line in, its answer line
/// out, the same as `sawah bot` gives.
///
/// ```
/// use sawah_wasm::WasmBot;
///
/// let bot = WasmBot::new();
/// let answer = bot.handle_line(r#"{"id":1,"cmd":"choose","position":"ur light 7/-/0 7/-/0","roll":2,"bot":"easy"}"#);
/// let answer: serde_json::Value = serde_json::from_str(&answer).unwrap();
/// assert_eq!(answer["id"], 1);
/// assert_eq!(answer["move"]["to"], 2);
/// ```
#[wasm_bindgen]
pub struct WasmBot {
    bot: sawah_protocol::Bot,
    /// Files handed over for the next [`WasmBot::load_models`].
    staged: BTreeMap<String, Vec<u8>>,
}

impl Default for WasmBot {
    fn default() -> WasmBot {
        WasmBot::new()
    }
}

#[wasm_bindgen]
impl WasmBot {
    /// A bot knowing every built-in rule set, with no models (levels are
    /// the built-in presets until [`WasmBot::load_models`]).
    #[wasm_bindgen(constructor)]
    pub fn new() -> WasmBot {
        WasmBot {
            bot: sawah_protocol::Bot::new(Registry::new()),
            staged: BTreeMap::new(),
        }
    }

    /// Hands over a file that the next `load_models` reads by name (a model
    /// file its manifest names).
    #[wasm_bindgen(js_name = stageFile)]
    pub fn stage_file(&mut self, name: String, bytes: Vec<u8>) {
        self.staged.insert(name, bytes);
    }

    /// Loads the shipped levels from a manifest's bytes and the staged
    /// files, checking each model's SHA-256 as `sawah bot --models` does;
    /// the staged files are released either way. Throws with the reason.
    #[wasm_bindgen(js_name = loadModels)]
    pub fn load_models(&mut self, manifest: &[u8]) -> Result<(), JsError> {
        let staged = std::mem::take(&mut self.staged);
        let models = Models::from_bytes(manifest, "manifest.json", |name, _limit| {
            staged
                .get(name)
                .cloned()
                .ok_or_else(|| "not handed over".to_string())
        })
        .map_err(|e| JsError::new(&e.to_string()))?;
        self.bot
            .set_models(Some(models))
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// Holds a model (SafeTensors bytes) under `name`, for specs such as
    /// `neural:model=NAME`. Throws if the bytes are not a model.
    #[wasm_bindgen(js_name = addModel)]
    pub fn add_model(&mut self, name: &str, bytes: &[u8]) -> Result<(), JsError> {
        self.bot
            .assets_mut()
            .add_model_bytes(name, bytes)
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// Holds a solved table's bytes under `name`, for `perfect:table=NAME`.
    #[wasm_bindgen(js_name = addTable)]
    pub fn add_table(&mut self, name: &str, bytes: Vec<u8>) {
        self.bot.assets_mut().add_table_bytes(name, bytes);
    }

    /// The table `perfect` plays from when its spec names none, and that
    /// plays when a request names no bot (`undefined` for none).
    #[wasm_bindgen(js_name = setTable)]
    pub fn set_table(&mut self, name: Option<String>) {
        self.bot.set_table(name);
    }

    /// Holds a heuristic weights file's text under `name`, for
    /// `heuristic:weights=NAME`.
    #[wasm_bindgen(js_name = addWeights)]
    pub fn add_weights(&mut self, name: &str, json: String) {
        self.bot.assets_mut().add_weights(name, json);
    }

    /// Answers one request line (JSON text) with one response line, as
    /// `sawah bot` does.
    #[wasm_bindgen(js_name = handleLine)]
    pub fn handle_line(&self, line: &str) -> String {
        self.bot.handle_line(line)
    }
}

/// The package's version (the workspace's).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_load_from_staged_files_and_a_missing_one_is_named() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
        let manifest = std::fs::read(dir.join("manifest.json")).unwrap();
        let mut bot = WasmBot::new();
        let answer = bot.handle_line(
            r#"{"cmd":"choose","position":"ur light 7/-/0 7/-/0","roll":2,"bot":"hard"}"#,
        );
        assert!(answer.contains("\"move\""), "{answer}");
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            // The manifest names models and puzzle sets.
            if name.ends_with(".safetensors") || name.ends_with(".puzzles.jsonl") {
                bot.stage_file(name, std::fs::read(&path).unwrap());
            }
        }
        assert!(bot.load_models(&manifest).is_ok());
        assert!(bot.staged.is_empty(), "staged files are released");
        let neural = bot.handle_line(r#"{"cmd":"choose","position":"ur light 7/-/0 7/-/0","roll":2,"bot":"neural:model=ur.safetensors"}"#);
        assert!(neural.contains("\"values\":[{"), "{neural}");
        let puzzle = bot.handle_line(r#"{"cmd":"puzzle","rules":"ur","date":"2026-12-05"}"#);
        assert!(puzzle.contains("\"ur-eb0d40ab\""), "{puzzle}");
    }
}
