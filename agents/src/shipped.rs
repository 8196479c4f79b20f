//! The shipped models, embedded in the crate by `build.rs` (feature
//! `shipped`): the `sawah` binary and the Python wheel play `easy`,
//! `medium` and `hard` with no files beside them. A model named by file
//! name (`model=ur.safetensors`, as the embedded manifest's levels name
//! them) is read from the file system when such a file exists, and from
//! here otherwise (see [`crate::assets::default_assets`]).

use crate::manifest::Models;
use std::sync::OnceLock;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/shipped.rs"));
}

/// The embedded file called `name` (a model, or `manifest.json`).
pub fn file(name: &str) -> Option<&'static [u8]> {
    if name == "manifest.json" {
        return Some(embedded::MANIFEST);
    }
    embedded::FILES
        .iter()
        .find(|(file, _)| *file == name)
        .map(|(_, bytes)| *bytes)
}

/// The shipped models, checked against the manifest's SHA-256 once.
pub fn models() -> &'static Models {
    static MODELS: OnceLock<Models> = OnceLock::new();
    MODELS.get_or_init(|| {
        Models::from_bytes(embedded::MANIFEST, "manifest.json (embedded)", |name| {
            file(name)
                .map(<[u8]>::to_vec)
                .ok_or_else(|| "not embedded".to_string())
        })
        .expect("the embedded models match their manifest (checked when they were built)")
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_embedded_models_load_and_cover_every_rule_set_s_levels() {
        let models = super::models();
        for rules in [
            "sawah",
            "ur",
            "babylon",
            "marks-roll-only",
            "masters",
            "masters-5",
            "senet",
            "blitz",
            "aseb",
            "masters-3dice",
        ] {
            for level in ["easy", "medium", "hard"] {
                assert!(models.level(rules, level).is_some(), "{rules} {level}");
            }
            // The strength dial: a noisy small network in the middle of
            // the range, hard at the top.
            let middle = models
                .dial_spec(rules, 150.0)
                .expect("every rule set has a dial");
            assert!(middle.contains(":noise="), "{rules}: {middle}");
            let top = models.dial_spec(rules, 5000.0).unwrap();
            assert_eq!(
                Some(top.as_str()),
                models.level(rules, "hard").map(|l| l.spec.as_str()),
                "{rules}"
            );
        }
        assert!(super::file("ur.safetensors").is_some());
        assert!(super::file("../etc/passwd").is_none());
    }
}
