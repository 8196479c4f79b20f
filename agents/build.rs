//! With the `shipped` feature, embeds the shipped models (`../models`: the
//! manifest, every `.safetensors` file and every `.puzzles.jsonl` puzzle set) in the crate (`sawah_agents::
//! shipped`), so that `easy`, `medium` and `hard` work from an installed
//! `sawah` binary or Python wheel with no files beside it. Without it (the
//! browser package, which is handed its models as bytes), nothing is done.

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    if std::env::var_os("CARGO_FEATURE_SHIPPED").is_none() {
        return;
    }
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let models = manifest_dir.join("../models");
    println!("cargo:rerun-if-changed={}", models.display());
    let mut names: Vec<String> = std::fs::read_dir(&models)
        .expect("the shipped models folder ../models")
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".safetensors") || name.ends_with(".puzzles.jsonl"))
        .collect();
    names.sort();
    let path = |name: &str| {
        models
            .join(name)
            .canonicalize()
            .expect("a shipped model file")
    };
    let mut code = String::new();
    let manifest = path("manifest.json");
    writeln!(code, "/// The shipped manifest.").unwrap();
    writeln!(
        code,
        "pub const MANIFEST: &[u8] = include_bytes!({:?});",
        manifest
    )
    .unwrap();
    writeln!(code, "/// The shipped model files, by file name.").unwrap();
    writeln!(code, "pub const FILES: &[(&str, &[u8])] = &[").unwrap();
    for name in &names {
        writeln!(code, "    ({name:?}, include_bytes!({:?})),", path(name)).unwrap();
    }
    writeln!(code, "];").unwrap();
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo")).join("shipped.rs");
    std::fs::write(out, code).expect("writing the list of shipped models");
}
