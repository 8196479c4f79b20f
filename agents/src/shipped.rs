//! The shipped models, embedded in the crate by `build.rs` (feature
//! `shipped`): the `sawah` binary and the Python wheel play `easy`,
//! `medium` and `hard` with no files beside them. A model named by file
//! name (`model=ur.safetensors`, as the embedded manifest's levels name
//! them) is read from the file system when such a file exists, and from
//! here otherwise (see [`crate::assets::default_assets`]). The models
//! themselves, checked, are [`crate::manifest::Models::shipped`].

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

#[cfg(test)]
mod tests {
    #[test]
    fn the_embedded_models_load_and_cover_every_rule_set_s_levels() {
        let models = crate::manifest::Models::shipped();
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
                .dial(rules, 150.0)
                .unwrap()
                .expect("every rule set has a dial")
                .to_string();
            assert!(middle.contains(":noise="), "{rules}: {middle}");
            let top = models.dial(rules, 5000.0).unwrap();
            let hard = models.level(rules, "hard").map(|l| l.spec.as_str());
            assert_eq!(
                top,
                hard.map(|spec| crate::AgentSpec::parse(spec, rules).unwrap()),
                "{rules}"
            );
        }
        assert!(super::file("ur.safetensors").is_some());
        assert!(super::file("../etc/passwd").is_none());
    }
}
