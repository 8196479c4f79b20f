//! Small helpers for the square bitsets both families use.

/// The set bits of `bits`, lowest first, as square numbers.
#[inline]
pub fn squares_of(mut bits: u32) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let square = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            square
        })
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn lists_set_bits_in_order() {
        assert_eq!(
            super::squares_of(0b1010_0110).collect::<Vec<_>>(),
            vec![1, 2, 5, 7]
        );
        assert_eq!(super::squares_of(0).count(), 0);
        assert_eq!(super::squares_of(1 << 31).collect::<Vec<_>>(), vec![31]);
    }
}
