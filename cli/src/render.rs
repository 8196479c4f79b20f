//! Text drawings of race boards for the terminal.

use sawah_engine::Player;
use sawah_engine::race::{Cell, Move, Position, RuleSet};

/// The letter for a player's pieces.
pub fn piece_letter(player: Player) -> char {
    match player {
        Player::Light => 'L',
        Player::Dark => 'D',
    }
}

fn board_extent(rules: &RuleSet) -> (u8, u8) {
    let rows = rules.board().iter().map(|c| c.row).max().unwrap_or(0) + 1;
    let cols = rules.board().iter().map(|c| c.col).max().unwrap_or(0) + 1;
    (rows, cols)
}

/// Draws the board with a 3-character label per cell; `label` returns the
/// text for a cell. Rows are drawn with `bottom`'s outer row at the bottom.
fn draw(rules: &RuleSet, bottom: Player, label: impl Fn(Cell) -> String) -> Vec<String> {
    let (rows, cols) = board_extent(rules);
    let order: Vec<u8> = match bottom {
        Player::Light => (0..rows).rev().collect(),
        Player::Dark => (0..rows).collect(),
    };
    let mut lines = Vec::new();
    for row in order {
        let mut line = String::from("  ");
        for col in 0..cols {
            let cell = Cell::new(row, col);
            if rules.board().contains(&cell) {
                line.push('[');
                line.push_str(&label(cell));
                line.push(']');
            } else {
                line.push_str("     ");
            }
        }
        lines.push(line.trim_end().to_string());
    }
    lines
}

/// The board with pieces: ` L ` / ` D ` for pieces, ` * ` for an empty mark,
/// `*L*` / `*D*` for a piece on a mark, with waiting and borne-off counts.
pub fn board(rules: &RuleSet, position: &Position, bottom: Player) -> String {
    let occupant = |cell: Cell| {
        Player::BOTH
            .into_iter()
            .find(|&p| position.side(p).squares().any(|s| rules.cell(p, s) == cell))
    };
    let lines = draw(rules, bottom, |cell| {
        let mark = rules.is_mark(cell);
        match (occupant(cell), mark) {
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
            rules.pieces()
        )
    };
    let mut out = vec![status(!bottom)];
    out.extend(lines);
    out.push(status(bottom));
    out.join("\n")
}

/// The board labelled with `player`'s square numbers (their route).
pub fn route_numbers(rules: &RuleSet, player: Player) -> String {
    draw(rules, player, |cell| {
        match rules.route(player).iter().position(|&c| c == cell) {
            Some(i) => format!("{:>2} ", i + 1),
            None => " - ".to_string(),
        }
    })
    .join("\n")
}

/// A move for people: `enter -> 3`, `5 -> 8`, `14 -> off`.
pub fn describe_move(rules: &RuleSet, mv: Move) -> String {
    let from = if mv.from == 0 {
        "enter".to_string()
    } else {
        mv.from.to_string()
    };
    let to = if mv.to == rules.off() {
        "off".to_string()
    } else {
        mv.to.to_string()
    };
    format!("{from} -> {to}")
}
