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

/// Whether a character could steer a terminal or reorder what it shows.
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::printable;

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
