//! Input encodings: one per game family, defined once here and used by
//! training and inference alike. Every input is 0 or 1, so an encoding is
//! the list of the inputs that are 1 (at most a few dozen), which makes the
//! first layer of a network a sum of weight rows.
//!
//! Everything is seen from the side to move: its pieces first, then the
//! opponent's, each in its own route numbering.

use sawah_engine::Game;
use sawah_engine::race::{Position as RacePosition, RuleSet};
use sawah_engine::senet::{self, Position as SenetPosition, Senet};

/// A game whose positions a network can read.
pub trait Encode: Game {
    /// The encoding's id, stored with every model (`race-onehot-v1`, `senet-onehot-v1`).
    fn encoder_id(&self) -> &'static str;

    /// The number of inputs (for race rule sets it depends on route length and pieces).
    fn input_size(&self) -> usize;

    /// Appends the indices of the inputs that are 1 for `position`, seen
    /// from its side to move, in increasing order.
    fn encode(&self, position: &Self::Position, active: &mut Vec<u16>);

    /// The dense form of [`Encode::encode`] (for training).
    fn encode_dense(&self, position: &Self::Position, out: &mut [f32]) {
        let mut active = Vec::with_capacity(48);
        self.encode(position, &mut active);
        out.fill(0.0);
        for &i in &active {
            out[usize::from(i)] = 1.0;
        }
    }
}

/// Race encoding `race-onehot-v1`, with L the route length and N the pieces:
/// the mover's occupied squares (L inputs), the opponent's (L, in its own
/// numbering), then one-hot counts: the mover's waiting pieces (N + 1), the
/// opponent's waiting (N + 1), the mover's borne-off (N + 1) and the
/// opponent's borne-off (N + 1). For `ur` (L = 14, N = 7) that is 60 inputs.
pub const RACE_ENCODER: &str = "race-onehot-v1";

impl Encode for RuleSet {
    fn encoder_id(&self) -> &'static str {
        RACE_ENCODER
    }

    fn input_size(&self) -> usize {
        2 * usize::from(self.route_len()) + 4 * (usize::from(self.pieces()) + 1)
    }

    fn encode(&self, position: &RacePosition, active: &mut Vec<u16>) {
        let len = u16::from(self.route_len());
        let counts = u16::from(self.pieces()) + 1;
        let mover = position.turn();
        let sides = [position.side(mover), position.side(mover.other())];
        for (k, side) in sides.iter().enumerate() {
            let base = k as u16 * len;
            active.extend(side.squares().map(|s| base + u16::from(s) - 1));
        }
        let counts_base = 2 * len;
        for (k, side) in sides.iter().enumerate() {
            active.push(counts_base + k as u16 * counts + u16::from(side.waiting()));
        }
        for (k, side) in sides.iter().enumerate() {
            active.push(counts_base + (2 + k as u16) * counts + u16::from(side.scored()));
        }
    }
}

/// Senet encoding `senet-onehot-v1`: the mover's occupied houses (30
/// inputs), the opponent's (30), then one-hot borne-off counts for the
/// mover (6) and the opponent (6): 72 inputs.
pub const SENET_ENCODER: &str = "senet-onehot-v1";

impl Encode for Senet {
    fn encoder_id(&self) -> &'static str {
        SENET_ENCODER
    }

    fn input_size(&self) -> usize {
        2 * usize::from(senet::HOUSES) + 2 * (usize::from(senet::PIECES) + 1)
    }

    fn encode(&self, position: &SenetPosition, active: &mut Vec<u16>) {
        let houses = u16::from(senet::HOUSES);
        let counts = u16::from(senet::PIECES) + 1;
        let mover = position.turn();
        let sides = [position.side(mover), position.side(mover.other())];
        for (k, side) in sides.iter().enumerate() {
            let base = k as u16 * houses;
            active.extend(side.squares().map(|h| base + u16::from(h) - 1));
        }
        for (k, side) in sides.iter().enumerate() {
            active.push(2 * houses + k as u16 * counts + u16::from(side.scored()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sawah_engine::Player;
    use sawah_engine::race;

    fn check_game<G: Encode>(game: &G, positions: &[G::Position]) {
        for position in positions {
            let mut active = Vec::new();
            game.encode(position, &mut active);
            assert!(active.windows(2).all(|w| w[0] < w[1]), "{active:?}");
            assert!(active.iter().all(|&i| usize::from(i) < game.input_size()));
        }
    }

    #[test]
    fn race_encoding_counts_every_piece_once_and_sees_from_the_mover() {
        let rules = race::preset("ur").unwrap();
        assert_eq!(rules.input_size(), 60);
        let start = rules.start();
        let mut active = Vec::new();
        rules.encode(&start, &mut active);
        // No piece on the board: waiting 7 (one-hot), borne off 0, for both.
        assert_eq!(active, vec![28 + 7, 28 + 8 + 7, 28 + 16, 28 + 24]);
        // The same position with the other side to move reads the same from
        // the mover's view when both sides are alike.
        let mut flipped = Vec::new();
        rules.encode(&start.flipped(), &mut flipped);
        assert_eq!(active, flipped);
        // A random game: the encoding stays sorted and in range, and the
        // number of active inputs is pieces on board + 4.
        let mut dice = sawah_engine::DiceSource::from_seed(3);
        let mut position = start;
        let mut seen = vec![position];
        while rules.winner(&position).is_none() {
            let roll = dice.roll(rules.dice());
            let moves = rules.legal_moves(&position, roll);
            position = match moves.first() {
                Some(&mv) => rules.apply(&position, mv).position,
                None => rules.pass(&position),
            };
            seen.push(position);
            let mut active = Vec::new();
            rules.encode(&position, &mut active);
            let on_board =
                position.side(Player::Light).on_board() + position.side(Player::Dark).on_board();
            assert_eq!(active.len(), usize::from(on_board) + 4);
        }
        check_game(&rules, &seen);
    }

    #[test]
    fn senet_encoding_is_in_range() {
        let senet = Senet::new();
        assert_eq!(senet.input_size(), 72);
        let mut active = Vec::new();
        senet.encode(&senet.start(), &mut active);
        assert_eq!(active.len(), 10 + 2);
        check_game(&senet, &[senet.start()]);
    }
}
