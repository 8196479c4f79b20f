//! The daily game's throws: a pure, portable function of the date.
//!
//! The algorithm, exactly (docs/senet.md repeats it with test vectors, and a
//! plain JavaScript version is checked against this one in the tests):
//!
//! 1. The key is the ASCII text `senet:YYYY-MM-DD` (e.g. `senet:2026-11-30`).
//! 2. The seed is the 64-bit FNV-1a hash of the key's bytes: start from
//!    `0xcbf29ce484222325`; for each byte, XOR it in, then multiply by
//!    `0x100000001b3` modulo 2^64.
//! 3. SplitMix64 from that seed: for each output, add `0x9e3779b97f4a7c15` to
//!    the state (mod 2^64), then `z = state`,
//!    `z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9`,
//!    `z = (z ^ (z >> 27)) * 0x94d049bb133111eb`, `z = z ^ (z >> 31)`
//!    (all mod 2^64).
//! 4. Each output is one throw of the four sticks: its top four bits are the
//!    sticks (1 = light face up); the throw is the number of light faces, and
//!    5 when there is none. That gives exactly 1: 4/16, 2: 6/16, 3: 4/16,
//!    4: 1/16, 5: 1/16.
//!
//! Throws are consumed in order by both players: the first player's first
//! throw is the first number, and every extra throw takes the next one.

use thiserror::Error;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// A date that is not `YYYY-MM-DD` on the calendar.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{0:?} is not a calendar date written YYYY-MM-DD (e.g. 2026-11-30)")]
pub struct DateError(pub String);

/// The 64-bit FNV-1a hash of some bytes.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV_OFFSET, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(FNV_PRIME)
    })
}

/// SplitMix64, as published by Steele, Lea and Flood (2014).
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The throw four sticks show for a 64-bit number: the top four bits are the
/// sticks; the count of light faces, or 5 when none is light.
pub fn throw_from_u64(value: u64) -> u8 {
    match (value >> 60).count_ones() {
        0 => 5,
        n => n as u8,
    }
}

fn is_leap(year: u32) -> bool {
    (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400)
}

/// Checks that `date` is a calendar date written `YYYY-MM-DD` (years 0001–9999).
pub fn check_date(date: &str) -> Result<(), DateError> {
    let bad = || DateError(date.to_string());
    let bytes = date.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return Err(bad());
    }
    let digits = |range: std::ops::Range<usize>| -> Result<u32, DateError> {
        let part = &date[range];
        if part.bytes().all(|b| b.is_ascii_digit()) {
            part.parse().map_err(|_| bad())
        } else {
            Err(bad())
        }
    };
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => return Err(bad()),
    };
    if year == 0 || day == 0 || day > days_in_month {
        return Err(bad());
    }
    Ok(())
}

/// The seed of a date's game: FNV-1a 64 of `senet:YYYY-MM-DD`.
pub fn seed_for_date(date: &str) -> Result<u64, DateError> {
    check_date(date)?;
    Ok(fnv1a64(format!("senet:{date}").as_bytes()))
}

/// The throws of a date's game, in order.
#[derive(Clone, Debug)]
pub struct DailyThrows {
    generator: SplitMix64,
}

impl DailyThrows {
    /// The throw sequence for `date` (`YYYY-MM-DD`).
    pub fn new(date: &str) -> Result<DailyThrows, DateError> {
        Ok(DailyThrows {
            generator: SplitMix64::new(seed_for_date(date)?),
        })
    }
}

impl DailyThrows {
    /// The next throw (the sequence never ends).
    pub fn next_throw(&mut self) -> u8 {
        throw_from_u64(self.generator.next_u64())
    }
}

impl Iterator for DailyThrows {
    type Item = u8;
    fn next(&mut self) -> Option<u8> {
        Some(self.next_throw())
    }
}

/// The first `count` throws of `date`'s game.
pub fn daily_throws(date: &str, count: usize) -> Result<Vec<u8>, DateError> {
    Ok(DailyThrows::new(date)?.take(count).collect())
}

/// Today's date in UTC by the system clock: the key of today's game. Not
/// on WebAssembly, where a page passes its own clock reading to
/// [`date_of_unix_seconds`].
#[cfg(not(target_arch = "wasm32"))]
pub fn today_utc() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    date_of_unix_seconds(seconds)
}

/// The date (YYYY-MM-DD, proleptic Gregorian, UTC) of the day that holds
/// `unix_seconds` seconds after 1970-01-01T00:00:00Z: the key of that day's
/// game. Pure, so it works wherever a clock reading comes from (the CLI
/// reads the system clock; a page can pass `Date.now() / 1000`).
pub fn date_of_unix_seconds(unix_seconds: u64) -> String {
    // Days to civil date (the well-known era-of-400-years method).
    let z = (unix_seconds / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_reference_values() {
        // Published FNV-1a 64 test vectors.
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn splitmix64_reference_values() {
        // The first outputs for seed 1234567 from the reference implementation.
        let mut g = SplitMix64::new(1234567);
        let expected = [
            6457827717110365317u64,
            3203168211198807973,
            9817491932198370423,
            4593380528125082431,
            16408922859458223821,
        ];
        for e in expected {
            assert_eq!(g.next_u64(), e);
        }
    }

    #[test]
    fn sticks_have_the_exact_weights() {
        let mut counts = [0u32; 6];
        for top in 0u64..16 {
            counts[throw_from_u64(top << 60) as usize] += 1;
        }
        assert_eq!(counts, [0, 4, 6, 4, 1, 1]);
    }

    #[test]
    fn dates_are_checked() {
        for good in [
            "2026-11-30",
            "2024-02-29",
            "2000-02-29",
            "0001-01-01",
            "9999-12-31",
        ] {
            assert_eq!(check_date(good), Ok(()), "{good}");
        }
        for bad in [
            "2026-11-31",
            "2023-02-29",
            "1900-02-29",
            "2026-13-01",
            "2026-00-10",
            "2026-1-30",
            "26-11-30",
            "2026/11/30",
            "0000-01-01",
            "2026-11-3x",
            "+026-11-30",
            "2026-11-30 ",
            "",
        ] {
            assert!(check_date(bad).is_err(), "{bad}");
        }
    }
}
