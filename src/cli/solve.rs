//! `chessgraph solve`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;

use chessgraph::measure::puzzles::{self, REPORT_HEADER, Solver, Summary};

/// Arguments of `chessgraph solve`.
#[derive(clap::Args)]
pub struct Args {
    /// Puzzle file: EPD with `dm N` / `bm` / `am` / `id`, or PGN games with a FEN tag whose
    /// moves are the solution (plain, .gz or .zst; `-` for stdin).
    #[arg(long, value_name = "FILE")]
    input: PathBuf,
    /// Time limit per puzzle in milliseconds (default: no limit, search until solved).
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// Print the summary as JSON instead of the table.
    #[arg(long)]
    json: bool,
}

/// Runs `chessgraph solve`: one report line per puzzle, then the summary.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    if args.movetime == Some(0) {
        anyhow::bail!("--movetime must be at least 1 ms");
    }
    let set = puzzles::load(&args.input)
        .with_context(|| format!("cannot read puzzles from {}", args.input.display()))?;
    for bad in &set.bad {
        warn!(
            "chessgraph: warning: {}:{bad}; puzzle skipped",
            args.input.display()
        );
    }
    anyhow::ensure!(
        !set.puzzles.is_empty(),
        "no puzzle could be read from {} ({} unreadable)",
        args.input.display(),
        set.bad.len()
    );
    let mut out = std::io::stdout().lock();
    if !args.json {
        writeln!(out, "{REPORT_HEADER}")?;
    }
    let mut solver = Solver::new(args.movetime.map(Duration::from_millis));
    let mut reports = Vec::with_capacity(set.puzzles.len());
    for puzzle in &set.puzzles {
        let report = solver.solve(puzzle);
        if !args.json {
            writeln!(out, "{report}")?;
            out.flush()?;
        }
        reports.push(report);
    }
    let summary = Summary::new(&reports, set.bad.len());
    if !args.json {
        writeln!(out, "{summary}")?;
    }
    let mut record = serde_json::json!({
        "solved": summary.solved,
        "attempted": summary.attempted,
        "other_key": summary.other_key,
        "timeouts": summary.timeouts,
        "unverified": summary.unverified,
        "skipped": summary.skipped,
        "unreadable": summary.unreadable,
        "median_ms": summary.median.as_secs_f64() * 1e3,
        "max_ms": summary.max.as_secs_f64() * 1e3,
    });
    for g in &summary.by_n {
        record[format!("mate{}_solved", g.n)] = format!("{}/{}", g.solved, g.total).into();
        record[format!("mate{}_median_ms", g.n)] = (g.median.as_secs_f64() * 1e3).into();
    }
    if args.json {
        serde_json::to_writer_pretty(&mut out, &record)?;
        writeln!(out)?;
    }
    super::record_run(db_path, "solve", &args.input.display().to_string(), &record);
    Ok(())
}
