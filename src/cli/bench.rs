//! `chessgraph bench`.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use chessgraph_engine::search::bench;

/// Arguments of `chessgraph bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Search depth for every position.
    #[arg(long, default_value_t = bench::DEFAULT_DEPTH)]
    depth: u32,
    /// Evaluator: a built-in name (material, simplified, seed003, nnue), an evaluator or network file, or one stored by `tune` in --db. The node total is a signature of the search with this evaluator.
    #[arg(long, default_value = chessgraph_engine::eval::DEFAULT_EVALUATOR)]
    evaluator: String,
    /// Print the total as JSON instead of the table.
    #[arg(long)]
    json: bool,
}

/// Runs `chessgraph bench`: searches the fixed positions, prints nodes per position and
/// the total (a deterministic signature) and the speed.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(
        (1..=64).contains(&args.depth),
        "--depth must be between 1 and 64, got {}",
        args.depth
    );
    let evaluator = chessgraph_store::evaluators::resolve(db_path, &args.evaluator)
        .with_context(|| format!("loading evaluator {:?}", args.evaluator))?;
    let mut out = std::io::stdout().lock();
    let mut io_result = Ok(());
    let json = args.json;
    let total = bench::run(Arc::new(evaluator), args.depth, &mut |line| {
        if io_result.is_ok() && !json {
            io_result = writeln!(out, "{}", bench::line_text(line));
        }
    })?;
    io_result?;
    if !json {
        writeln!(out, "{}", bench::total_text(&total))?;
    }
    let record = serde_json::json!({
        "depth": args.depth,
        "nodes": total.nodes,
        "time_ms": total.time.as_millis() as u64,
        "nps": total.nps(),
    });
    if json {
        serde_json::to_writer_pretty(&mut out, &record)?;
        writeln!(out)?;
    }
    super::record_run(
        db_path,
        "bench",
        &format!("evaluator {}", args.evaluator),
        &record,
    );
    Ok(())
}
