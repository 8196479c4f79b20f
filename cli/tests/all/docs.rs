//! The docs and the help agree: every `--flag` a command line in README.md
//! or docs/*.md gives to a `sawah` subcommand is one that subcommand has.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

/// `sawah SUBCOMMAND --help` (a subcommand's own subcommand too, as
/// `puzzles generate`), or None for words that are not a subcommand.
fn help(subcommand: &str) -> Option<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_sawah"))
        .args(subcommand.split(' ').chain(["--help"]))
        .output()
        .unwrap();
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The documents' lines, with `\`-continued lines joined.
fn lines(text: &str) -> Vec<String> {
    let mut joined = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        match line.trim_end().strip_suffix('\\') {
            Some(head) => current.push_str(head),
            None => {
                current.push_str(line);
                joined.push(std::mem::take(&mut current));
            }
        }
    }
    joined
}

/// The `--flags` in `text`, up to the end of its command (a `|`, `;`, `&`,
/// a comment or a closing backtick).
fn flags(text: &str) -> Vec<String> {
    let end = text
        .find(['|', ';', '&', '#', '`', ')'])
        .unwrap_or(text.len());
    text[..end]
        .split_whitespace()
        .filter_map(|word| word.strip_prefix("--"))
        .map(|flag| flag.split('=').next().unwrap_or(flag))
        .filter(|flag| !flag.is_empty() && flag.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        .map(|flag| format!("--{flag}"))
        .collect()
}

#[test]
fn every_documented_flag_is_one_the_subcommand_has() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut documents = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            documents.push(path);
        }
    }
    let mut helps: HashMap<String, Option<String>> = HashMap::new();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for document in &documents {
        let text = std::fs::read_to_string(document).unwrap();
        for line in lines(&text) {
            let mut rest = line.as_str();
            while let Some(at) = rest.find("sawah ") {
                let after = &rest[at + "sawah ".len()..];
                let after = after.strip_prefix("-- ").unwrap_or(after);
                let subcommand: String = after
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                    .collect();
                rest = &after[subcommand.len()..];
                if subcommand.is_empty() || subcommand.starts_with('-') {
                    continue;
                }
                // A family of subcommands (`sawah puzzles generate …`):
                // the flags are the inner subcommand's.
                let mut subcommand = subcommand;
                let family = helps
                    .entry(subcommand.clone())
                    .or_insert_with(|| help(&subcommand))
                    .as_ref()
                    .is_some_and(|h| h.contains("\nCommands:\n"));
                if family {
                    let inner: String = rest
                        .trim_start()
                        .chars()
                        .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                        .collect();
                    if !inner.is_empty() {
                        rest = &rest.trim_start()[inner.len()..];
                        subcommand = format!("puzzles {inner}");
                    }
                }
                let help = helps
                    .entry(subcommand.clone())
                    .or_insert_with(|| help(&subcommand));
                let Some(help) = help else { continue };
                let command_text = rest.split("sawah ").next().unwrap_or(rest);
                for flag in flags(command_text) {
                    checked += 1;
                    let known = help.contains(&format!("{flag} "))
                        || help.contains(&format!("{flag},"))
                        || help.contains(&format!("{flag}\n"));
                    if !known {
                        wrong.push(format!("{}: sawah {subcommand} {flag}", document.display()));
                    }
                }
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} flags found: is the scan broken?"
    );
    assert!(
        wrong.is_empty(),
        "documented flags the commands do not have:\n{}",
        wrong.join("\n")
    );
}

/// The first sentence of a source file's module documentation: its leading
/// `//!` lines joined, up to the first full stop or colon outside
/// parentheses followed by a space or the end (what the file is, before
/// what it holds), with
/// rustdoc's links written as their text (`[`Bot`]` as `Bot`).
fn first_sentence(source: &str) -> Option<String> {
    let doc: Vec<&str> = source
        .lines()
        .skip_while(|line| line.starts_with("#!") || line.trim().is_empty())
        .take_while(|line| line.starts_with("//!"))
        .map(|line| line.trim_start_matches("//!").trim())
        .collect();
    let text = doc.join(" ").replace("[`", "`").replace("`]", "`");
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let bytes = text.as_bytes();
    let mut depth = 0i32;
    let end = (0..bytes.len())
        .find(|&k| {
            depth += match bytes[k] {
                b'(' => 1,
                b')' => -1,
                _ => 0,
            };
            // Outside parentheses; "e.g." and "i.e." end no sentence.
            depth == 0
                && matches!(bytes[k], b'.' | b':')
                && bytes.get(k + 1).is_none_or(|next| *next == b' ')
                && !text[..k].ends_with("e.g")
                && !text[..k].ends_with("i.e")
        })
        .unwrap_or(bytes.len());
    Some(text[..end].to_string())
}

/// The rows of docs/architecture.md's "Every file and its job": crate
/// folder to (file, job) pairs.
fn documented_files(architecture: &str) -> HashMap<String, Vec<(String, String)>> {
    let section = architecture
        .split("## Every file and its job")
        .nth(1)
        .expect("docs/architecture.md has the section \"Every file and its job\"");
    let mut crates: HashMap<String, Vec<(String, String)>> = HashMap::new();
    let mut current = None;
    for line in section.lines() {
        if line.starts_with("## ") {
            break;
        }
        if let Some(name) = line.strip_prefix("### `").and_then(|l| l.strip_suffix('`')) {
            current = Some(name.to_string());
            continue;
        }
        let Some(row) = line.strip_prefix("| `") else {
            continue;
        };
        let Some((file, rest)) = row.split_once("` | ") else {
            continue;
        };
        let job = rest
            .trim_end()
            .trim_end_matches('|')
            .trim()
            .replace("\\|", "|");
        if let Some(name) = &current {
            crates
                .entry(name.clone())
                .or_default()
                .push((file.to_string(), job));
        }
    }
    crates
}

/// Every `.rs` file under `dir`, as paths relative to it.
fn rust_files(dir: &Path, under: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, under, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(under).unwrap_or(&path);
            out.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// docs/architecture.md lists every source file of every crate, each with
/// the first sentence of its module documentation, and no file that is
/// gone: a new file gets a row, and a changed first sentence its row's.
#[test]
fn the_architecture_lists_every_file_with_its_first_sentence() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let architecture = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let documented = documented_files(&architecture);
    let mut wrong = Vec::new();
    // Every crate of the workspace, and the Python package's.
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let members = manifest
        .lines()
        .find(|line| line.starts_with("members = ["))
        .expect("the workspace lists its members on one line");
    let mut crates: Vec<&str> = members.split('"').skip(1).step_by(2).collect();
    assert!(
        crates.contains(&"engine") && crates.contains(&"cli"),
        "{crates:?}"
    );
    crates.push("python");
    for krate in crates {
        let src = root.join(krate).join("src");
        let mut files = Vec::new();
        rust_files(&src, &src, &mut files);
        files.sort();
        let rows = documented.get(krate).cloned().unwrap_or_default();
        for file in &files {
            let source = std::fs::read_to_string(src.join(file)).unwrap();
            let Some(sentence) = first_sentence(&source) else {
                // Test files and test modules in their own files have no
                // module documentation and no row.
                continue;
            };
            match rows.iter().find(|(f, _)| f == file) {
                None => wrong.push(format!("{krate}/src/{file}: no row (\"{sentence}\")")),
                Some((_, job)) if *job != sentence => wrong.push(format!(
                    "{krate}/src/{file}: the row says \"{job}\", the file \"{sentence}\""
                )),
                Some(_) => {}
            }
        }
        for (file, _) in &rows {
            if !files.contains(file) {
                wrong.push(format!("{krate}/src/{file}: a row, but no such file"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "docs/architecture.md:\n{}",
        wrong.join("\n")
    );
}
