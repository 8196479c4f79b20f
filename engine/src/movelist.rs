//! A small fixed-capacity list of moves, so move generation never allocates.

use std::ops::Deref;

/// Capacity of a [`MoveList`]: every piece plus entering, for the largest rule set.
pub const MAX_MOVES: usize = 16;

/// Up to [`MAX_MOVES`] moves, stored inline.
#[derive(Clone, Copy, Debug)]
pub struct MoveList<M> {
    moves: [M; MAX_MOVES],
    len: u8,
}

impl<M: Copy + Default> MoveList<M> {
    /// An empty list.
    #[inline]
    pub fn new() -> Self {
        MoveList {
            moves: [M::default(); MAX_MOVES],
            len: 0,
        }
    }

    /// Appends a move; callers never exceed the capacity (one move per piece at most).
    #[inline]
    pub fn push(&mut self, mv: M) {
        self.moves[self.len as usize] = mv;
        self.len += 1;
    }
}

impl<M: Copy + Default> Default for MoveList<M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M> Deref for MoveList<M> {
    type Target = [M];
    #[inline]
    fn deref(&self) -> &[M] {
        &self.moves[..self.len as usize]
    }
}

impl<M: PartialEq> PartialEq for MoveList<M> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<M: Eq> Eq for MoveList<M> {}

impl<'a, M> IntoIterator for &'a MoveList<M> {
    type Item = &'a M;
    type IntoIter = std::slice::Iter<'a, M>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
