//! `chessgraph engine`.

use std::path::Path;

use anyhow::Context;
use chessgraph_engine::uci;

/// Arguments of `chessgraph engine`.
#[derive(clap::Args)]
pub struct Args {
    /// Evaluator: a built-in name (material, simplified, seed003, nnue), an evaluator or network file, or one stored by `tune` in --db [default: nnue for the engine; seed003, the graph-features study's evaluator, for the studies' players, which reproduce the study].
    #[arg(long)]
    evaluator: Option<String>,
    /// Who chooses the moves, NAME[:key=value,...]: `engine` (the full search); `random[:seed=S]`; `greedy[:evaluator=E]`; `minimax[:depth=D,order=O,evaluator=E]`; `mcts[:iterations=N,c=C,rollout=P,seed=S,evaluator=E]`; `mcts:net=FILE[,simulations=N,c=C,seed=S]`; `logistic:model=FILE`; `cnn:model=FILE`; `policy:model=FILE` (docs/engine.md, "Players", says what each does).
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
