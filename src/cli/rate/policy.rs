//! `chessgraph rate policy`: policy networks on the split — agreement with the stored best
//! move, and with an engine the neural-network study's τ after the network's move.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use chessgraph_cnn::Net;
use chessgraph_engine::engines::command;
use chessgraph_lab::accuracy::policy::{self, PolicyReport};
use chessgraph_lab::label::Labeller;
use chessgraph_lab::label::uci::{Go, UciLabeller};
use chessgraph_learn::fit::split::Part;
use chessgraph_store::labels::LabelChoice;

use crate::cli::progress::{Progress, Unit};

/// Arguments of `chessgraph rate policy`.
#[derive(clap::Args)]
pub struct Args {
    /// Policy network files (`resnet-policy` or `policy-value`), comma-separated or repeated.
    #[arg(long, value_name = "FILE,..", value_delimiter = ',', required = true)]
    model: Vec<PathBuf>,
    /// The part of the split (train, valid, test or all).
    #[arg(long, default_value = "test", value_name = "PART")]
    part: String,
    /// Measure this many positions of the part (a fixed pseudo-random sample, as `rate evaluator`'s).
    #[arg(long, default_value_t = 2000, value_name = "N")]
    sample: usize,
    /// Labels (and their labellers' best moves), in order of preference: `imported` or labeller names.
    #[arg(long, default_value = "imported", value_name = "NAME,..")]
    labels: String,
    /// A UCI engine (its command line, quoted as in a shell) to evaluate the position after each move: the study's τ.
    #[arg(long, value_name = "CMD")]
    engine: Option<String>,
    /// The engine's search depth (the study used Stockfish at depth 10).
    #[arg(long, default_value_t = 10, value_name = "D", value_parser = crate::cli::values::at_least_one::<u32>)]
    depth: u32,
    /// A UCI option for the engine, NAME=VALUE (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = crate::cli::values::uci_option)]
    options: Vec<(String, String)>,
    /// Seconds to wait for the engine's answer to one position.
    #[arg(long, default_value_t = 60.0, value_name = "S", value_parser = crate::cli::values::positive::<f64>)]
    timeout: f64,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `chessgraph rate policy`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    let part = match args.part.as_str() {
        "all" => None,
        p => Some(
            Part::parse(p)
                .with_context(|| format!("--part must be train, valid, test or all, not {p:?}"))?,
        ),
    };
    let mut nets = Vec::new();
    for path in &args.model {
        let net = Net::load(path).with_context(|| format!("--model {}", path.display()))?;
        anyhow::ensure!(
            net.arch().has_policy(),
            "--model {}: a {} network has no policy head (rate it with `rate evaluator`)",
            path.display(),
            net.arch().as_str()
        );
        nets.push((path.display().to_string(), net));
    }
    let conn = crate::cli::open_existing(db_path, "`chessgraph import FILE`")?;
    let labels = LabelChoice::parse(&args.labels)?;
    let samples = policy::read_samples(&conn, &labels, part, Some(args.sample))
        .context("reading the positions")?;
    let mut engine = match &args.engine {
        None => None,
        Some(cmd) => Some(start_engine(cmd, &args, db_path)?),
    };
    let mut reports = Vec::new();
    let started = Instant::now();
    for (name, net) in &nets {
        let bar = Progress::new(
            "rate policy",
            Unit::Items("positions"),
            Some(samples.len() as u64),
            args.quiet,
        );
        let report = policy::measure(
            net,
            name,
            &samples,
            engine.as_mut().map(|e| e as &mut dyn Labeller),
            &|| bar.inc(1),
        )?;
        bar.finish();
        reports.push(report);
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &reports)?;
        writeln!(out)?;
        return Ok(());
    }
    write_table(&mut out, &reports, &args, samples.len())?;
    writeln!(
        out,
        "{} networks on {} positions in {:.1} s",
        reports.len(),
        samples.len(),
        started.elapsed().as_secs_f64()
    )?;
    Ok(())
}

fn start_engine(cmd: &str, args: &Args, db_path: &Path) -> anyhow::Result<UciLabeller> {
    let command = command::parse("--engine", cmd, db_path)?;
    UciLabeller::start(
        &command,
        &args.options,
        Go::Depth(args.depth),
        Duration::from_secs_f64(args.timeout),
    )
    .with_context(|| format!("--engine {cmd}"))
}

fn write_table(
    out: &mut impl Write,
    reports: &[PolicyReport],
    args: &Args,
    positions: usize,
) -> anyhow::Result<()> {
    writeln!(
        out,
        "{positions} positions ({} part); top-1 and top-3 against the stored best move{}",
        args.part,
        if args.engine.is_some() {
            format!(
                "; τ: the engine at depth {} after the move, against the label",
                args.depth
            )
        } else {
            String::new()
        }
    )?;
    writeln!(out)?;
    let width = reports
        .iter()
        .map(|r| r.model.len())
        .max()
        .unwrap_or(5)
        .max(5);
    write!(
        out,
        "{:width$}  {:>8}  {:>7}  {:>7}",
        "model", "with bm", "top-1", "top-3"
    )?;
    if args.engine.is_some() {
        write!(out, "  {:>8}  {:>10}", "τ after", "τ after bm")?;
    }
    writeln!(out)?;
    for r in reports {
        write!(
            out,
            "{:width$}  {:>8}  {:>6.1}%  {:>6.1}%",
            r.model,
            r.with_best,
            100.0 * r.top1,
            100.0 * r.top3
        )?;
        if let Some(a) = &r.after_move {
            write!(
                out,
                "  {:>8}  {:>10}",
                crate::cli::metric(a.tau, 4),
                a.best_tau.map_or("-".into(), |t| crate::cli::metric(t, 4))
            )?;
        }
        writeln!(out)?;
    }
    writeln!(out)?;
    Ok(())
}
