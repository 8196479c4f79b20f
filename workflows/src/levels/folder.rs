//! What the build puts into a models folder for its rule set: the files'
//! names, the rule file (for a rule set that is not built in), and the
//! manifest entries, assembled in the work folder's staging folder so the
//! later stages (the check, the puzzles) load it exactly as a front door
//! will.

use anyhow::{Context, Result};
use sawah_agents::manifest::{
    Anchor, Dial, Level, MANIFEST_FILE, MANIFEST_FORMAT, MANIFEST_VERSION, Manifest, PuzzleFile,
    RuleFile,
};
use sawah_engine::race::{MAX_RULE_FILE_BYTES, RuleFileFormat, RuleSet};
use sawah_engine::{AnyGame, Registry};
use std::path::{Path, PathBuf};

/// The rule set being built, and its rule file when it is not built in.
#[derive(Clone, Debug)]
pub struct RulesSource {
    /// The rule set.
    pub game: AnyGame,
    /// The rule file to carry: its name in the folder and its bytes.
    pub file: Option<(String, Vec<u8>)>,
}

impl RulesSource {
    /// The rule set `text` names: a built-in one or one loaded with
    /// `--rules-file` by name, or a rule file by path (read here, made
    /// known to `registry`, and carried as written).
    pub fn resolve(registry: &mut Registry, text: &str) -> Result<RulesSource> {
        let looks_like_file =
            text.contains(['/', '\\']) || text.ends_with(".toml") || text.ends_with(".json");
        if looks_like_file {
            let path = Path::new(text);
            let bytes = sawah_engine::files::read_bounded(path, MAX_RULE_FILE_BYTES)
                .with_context(|| format!("rule file {text}"))?;
            let format = RuleFileFormat::of_path(path);
            let rules = RuleSet::from_bytes(&bytes, text, format)?;
            let game = registry.add(rules, text)?;
            let name = rule_file_name(game.name(), format);
            return Ok(RulesSource {
                game,
                file: Some((name, bytes)),
            });
        }
        let game = registry.get(text)?;
        let built_in = Registry::new().get(text).ok();
        let file = match (&game, built_in) {
            (AnyGame::Race(rules), None) => {
                // Loaded with --rules-file: carried as JSON (the same rule
                // set, without the file's comments).
                let mut text = serde_json::to_string_pretty(rules.spec())?;
                text.push('\n');
                Some((
                    rule_file_name(rules.name(), RuleFileFormat::Json),
                    text.into_bytes(),
                ))
            }
            _ => None,
        };
        Ok(RulesSource { game, file })
    }
}

/// The rule file's name in the folder.
fn rule_file_name(rules: &str, format: RuleFileFormat) -> String {
    match format {
        RuleFileFormat::Toml => format!("{rules}.rules.toml"),
        RuleFileFormat::Json => format!("{rules}.rules.json"),
    }
}

/// The small network's file (easy, medium and the dial).
pub fn small_model_name(rules: &str) -> String {
    format!("{rules}.safetensors")
}

/// Hard's network's file.
pub fn hard_model_name(rules: &str) -> String {
    format!("{rules}-hard.safetensors")
}

/// The puzzle set's file.
pub fn puzzles_name(rules: &str) -> String {
    format!("{rules}.puzzles.jsonl")
}

/// The report's Markdown file.
pub fn report_md_name(rules: &str) -> String {
    format!("{rules}.levels.md")
}

/// The report's JSON file.
pub fn report_json_name(rules: &str) -> String {
    format!("{rules}.levels.json")
}

/// The rule set's entries of a manifest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Entries {
    /// Easy, medium and hard.
    pub levels: Vec<Level>,
    /// Random and perfect play.
    pub anchors: Vec<Anchor>,
    /// The strength dial.
    pub dial: Option<Dial>,
    /// The puzzle set.
    pub puzzles: Option<PuzzleFile>,
    /// The rule file.
    pub rule_file: Option<RuleFile>,
}

impl Entries {
    /// A manifest holding these entries only.
    pub fn manifest(&self) -> Manifest {
        Manifest {
            format: MANIFEST_FORMAT.into(),
            format_version: MANIFEST_VERSION,
            levels: self.levels.clone(),
            anchors: self.anchors.clone(),
            dial: self.dial.iter().cloned().collect(),
            puzzles: self.puzzles.iter().cloned().collect(),
            rule_files: self.rule_file.iter().cloned().collect(),
        }
    }

    /// Every file the entries name.
    pub fn files(&self) -> Vec<String> {
        let mut files: Vec<String> = self.levels.iter().filter_map(|l| l.model.clone()).collect();
        files.extend(self.puzzles.iter().map(|p| p.file.clone()));
        files.extend(self.rule_file.iter().map(|r| r.file.clone()));
        files.sort();
        files.dedup();
        files
    }
}

/// The staging folder in the work folder: the rule set's files and a
/// manifest of its entries only, loadable as a models folder.
pub struct Staging {
    /// The folder.
    pub dir: PathBuf,
}

impl Staging {
    /// The staging folder of work folder `work`, created.
    pub fn open(work: &Path) -> Result<Staging> {
        let dir = work.join("folder");
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        Ok(Staging { dir })
    }

    /// Copies `from` into the folder as `name` (atomically).
    pub fn put_file(&self, name: &str, from: &Path) -> Result<()> {
        let bytes = std::fs::read(from).with_context(|| format!("reading {}", from.display()))?;
        self.put_bytes(name, &bytes)
    }

    /// Writes `bytes` into the folder as `name` (atomically).
    pub fn put_bytes(&self, name: &str, bytes: &[u8]) -> Result<()> {
        let path = self.dir.join(name);
        sawah_agents::files::write_atomically(&path, bytes)
            .with_context(|| format!("writing {}", path.display()))
    }

    /// Writes the manifest of `entries` (atomically).
    pub fn write_manifest(&self, entries: &Entries) -> Result<()> {
        super::work::write_json(&self.dir.join(MANIFEST_FILE), &entries.manifest())
    }

    /// The models of the staged folder, checked as a front door checks
    /// them, with the rule set's levels built for `game`.
    pub fn load(&self, game: &AnyGame) -> Result<sawah_agents::manifest::Models> {
        let models = sawah_agents::manifest::Models::load(&self.dir)?;
        sawah_engine::with_game!(game, g => models.check(g))?;
        Ok(models)
    }
}
