//! [`OutsideBot`]: one defined bot as the harness runs it: a pool of links
//! (one process per game being played, reused from game to game), its
//! `hello` identity, its time limit, and its withdrawal after too many
//! forfeits in a row.

use super::defs::{BotDef, Transport};
use super::http::HttpLink;
use super::link::{self, BotLog, Link};
use sawah_agents::{Failure, FailureKind};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the harness referees outside bots.
#[derive(Clone, Debug)]
pub struct Referee {
    /// The time a bot has for each move (and for `hello`), measured by the
    /// harness from sending the request to reading the answer.
    pub move_time: Duration,
    /// Forfeits in a row after which a bot is withdrawn: its remaining
    /// games are forfeits without being played.
    pub withdraw_after: u32,
    /// Where each bot's stderr goes (`DIR/NAME.log`); dropped when `None`
    /// (its last lines are still quoted when it fails).
    pub log_dir: Option<PathBuf>,
}

impl Default for Referee {
    fn default() -> Referee {
        Referee {
            move_time: Duration::from_secs(10),
            withdraw_after: 5,
            log_dir: None,
        }
    }
}

/// What a bot says of itself in answer to `hello` (fields it leaves out are empty).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Identity {
    /// Its name.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Its version.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// Who wrote it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub author: String,
}

impl Identity {
    /// The identity in a `hello` answer; `None` for an error or an answer
    /// without any of the three fields. Each field is cut to 200 characters.
    pub fn from_answer(answer: &Value) -> Option<Identity> {
        if answer.get("error").is_some() {
            return None;
        }
        let text = |key: &str| -> String {
            answer
                .get(key)
                .and_then(Value::as_str)
                .map(|s| s.chars().take(200).collect())
                .unwrap_or_default()
        };
        let identity = Identity {
            name: text("name"),
            version: text("version"),
            author: text("author"),
        };
        (identity != Identity::default()).then_some(identity)
    }
}

#[derive(Default)]
struct Health {
    forfeits_in_a_row: u32,
    withdrawn: Option<String>,
}

/// A defined bot, started: links are opened as games need them.
pub struct OutsideBot {
    def: BotDef,
    referee: Referee,
    idle: Mutex<Vec<Box<dyn Link>>>,
    health: Mutex<Health>,
    identity: Option<Identity>,
    log: Option<Arc<BotLog>>,
    next_id: AtomicU64,
}

impl std::fmt::Debug for OutsideBot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutsideBot")
            .field("def", &self.def)
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

impl OutsideBot {
    /// Starts `def`: opens its first link and asks `hello` (a bot that
    /// answers it with an error, or not at all in time, still plays; one
    /// that cannot be started at all is an error here, before any game).
    pub fn start(def: BotDef, referee: Referee) -> Result<Arc<OutsideBot>, String> {
        let log = match &referee.log_dir {
            Some(dir) => {
                let path = dir.join(format!("{}.log", def.name));
                Some(Arc::new(BotLog::open(&path).map_err(|e| {
                    format!("{}: its log {}: {e}", def.name, path.display())
                })?))
            }
            None => None,
        };
        let mut bot = OutsideBot {
            def,
            referee,
            idle: Mutex::new(Vec::new()),
            health: Mutex::new(Health::default()),
            identity: None,
            log,
            next_id: AtomicU64::new(1),
        };
        let mut first = bot.open().map_err(|e| format!("{}: {e}", bot.def.name))?;
        match bot.hello(first.as_mut()) {
            Ok(identity) => {
                bot.identity = identity;
                if let Ok(mut idle) = bot.idle.lock() {
                    idle.push(first);
                }
            }
            // It failed already; its games say why when they forfeit.
            Err(_) => drop(first),
        }
        Ok(Arc::new(bot))
    }

    fn open(&self) -> Result<Box<dyn Link>, String> {
        match &self.def.transport {
            Transport::Command { argv, dir, env, .. } => Ok(Box::new(link::PipeLink::spawn(
                argv,
                dir,
                env,
                self.log.clone(),
            )?)),
            Transport::Http(bot) => Ok(Box::new(HttpLink::new(bot))),
        }
    }

    /// Says `hello`: the identity, if the bot gave one (an error answer or
    /// one that is not JSON gives none), or why the link broke.
    fn hello(&self, link: &mut dyn Link) -> Result<Option<Identity>, Failure> {
        let id = self.request_id();
        let request = json!({"id": id, "cmd": "hello", "harness": "sawah", "version": env!("CARGO_PKG_VERSION")});
        match link.ask(&request.to_string(), id, self.referee.move_time) {
            Ok(line) => Ok(serde_json::from_slice::<Value>(&line)
                .ok()
                .and_then(|answer| Identity::from_answer(&answer))),
            Err(e) if e.broken && e.kind == FailureKind::Time => Err(Failure::new(
                FailureKind::Start,
                format!(
                    "did not answer hello in {:.1} s (every bot answers hello first: see docs/bots.md)",
                    self.referee.move_time.as_secs_f64()
                ),
            )),
            Err(e) if e.broken => Err(Failure::new(
                FailureKind::Start,
                format!("failed at start: {}", e.reason),
            )),
            Err(_) => Ok(None),
        }
    }

    /// A fresh request id.
    pub fn request_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// The bot's definition.
    pub fn def(&self) -> &BotDef {
        &self.def
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// What it said of itself in answer to `hello`, if anything.
    pub fn identity(&self) -> Option<&Identity> {
        self.identity.as_ref()
    }

    /// How it is refereed.
    pub fn referee(&self) -> &Referee {
        &self.referee
    }

    /// Whether the bot is a program the harness starts (false: a URL).
    pub fn is_command(&self) -> bool {
        matches!(self.def.transport, Transport::Command { .. })
    }

    /// A link for a game: an idle one, or a new one (a new process says
    /// `hello` first). An error once the bot is withdrawn, or when a new
    /// process cannot be started.
    pub fn take_link(&self) -> Result<Box<dyn Link>, Failure> {
        if let Some(reason) = self.withdrawn() {
            return Err(Failure::new(FailureKind::Withdrawn, reason));
        }
        if let Some(link) = self.idle.lock().ok().and_then(|mut idle| idle.pop()) {
            return Ok(link);
        }
        let mut link = self.open().map_err(|reason| {
            Failure::new(FailureKind::Start, format!("failed at start: {reason}"))
        })?;
        if self.is_command() {
            self.hello(link.as_mut())?;
        }
        Ok(link)
    }

    /// Gives back a link that is still usable after a game.
    pub fn put_back(&self, link: Box<dyn Link>) {
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(link);
        }
    }

    /// Why the bot was withdrawn, if it was.
    pub fn withdrawn(&self) -> Option<String> {
        self.health.lock().ok().and_then(|h| h.withdrawn.clone())
    }

    /// Counts a game the bot took part in: a forfeit of its own (its
    /// failure) extends its run of forfeits (and may withdraw it, the
    /// reason quoting the last failure), any other result ends it.
    pub fn game_ended(&self, failure: Option<&Failure>) {
        let Ok(mut health) = self.health.lock() else {
            return;
        };
        let Some(failure) = failure else {
            health.forfeits_in_a_row = 0;
            return;
        };
        health.forfeits_in_a_row += 1;
        if health.withdrawn.is_none() && health.forfeits_in_a_row >= self.referee.withdraw_after {
            let last = failure
                .message
                .strip_prefix(&format!("{}: ", self.def.name))
                .unwrap_or(&failure.message);
            health.withdrawn = Some(format!(
                "withdrawn after {} forfeits in a row (the last: {last})",
                health.forfeits_in_a_row
            ));
            if let Ok(mut idle) = self.idle.lock() {
                idle.clear();
            }
        }
    }
}
