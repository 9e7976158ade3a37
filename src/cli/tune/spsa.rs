//! `chessgraph tune spsa`: a UCI engine's spin options tuned by SPSA over games.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use chessgraph_engine::engines::command;
use chessgraph_lab::arena::matches::{self, EngineSpec};
use chessgraph_lab::spsa::history::{self, History};
use chessgraph_lab::spsa::run::{self, Finished, Settings};
use chessgraph_lab::spsa::{Param, Schedule, parse_input};

use crate::cli::progress::{Progress, Unit};

/// Arguments of `chessgraph tune spsa`.
#[derive(clap::Args)]
pub struct Args {
    /// The engine's command line, quoted as in a shell (`chessgraph` as its first word means this program), e.g. "./chessgraph-tune" from `make tune`.
    #[arg(long, value_name = "CMD")]
    engine: String,
    /// The options to tune, one a line as OpenBench takes them: `name, int|float, value, min, max, c_end, r_end` (`chessgraph-engine spsa` prints the engine's own).
    #[arg(long, value_name = "FILE")]
    params: PathBuf,
    /// The run's directory: settings, history.csv (a row an iteration), history.png and values.txt; a run started again there with the same settings goes on where it stopped.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Iterations of the run (the steps shrink toward c_end and r_end at the last).
    #[arg(long, default_value_t = 1000, value_name = "N", value_parser = crate::cli::values::at_least_one::<u64>)]
    iterations: u64,
    /// Pairs of games per iteration (an opening with both colours).
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = crate::cli::values::at_least_one::<u32>)]
    pairs: u32,
    /// A UCI option both sides keep, NAME=VALUE (repeatable), e.g. Hash=16.
    #[arg(long, value_name = "NAME=VALUE", value_parser = crate::cli::values::uci_option)]
    option: Vec<(String, String)>,
    #[command(flatten)]
    limits: crate::cli::GameLimits,
    /// Start positions, used in turn: a file of FENs, EPD lines or FEN,eval CSV rows [default: the built-in balanced openings, as `match`].
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    #[command(flatten)]
    adjudication: crate::cli::AdjudicationArgs,
    /// Iterations played at once, each on its own two engines.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = crate::cli::values::at_least_one::<usize>)]
    concurrency: usize,
    /// Decay of the learning rate, α.
    #[arg(long, default_value_t = 0.602)]
    alpha: f64,
    /// Decay of the perturbation, γ.
    #[arg(long, default_value_t = 0.101)]
    gamma: f64,
    /// The stability constant A as a share of the iterations.
    #[arg(long, default_value_t = 0.1)]
    a_ratio: f64,
    /// Seed of the perturbations.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `chessgraph tune spsa`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    for (flag, v) in [
        ("--alpha", args.alpha),
        ("--gamma", args.gamma),
        ("--a-ratio", args.a_ratio),
    ] {
        anyhow::ensure!(
            v.is_finite() && v > 0.0,
            "{flag} must be a positive number, got {v}"
        );
    }
    let text = std::fs::read_to_string(&args.params)
        .with_context(|| format!("cannot read --params {}", args.params.display()))?;
    let params = parse_input(&text)
        .map_err(|e| anyhow::anyhow!("--params {}, {e}", args.params.display()))?;
    let settings = settings(db_path, &args, params)?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create --out {}", args.out.display()))?;
    check_same_run(&args, &settings)?;
    let csv = args.out.join("history.csv");
    let mut history = History::open_or_create(&csv, &settings.params)?;
    let done = history.finished();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "spsa: {} options, {} iterations of {} game pair(s) at {}, {} at once; {}",
        settings.params.len(),
        settings.schedule.iterations,
        settings.pairs,
        settings.tc.describe(),
        settings.concurrency,
        if done == 0 {
            format!("new run in {}", args.out.display())
        } else {
            format!("resuming {} after iteration {done}", args.out.display())
        }
    )?;
    out.flush()?;
    let todo = settings.schedule.iterations.saturating_sub(done);
    let bar = Progress::new("spsa", Unit::Items("iterations"), Some(todo), args.quiet);
    let started = Instant::now();
    let summary = run::run(&settings, &mut history, &mut |f: &Finished| {
        bar.inc(1);
        bar.set_message(format!(
            "θ+cδ: +{} ={} -{}; faults {}",
            f.games.wins,
            f.games.draws,
            f.games.losses,
            faults(f.games)
        ));
    })?;
    bar.finish();
    let secs = started.elapsed().as_secs_f64();
    let png = args.out.join("history.png");
    history::plot(&png, &settings.params, &history.rows)?;
    let values = history.values().to_vec();
    write_values(&args.out.join("values.txt"), &settings.params, &values)?;
    print_values(&mut out, &settings.params, &values)?;
    writeln!(
        out,
        "{} iterations, {} games in {secs:.1} s ({:.1} games/s); θ+cδ +{} ={} -{}; illegal moves, time losses, engine failures: {}; history in {}, plot {}",
        history.finished() - done,
        summary.games,
        summary.games as f64 / secs.max(1e-9),
        summary.wins,
        summary.draws,
        summary.losses,
        faults(&summary),
        csv.display(),
        png.display()
    )?;
    Ok(())
}

/// Faults of both sides: illegal moves, time losses, engine failures.
fn faults(s: &matches::Summary) -> String {
    format!(
        "{} / {} / {}",
        s.illegal_moves[0] + s.illegal_moves[1],
        s.time_losses[0] + s.time_losses[1],
        s.failures[0] + s.failures[1]
    )
}

/// The run's settings from the command line.
fn settings(db_path: &Path, args: &Args, params: Vec<Param>) -> anyhow::Result<Settings> {
    let openings = match &args.openings {
        Some(path) => matches::read_openings(path)?,
        None => matches::default_openings(),
    };
    Ok(Settings {
        engine: EngineSpec {
            name: args.engine.clone(),
            command: command::parse("--engine", &args.engine, db_path)?,
            options: args.option.clone(),
        },
        params,
        schedule: Schedule {
            iterations: args.iterations,
            alpha: args.alpha,
            gamma: args.gamma,
            a_ratio: args.a_ratio,
        },
        pairs: args.pairs,
        seed: args.seed,
        tc: args.limits.time_control()?,
        openings,
        adjudication: args.adjudication.adjudication()?,
        concurrency: args.concurrency,
    })
}

/// Writes the settings to `DIR/spsa.json` for a new run, or checks that a run already in
/// `DIR` has the same (a resumed run must go on as it started).
fn check_same_run(args: &Args, settings: &Settings) -> anyhow::Result<()> {
    let record = serde_json::json!({
        "engine": args.engine,
        "options": settings.engine.options,
        "params": settings.params,
        "schedule": settings.schedule,
        "pairs": settings.pairs,
        "seed": settings.seed,
        "time_control": settings.tc.describe(),
        "openings": args.openings,
        "adjudication": settings.adjudication.describe(),
    });
    let path = args.out.join("spsa.json");
    if path.exists() {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let before: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a run's settings", path.display()))?;
        if let Some(key) = record
            .as_object()
            .into_iter()
            .flatten()
            .find(|(k, v)| before.get(k.as_str()) != Some(v))
            .map(|(k, _)| k)
        {
            anyhow::bail!(
                "{} holds a run with other settings ({key} differs: it had {}); give another --out to start a new run",
                args.out.display(),
                before.get(key.as_str()).unwrap_or(&serde_json::Value::Null)
            );
        }
        return Ok(());
    }
    std::fs::write(&path, serde_json::to_string_pretty(&record)? + "\n")
        .with_context(|| format!("cannot write {}", path.display()))
}

/// `DIR/values.txt`: the tuned values as OpenBench prints a tune's result, `name, value`.
fn write_values(path: &Path, params: &[Param], values: &[f64]) -> anyhow::Result<()> {
    let text: String = params
        .iter()
        .zip(values)
        .map(|(p, &v)| format!("{}, {}\n", p.name, p.uci_value(v)))
        .collect();
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// The table of start and tuned values.
fn print_values(out: &mut impl Write, params: &[Param], values: &[f64]) -> anyhow::Result<()> {
    let width = params
        .iter()
        .map(|p| p.name.len())
        .max()
        .unwrap_or(4)
        .max(6);
    writeln!(
        out,
        "{:<width$} {:>10} {:>10} {:>10} {:>10}",
        "option", "start", "tuned", "min", "max"
    )?;
    for (p, &v) in params.iter().zip(values) {
        writeln!(
            out,
            "{:<width$} {:>10} {:>10} {:>10} {:>10}",
            p.name,
            p.uci_value(p.start),
            p.uci_value(v),
            p.uci_value(p.min),
            p.uci_value(p.max)
        )?;
    }
    Ok(())
}
