//! An agent's identity that does not depend on where a command runs: its
//! spec with every file it reads named by its file name alone, and each
//! file's checksum. Results files record agents this way, so a tournament
//! shard started in one folder (or on one machine) can be resumed or
//! merged from another with the same models, and is refused when a model
//! really changed.

use crate::AgentSpec;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;

/// The spec options that name files.
pub const FILE_OPTIONS: [&str; 3] = ["model", "weights", "table"];

/// The most of a table file its checksum reads: a solved table is up to
/// gigabytes, and its header (rule set, states, residual, tolerance) with
/// the first values and the file's length tell two tables apart.
pub const TABLE_PREFIX: u64 = 1 << 20;

/// A file an agent reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentFile {
    /// The spec option that names it: `model`, `weights` or `table`.
    pub option: String,
    /// Its file name, without folders.
    pub name: String,
    /// SHA-256 of its content, in hex; of a table, of its first MiB
    /// followed by its length in bytes (8, little-endian).
    pub sha256: String,
}

/// Why a file an agent names could not be read for its checksum.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct FileError {
    /// The file as the spec names it.
    pub path: String,
    /// What went wrong.
    #[source]
    pub source: std::io::Error,
}

/// The last part of a path as a spec writes it (after the last `/` or `\`).
pub fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// A spec's text with the folders of its file options left out
/// (`neural:model=/srv/models/ur.safetensors` →
/// `neural:model=ur.safetensors`), for comparing specs written in
/// different places.
pub fn portable_text(text: &str) -> String {
    text.split(':')
        .map(|part| match part.split_once('=') {
            Some((key, value)) if FILE_OPTIONS.contains(&key) => {
                format!("{key}={}", file_name(value))
            }
            _ => part.to_string(),
        })
        .collect::<Vec<_>>()
        .join(":")
}

impl AgentSpec {
    /// The spec with every file it reads named by its file name alone.
    pub fn portable(&self) -> AgentSpec {
        let name = |path: &Option<String>| path.as_deref().map(|p| file_name(p).to_string());
        AgentSpec {
            model: name(&self.model),
            weights: name(&self.weights),
            table: name(&self.table),
            ..self.clone()
        }
    }

    /// The files the spec reads, with their checksums, read from the file
    /// system.
    pub fn files(&self) -> Result<Vec<AgentFile>, FileError> {
        let named = [
            ("model", &self.model),
            ("weights", &self.weights),
            ("table", &self.table),
        ];
        named
            .into_iter()
            .filter_map(|(option, path)| path.as_deref().map(|path| (option, path)))
            .map(|(option, path)| {
                let limit = if option == "table" {
                    Some(TABLE_PREFIX)
                } else {
                    None
                };
                Ok(AgentFile {
                    option: option.to_string(),
                    name: file_name(path).to_string(),
                    sha256: checksum(Path::new(path), limit).map_err(|source| FileError {
                        path: path.to_string(),
                        source,
                    })?,
                })
            })
            .collect()
    }
}

/// SHA-256 of a file, in hex; with `limit`, of its first `limit` bytes
/// followed by its length. A model name that is not a file but a shipped
/// model embedded in the crate is that model (as agents read it).
fn checksum(path: &Path, limit: Option<u64>) -> std::io::Result<String> {
    #[cfg(feature = "shipped")]
    if !path.exists()
        && let Some(bytes) = path.to_str().and_then(crate::shipped::file)
    {
        return Ok(format!("{:x}", Sha256::digest(bytes)));
    }
    let mut file = crate::files::open_regular(path)?;
    let length = file.metadata()?.len();
    let mut hasher = Sha256::new();
    std::io::copy(
        &mut (&mut file).take(limit.unwrap_or(u64::MAX)),
        &mut hasher,
    )?;
    if limit.is_some() {
        hasher.update(length.to_le_bytes());
    }
    Ok(format!("{:x}", hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_written_in_different_folders_have_one_portable_form() {
        let here = AgentSpec::parse("neural:model=/srv/a/models/ur.safetensors", "ur").unwrap();
        let there = AgentSpec::parse("neural:model=../models/ur.safetensors", "ur").unwrap();
        assert_eq!(here.portable(), there.portable());
        assert_eq!(here.portable().to_string(), "neural:model=ur.safetensors");
        assert_eq!(
            portable_text("perfect:table=..\\tables\\ur.sawah"),
            "perfect:table=ur.sawah"
        );
        assert_eq!(
            portable_text(&here.to_string()),
            here.portable().to_string()
        );
        assert_eq!(portable_text("heuristic:noise=0.2"), "heuristic:noise=0.2");
    }

    #[test]
    fn files_are_named_and_summed_by_content() {
        let dir = std::env::temp_dir().join(format!("sawah-identity-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("a")).unwrap();
        std::fs::create_dir_all(dir.join("b")).unwrap();
        std::fs::write(dir.join("a/w.json"), b"{}").unwrap();
        std::fs::write(dir.join("b/w.json"), b"{}").unwrap();
        let spec = |folder: &str| {
            let mut spec = AgentSpec::parse("heuristic", "ur").unwrap();
            spec.weights = Some(dir.join(folder).join("w.json").display().to_string());
            spec
        };
        let a = spec("a").files().unwrap();
        assert_eq!(a, spec("b").files().unwrap());
        assert_eq!(a[0].name, "w.json");
        // SHA-256 of "{}".
        assert!(
            a[0].sha256.starts_with("44136fa355b3678a"),
            "{}",
            a[0].sha256
        );
        std::fs::write(dir.join("b/w.json"), b"{ }").unwrap();
        assert_ne!(a, spec("b").files().unwrap());
        std::fs::remove_file(dir.join("b/w.json")).unwrap();
        let error = spec("b").files().unwrap_err().to_string();
        assert!(error.contains("w.json"), "{error}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
