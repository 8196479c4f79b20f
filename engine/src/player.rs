//! The two players and a pair of values indexed by player.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Index, IndexMut, Not};

/// One of the two players. `Light` moves first unless a game is set up otherwise.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Player {
    /// The first player.
    Light,
    /// The second player.
    Dark,
}

impl Player {
    /// Both players, light first.
    pub const BOTH: [Player; 2] = [Player::Light, Player::Dark];

    /// 0 for light, 1 for dark.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The opponent.
    #[inline]
    pub const fn other(self) -> Player {
        match self {
            Player::Light => Player::Dark,
            Player::Dark => Player::Light,
        }
    }

    /// The lowercase name used in JSON and notation.
    pub const fn name(self) -> &'static str {
        match self {
            Player::Light => "light",
            Player::Dark => "dark",
        }
    }

    /// Parses `light`/`dark` (also the one-letter forms `l`/`d`), case-insensitive.
    pub fn parse(text: &str) -> Option<Player> {
        match text.to_ascii_lowercase().as_str() {
            "light" | "l" => Some(Player::Light),
            "dark" | "d" => Some(Player::Dark),
            _ => None,
        }
    }
}

impl Not for Player {
    type Output = Player;
    #[inline]
    fn not(self) -> Player {
        self.other()
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A value for each player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ByPlayer<T> {
    /// Light's value.
    pub light: T,
    /// Dark's value.
    pub dark: T,
}

impl<T> ByPlayer<T> {
    /// Builds the pair from a function of the player.
    pub fn from_fn(mut f: impl FnMut(Player) -> T) -> Self {
        ByPlayer {
            light: f(Player::Light),
            dark: f(Player::Dark),
        }
    }

    /// The pair with the two values exchanged.
    pub fn swapped(self) -> Self {
        ByPlayer {
            light: self.dark,
            dark: self.light,
        }
    }
}

impl<T> Index<Player> for ByPlayer<T> {
    type Output = T;
    #[inline]
    fn index(&self, player: Player) -> &T {
        match player {
            Player::Light => &self.light,
            Player::Dark => &self.dark,
        }
    }
}

impl<T> IndexMut<Player> for ByPlayer<T> {
    #[inline]
    fn index_mut(&mut self, player: Player) -> &mut T {
        match player {
            Player::Light => &mut self.light,
            Player::Dark => &mut self.dark,
        }
    }
}
