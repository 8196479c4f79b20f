//! One module per subcommand (or family of subcommands) that is the CLI's
//! own: its clap argument struct and the function that runs it. `main.rs`
//! parses and dispatches; the long jobs live in `sawah-workflows`.

pub mod bench;
pub mod bot;
pub mod check_bot;
pub mod curve;
pub mod describe;
pub mod export_games;
pub mod hint;
pub mod play;
pub mod serve;
pub mod train;
