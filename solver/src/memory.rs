//! Large arrays backed by transparent huge pages.
//!
//! The solver reads values at random across gigabytes; with 4 KiB pages
//! nearly every such read also misses the TLB, and under virtualisation a
//! page walk is costly. Where the kernel leaves huge pages to `madvise`
//! (the common default), the solver's large arrays ask for them before they
//! are first touched. Measured on this machine's kind (docs/benchmarks-log.md):
//! random reads over 4 GB 1.7× faster. Elsewhere this does nothing.
//!
//! The solver also gives back the memory of values it no longer reads
//! ([`release`]), which are saved in its checkpoints meanwhile.

use std::sync::atomic::AtomicU64;

/// The kernel's small page, in bytes.
#[cfg(target_os = "linux")]
const PAGE: usize = 4096;

/// Types for which all-zero bytes are a valid value.
///
/// # Safety
/// Implement only for such types.
pub unsafe trait Zeroable {}
// SAFETY: 0 is a valid u8, u32, AtomicU64 and AtomicU16.
unsafe impl Zeroable for u8 {}
// SAFETY: as above.
unsafe impl Zeroable for u32 {}
// SAFETY: as above.
unsafe impl Zeroable for AtomicU64 {}
// SAFETY: as above.
unsafe impl Zeroable for std::sync::atomic::AtomicU16 {}

/// `len` zeros, on huge pages where the kernel grants them. The memory
/// comes zeroed from the kernel and a page is only backed once written, so
/// parts never written cost nothing; one allocation, given back whole when
/// dropped.
pub fn zeroed<T: Zeroable>(len: usize) -> Vec<T> {
    let Ok(layout) = std::alloc::Layout::array::<T>(len) else {
        panic!("{len} elements do not fit in the address space");
    };
    if layout.size() == 0 {
        return Vec::new();
    }
    // SAFETY: the layout has a non-zero size; all-zero bytes are a valid
    // `T` (`Zeroable`); the vector takes the allocation with the same
    // layout (length and capacity `len`) from the global allocator.
    let mut vector = unsafe {
        let pointer = std::alloc::alloc_zeroed(layout).cast::<T>();
        if pointer.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Vec::from_raw_parts(pointer, len, len)
    };
    advise_huge_pages_of(vector.as_mut_ptr() as usize, layout.size());
    vector
}

/// Sets `values` to 0 and gives the whole pages among them back to the
/// kernel (Linux; elsewhere they are only set to 0), so that values no
/// longer needed stop counting towards the process's memory.
pub fn release(values: &[AtomicU64]) {
    const SIZE: usize = std::mem::size_of::<AtomicU64>();
    // SAFETY: the bytes are `values`' own; an atomic may be changed through
    // a shared reference, zero bytes are a valid `AtomicU64` (0), and no
    // other thread uses them meanwhile (the solver releases between pairs).
    let given = unsafe { give_back(values.as_ptr().cast_mut().cast(), size_of_val(values)) };
    // The partial pages at either end are shared with values still in use:
    // zeroed in place.
    let (first, end) = (given.start / SIZE, given.end / SIZE);
    values[..first]
        .iter()
        .chain(&values[end..])
        .for_each(|value| value.store(0, std::sync::atomic::Ordering::Relaxed));
}

/// Gives back to the kernel the whole pages of `data` from element `keep`
/// on (Linux; elsewhere nothing): they read as zeros afterwards, and stop
/// counting towards the process's memory until written again. For memory
/// reused by parts of different sizes (the solver's policy records), so
/// that a smaller part does not keep the pages of a larger one before it.
pub fn trim<T: Zeroable>(data: &mut [T], keep: usize) {
    if let Some(rest) = data.get_mut(keep..) {
        // SAFETY: the bytes are `rest`'s, borrowed mutably (no one else
        // uses them), and zero bytes are a valid `T` (`Zeroable`).
        unsafe { give_back(rest.as_mut_ptr().cast(), size_of_val(rest)) };
    }
}

/// Gives the whole pages among the `bytes` at `start` back to the kernel
/// (`MADV_DONTNEED`: they read as zero bytes afterwards); returns the byte
/// offsets from `start` of the part given back (empty when none, and off
/// Linux).
///
/// # Safety
/// The bytes must be one live allocation that nothing else reads or writes
/// during the call, holding values for which zero bytes are valid.
unsafe fn give_back(start: *mut u8, bytes: usize) -> std::ops::Range<usize> {
    #[cfg(target_os = "linux")]
    {
        let address = start as usize;
        let first = address.next_multiple_of(PAGE) - address;
        let last = ((address + bytes) / PAGE * PAGE).saturating_sub(address);
        if last > first {
            // SAFETY: whole pages inside the caller's bytes (see above).
            let done = unsafe {
                libc::madvise(
                    start.add(first).cast::<libc::c_void>(),
                    last - first,
                    libc::MADV_DONTNEED,
                )
            };
            // On failure the pages keep what they held: none given back.
            if done == 0 {
                return first..last;
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, bytes);
    0..0
}

/// The most memory the process has held at once (its peak resident set
/// size), in bytes, as the kernel counts it: what `/usr/bin/time -v`
/// reports as "Maximum resident set size", so that `sawah solve` states
/// its own peak beside its time. `None` where it is not known (off Linux,
/// or when `getrusage` fails).
pub fn peak_resident_bytes() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `getrusage` only writes the struct it is given, which is
        // plain data for which zero bytes are valid.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: a valid pointer to a live `rusage`.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } == 0 {
            // Linux counts it in KiB.
            return u64::try_from(usage.ru_maxrss).ok().map(|kib| kib * 1024);
        }
    }
    None
}

/// Asks for huge pages for the `bytes` at address `start` (not yet written).
fn advise_huge_pages_of(start: usize, bytes: usize) {
    const SMALLEST: usize = 4 << 20;
    if bytes < SMALLEST {
        return;
    }
    #[cfg(target_os = "linux")]
    {
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
    use std::sync::atomic::Ordering;

    #[test]
    fn zeroed_vectors_are_zero_and_released_values_read_zero() {
        let values = super::zeroed::<std::sync::atomic::AtomicU64>(3 << 20);
        assert!(values.iter().all(|v| v.load(Ordering::Relaxed) == 0));
        values.iter().for_each(|v| v.store(7, Ordering::Relaxed));
        super::release(&values[1000..2_000_000]);
        assert_eq!(values[999].load(Ordering::Relaxed), 7);
        assert!(
            values[1000..2_000_000]
                .iter()
                .all(|v| v.load(Ordering::Relaxed) == 0)
        );
        assert_eq!(values[2_000_000].load(Ordering::Relaxed), 7);
        assert!(super::zeroed::<u32>(0).is_empty());
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn the_peak_counts_memory_written_in_bytes() {
        // 64 MiB written (not only reserved) raise the peak past them; a
        // peak read in the wrong unit (KiB as bytes) would not reach it.
        let mut data = super::zeroed::<u8>(64 << 20);
        data.iter_mut().step_by(4096).for_each(|x| *x = 1);
        let peak = super::peak_resident_bytes().expect("Linux reports the peak");
        assert!(peak >= 64 << 20, "peak {peak} bytes");
        // And not in bytes as KiB: no test process holds a terabyte.
        assert!(peak < 1 << 40, "peak {peak} bytes");
        assert_eq!(
            data.iter().step_by(4096).filter(|&&x| x == 1).count(),
            16384
        );
    }

    #[test]
    fn trimming_keeps_the_part_in_use_and_leaves_zeros_or_old_values_after_it() {
        let mut data = super::zeroed::<u32>(3 << 20);
        data.iter_mut().for_each(|x| *x = 7);
        super::trim(&mut data, 1_000_001);
        assert!(data[..1_000_001].iter().all(|&x| x == 7));
        // Whole pages after the part kept are given back (zeros); the
        // partial pages at either end keep their values.
        assert!(data[1_000_001..].iter().all(|&x| x == 0 || x == 7));
        let end = data.len() - 1024;
        assert!(data[1_000_001 + 1024..end].iter().all(|&x| x == 0));
        super::trim(&mut data, 5 << 20);
        assert_eq!(data[0], 7);
    }
}
