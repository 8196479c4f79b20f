//! Outside bots' definitions: the TOML file given as `--bots FILE`.
//!
//! ```toml
//! [[bot]]
//! name = "mybot"
//! command = ["python3", "bots/mybot.py", "--fast"]   # argv, no shell
//! dir = "."                                          # optional, from the file's folder
//! env = { MYBOT_LEVEL = "3" }                        # optional
//!
//! [[bot]]
//! name = "their-service"
//! url = "http://127.0.0.1:8080"    # a server that speaks the HTTP API (POST /v1/request)
//! bot = "hard"                     # optional: sent as each request's "bot" field
//!
//! [[bot]]
//! name = "remote"
//! url = "https://bots.example:8443"
//! ca = "certs/bots-ca.pem"         # optional: who signs its certificate (else the system's roots)
//! redirects = "same-origin"        # optional: follow redirects to the same scheme, host and port
//! ```
//!
//! A bot's `dir` (and so a relative program path) is taken from the folder
//! of the file that defines it, so a bots file works from any working
//! directory. Names must not clash with what an agent spec can say.

use sawah_agents::identity::{AgentFile, FileError};
use sawah_agents::spec::{AGENTS, PRESETS};
use sawah_protocol::messages::BotSpec;
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The largest bots file read.
pub const MAX_FILE_BYTES: u64 = 1 << 20;
/// The longest bot name.
pub const MAX_NAME_LEN: usize = 64;

/// How the harness reaches a bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    /// A program started by the harness, speaking JSON lines on its stdin
    /// and stdout.
    Command {
        /// The program and its arguments, as written (no shell).
        argv: Vec<String>,
        /// Its working directory (the bots file's folder when not given).
        dir: PathBuf,
        /// Extra environment variables.
        env: BTreeMap<String, String>,
        /// `dir` as the entry wrote it, when it did (what results
        /// headers record of the working folder).
        dir_written: Option<PathBuf>,
    },
    /// A server speaking this project's HTTP API: each request is POSTed
    /// to `URL/v1/request`.
    Http(HttpBot),
}

/// A bot behind this project's HTTP API, as its entry says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpBot {
    /// `http://` or `https://HOST[:PORT][/PATH]`, without a trailing `/`.
    pub url: String,
    /// The certificate authorities an `https` bot's certificate must chain
    /// to, from the entry's `ca` file; `None`: the system's roots.
    pub ca: Option<CaFile>,
    /// Which redirects are followed.
    pub redirects: Redirects,
}

/// A `ca` file, read and checked when the bots file loads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaFile {
    /// Where it was read from (for messages).
    pub path: PathBuf,
    /// Its certificates, DER-encoded, in the file's order.
    pub certificates: Vec<Vec<u8>>,
}

/// The largest `ca` file read: a bundle of every public root is about 200 KB.
pub const MAX_CA_BYTES: u64 = 1 << 20;

/// Which redirects an HTTP bot's answers may make the harness follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Redirects {
    /// None: an answer of 3xx is a forfeit naming where it pointed.
    #[default]
    None,
    /// Those to the same scheme, host and port (the request is POSTed
    /// again to the new path, at most [`MAX_REDIRECTS`] times); any other
    /// is a forfeit as with `None`.
    SameOrigin,
}

/// The most redirects followed for one request with `redirects = "same-origin"`.
pub const MAX_REDIRECTS: usize = 5;

/// One outside bot, as its definition says.
#[derive(Clone, Debug, PartialEq)]
pub struct BotDef {
    /// The name it plays under (in specs, results and tables).
    pub name: String,
    /// How to reach it.
    pub transport: Transport,
    /// Sent as every request's `"bot"` field, if given (a string or a spec object).
    pub bot: Option<BotSpec>,
}

impl BotDef {
    /// The definition as results headers record it, everything that can
    /// change its moves: the name, the command as written (absolute paths
    /// reduced to their file names, so the record does not depend on this
    /// machine), the working folder as written (`dir`, when given), the
    /// environment (`env`: each variable with the SHA-256 of its value, so
    /// a changed value is told without writing a secret down), or the URL
    /// and how it is reached; and the `bot` field. Compact JSON, so it
    /// compares as text; a field left out of the entry is left out here,
    /// so older records still compare equal.
    pub fn portable(&self) -> String {
        let mut record = serde_json::Map::new();
        record.insert("outside".into(), Value::String(self.name.clone()));
        let portable_path = |arg: &str| {
            let path = Path::new(arg);
            if path.is_absolute() {
                path.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| arg.to_string())
            } else {
                arg.to_string()
            }
        };
        match &self.transport {
            Transport::Command {
                argv,
                env,
                dir_written,
                ..
            } => {
                let argv: Vec<Value> = argv
                    .iter()
                    .map(|arg| Value::String(portable_path(arg)))
                    .collect();
                record.insert("command".into(), Value::Array(argv));
                if let Some(dir) = dir_written {
                    record.insert(
                        "dir".into(),
                        Value::String(portable_path(&dir.to_string_lossy())),
                    );
                }
                if !env.is_empty() {
                    let hashed: serde_json::Map<String, Value> = env
                        .iter()
                        .map(|(key, value)| {
                            let digest = format!("{:x}", Sha256::digest(value.as_bytes()));
                            (
                                key.clone(),
                                Value::String(format!("sha256:{}", &digest[..16])),
                            )
                        })
                        .collect();
                    record.insert("env".into(), Value::Object(hashed));
                }
            }
            Transport::Http(http) => {
                record.insert("url".into(), Value::String(redacted(&http.url)));
                // Recorded only when set, so the record of an entry that
                // leaves them out is what it was before they existed.
                if let Some(ca) = &http.ca {
                    let name = ca.path.file_name().unwrap_or(ca.path.as_os_str());
                    record.insert("ca".into(), Value::from(name.to_string_lossy()));
                }
                if http.redirects == Redirects::SameOrigin {
                    record.insert("redirects".into(), Value::from("same-origin"));
                }
            }
        }
        if let Some(bot) = &self.bot {
            record.insert("bot".into(), json!(bot));
        }
        Value::Object(record).to_string()
    }

    /// The files a bot's command names inside its folder (the program itself,
    /// or the script an interpreter runs), with their SHA-256: what a results
    /// header records so a changed bot is refused on resume or merge.
    pub fn files(&self) -> Result<Vec<AgentFile>, FileError> {
        let Transport::Command { argv, dir, .. } = &self.transport else {
            return Ok(Vec::new());
        };
        let Ok(root) = dir.canonicalize() else {
            return Ok(Vec::new());
        };
        let mut files = Vec::new();
        for arg in argv {
            let path = root.join(arg);
            let inside = path
                .canonicalize()
                .is_ok_and(|p| p.starts_with(&root) && p.is_file());
            if !inside || std::path::Path::new(arg).is_absolute() {
                continue;
            }
            // Streamed: a bot's program may be large (a binary with its weights).
            let mut hasher = Sha256::new();
            std::fs::File::open(&path)
                .and_then(|mut file| std::io::copy(&mut file, &mut hasher))
                .map_err(|source| FileError {
                    path: path.display().to_string(),
                    source,
                })?;
            files.push(AgentFile {
                option: "program".into(),
                name: arg.clone(),
                sha256: format!("{:x}", hasher.finalize()),
            });
        }
        Ok(files)
    }
}

/// Every bot a bots file defines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BotDefs {
    bots: Vec<BotDef>,
}

/// Why a bots file was refused.
#[derive(Debug, Error)]
pub enum DefsError {
    /// The file could not be read.
    #[error("{path}: {message}")]
    Read {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The file is not a valid bots file.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong, naming the bot.
        message: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    bot: Vec<RawDef>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDef {
    name: String,
    command: Option<Vec<String>>,
    url: Option<String>,
    dir: Option<PathBuf>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default, deserialize_with = "spec_field")]
    bot: Option<BotSpec>,
    ca: Option<PathBuf>,
    redirects: Option<String>,
}

/// A bot's name, trimmed: valid, and not one of `bots` (in any case).
fn new_name(bots: &[BotDef], given: &str) -> Result<String, String> {
    let name = given.trim().to_string();
    if let Some(problem) = name_problem(&name) {
        return Err(problem);
    }
    match bots.iter().find(|b| b.name.eq_ignore_ascii_case(&name)) {
        None => Ok(name),
        Some(other) if other.name == name => Err(format!("bot {name:?} is defined twice")),
        Some(other) => Err(format!(
            "bots {:?} and {name:?} differ only in case; their logs would collide on a case-insensitive disk: rename one",
            other.name
        )),
    }
}

/// A definition's `bot` field, read as a spec: text or a table, anything
/// else refused saying how to give one (the TOML reader adds where).
fn spec_field<'de, D: serde::Deserializer<'de>>(field: D) -> Result<Option<BotSpec>, D::Error> {
    let value = Value::deserialize(field)?;
    BotSpec::from_value(&value).map(Some).map_err(|error| {
        let shown = sawah_engine::text::printable(&value.to_string(), 40);
        let message = match error {
            // A table whose option is not a number, string or boolean:
            // that option is what to mend.
            sawah_agents::SpecError::BadValue { .. } => format!("bot = {shown}: {error}"),
            _ => format!(
                "bot = {shown} is not a spec; give one as text (bot = \"hard\") or as a table (bot = {{ agent = \"expectiminimax\", depth = 2 }})"
            ),
        };
        serde::de::Error::custom(message)
    })
}

/// How a definition's bot is reached: its command or its url, with the
/// fields each takes (the other's refused).
fn transport(name: &str, def: RawDef, folder: &Path) -> Result<Transport, String> {
    let http_only = def.ca.is_some() || def.redirects.is_some();
    match (def.command, def.url) {
        (Some(_), None) if http_only => Err(format!(
            "bot {name:?}: ca and redirects are for bots with a url, not a command"
        )),
        (Some(argv), None) => {
            if argv.first().is_none_or(|p| p.trim().is_empty()) {
                return Err(format!(
                    "bot {name:?}: command is empty; give the program and its arguments, e.g. [\"python3\", \"mybot.py\"]"
                ));
            }
            let dir = match def.dir.clone() {
                Some(dir) if dir.is_absolute() => dir,
                Some(dir) => folder.join(dir),
                None => folder.to_path_buf(),
            };
            Ok(Transport::Command {
                argv,
                dir,
                env: def.env,
                dir_written: def.dir,
            })
        }
        (None, Some(url)) => {
            if def.dir.is_some() || !def.env.is_empty() {
                return Err(format!(
                    "bot {name:?}: dir and env are for bots with a command, not a url"
                ));
            }
            http_bot(name, &url, def.ca, def.redirects.as_deref(), folder).map(Transport::Http)
        }
        (Some(_), Some(_)) => Err(format!(
            "bot {name:?} has both a command and a url; give one"
        )),
        (None, None) => Err(format!(
            "bot {name:?} has neither a command nor a url; give one"
        )),
    }
}

/// A bot reached by `url`: the address checked, its certificate authority
/// read (https only) and its redirect policy.
fn http_bot(
    name: &str,
    url: &str,
    ca: Option<PathBuf>,
    redirects: Option<&str>,
    folder: &Path,
) -> Result<HttpBot, String> {
    let url = checked_url(name, url)?;
    let ca = match ca {
        Some(_) if !url.starts_with("https://") => {
            return Err(format!(
                "bot {name:?}: ca is for https:// addresses; {} is plain http",
                redacted(&url)
            ));
        }
        Some(path) => Some(read_ca(name, &folder.join(path))?),
        None => None,
    };
    let redirects = match redirects.map(str::trim) {
        None | Some("none") => Redirects::None,
        Some("same-origin") => Redirects::SameOrigin,
        Some(other) => {
            return Err(format!(
                "bot {name:?}: redirects = {:?} is not one of \"none\" (the default) or \"same-origin\"",
                sawah_engine::text::printable(other, 40)
            ));
        }
    };
    Ok(HttpBot { url, ca, redirects })
}

/// Why `name` cannot name an outside bot, if it cannot.
pub fn name_problem(name: &str) -> Option<String> {
    let valid_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.');
    if name.is_empty() || name.len() > MAX_NAME_LEN || !valid_chars {
        return Some(format!(
            "bot name {name:?} must be 1 to {MAX_NAME_LEN} letters, digits, '-', '_' or '.'"
        ));
    }
    if name.starts_with('.') {
        // `.` and `..` name folders, and a leading dot hides the bot's log.
        return Some(format!(
            "bot name {name:?} must not start with '.' (its log, logs/NAME.log, would be hidden or name a folder)"
        ));
    }
    let lower = name.to_ascii_lowercase();
    if AGENTS.contains(&lower.as_str()) || PRESETS.contains(&lower.as_str()) {
        return Some(format!(
            "bot name {name:?} is taken by an agent or level ({}, {}); choose another",
            AGENTS.join(", "),
            PRESETS.join(", ")
        ));
    }
    if lower.starts_with("elo") {
        return Some(format!(
            "bot name {name:?} reads like the strength dial (elo=N); choose another"
        ));
    }
    None
}

impl BotDefs {
    /// Reads and checks a bots file (at most [`MAX_FILE_BYTES`], a regular file).
    pub fn load(path: &Path) -> Result<BotDefs, DefsError> {
        let shown = path.display().to_string();
        let read_error = |message: String| DefsError::Read {
            path: shown.clone(),
            message,
        };
        let meta = std::fs::metadata(path).map_err(|e| read_error(e.to_string()))?;
        if !meta.is_file() {
            return Err(read_error("not a regular file".into()));
        }
        let mut text = String::new();
        std::fs::File::open(path)
            .map_err(|e| read_error(e.to_string()))?
            .take(MAX_FILE_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|e| read_error(format!("not UTF-8 text: {e}")))?;
        if text.len() as u64 > MAX_FILE_BYTES {
            return Err(read_error(format!(
                "larger than {MAX_FILE_BYTES} bytes; a bots file is a short list"
            )));
        }
        let folder = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        BotDefs::parse(&text, folder).map_err(|message| DefsError::Invalid {
            path: shown,
            message,
        })
    }

    /// Parses a bots file's text; relative `dir`s are taken from `folder`.
    pub fn parse(text: &str, folder: &Path) -> Result<BotDefs, String> {
        let raw: RawFile = toml::from_str(text).map_err(|e| e.to_string())?;
        let mut bots: Vec<BotDef> = Vec::new();
        for mut def in raw.bot {
            let name = new_name(&bots, &def.name)?;
            let bot = def.bot.take();
            let transport = transport(&name, def, folder)?;
            bots.push(BotDef {
                name,
                transport,
                bot,
            });
        }
        Ok(BotDefs { bots })
    }

    /// The bot called `name`, if the file defines one.
    pub fn get(&self, name: &str) -> Option<&BotDef> {
        self.bots.iter().find(|b| b.name == name.trim())
    }

    /// The names, for error messages.
    pub fn names(&self) -> Vec<String> {
        self.bots.iter().map(|b| b.name.clone()).collect()
    }
}

/// Without TLS no `ca` file is read (an `https://` address is refused first).
#[cfg(not(feature = "https"))]
fn read_ca(name: &str, path: &Path) -> Result<CaFile, String> {
    Err(format!(
        "bot {name:?}: ca file {}: this build has no TLS",
        path.display()
    ))
}

/// Reads a bot's `ca` file: PEM certificates, at most [`MAX_CA_BYTES`], a
/// regular file, at least one certificate.
#[cfg(feature = "https")]
fn read_ca(name: &str, path: &Path) -> Result<CaFile, String> {
    let refuse = |why: String| Err(format!("bot {name:?}: ca file {}: {why}", path.display()));
    let bytes = match sawah_engine::files::read_bounded(path, MAX_CA_BYTES) {
        Ok(bytes) => bytes,
        Err(e) => return refuse(e.to_string()),
    };
    let mut certificates = Vec::new();
    for item in ureq::tls::parse_pem(&bytes) {
        match item {
            Ok(ureq::tls::PemItem::Certificate(certificate)) => {
                certificates.push(certificate.der().to_vec());
            }
            Ok(_) => {
                return refuse(
                    "holds a private key; give only the authority's certificate (keep keys out of bots files' folders)".into(),
                );
            }
            Err(e) => return refuse(format!("is not PEM: {e}")),
        }
    }
    if certificates.is_empty() {
        return refuse(
            "holds no certificate (-----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----)".into(),
        );
    }
    Ok(CaFile {
        path: path.to_path_buf(),
        certificates,
    })
}

/// A bot's `url`, checked when the bots file loads:
/// `http://` or `https://HOST[:PORT][/PATH]` with a host, a port that fits
/// in 16 bits, and nothing after the path; returned without a trailing `/`.
fn checked_url(name: &str, url: &str) -> Result<String, String> {
    let url = url.trim();
    let refuse = |why: &str| {
        Err(format!(
            "bot {name:?}: url {:?} {why}; write it as http://HOST:PORT or https://HOST:PORT, e.g. http://127.0.0.1:8080",
            redacted(url)
        ))
    };
    let Some(rest) = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
    else {
        return refuse("must start with http:// or https://");
    };
    let uri: ureq::http::Uri = match url.parse() {
        Ok(uri) => uri,
        Err(_) => return refuse("is not a valid address"),
    };
    let Some(authority) = uri.authority() else {
        return refuse("has no host");
    };
    if uri.host().is_none_or(str::is_empty) {
        return refuse("has no host");
    }
    if let Some(port) = authority.as_str().rsplit_once(':').map(|(_, p)| p)
        && !authority.as_str().ends_with(']')
        && port.parse::<u16>().is_err()
    {
        return refuse("has a port that is not a number from 0 to 65535");
    }
    if uri.query().is_some() || rest.contains('#') {
        return refuse("has a query or fragment; the harness posts to URL/v1/request");
    }
    if url.starts_with("https://") && !cfg!(feature = "https") {
        return refuse(
            "is https, and this build has no TLS (the sawah CLI has it; the Python package leaves it out)",
        );
    }
    Ok(url.trim_end_matches('/').to_string())
}

/// `url` as it may be written down: a password in it replaced by `***`
/// (`http://user:***@host`), so results files and messages never carry it.
pub fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split_once(':').map_or(userinfo, |(user, _)| user);
            format!("{scheme}://{user}:***@{host}{tail}")
        }
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_kinds_parse_with_dirs_from_the_file_s_folder() {
        let text = r#"
[[bot]]
name = "mybot"
command = ["python3", "bots/mybot.py", "--fast"]
env = { MYBOT_LEVEL = "3" }

[[bot]]
name = "their-service"
url = "http://127.0.0.1:8080/"
bot = "hard"

[[bot]]
name = "spec-object"
command = ["sawah", "bot"]
dir = "sub"
bot = { agent = "expectiminimax", depth = 2 }
"#;
        let defs = BotDefs::parse(text, Path::new("/x/y")).unwrap();
        assert_eq!(defs.names(), ["mybot", "their-service", "spec-object"]);
        let Transport::Command { argv, dir, env, .. } = &defs.get("mybot").unwrap().transport
        else {
            panic!("a command")
        };
        assert_eq!(argv[1], "bots/mybot.py");
        assert_eq!(dir, Path::new("/x/y"));
        assert_eq!(env["MYBOT_LEVEL"], "3");
        let service = defs.get("their-service").unwrap();
        assert_eq!(
            service.transport,
            Transport::Http(HttpBot {
                url: "http://127.0.0.1:8080".into(),
                ca: None,
                redirects: Redirects::None,
            })
        );
        assert_eq!(service.bot, Some(BotSpec::from("hard")));
        let object = defs.get("spec-object").unwrap();
        let Some(BotSpec::Object(fields)) = &object.bot else {
            panic!("a spec object: {:?}", object.bot)
        };
        assert_eq!(
            fields.get("depth").map(|d| d.as_text()),
            Some("2".to_string())
        );
        let Transport::Command { dir, .. } = &object.transport else {
            panic!("a command")
        };
        assert_eq!(dir, Path::new("/x/y/sub"));
        assert_eq!(
            defs.get("mybot").unwrap().portable(),
            r#"{"outside":"mybot","command":["python3","bots/mybot.py","--fast"],"env":{"MYBOT_LEVEL":"sha256:4e07408562bedb8b"}}"#
        );
        assert_eq!(
            object.portable(),
            r#"{"outside":"spec-object","command":["sawah","bot"],"dir":"sub","bot":{"agent":"expectiminimax","depth":2}}"#
        );
    }

    /// Everything that can change a bot's moves is in its record, and what
    /// changed is named: a value of its environment, its working folder.
    #[test]
    fn a_bots_environment_and_folder_are_part_of_its_identity() {
        let record = |extra: &str| {
            let text = format!(
                "[[bot]]\nname = \"greedy\"\ncommand = [\"python3\", \"greedy.py\"]\n{extra}"
            );
            BotDefs::parse(&text, Path::new("/x"))
                .unwrap()
                .get("greedy")
                .unwrap()
                .portable()
        };
        let plain = record("");
        let faulty = record("env = { GREEDY_FAULT = \"shape\" }\n");
        let other = record("env = { GREEDY_FAULT = \"time\" }\n");
        let moved = record("dir = \"elsewhere\"\n");
        assert!(
            !faulty.contains("shape"),
            "no value is written down: {faulty}"
        );
        for (a, b, named) in [
            (&plain, &faulty, "its env"),
            (&faulty, &other, "its env GREEDY_FAULT"),
            (&plain, &moved, "its dir"),
        ] {
            assert_ne!(a, b);
            let said = crate::arena::results::spec_difference(a, b).unwrap();
            assert!(said.starts_with(named), "{said}");
        }
        assert_eq!(crate::arena::results::spec_difference(&plain, &plain), None);
    }

    #[test]
    fn an_http_bot_s_record_names_its_redirects_and_authority_only_when_set() {
        let defs = BotDefs::parse(
            "[[bot]]\nname = \"plain\"\nurl = \"http://127.0.0.1:9/v1\"\n\n[[bot]]\nname = \"moved\"\nurl = \"http://127.0.0.1:9/v1\"\nredirects = \"same-origin\"\nbot = \"hard\"\n",
            Path::new("."),
        )
        .unwrap();
        assert_eq!(
            defs.get("plain").unwrap().portable(),
            r#"{"outside":"plain","url":"http://127.0.0.1:9/v1"}"#
        );
        assert_eq!(
            defs.get("moved").unwrap().portable(),
            r#"{"outside":"moved","url":"http://127.0.0.1:9/v1","redirects":"same-origin","bot":"hard"}"#
        );
    }

    #[test]
    fn passwords_in_urls_are_written_as_stars() {
        assert_eq!(redacted("http://me:pw@h:80/x"), "http://me:***@h:80/x");
        assert_eq!(redacted("http://me@h"), "http://me:***@h");
        assert_eq!(redacted("http://h:80/a@b"), "http://h:80/a@b");
        assert_eq!(redacted("http://h"), "http://h");
    }

    #[test]
    fn bad_files_are_refused_with_the_reason() {
        let refused = |text: &str, expected: &str| {
            let e = BotDefs::parse(text, Path::new(".")).unwrap_err();
            assert!(e.contains(expected), "{text}: {e}");
        };
        refused("[[bot]]\nname = \"hard\"\ncommand = [\"x\"]\n", "taken");
        refused("[[bot]]\nname = \"Random\"\ncommand = [\"x\"]\n", "taken");
        refused("[[bot]]\nname = \"elo700\"\ncommand = [\"x\"]\n", "dial");
        refused("[[bot]]\nname = \"a:b\"\ncommand = [\"x\"]\n", "letters");
        refused("[[bot]]\nname = \"a\"\ncommand = []\n", "empty");
        refused("[[bot]]\nname = \"a\"\n", "neither");
        refused(
            "[[bot]]\nname = \"a\"\ncommand = [\"x\"]\nbot = 3\n",
            "bot = 3 is not a spec",
        );
        // A table whose option is a list: the option is named.
        refused(
            "[[bot]]\nname = \"a\"\ncommand = [\"x\"]\nbot = { agent = \"random\", seed = [1] }\n",
            "a number, string or boolean",
        );
        refused(
            "[[bot]]\nname = \"a\"\ncommand = [\"x\"]\nurl = \"http://h\"\n",
            "both",
        );
        refused(
            "[[bot]]\nname = \".\"\ncommand = [\"x\"]\n",
            "must not start with '.'",
        );
        refused(
            "[[bot]]\nname = \"..\"\ncommand = [\"x\"]\n",
            "must not start with '.'",
        );
        refused(
            "[[bot]]\nname = \"Dup\"\ncommand = [\"x\"]\n[[bot]]\nname = \"dup\"\ncommand = [\"y\"]\n",
            "differ only in case",
        );
        // Addresses are checked when the file loads, each fault named.
        for (url, why) in [
            ("http://", "not a valid address"),
            ("http://[::1", "not a valid address"),
            ("http://127.0.0.1:99999", "port"),
            ("http://h:8080/?q=1", "query"),
            ("ftp://h", "must start with http:// or https://"),
            ("https://", "not a valid address"),
        ] {
            refused(&format!("[[bot]]\nname = \"a\"\nurl = \"{url}\"\n"), why);
        }
        for url in [
            "http://127.0.0.1:8080/",
            "http://[::1]:8080",
            "http://bots.example:80/base",
        ]
        .into_iter()
        .chain(
            cfg!(feature = "https")
                .then_some(["https://bots.example", "https://[::1]:8443/v"])
                .into_iter()
                .flatten(),
        ) {
            BotDefs::parse(
                &format!("[[bot]]\nname = \"a\"\nurl = \"{url}\"\n"),
                Path::new("."),
            )
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        }
        // A password never reaches a message.
        let e = BotDefs::parse(
            "[[bot]]\nname = \"a\"\nurl = \"http://me:secretpw@h:99999\"\n",
            Path::new("."),
        )
        .unwrap_err();
        assert!(!e.contains("secretpw") && e.contains("me:***@h"), "{e}");
        refused(
            "[[bot]]\nname = \"a\"\ncommand = [\"x\"]\n[[bot]]\nname = \"a\"\ncommand = [\"y\"]\n",
            "twice",
        );
        refused(
            "[[bot]]\nname = \"a\"\ncommand = [\"x\"]\nshell = true\n",
            "unknown field",
        );
        refused("not toml at all [", "");
    }

    /// The test authority of `tests/fixtures/tls` (see its README).
    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/tls")
    }

    #[test]
    fn an_https_bot_s_ca_file_is_read_when_the_file_loads() {
        let bots = |entry: &str| format!("[[bot]]\nname = \"a\"\n{entry}\n");
        let with_ca = BotDefs::parse(
            &bots("url = \"https://127.0.0.1:8443\"\nca = \"ca.pem\"\nredirects = \"same-origin\""),
            &fixtures(),
        );
        if !cfg!(feature = "https") {
            let e = with_ca.unwrap_err();
            assert!(e.contains("no TLS"), "{e}");
            return;
        }
        let Transport::Http(http) = &with_ca.unwrap().bots[0].transport else {
            panic!("a url")
        };
        let ca = http.ca.as_ref().expect("a ca file");
        assert_eq!(ca.certificates.len(), 1);
        assert!(ca.path.ends_with("ca.pem"));
        assert_eq!(http.redirects, Redirects::SameOrigin);
        let refused = |entry: &str, expected: &str| {
            let e = BotDefs::parse(&bots(entry), &fixtures()).unwrap_err();
            assert!(e.contains(expected), "{entry}: {e}");
        };
        refused(
            "url = \"http://127.0.0.1:8080\"\nca = \"ca.pem\"",
            "ca is for https:// addresses",
        );
        refused("command = [\"x\"]\nca = \"ca.pem\"", "for bots with a url");
        refused(
            "url = \"https://h\"\nca = \"bot.key\"",
            "holds a private key",
        );
        refused(
            "url = \"https://h\"\nca = \"README.md\"",
            "holds no certificate",
        );
        refused("url = \"https://h\"\nca = \"missing.pem\"", "missing.pem");
        refused("url = \"https://h\"\nca = \".\"", "not a regular file");
        refused(
            "url = \"https://h\"\nredirects = \"any\"",
            "not one of \"none\" (the default) or \"same-origin\"",
        );
    }

    #[test]
    fn a_file_that_is_not_regular_or_too_large_is_refused() {
        let e = BotDefs::load(Path::new("/")).unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
        let e = BotDefs::load(Path::new("/no/such/bots.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("/no/such/bots.toml"), "{e}");
    }

    proptest::proptest! {
        // SAWAH_FUZZ_CASES runs it longer by hand (docs/bots.md).
        #![proptest_config(proptest::test_runner::Config::with_cases(
            std::env::var("SAWAH_FUZZ_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(2000)
        ))]

        /// Any bots file assembled from the format's pieces (and stray
        /// bytes) loads or is refused with a reason: never a panic, and a
        /// file that loads holds only names and addresses the rules allow.
        #[test]
        fn any_bots_file_loads_or_is_refused_with_a_reason(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "[[bot]]\n", "name = \"a\"\n", "name = \"A\"\n", "name = \"..\"\n",
                "name = \"b-1.x\"\n", "name = \"\u{1b}[2J\"\n", "command = [\"x\"]\n",
                "command = []\n", "url = \"http://127.0.0.1:8080\"\n", "url = \"http://\"\n",
                "url = \"http://[::1\"\n", "url = \"http://u:p@h:99999\"\n",
                "url = \"http://h:1/p?q\"\n", "url = \"https://h\"\n", "dir = \"..\"\n",
                "redirects = \"same-origin\"\n", "redirects = \"all\"\n", "ca = \"/\"\n", "env = { A = \"1\" }\n",
                "bot = \"hard\"\n", "bot = { agent = \"random\" }\n", "shell = true\n",
                "[", "]", "\"", "=", "\n", "\u{0}",
            ]), 0..24),
        ) {
            let text: String = pieces.concat();
            match BotDefs::parse(&text, Path::new(".")) {
                Ok(defs) => {
                    for name in defs.names() {
                        proptest::prop_assert!(name_problem(&name).is_none(), "{name:?}");
                    }
                    for def in &defs.bots {
                        if let Transport::Http(http) = &def.transport {
                            proptest::prop_assert!(checked_url(&def.name, &http.url).is_ok(), "{}", http.url);
                        }
                    }
                }
                Err(reason) => proptest::prop_assert!(!reason.is_empty()),
            }
        }
    }
}
