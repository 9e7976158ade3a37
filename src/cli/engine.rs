//! `chessgraph engine`.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use chessgraph::players::{self, Spec};
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
    let spec = Spec::parse(&args.player)?;
    let name = args
        .evaluator
        .unwrap_or_else(|| super::default_evaluator(&spec).to_owned());
    let evaluator = chessgraph::db::evaluators::resolve(db_path, &name)
        .with_context(|| format!("loading evaluator {name:?}"))?;
    let db = db_path.to_owned();
    let resolve = move |s: &str| chessgraph::db::evaluators::resolve(&db, s);
    let player = players::build(&spec, Arc::new(evaluator), &resolve)
        .with_context(|| format!("--player {}", args.player))?;
    let out = uci::Output::new(Box::new(std::io::stdout()));
    uci::run(
        std::io::stdin().lock(),
        out,
        player,
        &name,
        Box::new(resolve),
    )
    .context("reading UCI commands from standard input")
}
