//! Senet's board and throws: the houses and what is special about them,
//! the piece count, and the rule set itself (its dice). Everything here is
//! known without a position; positions and moves are in the files beside.

use crate::dice::Dice;

/// Number of houses.
pub const HOUSES: u8 = 30;
/// The step number that means "borne off".
pub const OFF: u8 = 31;
/// Pieces per side.
pub const PIECES: u8 = 5;
/// House 15, the House of Rebirth (ankh): where the water sends a piece.
pub const REBIRTH: u8 = 15;
/// House 26, the House of Beauty (nefer): every piece must stop on it.
pub const BEAUTY: u8 = 26;
/// House 27, the House of Water: no piece ever rests on it.
pub const WATER: u8 = 27;
/// Houses whose pieces cannot be attacked: 26, 28, 29, 30.
pub const SAFE: u32 = 1 << 26 | 1 << 28 | 1 << 29 | 1 << 30;
/// The rule set id.
pub const NAME: &str = "senet";

/// The Senet rule set. It has no parameters; the value carries the dice.
#[derive(Clone, Debug, PartialEq)]
pub struct Senet {
    dice: Dice,
}

impl Default for Senet {
    fn default() -> Self {
        Senet::new()
    }
}

impl Senet {
    /// Senet with its four sticks: 1..4 light faces, none counts 5
    /// (1: 4/16, 2: 6/16, 3: 4/16, 4: 1/16, 5: 1/16).
    pub fn new() -> Senet {
        let dice = Dice::new(vec![
            0.0,
            4.0 / 16.0,
            6.0 / 16.0,
            4.0 / 16.0,
            1.0 / 16.0,
            1.0 / 16.0,
        ])
        .expect("the Senet throw probabilities are valid");
        Senet { dice }
    }

    /// The rule set id, `senet`.
    pub fn name(&self) -> &'static str {
        NAME
    }

    /// The throws and their probabilities (a throw of 0 never happens).
    pub fn dice(&self) -> &Dice {
        &self.dice
    }
}

/// The row (0 top, 1 middle, 2 bottom) and column (0 left) at which a house is drawn.
pub fn house_cell(house: u8) -> (u8, u8) {
    debug_assert!((1..=HOUSES).contains(&house));
    let index = house - 1;
    let row = index / 10;
    let col = if row == 1 { 9 - index % 10 } else { index % 10 };
    (row, col)
}

/// What is drawn on a special house, if anything.
pub fn house_name(house: u8) -> Option<&'static str> {
    match house {
        15 => Some("House of Rebirth (ankh)"),
        26 => Some("House of Beauty (nefer)"),
        27 => Some("House of Water"),
        28 => Some("three strokes"),
        29 => Some("two strokes"),
        30 => Some("Eye of Horus"),
        _ => None,
    }
}
