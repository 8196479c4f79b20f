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
