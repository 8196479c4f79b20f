//! Input encodings, defined once here and used by training and inference
//! alike. Every input is 0 or 1, so an encoding is the list of the inputs
//! that are 1 (at most a few dozen), which makes the first layer of a
//! network a sum of weight rows.
//!
//! Everything is seen from the side to move: its pieces first, then the
//! opponent's, each in its own route numbering.
//!
//! A game may offer more than one encoding (Senet has the plain one-hot
//! encoding and one with features). Every model file names its encoding,
//! a network reads positions with the encoding it was trained on, and
//! loading refuses an encoding the game does not offer.

use sawah_engine::Game;
use sawah_engine::race::{Position as RacePosition, RuleSet};
use sawah_engine::senet::{self, Position as SenetPosition, Senet};

/// An input encoding (its id is stored with every model).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoder {
    /// `race-onehot-v1`: see [`RACE_ENCODER`].
    RaceOneHot,
    /// `senet-onehot-v1`: see [`SENET_ENCODER`].
    SenetOneHot,
    /// `senet-features-v1`: see [`SENET_FEATURES_ENCODER`].
    SenetFeatures,
}

impl Encoder {
    /// Every encoding this build reads.
    pub const ALL: [Encoder; 3] = [
        Encoder::RaceOneHot,
        Encoder::SenetOneHot,
        Encoder::SenetFeatures,
    ];

    /// Its id in model files, manifests and training settings.
    pub fn id(self) -> &'static str {
        match self {
            Encoder::RaceOneHot => RACE_ENCODER,
            Encoder::SenetOneHot => SENET_ENCODER,
            Encoder::SenetFeatures => SENET_FEATURES_ENCODER,
        }
    }

    /// The encoding with this id, if this build knows it.
    pub fn from_id(id: &str) -> Option<Encoder> {
        Encoder::ALL.into_iter().find(|e| e.id() == id)
    }
}

impl std::fmt::Display for Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// A game whose positions a network can read.
pub trait Encode: Game {
    /// The encodings the game offers; the first is the default for new models.
    fn encoders(&self) -> &'static [Encoder];

    /// The number of inputs of `encoder` (one of [`Encode::encoders`]; for
    /// race rule sets it depends on route length and pieces).
    fn input_size_of(&self, encoder: Encoder) -> usize;

    /// Appends the indices of the inputs of `encoder` that are 1 for
    /// `position`, seen from its side to move, in increasing order. An
    /// encoder the game does not offer is read as the default one.
    fn encode_with(&self, encoder: Encoder, position: &Self::Position, active: &mut Vec<u16>);

    /// The default encoding for new models.
    fn default_encoder(&self) -> Encoder {
        self.encoders()[0]
    }

    /// The encoding with this id, if the game offers it.
    fn encoder_named(&self, id: &str) -> Option<Encoder> {
        self.encoders().iter().copied().find(|e| e.id() == id)
    }

    /// The number of inputs of the default encoding.
    fn input_size(&self) -> usize {
        self.input_size_of(self.default_encoder())
    }

    /// [`Encode::encode_with`] with the default encoding.
    fn encode(&self, position: &Self::Position, active: &mut Vec<u16>) {
        self.encode_with(self.default_encoder(), position, active);
    }

    /// The dense form of [`Encode::encode_with`] (for training); `out` is
    /// [`Encode::input_size_of`] long.
    fn encode_dense_with(&self, encoder: Encoder, position: &Self::Position, out: &mut [f32]) {
        let mut active = Vec::with_capacity(64);
        self.encode_with(encoder, position, &mut active);
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
    fn encoders(&self) -> &'static [Encoder] {
        &[Encoder::RaceOneHot]
    }

    fn input_size_of(&self, _encoder: Encoder) -> usize {
        2 * usize::from(self.route_len()) + 4 * (usize::from(self.pieces()) + 1)
    }

    fn encode_with(&self, _encoder: Encoder, position: &RacePosition, active: &mut Vec<u16>) {
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

/// Senet encoding `senet-features-v1`: for the mover, then the opponent,
/// a block of [`SENET_FEATURE_BLOCK`] inputs:
///
/// * the occupied houses (30) and the borne-off count, one-hot (6), as in
///   `senet-onehot-v1`;
/// * **exposed** pieces (30, by house): pieces an opponent may attack,
///   neither next to a piece of their own side (a pair, and so every wall
///   piece) nor on a safe house (26, 28, 29, 30);
/// * **walls** (30, by house): pieces in runs of three or more, which the
///   opponent cannot pass;
/// * **distance to go**, a thermometer (15): the sum over pieces on the
///   board of 31 minus the house, one input per 10 reached (10, 20, …, 150);
/// * **home**: pieces on houses 26–30, one-hot (6);
/// * **in reach**: exposed pieces with an opponent piece one to five houses
///   behind them (a throw could reach them, walls aside), one-hot (6).
///
/// 2 × 123 = 246 inputs.
pub const SENET_FEATURES_ENCODER: &str = "senet-features-v1";

/// The inputs per side of `senet-features-v1`.
pub const SENET_FEATURE_BLOCK: u16 = 123;

/// Houses with a piece of a side next to another of its pieces.
fn paired(bits: u32) -> u32 {
    bits & ((bits << 1) | (bits >> 1))
}

/// Houses in runs of three or more pieces of a side.
fn walls(bits: u32) -> u32 {
    let starts = bits & (bits >> 1) & (bits >> 2);
    starts | starts << 1 | starts << 2
}

/// Appends `base + house - 1` for every house in `bits`, ascending.
fn push_houses(base: u16, bits: u32, active: &mut Vec<u16>) {
    active.extend(sawah_engine::bits::squares_of(bits).map(|h| base + u16::from(h) - 1));
}

/// One side's block of `senet-features-v1` (see [`SENET_FEATURES_ENCODER`]).
fn senet_feature_block(base: u16, side: &senet::Side, theirs: u32, active: &mut Vec<u16>) {
    let houses = u16::from(senet::HOUSES);
    let counts = u16::from(senet::PIECES) + 1;
    let own = side.square_bits();
    let exposed = own & !paired(own) & !senet::SAFE;
    push_houses(base, own, active);
    active.push(base + houses + u16::from(side.scored()));
    let mut next = base + houses + counts;
    push_houses(next, exposed, active);
    next += houses;
    push_houses(next, walls(own), active);
    next += houses;
    let to_go: u16 = side.squares().map(|h| 31 - u16::from(h)).sum();
    active.extend((0..(to_go / 10).min(15)).map(|k| next + k));
    next += 15;
    let home = (own >> senet::BEAUTY).count_ones() as u16;
    active.push(next + home);
    next += counts;
    // Opponent pieces one to five houses behind each exposed piece.
    let in_reach = sawah_engine::bits::squares_of(exposed)
        .filter(|&h| {
            let behind = (1u32 << h) - 1;
            let window = behind & !((1u32 << h.saturating_sub(5)) - 1);
            theirs & window != 0
        })
        .count() as u16;
    active.push(next + in_reach);
}

impl Encode for Senet {
    fn encoders(&self) -> &'static [Encoder] {
        &[Encoder::SenetOneHot, Encoder::SenetFeatures]
    }

    fn input_size_of(&self, encoder: Encoder) -> usize {
        match encoder {
            Encoder::SenetFeatures => 2 * usize::from(SENET_FEATURE_BLOCK),
            _ => 2 * usize::from(senet::HOUSES) + 2 * (usize::from(senet::PIECES) + 1),
        }
    }

    fn encode_with(&self, encoder: Encoder, position: &SenetPosition, active: &mut Vec<u16>) {
        let mover = position.turn();
        let sides = [position.side(mover), position.side(mover.other())];
        if encoder == Encoder::SenetFeatures {
            for (k, side) in sides.iter().enumerate() {
                let theirs = sides[1 - k].square_bits();
                senet_feature_block(k as u16 * SENET_FEATURE_BLOCK, side, theirs, active);
            }
            return;
        }
        let houses = u16::from(senet::HOUSES);
        let counts = u16::from(senet::PIECES) + 1;
        for (k, side) in sides.iter().enumerate() {
            push_houses(k as u16 * houses, side.square_bits(), active);
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
        for &encoder in game.encoders() {
            for position in positions {
                let mut active = Vec::new();
                game.encode_with(encoder, position, &mut active);
                assert!(active.windows(2).all(|w| w[0] < w[1]), "{active:?}");
                assert!(
                    active
                        .iter()
                        .all(|&i| usize::from(i) < game.input_size_of(encoder))
                );
            }
        }
    }

    /// The positions of a game played by the first legal move each time.
    fn first_move_game<G: Game>(game: &G, seed: u64) -> Vec<G::Position> {
        let mut dice = sawah_engine::DiceSource::from_seed(seed);
        let mut position = game.start();
        let mut seen = vec![position];
        let mut rolls = 0;
        while game.winner(&position).is_none() && rolls < 5_000 {
            let roll = dice.roll(game.dice());
            let moves = game.legal_moves(&position, roll);
            // Alternate between the first and the last move, so both
            // sides spread out rather than always moving the back piece.
            let pick = if rolls % 2 == 0 {
                moves.first()
            } else {
                moves.last()
            };
            position = match pick {
                Some(mv) => game.apply(&position, *mv).position,
                None => game.pass(&position),
            };
            seen.push(position);
            rolls += 1;
        }
        seen
    }

    #[test]
    fn encoders_are_named_and_found_by_id() {
        for encoder in Encoder::ALL {
            assert_eq!(Encoder::from_id(encoder.id()), Some(encoder));
        }
        assert_eq!(Encoder::from_id("race-onehot-v0"), None);
        let senet = Senet::new();
        assert_eq!(senet.default_encoder(), Encoder::SenetOneHot);
        assert_eq!(
            senet.encoder_named(SENET_FEATURES_ENCODER),
            Some(Encoder::SenetFeatures)
        );
        let ur = race::preset("ur").unwrap();
        assert_eq!(ur.encoder_named(SENET_FEATURES_ENCODER), None);
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
        // A game: the encoding stays sorted and in range, and the number of
        // active inputs is pieces on board + 4.
        let seen = first_move_game(&rules, 3);
        for position in &seen {
            let mut active = Vec::new();
            rules.encode(position, &mut active);
            let on_board =
                position.side(Player::Light).on_board() + position.side(Player::Dark).on_board();
            assert_eq!(active.len(), usize::from(on_board) + 4);
        }
        check_game(&rules, &seen);
    }

    #[test]
    fn senet_encodings_are_in_range() {
        let senet = Senet::new();
        assert_eq!(senet.input_size(), 72);
        assert_eq!(senet.input_size_of(Encoder::SenetFeatures), 246);
        let mut active = Vec::new();
        senet.encode(&senet.start(), &mut active);
        assert_eq!(active.len(), 10 + 2);
        for seed in 0..20 {
            check_game(&senet, &first_move_game(&senet, seed));
        }
    }

    /// `senet-features-v1` of a position worked out by hand.
    #[test]
    fn senet_features_of_a_hand_made_position() {
        let senet = Senet::new();
        // The mover (light): a wall on 3-4-5, a lone piece on 10, one on 26
        // (safe), none borne off.
        // The opponent (dark): a pair on 7-8, lone pieces on 12 and 28
        // (safe), one borne off.
        let light: &[u8] = &[3, 4, 5, 10, 26];
        let dark: &[u8] = &[7, 8, 12, 28];
        let position = senet
            .position(
                Player::Light,
                sawah_engine::ByPlayer { light, dark },
                sawah_engine::ByPlayer { light: 0, dark: 1 },
            )
            .unwrap();
        let mut active = Vec::new();
        senet.encode_with(Encoder::SenetFeatures, &position, &mut active);
        let me = |offset: u16| offset;
        let them = |offset: u16| SENET_FEATURE_BLOCK + offset;
        let mut expected = Vec::new();
        // Mover: houses, borne off 0.
        expected.extend([3, 4, 5, 10, 26].map(|h| me(h - 1)));
        expected.push(me(30));
        // Exposed: 10 only (3-4-5 is a wall, 26 is safe).
        expected.push(me(36 + 9));
        // Walls: 3, 4, 5.
        expected.extend([3, 4, 5].map(|h| me(66 + h - 1)));
        // Distance to go: 28 + 27 + 26 + 21 + 5 = 107: ten steps.
        expected.extend((0..10).map(|k| me(96 + k)));
        // Home: one piece on 26-30.
        expected.push(me(111 + 1));
        // In reach: the piece on 10 has dark's 7 and 8 behind it.
        expected.push(me(117 + 1));
        // Opponent: houses, borne off 1.
        expected.extend([7, 8, 12, 28].map(|h| them(h - 1)));
        expected.push(them(31));
        // Exposed: 12 (7-8 are a pair, 28 is safe).
        expected.push(them(36 + 11));
        // No wall. Distance: 24 + 23 + 19 + 3 = 69: six steps.
        expected.extend((0..6).map(|k| them(96 + k)));
        // Home: one (28). In reach: light's 10 is two behind 12.
        expected.push(them(111 + 1));
        expected.push(them(117 + 1));
        assert_eq!(active, expected);
    }

    /// Every piece the engine lets the mover attack is marked exposed in
    /// the opponent's block, and every piece marked exposed that the mover
    /// could land on is attackable: the encoding agrees with the rules.
    #[test]
    fn senet_exposed_pieces_are_the_ones_the_rules_let_be_attacked() {
        let senet = Senet::new();
        let mut attacks = 0;
        for seed in 0..40 {
            for position in first_move_game(&senet, seed) {
                if senet.winner(&position).is_some() {
                    continue;
                }
                let mut active = Vec::new();
                senet.encode_with(Encoder::SenetFeatures, &position, &mut active);
                let exposed =
                    |house: u8| active.contains(&(SENET_FEATURE_BLOCK + 36 + u16::from(house) - 1));
                let theirs = position.side(position.turn().other()).square_bits();
                for throw in 1..=5 {
                    for mv in &senet.legal_moves(&position, throw) {
                        if mv.to <= senet::HOUSES && theirs >> mv.to & 1 != 0 {
                            attacks += 1;
                            assert!(exposed(mv.to), "{position:?} {mv:?}");
                        }
                    }
                }
            }
        }
        assert!(attacks > 100, "only {attacks} attacks seen");
    }
}
