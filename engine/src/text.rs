//! Text from outside (a bot's name or answer, its stderr, a game file's
//! tags) made safe to print: control characters escaped, so nothing a bot
//! or a file says can move a terminal's cursor, clear its screen or fake a
//! line of our own; and cut to a stated length, saying what was cut.

/// `text` with every control character (C0, DEL, C1, and the Unicode
/// controls that reorder text) written as an escape (`\n`, `\u{1b}`), cut
/// after `max_chars` characters with a note of how many more there were.
pub fn printable(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(4 * max_chars + 32));
    for (shown, (at, c)) in text.char_indices().enumerate() {
        if shown == max_chars {
            let rest = text[at..].chars().count();
            let noun = if rest == 1 { "character" } else { "characters" };
            out.push_str(&format!("… ({rest} more {noun})"));
            return out;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_unsafe(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

/// Several faults of one thing (a position) as one message: each in
/// turn, numbered, so every fault is named at once.
pub fn joined_faults<E: std::fmt::Display>(faults: &[E]) -> String {
    let listed: Vec<String> = faults
        .iter()
        .enumerate()
        .map(|(k, fault)| format!("({}) {fault}", k + 1))
        .collect();
    format!("{} faults: {}", faults.len(), listed.join("; "))
}

/// The faults found in one thing: none is `Ok`, one is itself, more are
/// `several` of them (which names them all, [`joined_faults`]).
pub fn one_or_several<E>(mut faults: Vec<E>, several: fn(Vec<E>) -> E) -> Result<(), E> {
    match faults.len() {
        0 => Ok(()),
        1 => Err(faults.remove(0)),
        _ => Err(several(faults)),
    }
}

/// Text from outside (a parser's message quoting a file, a name read from
/// one) made safe for a terminal while keeping its lines: each line
/// escaped as [`printable`] escapes it and cut at `max_line` characters,
/// and at most `max_lines` lines, the rest counted.
pub fn printable_lines(text: &str, max_line: usize, max_lines: usize) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out: Vec<String> = lines
        .iter()
        .take(max_lines)
        .map(|line| printable(line.trim_end_matches('\r'), max_line))
        .collect();
    if lines.len() > max_lines {
        out.push(format!("… ({} more lines)", lines.len() - max_lines));
    }
    out.join("\n")
}

/// Whether a character could steer a terminal or reorder what it shows.
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::{printable, printable_lines};

    #[test]
    fn lines_keep_their_breaks_and_lose_their_escapes() {
        let text = "expected `=`\n1 | name\u{1b}[2J = 1\n  |     ^\n";
        let shown = printable_lines(text, 80, 10);
        assert_eq!(shown.lines().count(), 3);
        assert!(
            !shown.contains('\u{1b}') && shown.contains("\\u{1b}"),
            "{shown}"
        );
        let long = "x".repeat(500);
        assert!(printable_lines(&long, 100, 10).starts_with(&"x".repeat(100)));
        assert!(printable_lines(&long, 100, 10).contains("400 more characters"));
        let many = "a\n".repeat(50);
        assert!(printable_lines(&many, 100, 10).ends_with("(41 more lines)"));
    }

    #[test]
    fn controls_are_escaped_and_long_text_is_cut_saying_so() {
        assert_eq!(printable("plain name", 40), "plain name");
        assert_eq!(printable("\u{1b}[2J\r\nPASS", 40), "\\u{1b}[2J\\r\\nPASS");
        assert_eq!(
            printable("a\u{7f}b\u{9b}c\u{202e}", 40),
            "a\\u{7f}b\\u{9b}c\\u{202e}"
        );
        assert_eq!(printable("abcdef", 3), "abc… (3 more characters)");
        assert_eq!(printable("ééé", 2), "éé… (1 more character)");
    }
}
