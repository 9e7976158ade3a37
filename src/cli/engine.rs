//! `chessgraph engine`.

use std::path::Path;

use anyhow::Context;
use chessgraph::uci;

/// Arguments of `chessgraph engine`.
#[derive(clap::Args)]
pub struct Args {
    /// Evaluator: a built-in name (material, simplified, seed003), an evaluator file, or one stored by `tune` in --db.
    #[arg(long, default_value = "seed003")]
    evaluator: String,
}

/// Runs `chessgraph engine`: a UCI engine on standard input and output.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    let evaluator = chessgraph::db::evaluators::resolve(db_path, &args.evaluator)
        .with_context(|| format!("loading evaluator {:?}", args.evaluator))?;
    let out = uci::Output::new(Box::new(std::io::stdout()));
    let db = db_path.to_owned();
    let resolve: uci::Resolver = Box::new(move |s| chessgraph::db::evaluators::resolve(&db, s));
    uci::run(
        std::io::stdin().lock(),
        out,
        evaluator,
        &args.evaluator,
        resolve,
    )
    .context("reading UCI commands from standard input")
}
