//! One module per subcommand (or family of subcommands): its clap argument
//! struct and the function that runs it. `main.rs` only parses and
//! dispatches; the work itself lives in the modules beside this one and in
//! the library crates.

pub mod bench;
pub mod bot;
pub mod check_bot;
pub mod curve;
pub mod describe;
pub mod export_games;
pub mod game_file;
pub mod hint;
pub mod levels;
pub mod matches;
pub mod play;
pub mod puzzles;
pub mod report;
pub mod results_lines;
pub mod review;
pub mod review_text;
pub mod serve;
pub mod solve;
pub mod tournament;
pub mod train;
