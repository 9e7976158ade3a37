//! `chessgraph rate evaluator`: evaluate positions with one or more evaluators, statically
//! and after a quiescence search, and measure them against the labels (τ, Pearson, RMSE,
//! Texel loss).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::progress::{Progress, Unit};
use anyhow::Context;
use chessgraph_core::data::{Format, Pov, ReadOptions};
use chessgraph_lab::accuracy::evaluator::{self, Sample};
use chessgraph_learn::fit::split::Part;
use chessgraph_store::evaluators;
use chessgraph_store::labels::LabelChoice;

/// Arguments of `chessgraph rate evaluator`.
#[derive(clap::Args)]
pub struct Args {
    /// Evaluators, comma-separated: built-in names (material, simplified, seed003, nnue), evaluator files, NNUE files or value-network model files (.safetensors), or evaluators stored by `tune`.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = chessgraph_engine::eval::DEFAULT_EVALUATOR,
        value_name = "E,.."
    )]
    pub(crate) evaluator: Vec<String>,
    /// Positions from this CSV/EPD/PGN file (`-`: standard input) instead of the database.
    #[arg(long, value_name = "FILE")]
    pub(crate) input: Option<PathBuf>,
    /// Input format, when the file name does not tell.
    #[arg(long, value_parser = crate::cli::values::one_of(&Format::ALL, Format::as_str))]
    format: Option<Format>,
    /// Whose point of view CSV evaluations use.
    #[arg(long, value_parser = crate::cli::values::one_of(&Pov::ALL, Pov::as_str), default_value = "white")]
    pov: Pov,
    /// From the database: the part of the split to evaluate (train, valid, test or all).
    #[arg(long, default_value = "test", value_name = "PART")]
    part: String,
    /// Evaluate only this many positions (from the database: a fixed sample of the labelled ones, chosen by a hash of the FEN, so imports of other positions leave it as it is; from a file: the first N).
    #[arg(long, value_name = "N")]
    sample: Option<usize>,
    /// K of the Texel loss σ(K·cp), the same for every evaluator [default: fitted on the positions' labels and game results, else ln(10)/400].
    #[arg(long, value_name = "K", value_parser = crate::cli::values::positive::<f64>)]
    k: Option<f64>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Labels to measure against, in order of preference: `imported` or labeller names given to `chessgraph label`.
    #[arg(long, default_value = "imported", value_name = "NAME,..")]
    labels: String,
    /// Also search every position to this depth (plies, 1..=20) and measure that score too.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=20))]
    depth: Option<u32>,
    /// Write `fen,static,qsearch,label` rows (with `search` before `label` under --depth) for the (single) evaluator to this CSV file (`-`: standard output, instead of the table).
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Runs `chessgraph rate evaluator`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.output.is_none() || args.evaluator.len() == 1,
        "--output writes one evaluator's numbers: give a single --evaluator"
    );
    let evals = args
        .evaluator
        .iter()
        .map(|name| {
            evaluators::resolve(db_path, name).with_context(|| format!("--evaluator {name}"))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let (samples, source) = match &args.input {
        Some(path) => (read_input(path, &args)?, path.display().to_string()),
        None => (
            read_stored(db_path, &args)?,
            format!("{} ({} part)", db_path.display(), args.part),
        ),
    };
    anyhow::ensure!(!samples.is_empty(), "no positions to evaluate in {source}");
    let k = match args.k {
        Some(k) => k,
        // One K for every evaluator: fitted on these positions' labels and results.
        None => evaluator::fit_k(&samples),
    };
    let mut reports = Vec::new();
    for (e, typed) in evals.iter().zip(&args.evaluator) {
        let bar = Progress::new(
            &format!("eval {typed}"),
            Unit::Items("positions"),
            Some(samples.len() as u64),
            args.quiet,
        );
        let scores = evaluator::score(e, &samples, args.depth, &bar);
        bar.finish();
        match &args.output {
            Some(path) if crate::cli::is_stdout(path) => {
                evaluator::write_csv(std::io::stdout().lock(), &samples, &scores)
                    .context("writing the CSV to standard output")?;
            }
            Some(path) => {
                let file = std::fs::File::create(path)
                    .with_context(|| format!("cannot create {}", path.display()))?;
                evaluator::write_csv(std::io::BufWriter::new(file), &samples, &scores)
                    .with_context(|| format!("writing {}", path.display()))?;
            }
            None => {}
        }
        // Rows are named as the user typed them: two files may hold evaluators of one name.
        reports.push(evaluator::measure(typed, &samples, &scores, args.depth, k));
    }
    record(db_path, &source, &reports);
    // With `--output -` standard output carries the rows, not the table.
    if args.output.as_deref().is_some_and(crate::cli::is_stdout) {
        return Ok(());
    }
    print(&reports, &samples, &source, args.json)
}

/// The labelled positions of `--input` (the first rejected rows said), at most `--sample`.
fn read_input(path: &Path, args: &Args) -> anyhow::Result<Vec<Sample>> {
    let Some(format) = args.format.or_else(|| Format::from_path(path)) else {
        anyhow::bail!(
            "cannot tell the format of {} from its name: give --format csv|pgn|epd",
            path.display()
        )
    };
    let (mut samples, rejects) = evaluator::read_file(path, format, ReadOptions { pov: args.pov })
        .with_context(|| format!("reading {}", path.display()))?;
    for r in rejects.iter().take(5) {
        warn!("{}:{}: {}", path.display(), r.line, r.reason);
    }
    if rejects.len() > 5 {
        warn!(
            "{}: {} more rows rejected",
            path.display(),
            rejects.len() - 5
        );
    }
    if let Some(n) = args.sample {
        samples.truncate(n);
    }
    Ok(samples)
}

/// The database's positions of `--part` with a label of `--labels`, at most `--sample`.
fn read_stored(db_path: &Path, args: &Args) -> anyhow::Result<Vec<Sample>> {
    let part = match args.part.as_str() {
        "all" => None,
        p => Some(
            Part::parse(p)
                .with_context(|| format!("--part must be train, valid, test or all, not {p:?}"))?,
        ),
    };
    let conn =
        crate::cli::open_reading(db_path, "`chessgraph import FILE` (or give --input FILE)")?;
    let labels = LabelChoice::parse(&args.labels)?;
    evaluator::read_db(&conn, part, args.sample, &labels)
        .with_context(|| format!("reading positions from {}", db_path.display()))
}

/// Keeps the comparison in the database's `runs` for `chessgraph report`, flat, so that the
/// report's run table shows every measure as a column.
fn record(db_path: &Path, source: &str, reports: &[evaluator::Report]) {
    for r in reports {
        let mut summary = serde_json::json!({
            "positions": r.positions,
            "labelled": r.labelled,
            "tau": r.static_eval.tau,
            "tau_qs": r.qsearch.tau,
            "pearson": r.static_eval.pearson,
            "pearson_qs": r.qsearch.pearson,
            "rmse": r.static_eval.rmse,
            "rmse_qs": r.qsearch.rmse,
            "loss": r.static_eval.texel_loss,
            "loss_qs": r.qsearch.texel_loss,
        });
        if let (Some(d), Some(a)) = (r.depth, &r.search) {
            summary["depth"] = d.into();
            summary["tau_search"] = a.tau.into();
            summary["pearson_search"] = a.pearson.into();
        }
        crate::cli::record_run(
            db_path,
            "eval",
            &format!("{} on {source}", r.evaluator),
            &summary,
        );
    }
}

fn print(
    reports: &[evaluator::Report],
    samples: &[Sample],
    source: &str,
    json: bool,
) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, reports)?;
        writeln!(out)?;
        return Ok(());
    }
    let r0 = &reports[0];
    writeln!(
        out,
        "{} positions from {source}: {} with a centipawn label (measured), {} mate labels left out; K = {:.6}",
        samples.len(),
        r0.labelled,
        r0.mate_labels,
        r0.k
    )?;
    write_table(&mut out, reports)
}

/// The measures of `reports` (one row per evaluator, static and after quiescence, and
/// after the fixed-depth search when there was one) with their legend: `rate evaluator`'s table,
/// which `tune` prints for the test part too.
pub fn write_table(out: &mut dyn Write, reports: &[evaluator::Report]) -> anyhow::Result<()> {
    let r0 = &reports[0];
    let depth_header = match r0.depth {
        Some(d) => {
            let c = |m: &str| format!("{m} d{d}");
            format!(
                " {:>8} {:>8} {:>8} {:>9}",
                c("τ"),
                c("r"),
                c("RMSE"),
                c("loss")
            )
        }
        None => String::new(),
    };
    // The names are as typed (file paths too): the column fits the longest.
    let w = reports
        .iter()
        .map(|r| r.evaluator.chars().count())
        .max()
        .unwrap_or(0)
        .max(16);
    writeln!(
        out,
        "\n{:<w$} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9}{depth_header}",
        "evaluator", "τ", "τ qs", "r", "r qs", "RMSE", "RMSE qs", "loss", "loss qs"
    )?;
    for r in reports {
        let depth_cells = match &r.search {
            Some(a) => format!(
                " {:>8} {:>8} {:>8} {:>9}",
                crate::cli::metric(a.tau, 4),
                crate::cli::metric(a.pearson, 4),
                crate::cli::metric(a.rmse, 1),
                crate::cli::metric(a.texel_loss, 6)
            ),
            None => String::new(),
        };
        writeln!(
            out,
            "{:<w$} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9}{depth_cells}",
            r.evaluator,
            crate::cli::metric(r.static_eval.tau, 4),
            crate::cli::metric(r.qsearch.tau, 4),
            crate::cli::metric(r.static_eval.pearson, 4),
            crate::cli::metric(r.qsearch.pearson, 4),
            crate::cli::metric(r.static_eval.rmse, 1),
            crate::cli::metric(r.qsearch.rmse, 1),
            crate::cli::metric(r.static_eval.texel_loss, 6),
            crate::cli::metric(r.qsearch.texel_loss, 6)
        )?;
    }
    writeln!(
        out,
        "\nτ: Kendall τ-b; r: Pearson; loss: mean (σ(K·eval) − σ(K·label))²; qs: after a capture-only quiescence search{}",
        match r0.depth {
            Some(d) => format!(
                "; d{d}: after a {d}-ply search (mates as ±{})",
                chessgraph_engine::eval::EVAL_LIMIT
            ),
            None => String::new(),
        }
    )?;
    Ok(())
}
