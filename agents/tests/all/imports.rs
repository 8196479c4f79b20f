//! No import circle among the files of `sawah-agents`: each file's
//! imports of the crate's other files (`crate::…`, `super::…`, the crate
//! root's re-exports, a `mod.rs`'s uses of its children), outside tests and
//! comments, form a graph without cycles, so every file can be read and
//! changed knowing only the files below it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, by its path relative to `root`.
fn sources(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path: PathBuf = entry.unwrap().path();
        if path.is_dir() {
            sources(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            // Code only: tests and comments do not count.
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            let code: Vec<&str> = code
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect();
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.insert(relative, code.join("\n"));
        }
    }
}

/// A file's module path: `review.rs` is `[review]`, `neural/mod.rs` is
/// `[neural]`, `lib.rs` is `[]`.
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// The paths a file names after `crate::`, `super::` or (in a `mod.rs`) a
/// child module, each as (base, segments), `{a, b::c}` groups expanded.
fn named_paths(code: &str) -> Vec<(String, Vec<String>)> {
    let mut found = Vec::new();
    let text = code;
    for base in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(at) = text[from..].find(base) {
            let start = from + at;
            from = start + base.len();
            // A whole word: not `xcrate::`.
            if start > 0 && text[..start].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &text[from..];
            let path: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let mut segments: Vec<String> = path
                .split("::")
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect();
            let after = &rest[path.len()..];
            if path.ends_with("::") && after.starts_with('{') {
                let group = &after[1..after.find('}').unwrap_or(after.len())];
                for item in group.split(',') {
                    let mut full = segments.clone();
                    full.extend(
                        item.trim()
                            .split("::")
                            .filter(|s| !s.is_empty() && *s != "self")
                            .map(String::from),
                    );
                    found.push((base.trim_end_matches("::").to_string(), full));
                }
                continue;
            }
            if segments.is_empty() {
                continue;
            }
            found.push((
                base.trim_end_matches("::").to_string(),
                std::mem::take(&mut segments),
            ));
        }
    }
    found
}

#[test]
fn no_file_of_the_crate_imports_a_file_that_imports_it_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    sources(&root, &root, &mut files);
    let by_module: BTreeMap<Vec<String>, String> =
        files.keys().map(|f| (module_of(f), f.clone())).collect();
    // The deepest file a module path falls in.
    let file_of = |path: &[String]| -> Option<String> {
        (1..=path.len())
            .rev()
            .find_map(|n| by_module.get(&path[..n]).cloned())
    };
    // The crate root's re-exports: a name to the module it comes from.
    let mut reexports: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in files["lib.rs"].lines() {
        if let Some(used) = line.trim().strip_prefix("pub use ") {
            let (module, names) = used.split_once("::").unwrap_or((used, ""));
            for name in names.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                if !name.is_empty() {
                    reexports.insert(name.to_string(), vec![module.to_string()]);
                }
            }
        }
    }
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, code) in &files {
        if file == "lib.rs" {
            continue;
        }
        let me = module_of(file);
        let mut targets = BTreeSet::new();
        for (base, segments) in named_paths(code) {
            let full = match base.as_str() {
                "crate" if segments.len() == 1 && reexports.contains_key(&segments[0]) => {
                    reexports[&segments[0]].clone()
                }
                "crate" => segments,
                _ => {
                    let mut parent = me.clone();
                    parent.pop();
                    parent.extend(segments);
                    parent
                }
            };
            targets.extend(file_of(&full));
        }
        // A `mod.rs` using its children (`pub use race::RaceHeuristic`).
        if file.ends_with("mod.rs") {
            for line in code.lines() {
                let line = line.trim().trim_start_matches("pub ");
                if let Some(used) = line.strip_prefix("use ") {
                    let first = used.split("::").next().unwrap_or("");
                    let mut child = me.clone();
                    child.push(first.to_string());
                    if let Some(target) = by_module.get(&child) {
                        targets.insert(target.clone());
                    }
                }
            }
        }
        targets.remove(file);
        edges.insert(file.clone(), targets);
    }
    assert!(
        edges["spec.rs"].contains("agent.rs") && edges["review.rs"].contains("strength.rs"),
        "the graph is read: {edges:?}"
    );
    // Depth-first search for a cycle.
    fn visit(
        file: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|f| f == file) {
            let mut cycle = path[at..].to_vec();
            cycle.push(file.to_string());
            return Some(cycle);
        }
        if done.contains(file) {
            return None;
        }
        path.push(file.to_string());
        for next in edges.get(file).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, done, path) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(file.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for file in edges.keys() {
        if let Some(cycle) = visit(file, &edges, &mut done, &mut Vec::new()) {
            panic!("an import circle: {}", cycle.join(" -> "));
        }
    }
}
