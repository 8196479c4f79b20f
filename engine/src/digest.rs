//! The digest of a rule set's export record: FNV-1a 64 of its compact
//! JSON text (`export` makes the record, `json` names rule sets by it).

use serde::Serialize;

/// FNV-1a 64 of `text`, in 16 hex digits.
pub fn digest_of(text: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The compact JSON text of an export record (records of numbers, strings
/// and sequences: writing one cannot fail).
pub fn canonical_text<T: Serialize>(record: &T) -> String {
    serde_json::to_string(record).unwrap_or_default()
}
