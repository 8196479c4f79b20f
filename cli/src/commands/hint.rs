//! `sawah hint`: every legal move for a roll ranked by the reference's win
//! probability, with what each does, through the protocol's `hint`.

use anyhow::{Context, Result, bail};
use sawah_engine::registry::Registry;
use sawah_protocol::messages::{
    Answer, BotSpec, HintRequest, MoveOrPass, Request, Response, RollTableAnswer,
};
use sawah_protocol::native::Limits;
use sawah_workflows::bots::{BotFiles, native_bot, setup};

/// The arguments of `sawah hint`.
#[derive(clap::Args, Debug)]
pub struct HintArgs {
    /// The position, as JSON or in notation (e.g. "ur light 7/-/0 7/-/0").
    #[arg(long)]
    pub position: String,
    /// The roll; without it, the roll table: every roll's chance and the
    /// win probability after it with the best move.
    #[arg(long)]
    pub roll: Option<u8>,
    /// What the moves are ranked by: perfect (needs --table), a level or
    /// any agent spec. Default: perfect play when --table gives the rule
    /// set's table, else hard searching one ply deeper.
    #[arg(long, value_name = "SPEC")]
    pub reference: Option<String>,
    /// The solved tables and models the reference reads.
    #[command(flatten)]
    pub files: BotFiles,
    /// Print the bot protocol's JSON response instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Ranks the moves and prints them.
pub fn run(registry: &mut Registry, args: HintArgs) -> Result<()> {
    let (game, position) = registry
        .parse_position_text(&args.position)
        .context("cannot read --position")?;
    let bot = native_bot(registry.clone(), &setup(&args.files, false, Limits::NONE)?)?;
    let request = Request::Hint(HintRequest {
        position: position.clone(),
        roll: args.roll,
        bot: args.reference.as_deref().map(BotSpec::from),
    });
    let answer = match bot.answer(request, None) {
        Ok(answer) => answer,
        Err(error) => bail!("{}", error.message),
    };
    if args.json {
        println!("{}", Response::Answer { id: None, answer }.line());
        return Ok(());
    }
    let (hint, roll) = match (answer, args.roll) {
        (Answer::RollTable(table), _) => {
            print_roll_table(game.name(), &position.turn.to_string(), &table);
            return Ok(());
        }
        (Answer::Hint(hint), Some(roll)) => (hint, roll),
        _ => bail!("the hint answered with another answer"),
    };
    println!(
        "{} {} to move, roll {roll}; reference: {}",
        game.name(),
        position.turn,
        hint.reference
    );
    if hint.moves.is_empty() {
        println!("no legal move: the turn passes");
        return Ok(());
    }
    println!(
        "\n| rank | move | win | loss | what it does | can be hit |\n|---:|---|---:|---:|---|---:|"
    );
    for (k, m) in hint.moves.iter().enumerate() {
        let hit = m
            .hit_chance
            .map_or("–".to_string(), |p| format!("{}%", rounded(100.0 * p, 0)));
        println!(
            "| {} | {}-{} | {}% | {} | {} | {hit} |",
            k + 1,
            m.mv.from,
            m.mv.to,
            rounded(100.0 * m.value, 1),
            rounded(m.loss_pp, 2),
            m.words.join("; ")
        );
    }
    Ok(())
}

/// The roll table of a `hint` answer without a roll.
fn print_roll_table(rules: &str, turn: &str, table: &RollTableAnswer) {
    println!(
        "{rules} {turn} to move, before the roll; reference: {}",
        table.reference
    );
    println!("\n| roll | chance | win after the best move | best move |\n|---:|---:|---:|---|");
    for row in &table.rolls {
        let best = match &row.mv {
            MoveOrPass::Move(m) => format!("{}-{}", m.from, m.to),
            MoveOrPass::Pass(_) => "pass".to_string(),
        };
        println!(
            "| {} | {}% | {}% | {best} |",
            row.roll,
            rounded(100.0 * row.probability, 2),
            rounded(100.0 * row.value, 1),
        );
    }
    println!(
        "\nBefore the roll: {}% to win (the rolls' values weighted by their chances).",
        rounded(100.0 * table.value, 1)
    );
}

/// `value` to `decimals` places, never as "-0" (a chance of −0.0 or a loss
/// of −0.000001 is nothing, and is printed so).
fn rounded(value: f64, decimals: i32) -> String {
    let scale = 10f64.powi(decimals);
    let value = (value * scale).round() / scale + 0.0;
    format!("{value:.*}", decimals as usize)
}

#[cfg(test)]
mod tests {
    #[test]
    fn nothing_is_printed_as_minus_zero() {
        assert_eq!(super::rounded(-0.0, 0), "0");
        assert_eq!(super::rounded(-0.004, 2), "0.00");
        assert_eq!(super::rounded(-0.04, 1), "0.0");
        assert_eq!(super::rounded(12.345, 1), "12.3");
        assert_eq!(super::rounded(-1.26, 1), "-1.3");
    }
}
