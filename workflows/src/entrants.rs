//! Who plays: agent specs and levels, and the outside bots a `--bots FILE`
//! defines (their names work wherever a spec does). Shared by `match`,
//! `tournament`, `sprt`, `play` and `check-bot`.

use anyhow::{Context, Result, bail};
use sawah_agents::AgentSpec;
use sawah_agents::manifest::Models;
use sawah_eval::arena::entrant::Entrant;
use sawah_eval::arena::outside::{BotDefs, OutsideBot, Referee};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The options for outside bots.
#[derive(clap::Args, Debug, Clone)]
pub struct OutsideArgs {
    /// Outside bots (a TOML file, see docs/bots.md): each bot's name then
    /// works wherever an agent spec does.
    #[arg(long, value_name = "FILE")]
    pub bots: Option<PathBuf>,
    /// Seconds an outside bot has for each move, measured by the harness
    /// from request to answer; a bot that takes longer forfeits the game.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub move_time: f64,
    /// Forfeits in a row after which an outside bot is withdrawn (its
    /// remaining games are recorded as forfeits without being played).
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub withdraw_after: u32,
}

impl Default for OutsideArgs {
    /// No outside bots, the command line's defaults.
    fn default() -> OutsideArgs {
        OutsideArgs {
            bots: None,
            move_time: 10.0,
            withdraw_after: 5,
        }
    }
}

impl OutsideArgs {
    /// The refereeing these options ask for, checked; logs go to `log_dir`.
    pub fn referee(&self, log_dir: Option<PathBuf>) -> Result<Referee> {
        if !(self.move_time.is_finite() && self.move_time > 0.0 && self.move_time <= 3600.0) {
            bail!(
                "--move-time must be a number of seconds above 0 and at most 3600, not {}",
                self.move_time
            );
        }
        if self.withdraw_after == 0 {
            bail!("--withdraw-after must be at least 1");
        }
        Ok(Referee {
            move_time: Duration::from_secs_f64(self.move_time),
            withdraw_after: self.withdraw_after,
            log_dir,
        })
    }
}

/// Resolves names to entrants for one rule set.
pub struct Entrants {
    defs: BotDefs,
    referee: Referee,
    started: HashMap<String, Arc<OutsideBot>>,
    models: Option<Models>,
    rules: String,
    table: Option<String>,
}

impl Entrants {
    /// The resolver for `rules`: levels through `models`, `perfect`
    /// without a table given `table`, outside bots from `args.bots`.
    pub fn new(
        args: &OutsideArgs,
        log_dir: Option<PathBuf>,
        models: Option<Models>,
        rules: &str,
        table: Option<String>,
    ) -> Result<Entrants> {
        let referee = args.referee(log_dir)?;
        let defs = match &args.bots {
            Some(path) => BotDefs::load(path)?,
            None => BotDefs::default(),
        };
        Ok(Entrants {
            defs,
            referee,
            started: HashMap::new(),
            models,
            rules: rules.to_string(),
            table,
        })
    }

    /// The entrant `text` names: an outside bot defined by that name
    /// (started the first time it is named, so a bot that cannot start is
    /// reported now), or an agent spec or level.
    pub fn resolve(&mut self, text: &str) -> Result<Entrant> {
        let text = text.trim();
        if let Some(def) = self.defs.get(text) {
            if let Some(bot) = self.started.get(text) {
                return Ok(Entrant::Outside(Arc::clone(bot)));
            }
            let bot =
                OutsideBot::start(def.clone(), self.referee.clone()).map_err(anyhow::Error::msg)?;
            self.started.insert(text.to_string(), Arc::clone(&bot));
            return Ok(Entrant::Outside(bot));
        }
        let spec = crate::models::spec_of(&self.models, text, &self.rules).map_err(|e| {
            let defined = self.defs.names();
            let unknown = matches!(e, sawah_agents::SpecError::UnknownAgent(_));
            if !defined.is_empty() {
                anyhow::anyhow!("{e}; bots defined in --bots: {}", defined.join(", "))
            } else if unknown && !text.contains([':', '=', '{']) {
                // A bare name that is no agent: most often an outside bot
                // whose bots file was not given.
                anyhow::anyhow!(
                    "{e}; if {text:?} is an outside bot, name its bots file with --bots FILE (docs/bots.md)"
                )
            } else {
                anyhow::Error::new(e)
            }
        });
        let spec = spec.with_context(|| format!("agent {text:?}"))?;
        Ok(Entrant::Builtin(with_default_table(spec, &self.table)))
    }

    /// The outside bots started so far.
    pub fn started(&self) -> impl Iterator<Item = &Arc<OutsideBot>> {
        self.started.values()
    }
}

/// `spec`, playing from `table` if it is a `perfect` agent that names none.
fn with_default_table(mut spec: AgentSpec, table: &Option<String>) -> AgentSpec {
    if spec.table.is_none() && spec.agent == sawah_agents::spec::AgentKind::Perfect {
        spec.table = table.clone();
    }
    spec
}
