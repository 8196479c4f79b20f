//! One way to write a file: outside `agents/src/files.rs` (atomic writes,
//! [`open_for_writing`], the folder lock), no crate's code opens a file
//! for writing, so none can write through a link planted at a file's
//! name. This test reads every crate's code (test modules and comments
//! left out, whole files, library code after a test module included) and
//! fails on a write that does not go through the helper, naming it.
//!
//! [`open_for_writing`]: sawah_agents::files::open_for_writing

use std::path::{Path, PathBuf};

/// The code of a Rust file without its comments and its `#[cfg(test)]`
/// items (the import test's reader: braces matched with strings and
/// characters skipped, so code after a test module counts).
fn code_of(text: &str) -> String {
    super::imports::without_tests(text)
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// What writes a file, and the writes each file may make (with why).
const WRITES: [&str; 6] = [
    "OpenOptions::new()",
    "File::create(",
    "fs::write(",
    "fs::copy(",
    "File::options(",
    "create_new(true)",
];

/// The files allowed to open files for writing, and why.
const ALLOWED: [(&str, &str); 4] = [
    ("agents/src/files.rs", "the helper itself"),
    (
        "eval/src/arena/outside/link.rs",
        "a bot's log, opened with O_NOFOLLOW and O_NONBLOCK (a FIFO must not block)",
    ),
    (
        "cli/src/commands/play/mod.rs",
        "a probe created only if nothing is there (create_new: never through a link)",
    ),
    (
        "engine/src/files.rs",
        "readers only: OpenOptions for reading",
    ),
];

#[test]
fn every_file_written_goes_through_the_helper() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut sources = Vec::new();
    for crate_dir in [
        "engine", "agents", "solver", "train", "eval", "protocol", "cli", "server", "web", "python",
    ] {
        files(&root.join(crate_dir).join("src"), &mut sources);
    }
    assert!(sources.len() > 100, "{} files", sources.len());
    let mut found = Vec::new();
    for path in &sources {
        let relative = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if ALLOWED.iter().any(|(file, _)| *file == relative) {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(path).unwrap());
        for pattern in WRITES {
            if code.contains(pattern) {
                found.push(format!("{relative}: {pattern}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "files opened for writing outside agents::files (write them with write_atomically, \
         copy_atomically or open_for_writing, which never follow a link at the name): {found:#?}"
    );
}

/// The reader of code sees what it must: code after a test module, and
/// not the test module itself.
#[test]
fn the_scan_sees_code_after_a_test_module_and_skips_tests() {
    let text = "fn a() {}\n#[cfg(test)]\nmod tests {\n    fn t() { std::fs::write(\"x\", b\"\"); }\n}\nfn b() { std::fs::copy(\"a\", \"b\"); }\n// std::fs::write in a comment\n";
    let code = code_of(text);
    assert!(!code.contains("fs::write("), "{code}");
    assert!(code.contains("fs::copy("), "{code}");
    assert!(code.contains("fn a()") && code.contains("fn b()"));
}
