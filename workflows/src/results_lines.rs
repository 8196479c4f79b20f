//! Reading a results file's games a line at a time: each line bounded
//! ([`MAX_GAME_LINE_BYTES`]), the header lines (the ones with `"kind"`)
//! skipped without building their JSON, so a file from elsewhere costs
//! memory by its longest line, not by its size.

use anyhow::{Context, Result, bail};
use sawah_engine::files::{BoundedLine, read_line_bounded};
use std::path::Path;

/// The longest line a results file may hold (the results reader's).
pub const MAX_GAME_LINE_BYTES: usize = sawah_eval::arena::results::MAX_LINE_BYTES;

/// A results line read only as far as whether it is a header.
#[derive(serde::Deserialize)]
struct Kind {
    kind: Option<serde::de::IgnoredAny>,
}

/// Whether `line` is a game: a JSON object without `"kind"` (headers have
/// one; blank lines and anything else are not games).
pub fn is_game(line: &str) -> bool {
    line.trim_start().starts_with('{')
        && serde_json::from_str::<Kind>(line).is_ok_and(|k| k.kind.is_none())
}

/// The game lines of a results file's text, each at most
/// [`MAX_GAME_LINE_BYTES`] (a longer one is refused, naming it).
pub fn games_in<'a>(path: &Path, text: &'a str) -> Result<Vec<&'a str>> {
    let mut games = Vec::new();
    for (k, line) in text.lines().enumerate() {
        if line.len() > MAX_GAME_LINE_BYTES {
            bail!(
                "{}: line {} is longer than {} MiB (no game is)",
                path.display(),
                k + 1,
                MAX_GAME_LINE_BYTES >> 20
            );
        }
        if is_game(line) {
            games.push(line);
        }
    }
    Ok(games)
}

/// Calls `game` with each game line of the results file at `path` and its
/// number (1, 2, …), reading one line at a time; a line longer than
/// [`MAX_GAME_LINE_BYTES`] or not UTF-8 is refused, naming it. Returns the
/// games seen.
pub fn each_game(path: &Path, mut game: impl FnMut(usize, &str) -> Result<()>) -> Result<usize> {
    let shown = || path.display().to_string();
    let file = sawah_engine::files::open_regular(path).with_context(shown)?;
    let mut reader = std::io::BufReader::new(file);
    let mut line = Vec::new();
    let (mut number, mut games) = (0usize, 0usize);
    loop {
        number += 1;
        match read_line_bounded(&mut reader, &mut line, MAX_GAME_LINE_BYTES).with_context(shown)? {
            BoundedLine::End => return Ok(games),
            BoundedLine::Line(_) => {}
            BoundedLine::TooLong { .. } => bail!(
                "{}: line {number} is longer than {} MiB (no game is)",
                shown(),
                MAX_GAME_LINE_BYTES >> 20
            ),
        }
        let text = std::str::from_utf8(&line)
            .with_context(|| format!("{}: line {number} is not UTF-8", shown()))?;
        let text = text.trim_end_matches(['\n', '\r']);
        if is_game(text) {
            games += 1;
            game(games, text)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_blank_lines_and_non_objects_are_not_games() {
        assert!(is_game(r#"{"rules":"ur","moves":[]}"#));
        assert!(!is_game(r#"{"kind":"header","rules":"ur"}"#));
        assert!(!is_game(""));
        assert!(!is_game("[1, 2]"));
        assert!(!is_game("{not json"));
    }

    #[test]
    fn lines_are_read_one_at_a_time_and_a_long_one_is_refused() {
        let dir = std::env::temp_dir().join(format!("sawah-results-lines-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("results.jsonl");
        let game = r#"{"rules":"ur","moves":["0:pass"]}"#;
        std::fs::write(
            &path,
            format!("{{\"kind\":\"header\"}}\n{game}\n\n{game}\r\n"),
        )
        .unwrap();
        let mut seen = Vec::new();
        let count = each_game(&path, |k, line| {
            seen.push((k, line.to_string()));
            Ok(())
        })
        .unwrap();
        assert_eq!(count, 2);
        assert_eq!(seen, vec![(1, game.to_string()), (2, game.to_string())]);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(games_in(&path, &text).unwrap(), vec![game, game]);

        let long = format!(
            "{game}\n{{\"x\":\"{}\"}}\n",
            "a".repeat(MAX_GAME_LINE_BYTES)
        );
        std::fs::write(&path, &long).unwrap();
        let error = each_game(&path, |_, _| Ok(())).unwrap_err().to_string();
        assert!(error.contains("line 2 is longer than 4 MiB"), "{error}");
        let error = games_in(&path, &long).unwrap_err().to_string();
        assert!(error.contains("line 2 is longer than 4 MiB"), "{error}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
