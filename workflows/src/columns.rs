//! Text fitted to a terminal: its width, and lines wrapped to it.

/// The columns assumed for a terminal that does not say.
pub const DEFAULT_COLUMNS: usize = 80;

/// `text` broken into lines of at most `width` characters, the first
/// starting with `first` and the others with `rest`: at spaces, and a word
/// longer than a whole line (a path, a bot's JSON) cut where the line
/// ends, so that no line is wider than `width`.
pub fn wrap_to(text: &str, width: usize, first: &str, rest: &str) -> String {
    let mut lines = Vec::new();
    let mut line = String::from(first);
    let mut filled = false;
    let mut words: std::collections::VecDeque<String> =
        text.split_whitespace().map(str::to_string).collect();
    while let Some(word) = words.pop_front() {
        let used = line.chars().count();
        let needed = word.chars().count() + usize::from(filled);
        if used + needed <= width {
            if filled {
                line.push(' ');
            }
            line.push_str(&word);
            filled = true;
            continue;
        }
        let room = width.saturating_sub(rest.chars().count()).max(1);
        if filled {
            lines.push(std::mem::replace(&mut line, rest.to_string()));
            filled = false;
            words.push_front(word);
        } else {
            // Alone on its line and still too long: cut it there.
            let space = width.saturating_sub(used).max(1).min(room);
            let head: String = word.chars().take(space).collect();
            let tail: String = word.chars().skip(space).collect();
            line.push_str(&head);
            lines.push(std::mem::replace(&mut line, rest.to_string()));
            if !tail.is_empty() {
                words.push_front(tail);
            }
        }
    }
    if filled || lines.is_empty() {
        lines.push(line);
    }
    lines.join("\n")
}

/// The columns of the terminal standard output is, or `None` when it is
/// not one (a file, a pipe: lines stay whole there). `COLUMNS` when set,
/// else the terminal's own width, else 80.
pub fn stdout_width() -> Option<usize> {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal().then(|| terminal_columns(1))
}

/// [`stdout_width`] for standard error.
pub fn stderr_width() -> Option<usize> {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal().then(|| terminal_columns(2))
}

/// The width of the terminal on file descriptor `fd`.
fn terminal_columns(fd: i32) -> usize {
    if let Some(columns) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| (20..=1000).contains(&c))
    {
        return columns;
    }
    #[cfg(unix)]
    {
        let mut size = libc::winsize {
            ws_row: 0,
            ws_col: 0,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: TIOCGWINSZ fills the struct it is handed and nothing
        // else; a descriptor that is not a terminal makes it fail.
        if unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut size) } == 0 && size.ws_col >= 20 {
            return usize::from(size.ws_col);
        }
    }
    #[cfg(not(unix))]
    let _ = fd;
    DEFAULT_COLUMNS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_wrapped_to_a_width_never_passes_it_and_keeps_every_letter() {
        let text = "forfeits: debug malformed 8: answered a move of the wrong shape: {\"from\":\"2\",\"to\":\"4\"};a-move-is-{\"from\":SQUARE,\"to\":SQUARE-or-\"off\"}-with-numbers-for-squares-and-more-and-more-and-more";
        for width in [20, 40, 80] {
            let wrapped = wrap_to(text, width, "  ", "      ");
            assert!(
                wrapped.lines().all(|l| l.chars().count() <= width),
                "{width}: {wrapped}"
            );
            let letters = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
            assert_eq!(letters(&wrapped), letters(text));
            assert!(
                wrapped.lines().skip(1).all(|l| l.starts_with("      ")),
                "{wrapped}"
            );
        }
        assert_eq!(wrap_to("a b", 80, "", ""), "a b");
        assert_eq!(wrap_to("", 80, "", ""), "");
    }
}
