//! Text for people: board drawings and move descriptions, per game family.

use sawah_engine::race::{self, Cell, RuleSet};
use sawah_engine::senet::{self, Senet};
use sawah_engine::{Codec, Player};

/// The letter for a player's pieces.
pub fn piece_letter(player: Player) -> char {
    match player {
        Player::Light => 'L',
        Player::Dark => 'D',
    }
}

/// How a game family is shown in the terminal.
pub trait Render: Codec {
    /// What a new player should know before the first move (e.g. their route).
    fn intro(&self, human: Player) -> String;
    /// The board with its pieces, `bottom`'s side nearest the reader.
    fn board(&self, position: &Self::Position, bottom: Player) -> String;
    /// A move in a few characters: `enter -> 3`, `5 -> 8`, `14 -> off`.
    fn describe_move(&self, mv: Self::Move) -> String;
    /// Notes on what a move does: captures, rolls again, wins, …
    fn move_notes(&self, position: &Self::Position, mv: Self::Move) -> Vec<&'static str>;
    /// A closing line for a finished game (e.g. Senet's score), if any.
    fn final_note(&self, position: &Self::Position) -> Option<String>;
    /// The rules in a few lines, for `?` during a game.
    fn rules_help(&self) -> String;
}

/// The widest line the terminal game prints: boards, legends and text all
/// fit an 80-column terminal.
pub const WIDTH: usize = 80;

fn board_extent(rules: &RuleSet) -> (u8, u8) {
    let rows = rules.board().iter().map(|c| c.row).max().unwrap_or(0) + 1;
    let cols = rules.board().iter().map(|c| c.col).max().unwrap_or(0) + 1;
    (rows, cols)
}

/// Draws a race board with a 3-character label per cell; rows are drawn
/// with `bottom`'s outer row at the bottom.
fn draw(rules: &RuleSet, bottom: Player, label: impl Fn(Cell) -> String) -> Vec<String> {
    let (rows, cols) = board_extent(rules);
    // A cell off the board is as wide as one on it.
    let width = rules
        .board()
        .first()
        .map_or(3, |&cell| label(cell).chars().count());
    let gap = " ".repeat(width + 2);
    let order: Vec<u8> = match bottom {
        Player::Light => (0..rows).rev().collect(),
        Player::Dark => (0..rows).collect(),
    };
    order
        .into_iter()
        .map(|row| {
            let mut line = String::from("  ");
            for col in 0..cols {
                let cell = Cell::new(row, col);
                if rules.board().contains(&cell) {
                    line.push('[');
                    line.push_str(&label(cell));
                    line.push(']');
                } else {
                    line.push_str(&gap);
                }
            }
            line.trim_end().to_string()
        })
        .collect()
}

/// The race board labelled with `player`'s square numbers (their route).
pub fn route_numbers(rules: &RuleSet, player: Player) -> String {
    draw(rules, player, |cell| {
        match rules.route(player).iter().position(|&c| c == cell) {
            Some(i) => format!("{:>2} ", i + 1),
            None => " - ".to_string(),
        }
    })
    .join("\n")
}

/// One race board with both players' square numbers on every cell (light's
/// / dark's, `-` where a route does not pass) and `*` on the marks, light at
/// the bottom: which of light's squares faces which of dark's.
pub fn both_routes(rules: &RuleSet) -> String {
    let number = |player: Player, cell: Cell| {
        rules
            .route(player)
            .iter()
            .position(|&c| c == cell)
            .map_or("-".to_string(), |i| (i + 1).to_string())
    };
    draw(rules, Player::Light, |cell| {
        let mark = if rules.is_mark(cell) { '*' } else { ' ' };
        format!(
            "{:>2}/{:<2}{mark}",
            number(Player::Light, cell),
            number(Player::Dark, cell)
        )
    })
    .join("\n")
}

fn finish_notes(notes: &mut Vec<&'static str>, extra_roll: bool, won: bool) {
    if extra_roll {
        notes.push("rolls again");
    }
    if won {
        notes.push("wins");
    }
}

impl Render for RuleSet {
    fn intro(&self, human: Player) -> String {
        format!(
            "Your route, square by square (marks are * on the board):\n{}",
            route_numbers(self, human)
        )
    }

    fn board(&self, position: &race::Position, bottom: Player) -> String {
        let occupant = |cell: Cell| {
            Player::BOTH
                .into_iter()
                .find(|&p| position.side(p).squares().any(|s| self.cell(p, s) == cell))
        };
        let lines = draw(self, bottom, |cell| {
            match (occupant(cell), self.is_mark(cell)) {
                (Some(p), true) => format!("*{}*", piece_letter(p)),
                (Some(p), false) => format!(" {} ", piece_letter(p)),
                (None, true) => " * ".to_string(),
                (None, false) => "   ".to_string(),
            }
        });
        let status = |p: Player| {
            let side = position.side(p);
            format!(
                "  {} ({}): {} waiting, {} on the board, {} borne off of {}",
                p,
                piece_letter(p),
                side.waiting(),
                side.on_board(),
                side.scored(),
                self.pieces()
            )
        };
        // Beside the board, a key: the same cells with the bottom player's
        // square numbers, so that moves can be read off it.
        // Below it when the two side by side would not fit the terminal.
        let key = route_numbers(self, bottom);
        let width = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let key_width = key.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        const LABEL: &str = "  (your squares)";
        let mut out = vec![status(!bottom)];
        if width + 4 + key_width + LABEL.len() <= WIDTH {
            for (k, (line, numbers)) in lines.iter().zip(key.lines()).enumerate() {
                let label = if k == 0 { LABEL } else { "" };
                let pad = width - line.chars().count();
                out.push(format!("{line}{}    {numbers}{label}", " ".repeat(pad)));
            }
            out.push(status(bottom));
        } else {
            out.extend(lines.iter().cloned());
            out.push(status(bottom));
            out.push("  Your squares:".to_string());
            out.extend(key.lines().map(str::to_string));
        }
        out.join("\n")
    }

    fn describe_move(&self, mv: race::Move) -> String {
        let from = if mv.from == 0 {
            "enter".to_string()
        } else {
            mv.from.to_string()
        };
        let to = if mv.to == self.off() {
            "off".to_string()
        } else {
            mv.to.to_string()
        };
        format!("{from} -> {to}")
    }

    fn move_notes(&self, position: &race::Position, mv: race::Move) -> Vec<&'static str> {
        let outcome = self.apply(position, mv);
        let mut notes = Vec::new();
        if outcome.captured {
            notes.push("captures");
        }
        finish_notes(
            &mut notes,
            outcome.extra_roll,
            self.winner(&outcome.position).is_some(),
        );
        notes
    }

    fn final_note(&self, _position: &race::Position) -> Option<String> {
        None
    }

    fn rules_help(&self) -> String {
        let marks = self.spec().marks.clone();
        let mark_rule = match (marks.extra_roll, marks.safe) {
            (true, true) => {
                "ending a move on a mark (*) gives another roll, and a piece on a mark cannot be captured"
            }
            (true, false) => {
                "ending a move on a mark (*) gives another roll; pieces on marks can be captured"
            }
            (false, true) => "a piece on a mark (*) cannot be captured",
            (false, false) => "marks (*) change nothing",
        };
        wrap(
            &format!(
                "Rules of {}: each side races {} pieces along its route (your squares, 1 to {}). A roll moves one piece exactly that many squares; a waiting piece enters on the square of the roll. Landing on an opponent's piece captures it: it goes back to wait. Your pieces never share a square. Bearing off takes the exact roll (from square p, {} - p). {}. A 0, or no legal move, passes the turn. Bear off all your pieces first to win.",
                self.name(),
                self.pieces(),
                self.off() - 1,
                self.off(),
                capitalise(mark_rule)
            ),
            "  ",
        )
    }
}

/// `text` broken at spaces into lines of at most [`WIDTH`] characters, each
/// starting with `indent` (a word longer than a line stays whole).
pub fn wrap(text: &str, indent: &str) -> String {
    wrap_hanging(text, indent, indent)
}

/// [`wrap`] with the first line starting with `first` and the others with
/// `rest`.
pub fn wrap_hanging(text: &str, first: &str, rest: &str) -> String {
    let mut lines = Vec::new();
    let mut line = String::from(first);
    let mut empty = true;
    for word in text.split_whitespace() {
        if empty || line.chars().count() + 1 + word.chars().count() <= WIDTH {
            if !empty {
                line.push(' ');
            }
            line.push_str(word);
            empty = false;
        } else {
            lines.push(std::mem::replace(&mut line, format!("{rest}{word}")));
        }
    }
    lines.push(line);
    lines.join("\n")
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().collect::<String>() + chars.as_str())
        .unwrap_or_default()
}

/// The label of an empty Senet house.
fn house_label(house: u8) -> &'static str {
    match house {
        15 => "ankh",
        26 => "nfr ",
        27 => "~~~ ",
        28 => "III ",
        29 => "II  ",
        30 => "eye ",
        _ => "    ",
    }
}

impl Render for Senet {
    fn intro(&self, human: Player) -> String {
        format!(
            "Houses run 1-10 left to right, 11-20 right to left, 21-30 left to right.\n\
             Special houses: 15 ankh (rebirth), 26 nfr (beauty: every piece stops here),\n\
             27 ~~~ (water: back to 15), 28 III, 29 II, 30 eye; 26, 28, 29, 30 are safe.\n\
             You are {} ({}), starting on {}.",
            human,
            piece_letter(human),
            if human == Player::Light {
                "1, 3, 5, 7, 9"
            } else {
                "2, 4, 6, 8, 10"
            }
        )
    }

    fn board(&self, position: &senet::Position, _bottom: Player) -> String {
        let mut rows = vec![String::new(); 6];
        for house in 1..=senet::HOUSES {
            let (row, _) = senet::house_cell(house);
            let piece = Player::BOTH
                .into_iter()
                .find(|&p| position.side(p).has(house));
            let content = match piece {
                Some(p) => format!(" {}  ", piece_letter(p)),
                None => house_label(house).to_string(),
            };
            let number = format!("{house:>3}   ");
            let (numbers, contents) = (row as usize * 2, row as usize * 2 + 1);
            if row == 1 {
                rows[numbers].insert_str(0, &number);
                rows[contents].insert_str(0, &format!("[{content}]"));
            } else {
                rows[numbers].push_str(&number);
                rows[contents].push_str(&format!("[{content}]"));
            }
        }
        let status = |p: Player| {
            let side = position.side(p);
            format!(
                "  {} ({}): {} on the board, {} borne off of 5",
                p,
                piece_letter(p),
                side.on_board(),
                side.scored()
            )
        };
        let mut out = vec![status(Player::Dark)];
        out.extend(rows.into_iter().map(|r| format!("  {}", r.trim_end())));
        out.push(status(Player::Light));
        out.join("\n")
    }

    fn describe_move(&self, mv: senet::Move) -> String {
        if mv.is_water() {
            return format!("26 -> 27 (water) -> {}", mv.to);
        }
        let to = if mv.to == senet::OFF {
            "off".to_string()
        } else {
            mv.to.to_string()
        };
        format!("{} -> {to}", mv.from)
    }

    fn move_notes(&self, position: &senet::Position, mv: senet::Move) -> Vec<&'static str> {
        let (after, extra) = self.apply(position, mv);
        let mut notes = Vec::new();
        if mv.is_backward() {
            notes.push("backward: no forward move");
        }
        if mv.to != senet::OFF && position.side(!position.turn()).has(mv.to) {
            notes.push("swaps");
        }
        finish_notes(&mut notes, extra, self.winner(&after).is_some());
        notes
    }

    fn final_note(&self, position: &senet::Position) -> Option<String> {
        self.score(position).map(|score| {
            wrap(
                &format!(
                    "Score for the first player (light): {score}. A win scores 100 plus 10 for every opponent piece still on the board; a loss scores 5 for every piece borne off."
                ),
                "",
            )
        })
    }

    fn rules_help(&self) -> String {
        wrap(
            "Rules of senet: bear off your five pieces first. A throw of 1, 4 or 5 gives another throw. You must move forward if you can, else backward. Landing on a lone opponent swaps the two; a piece next to one of its own is protected, and three in a row form a wall nobody passes. Every piece stops on 26 (nfr); from there a 5 bears off, 2-4 go to 28-30, and a 1 falls into the water (27) and back to 15. From 28, 29 and 30 only a 3, 2 and 1 bear off. Pieces on 26, 28, 29 and 30 are safe.",
            "  ",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_text_fits_and_keeps_every_word() {
        let text = "word ".repeat(60)
            + "a-very-long-word-that-is-longer-than-anything-else-here-and-still-stays-whole-ok";
        let wrapped = wrap_hanging(&text, "  ", "    ");
        for (k, line) in wrapped.lines().enumerate() {
            assert!(
                line.chars().count() <= WIDTH || !line.trim().contains(' '),
                "{line}"
            );
            assert!(
                line.starts_with(if k == 0 { "  " } else { "    " }),
                "{line:?}"
            );
        }
        let words: Vec<&str> = wrapped.split_whitespace().collect();
        assert_eq!(words, text.split_whitespace().collect::<Vec<_>>());
    }
}
