//! Large arrays backed by transparent huge pages.
//!
//! The solver reads values at random across gigabytes; with 4 KiB pages
//! nearly every such read also misses the TLB, and under virtualisation a
//! page walk is costly. Where the kernel leaves huge pages to `madvise`
//! (the common default), the solver's large arrays ask for them before they
//! are first touched. Measured on this machine's kind (docs/BENCHMARKS.md):
//! random reads over 4 GB 1.7× faster. Elsewhere this does nothing.

/// A vector of `len` elements made by `fill`, on huge pages where the
/// kernel grants them.
pub fn filled<T>(len: usize, fill: impl FnMut() -> T) -> Vec<T> {
    let mut vector = Vec::with_capacity(len);
    advise_huge_pages(&mut vector);
    vector.extend(std::iter::repeat_with(fill).take(len));
    vector
}

/// Asks for huge pages for `vector`'s unused capacity (call it before
/// the elements are written: pages already touched stay small).
pub fn advise_huge_pages<T>(vector: &mut Vec<T>) {
    const SMALLEST: usize = 4 << 20;
    let bytes = (vector.capacity() - vector.len()) * std::mem::size_of::<T>();
    if bytes < SMALLEST {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = vector.spare_capacity_mut().as_mut_ptr() as usize;
        let aligned = start.next_multiple_of(PAGE);
        let len = (bytes - (aligned - start)) / PAGE * PAGE;
        // SAFETY: the range lies inside the vector's own allocation, and
        // MADV_HUGEPAGE changes only how it is backed, never its contents.
        // Failure (no huge page support) leaves ordinary pages: ignored.
        unsafe {
            libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn filled_vectors_hold_their_elements() {
        let mut n = 0u64;
        let v = super::filled(1 << 20, || {
            n += 1;
            n
        });
        assert_eq!(v.len(), 1 << 20);
        assert_eq!(v[0], 1);
        assert_eq!(v[(1 << 20) - 1], 1 << 20);
    }
}
