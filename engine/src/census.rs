//! Counting a JSON text's values before building it in memory: a parsed
//! `serde_json::Value` takes about ten times its text (every number,
//! string, array and object a separate allocation), so a reader of
//! someone else's file first counts what it holds, in constant memory,
//! and refuses a text with more values than it would ever need.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::cell::Cell;
use std::fmt;

/// Checks that the JSON `text` holds at most `limit` values (numbers,
/// strings, booleans, nulls, arrays and objects, nested ones included),
/// without building any of them. An error names the limit, or says why
/// the text is not JSON.
pub fn check(text: &str, limit: u64) -> Result<(), String> {
    let left = Cell::new(limit);
    let mut reader = serde_json::Deserializer::from_str(text);
    Census { left: &left, limit }
        .deserialize(&mut reader)
        .map_err(|e| e.to_string())
}

#[derive(Clone, Copy)]
struct Census<'a> {
    left: &'a Cell<u64>,
    limit: u64,
}

impl Census<'_> {
    fn count<E: serde::de::Error>(self) -> Result<(), E> {
        match self.left.get() {
            0 => Err(E::custom(format!(
                "more than {} JSON values; a game record has far fewer",
                self.limit
            ))),
            n => {
                self.left.set(n - 1);
                Ok(())
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for Census<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Census<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        self.count()
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        self.count()
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        self.count()
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        self.count()
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        self.count()
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.count()
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        self.count()
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.count()?;
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.count()?;
        while map.next_key::<IgnoredAny>()?.is_some() {
            map.next_value_seed(self)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_counted_and_a_text_with_too_many_refused() {
        assert_eq!(check(r#"{"a":[1,2,{"b":null}],"c":"x"}"#, 7), Ok(()));
        let error = check(r#"{"a":[1,2,{"b":null}],"c":"x"}"#, 6).unwrap_err();
        assert!(error.contains("more than 6 JSON values"), "{error}");
        assert!(check("{\"a\":", 100).is_err());
        let moves: Vec<String> = (0..10_000).map(|_| "\"2:0-2\"".to_string()).collect();
        let text = format!(r#"{{"rules":"ur","moves":[{}]}}"#, moves.join(","));
        assert!(check(&text, 10_003).is_ok());
        assert!(check(&text, 10_002).is_err());
    }
}
