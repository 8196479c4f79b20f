//! A spec's object form, typed: its fields in the order written, each a
//! JSON scalar (`{"agent":"expectiminimax","depth":2,"noise":0.02}`).
//!
//! Which fields there are depends on the agent named, so the object stays
//! open by name; [`crate::AgentSpec::from_object_with`] checks each name
//! and value. What it can hold is closed by type: a string, a number or a
//! boolean. An array or object as a field's value is refused when the
//! object is read, naming the field.

use crate::spec_error::SpecError;
use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Number, Value};

/// One field's value in a spec's object form.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionValue {
    /// `true` or `false`.
    Flag(bool),
    /// A number, as written.
    Number(Number),
    /// A string.
    Text(String),
}

impl OptionValue {
    /// The value as text, as the string form would give it (`2`, `0.02`,
    /// `true`, `hard`).
    pub fn as_text(&self) -> String {
        match self {
            OptionValue::Flag(flag) => flag.to_string(),
            OptionValue::Number(number) => number.to_string(),
            OptionValue::Text(text) => text.clone(),
        }
    }

    /// The string, when the value is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            OptionValue::Text(text) => Some(text),
            _ => None,
        }
    }

    /// The number, when the value is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            OptionValue::Number(number) => number.as_f64(),
            _ => None,
        }
    }

    /// The value as JSON.
    pub fn to_json(&self) -> Value {
        match self {
            OptionValue::Flag(flag) => Value::Bool(*flag),
            OptionValue::Number(number) => Value::Number(number.clone()),
            OptionValue::Text(text) => Value::String(text.clone()),
        }
    }
}

/// A spec's object form: its fields in the order written (a name given
/// twice keeps its last value, as JSON readers do).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpecObject {
    fields: Vec<(String, OptionValue)>,
}

impl SpecObject {
    /// Reads the object form from JSON's object, refusing a field whose
    /// value is not a string, number or boolean (naming it).
    ///
    /// # Examples
    ///
    /// ```
    /// use sawah_agents::spec_object::SpecObject;
    ///
    /// let json = serde_json::json!({"agent": "expectiminimax", "depth": 2});
    /// let object = SpecObject::from_map(json.as_object().unwrap()).unwrap();
    /// assert_eq!(object.get("depth").unwrap().as_text(), "2");
    /// let nested = serde_json::json!({"agent": "random", "seed": [1]});
    /// let error = SpecObject::from_map(nested.as_object().unwrap()).unwrap_err();
    /// assert!(error.to_string().contains("seed"), "{error}");
    /// ```
    pub fn from_map(map: &Map<String, Value>) -> Result<SpecObject, SpecError> {
        let fields = map
            .iter()
            .map(|(key, value)| {
                let typed = match value {
                    Value::Bool(flag) => OptionValue::Flag(*flag),
                    Value::Number(number) => OptionValue::Number(number.clone()),
                    Value::String(text) => OptionValue::Text(text.clone()),
                    other => {
                        return Err(SpecError::BadValue {
                            option: key.clone(),
                            value: other.to_string(),
                            expected: "a number, string or boolean".to_string(),
                        });
                    }
                };
                Ok((key.clone(), typed))
            })
            .collect::<Result<Vec<_>, SpecError>>()?;
        Ok(SpecObject { fields })
    }

    /// The value of the field `name`.
    pub fn get(&self, name: &str) -> Option<&OptionValue> {
        self.fields
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value)
    }

    /// The fields in the order written.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &OptionValue)> {
        self.fields.iter().map(|(key, value)| (key.as_str(), value))
    }

    /// The object as JSON.
    pub fn to_json(&self) -> Value {
        Value::Object(
            self.fields
                .iter()
                .map(|(key, value)| (key.clone(), value.to_json()))
                .collect(),
        )
    }
}

impl Serialize for SpecObject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.fields.len()))?;
        for (key, value) in &self.fields {
            map.serialize_entry(key, &value.to_json())?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for SpecObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<SpecObject, D::Error> {
        let map = Map::<String, Value>::deserialize(deserializer)?;
        SpecObject::from_map(&map).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn scalars_are_read_in_order_and_written_back_as_they_were() {
        let text = r#"{"agent":"expectiminimax","depth":2,"noise":0.02,"star2":false}"#;
        let object: SpecObject = serde_json::from_str(text).unwrap();
        let names: Vec<&str> = object.iter().map(|(k, _)| k).collect();
        assert_eq!(names, ["agent", "depth", "noise", "star2"]);
        assert_eq!(object.get("noise").unwrap().as_text(), "0.02");
        assert_eq!(object.get("star2"), Some(&OptionValue::Flag(false)));
        assert_eq!(serde_json::to_string(&object).unwrap(), text);
        assert_eq!(object.to_json().to_string(), text);
    }

    #[test]
    fn arrays_objects_and_nulls_are_refused_naming_the_field() {
        for (text, field) in [
            (r#"{"agent":"random","seed":[1]}"#, "seed"),
            (r#"{"agent":{"a":1}}"#, "agent"),
            (r#"{"elo":null}"#, "elo"),
        ] {
            let error = serde_json::from_str::<SpecObject>(text).unwrap_err();
            assert!(error.to_string().contains(field), "{text}: {error}");
        }
        assert!(serde_json::from_str::<SpecObject>("[1]").is_err());
    }

    proptest! {
        /// Any object of scalars reads, and writes back to the same JSON.
        #[test]
        fn objects_of_scalars_round_trip(
            fields in proptest::collection::btree_map(
                "[a-z]{1,6}",
                prop_oneof![
                    any::<bool>().prop_map(Value::Bool),
                    any::<i64>().prop_map(Value::from),
                    "[ -~]{0,8}".prop_map(Value::String),
                ],
                0..6,
            )
        ) {
            let map: Map<String, Value> = fields.into_iter().collect();
            let object = SpecObject::from_map(&map).unwrap();
            prop_assert_eq!(object.to_json(), Value::Object(map.clone()));
            let text = serde_json::to_string(&object).unwrap();
            let back: SpecObject = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(back, object);
        }
    }
}
