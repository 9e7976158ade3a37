//! `chessgraph tune evaluator` (also plain `chessgraph tune`): Texel-tune the tapered
//! evaluator on the stored positions, store it and optionally write it as an evaluator file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::cli::progress::{Progress, Unit};
use anyhow::Context;
use chessgraph_lab::accuracy::evaluator;
use chessgraph_learn::fit::split::Part;
use chessgraph_learn::tune::{self, Options, TuneTarget};
use chessgraph_store::evaluators;
use chessgraph_store::labels::LabelChoice;

/// Arguments of `chessgraph tune evaluator`.
#[derive(clap::Args)]
pub struct Args {
    /// Write the tuned evaluator to this file (JSON; `chessgraph export evaluator` can write it later too).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Name of the tuned evaluator in the database [default: tuned-N].
    #[arg(long)]
    name: Option<String>,
    /// Replace the stored evaluator of that name (without it, a taken name is refused).
    #[arg(long)]
    replace: bool,
    /// What to fit: `eval` (the Stockfish labels) or `result` (game results, PGN positions only).
    #[arg(long, value_enum, default_value_t = TargetArg::Eval)]
    target: TargetArg,
    /// Starting weights and ridge centre: a built-in name, a file or a stored evaluator.
    #[arg(long, default_value = "simplified", value_name = "EVALUATOR")]
    start: String,
    /// Also tune the graph-features study's mobility and king-safety terms (legal-move counts: slow in the engine).
    #[arg(long)]
    study_terms: bool,
    /// K of σ(K·cp) instead of fitting it to the game results.
    #[arg(long, value_name = "K")]
    k: Option<f64>,
    /// Result weights λ to try, comma-separated (0 = labels only, 1 = results only).
    #[arg(long, value_delimiter = ',', value_name = "L,..")]
    lambdas: Option<Vec<f64>>,
    /// Relative ridge strengths α to try, comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "A,..")]
    alphas: Option<Vec<f64>>,
    /// Most Gauss–Newton steps.
    #[arg(long, default_value_t = 10, value_name = "N", value_parser = crate::cli::values::at_least_one::<usize>)]
    max_steps: usize,
    /// Fit the static evaluation of the positions as given, not of their quiescence-search leaves.
    #[arg(long)]
    no_leaves: bool,
    /// Labels to fit, in order of preference: `imported` or labeller names given to `chessgraph label`.
    #[arg(long, default_value = "imported", value_name = "NAME,..")]
    labels: String,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Print the result (settings chosen, fit loss per part, the test part's measures) as JSON instead of the tables.
    #[arg(long)]
    json: bool,
}

#[derive(Copy, Clone, clap::ValueEnum)]
enum TargetArg {
    /// The Stockfish evaluations (mates as ±2500 cp).
    Eval,
    /// The game results.
    Result,
}

/// Runs `chessgraph tune evaluator`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    crate::cli::not_stdout(args.out.as_deref(), "--out")?;
    let conn = crate::cli::open_existing(db_path, "`chessgraph import FILE`")?;
    let opts = options(db_path, &conn, &args)?;
    // With --json the tables go nowhere and one JSON document is printed at the end.
    let mut out: Box<dyn Write> = if args.json {
        Box::new(std::io::sink())
    } else {
        Box::new(std::io::stdout().lock())
    };
    let load_start = Instant::now();
    let leaves = (!args.no_leaves).then_some(&opts.start);
    let labels = LabelChoice::parse(&args.labels)?;
    let set = tune::load(&conn, leaves, &labels).context("reading positions")?;
    anyhow::ensure!(
        !set.is_empty(),
        "the database {} has no positions (run `chessgraph import FILE` first)",
        db_path.display()
    );
    writeln!(
        out,
        "{} positions ({} train, {} valid, {} test) read and expanded to terms in {:.2} s",
        set.len(),
        set.count(Part::Train),
        set.count(Part::Valid),
        set.count(Part::Test),
        load_start.elapsed().as_secs_f64()
    )?;

    let bar = Progress::new(
        "tune",
        Unit::Items("steps"),
        Some(opts.max_steps as u64),
        args.quiet,
    );
    let mut step_lines = Vec::new();
    let tuned = tune::tune(&set, &opts, &mut |s| {
        let line = format!(
            "step {:>2}: train loss {:.6}, valid loss {:.6} (α {:.0e}, λ {:.2}), {:.0} positions/s",
            s.step, s.train_loss, s.valid_loss, s.alpha, s.lambda, s.positions_per_sec
        );
        bar.set_message(line.clone());
        bar.inc(1);
        step_lines.push(line);
    })
    .context("tune")?;
    bar.finish();
    print_tuned(&mut out, &tuned, &opts, &step_lines)?;
    let held_out = held_out(db_path, &conn, &labels, &tuned, &opts, args.quiet)?;
    print_held_out(&mut out, &held_out)?;
    let tuned_test = held_out.as_ref().map(|[t, _]| t);
    let measures = evaluators::Measures {
        valid_fit_loss: tuned.valid.fit_loss,
        test_loss: tuned_test.map_or(f64::NAN, |r| r.static_eval.texel_loss),
        test_tau: tuned_test.map_or(f64::NAN, |r| r.static_eval.tau),
        test_tau_qsearch: tuned_test.map_or(f64::NAN, |r| r.qsearch.tau),
    };
    let id = evaluators::store(&conn, &tuned.evaluator, &measures, args.replace)?;
    writeln!(
        out,
        "\nstored as evaluator #{id} {:?}; tuning took {:.2} s",
        tuned.evaluator.name(),
        tuned.elapsed.as_secs_f64()
    )?;
    if let Some(path) = &args.out {
        tuned
            .evaluator
            .save(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        writeln!(out, "wrote {}", path.display())?;
    }
    if args.json {
        drop(out);
        print_json(id, &tuned, held_out.as_ref())?;
    }
    Ok(())
}

/// The tuned and the start evaluator on the test part, measured exactly as `chessgraph
/// eval` measures them (same positions, same K, same definitions); `None` when the test
/// part has no labelled position.
fn held_out(
    db_path: &Path,
    conn: &rusqlite::Connection,
    labels: &LabelChoice,
    tuned: &tune::Tuned,
    opts: &Options,
    quiet: bool,
) -> anyhow::Result<Option<[evaluator::Report; 2]>> {
    let samples = evaluator::read_db(conn, Some(Part::Test), None, labels)
        .with_context(|| format!("reading the test part of {}", db_path.display()))?;
    if samples.is_empty() {
        return Ok(None);
    }
    let k = evaluator::fit_k(&samples);
    let bar = Progress::new(
        "measure",
        Unit::Items("positions"),
        Some(2 * samples.len() as u64),
        quiet,
    );
    let report = |e: &chessgraph_engine::eval::Evaluator| {
        let scores = evaluator::score(e, &samples, None, &bar);
        evaluator::measure(e.name(), &samples, &scores, None, k)
    };
    let reports = [report(&tuned.evaluator), report(&opts.start)];
    bar.finish();
    Ok((reports[0].labelled > 0).then_some(reports))
}

/// The test part's measures as `rate evaluator` prints them, for the tuned and the start evaluator.
fn print_held_out(
    out: &mut dyn Write,
    held_out: &Option<[evaluator::Report; 2]>,
) -> anyhow::Result<()> {
    let Some(reports) = held_out else {
        writeln!(
            out,
            "\nno labelled position in the test part: nothing to measure"
        )?;
        return Ok(());
    };
    writeln!(
        out,
        "\ntest part, as `chessgraph rate evaluator` measures it ({} positions with a centipawn label, K = {:.6}):",
        reports[0].labelled, reports[0].k
    )?;
    crate::cli::rate::evaluator::write_table(out, reports)
}

/// The tuner's options from the arguments (the start evaluator checked to be linear).
fn options(db_path: &Path, conn: &rusqlite::Connection, args: &Args) -> anyhow::Result<Options> {
    let start_eval = evaluators::resolve(db_path, &args.start)
        .with_context(|| format!("--start {}", args.start))?;
    anyhow::ensure!(
        start_eval.weights().is_some(),
        "--start {}: a network evaluator has no terms to tune (train networks with `chessgraph train`)",
        args.start
    );
    let name = match args.name.clone() {
        Some(n) if n.trim().is_empty() => anyhow::bail!("--name must not be empty"),
        // Refused before the work, not after it: a taken name needs --replace.
        Some(n) if !args.replace && evaluators::exists(conn, &n)? => {
            return Err(chessgraph_store::Error::EvaluatorExists(n).into());
        }
        Some(n) => n,
        None => evaluators::next_name(conn)?,
    };
    let mut opts = Options::new(name, db_path.display().to_string());
    opts.target = match args.target {
        TargetArg::Eval => TuneTarget::Eval,
        TargetArg::Result => TuneTarget::Result,
    };
    opts.start = start_eval;
    opts.study_terms = args.study_terms;
    opts.k = args.k;
    opts.max_steps = args.max_steps;
    if let Some(l) = args.lambdas.clone() {
        opts.lambdas = l;
    }
    if let Some(a) = args.alphas.clone() {
        anyhow::ensure!(
            a.iter().all(|v| *v > 0.0 && v.is_finite()),
            "--alphas must be positive numbers"
        );
        opts.alphas = a;
    }
    Ok(opts)
}

/// K, the steps, the chosen α and λ, and the loss and τ table of a tuning run.
fn print_tuned(
    out: &mut dyn Write,
    tuned: &tune::Tuned,
    opts: &Options,
    step_lines: &[String],
) -> anyhow::Result<()> {
    if tuned.k_positions > 0 {
        writeln!(
            out,
            "K = {:.6} per cp, fitted on {} training positions with a label and a game result",
            tuned.k, tuned.k_positions
        )?;
    } else {
        writeln!(
            out,
            "K = {:.6} per cp (given or default; too few game results to fit it)",
            tuned.k
        )?;
    }
    for l in step_lines {
        writeln!(out, "{l}")?;
    }
    writeln!(
        out,
        "chosen on the validation part: α = {:.0e} (relative ridge toward {}), λ = {:.2} (weight of game results)",
        tuned.alpha,
        opts.start.name(),
        tuned.lambda
    )?;
    writeln!(
        out,
        "\n{:<6} {:>8} {:>10} {:>10}",
        "part", "n", "fit loss", "start"
    )?;
    for (name, m) in [
        ("train", &tuned.train),
        ("valid", &tuned.valid),
        ("test", &tuned.test),
    ] {
        writeln!(
            out,
            "{name:<6} {:>8} {:>10} {:>10}",
            m.n,
            crate::cli::metric(m.fit_loss, 6),
            crate::cli::metric(m.start_fit_loss, 6)
        )?;
    }
    // With fewer positions than weights the ridge, not the data, decides most of them.
    if tuned.train.n < tuned.fitted_weights {
        warn!(
            "chessgraph: warning: only {} training positions for {} weights: most stay \
             near their start values ({}); import more labelled positions",
            tuned.train.n,
            tuned.fitted_weights,
            opts.start.name()
        );
    }
    writeln!(
        out,
        "fit loss: the tuner's objective against the {}, with the rounded weights, where it \
         fits (the quiescence leaves unless --no-leaves); start: {}",
        match opts.target {
            TuneTarget::Eval => "labels",
            TuneTarget::Result => "game results",
        },
        opts.start.name()
    )?;
    Ok(())
}

/// The run as one JSON document on standard output (`--json`).
fn print_json(
    id: i64,
    tuned: &tune::Tuned,
    held_out: Option<&[evaluator::Report; 2]>,
) -> anyhow::Result<()> {
    let doc = serde_json::json!({
        "id": id,
        "name": tuned.evaluator.name(),
        "k": tuned.k,
        "k_positions": tuned.k_positions,
        "alpha": tuned.alpha,
        "lambda": tuned.lambda,
        "steps": tuned.steps.len(),
        "fitted_weights": tuned.fitted_weights,
        "train": tuned.train,
        "valid": tuned.valid,
        "test": tuned.test,
        "test_eval": held_out.map(|[t, _]| t),
        "test_eval_start": held_out.map(|[_, s]| s),
        "seconds": tuned.elapsed.as_secs_f64(),
    });
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut stdout, &doc)?;
    writeln!(stdout)?;
    Ok(())
}
