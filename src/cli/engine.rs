//! `chessgraph engine`.

use std::path::Path;

use anyhow::Context;
use chessgraph::uci;

/// Arguments of `chessgraph engine`.
#[derive(clap::Args)]
pub struct Args {
    /// Evaluator: a built-in name (material, simplified, seed003, nnue), an evaluator or network file, or one stored by `tune` in --db [default: nnue for the engine; seed003, the graph-features study's evaluator, for the studies' players, which reproduce the study].
    #[arg(long)]
    evaluator: Option<String>,
    /// Who chooses the moves: `engine` (the full search), or one of the studies' players, NAME[:key=value,...] (e.g. `random:seed=2`, `minimax:depth=4`); see the README.
    #[arg(long, default_value = "engine", value_name = "SPEC")]
    player: String,
}

/// Runs `chessgraph engine`: a UCI engine on standard input and output.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    let (player, name, resolve) = super::player(db_path, &args.player, args.evaluator.as_deref())?;
    let out = uci::Output::new(Box::new(std::io::stdout()));
    uci::run(std::io::stdin().lock(), out, player, &name, resolve)
        .context("reading UCI commands from standard input")
}
