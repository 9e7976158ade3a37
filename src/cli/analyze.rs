//! `chessgraph analyze`: features and the attack/defense graph for stored positions.

use std::path::Path;

use super::progress::{Progress, Unit};
use anyhow::Context;
use chessgraph_store::analyze::{AnalyzeOptions, EdgeMode};

/// Arguments of `chessgraph analyze`.
#[derive(clap::Args)]
pub struct Args {
    /// Drop all features and edges and compute them again for every position.
    #[arg(long)]
    recompute: bool,
    /// Positions per chunk (one transaction each).
    #[arg(long, default_value_t = 20_000)]
    chunk_size: usize,
    /// Which graph edges to store: all, attacks only, or none (a much smaller database; `export data` still computes the whole graph).
    #[arg(long, value_parser = super::values::one_of(&EdgeMode::ALL, EdgeMode::as_str), default_value = "all")]
    edges: EdgeMode,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `chessgraph analyze`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    let mut conn = super::open_existing(db_path, "`chessgraph import FILE`")?;
    let progress = Progress::new("analyze", Unit::Items("positions"), None, args.quiet);
    let opts = AnalyzeOptions {
        recompute: args.recompute,
        chunk_size: args.chunk_size,
        edges: args.edges,
    };
    let summary = chessgraph_store::analyze::analyze(&mut conn, &opts, &progress)
        .with_context(|| format!("analyze failed on {}", db_path.display()))?;
    progress.finish();
    if summary.positions == 0 {
        if chessgraph_store::stats::position_count(&conn)? == 0 {
            say!(
                "nothing to analyze: the database has no positions (run `chessgraph import FILE` first)"
            )?;
            return Ok(());
        }
        say!("nothing to analyze: every position has its features (use --recompute to redo them)")?;
        return Ok(());
    }
    say!(
        "analyzed {} positions, {} edges ({:.1} per position) in {:.2} s ({:.0} positions/s)",
        summary.positions,
        summary.edges,
        summary.edges as f64 / summary.positions as f64,
        summary.seconds,
        summary.positions as f64 / summary.seconds.max(1e-9)
    )?;
    Ok(())
}
