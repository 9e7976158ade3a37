//! `chessgraph stats`: what is in a database.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use chessgraph_store::stats;

/// Arguments of `chessgraph stats`.
#[derive(clap::Args)]
pub struct Args {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `chessgraph stats`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    let conn = super::open_reading(db_path, "`chessgraph import FILE`")?;
    let s = stats::gather(&conn).context("cannot read statistics")?;
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &s)?;
        writeln!(out)?;
        return Ok(());
    }
    print_overview(&mut out, db_path, &s)?;
    print_distributions(&mut out, &s)?;
    print_sources(&mut out, &s)?;
    print_stored(&mut out, &s)?;
    Ok(())
}

type Out<'a> = std::io::StdoutLock<'a>;

/// Counts: positions, games, analysis, edges, the evaluation's deciles.
fn print_overview(out: &mut Out, db_path: &Path, s: &stats::Stats) -> std::io::Result<()> {
    writeln!(
        out,
        "database      {} (schema v{})",
        db_path.display(),
        s.schema_version
    )?;
    writeln!(
        out,
        "positions     {} ({} with eval, {} with mate, {} with game result)",
        s.positions, s.with_eval, s.with_mate, s.with_result
    )?;
    writeln!(out, "games         {}", s.games)?;
    writeln!(
        out,
        "analyzed      {} ({} not yet)",
        s.analyzed,
        s.positions - s.analyzed
    )?;
    writeln!(
        out,
        "edges         {}{}",
        s.edges,
        if s.analyzed > 0 {
            format!(" ({:.1} per position)", s.edges as f64 / s.analyzed as f64)
        } else {
            String::new()
        }
    )?;
    if let Some((lo, hi)) = s.eval_range {
        let deciles: Vec<String> = s.eval_deciles.iter().map(|d| d.to_string()).collect();
        writeln!(
            out,
            "eval_cp       min {lo}, deciles {}, max {hi}",
            deciles.join(" ")
        )?;
    }
    Ok(())
}

/// The phase histogram and each feature's mean, sd and range.
fn print_distributions(out: &mut Out, s: &stats::Stats) -> std::io::Result<()> {
    if !s.phase_histogram.is_empty() {
        writeln!(out, "\nphase  positions")?;
        let most = s
            .phase_histogram
            .iter()
            .map(|p| p.1)
            .max()
            .unwrap_or(1)
            .max(1);
        for (phase, n) in &s.phase_histogram {
            let bar = "#".repeat(((n * 40) / most) as usize);
            writeln!(out, "{phase:>5}  {n:>9}  {bar}")?;
        }
    }
    if !s.features.is_empty() {
        writeln!(
            out,
            "\n{:<20} {:>9} {:>9} {:>7} {:>7}",
            "feature", "mean", "sd", "min", "max"
        )?;
        for f in &s.features {
            writeln!(
                out,
                "{:<20} {:>9.3} {:>9.3} {:>7} {:>7}",
                f.name, f.mean, f.sd, f.min, f.max
            )?;
        }
    }
    Ok(())
}

/// The imported files with their counts.
fn print_sources(out: &mut Out, s: &stats::Stats) -> std::io::Result<()> {
    if !s.sources.is_empty() {
        // The format column as wide as its longest name (`lichess-evals`).
        let fw = s
            .sources
            .iter()
            .map(|src| src.format.chars().count())
            .max()
            .unwrap_or(0)
            .max("format".len());
        writeln!(
            out,
            "\n{:>3} {:<fw$} {:>9} {:>9} {:>9} {:>8}  path",
            "id", "format", "read", "imported", "dups", "rejected"
        )?;
        for src in &s.sources {
            writeln!(
                out,
                "{:>3} {:<fw$} {:>9} {:>9} {:>9} {:>8}  {}{}",
                src.id,
                src.format,
                src.rows_read,
                src.rows_imported,
                src.rows_duplicate,
                src.rows_rejected,
                src.path,
                if src.finished {
                    ""
                } else {
                    "  (unfinished: re-run the import to complete it)"
                }
            )?;
        }
    }
    Ok(())
}

/// What is stored under which name: labels, evaluators, fits, runs, reject reasons.
fn print_stored(out: &mut Out, s: &stats::Stats) -> std::io::Result<()> {
    if !s.labels.is_empty() {
        writeln!(
            out,
            "\nlabels (for --labels; `imported` is the positions' own)"
        )?;
        for (name, n) in &s.labels {
            writeln!(out, "{n:>9}  {name}")?;
        }
    }
    if !s.evaluators.is_empty() {
        writeln!(
            out,
            "\n{:>3} {:<20} {:>14} {:>15} {:>13} {:>14}  stored (for --evaluator)",
            "id",
            "evaluator",
            "valid fit loss",
            "test Texel loss",
            "test τ static",
            "test τ qsearch"
        )?;
        for e in &s.evaluators {
            let m = |v: Option<f64>, d: usize| super::metric(v.unwrap_or(f64::NAN), d);
            writeln!(
                out,
                "{:>3} {:<20} {:>14} {:>15} {:>13} {:>14}  {}",
                e.id,
                e.name,
                m(e.valid_loss, 6),
                m(e.test_loss, 6),
                m(e.test_tau, 4),
                m(e.test_tau_qsearch, 4),
                e.created_at
            )?;
        }
    }
    if !s.fits.is_empty() {
        writeln!(
            out,
            "\n{:>3} {:<9} {:<8} {:>8}  (for export evaluator --fit)",
            "fit", "kind", "target", "rows"
        )?;
        for (id, kind, target, n) in &s.fits {
            writeln!(out, "{id:>3} {kind:<9} {target:<8} {n:>8}")?;
        }
    }
    if !s.runs.is_empty() {
        writeln!(out, "\nruns (for the report)")?;
        for (kind, n, last) in &s.runs {
            writeln!(out, "{n:>9}  {kind} (newest {last})")?;
        }
    }
    if !s.reject_reasons.is_empty() {
        writeln!(out, "\nreject reasons")?;
        for (reason, n) in &s.reject_reasons {
            writeln!(out, "{n:>9}  {reason}")?;
        }
    }
    Ok(())
}
