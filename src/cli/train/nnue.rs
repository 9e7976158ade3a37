//! `chessgraph train`: train an NNUE on the database's labelled positions and write the
//! network file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::cli::progress::{Progress as Bar, Unit};
use anyhow::Context;
use chessgraph_engine::nnue::FeatureSet;
use chessgraph_learn::train::nnue::{self, Options, Progress, data};
use chessgraph_store::labels::LabelChoice;

/// Arguments of `chessgraph train`.
#[derive(clap::Args)]
pub struct Args {
    /// Write the trained network here (chessgraph's binary NNUE format).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Inputs: `threats` (pieces, and each piece again when attacked and when en prise: 2,304) or `pieces` (768).
    #[arg(long, value_parser = crate::cli::values::one_of(&FeatureSet::ALL, FeatureSet::as_str), default_value = "threats", value_name = "SET")]
    features: FeatureSet,
    /// Start from this network's weights (fine-tuning, e.g. on --source); it must have the same --features, --hidden and --buckets.
    #[arg(long, value_name = "FILE")]
    init: Option<PathBuf>,
    /// Train only on positions of this source: an id (see `chessgraph stats`) or the beginning of source paths (repeatable; default all).
    #[arg(long, value_name = "SOURCE")]
    source: Vec<String>,
    /// Hidden units H of the first layer.
    #[arg(long, default_value_t = 256, value_name = "H")]
    hidden: usize,
    /// Output buckets: the output layer is chosen by the number of pieces on the board (1: one output layer).
    #[arg(long, default_value_t = 1, value_name = "B")]
    buckets: usize,
    /// Passes over the training part.
    #[arg(long, default_value_t = 40, value_name = "N")]
    epochs: usize,
    /// Positions per mini-batch (1,024 chose best on the validation part: 4,096 and more generalize worse).
    #[arg(long, default_value_t = 1024, value_name = "N")]
    batch: usize,
    /// Initial learning rate of AdamW.
    #[arg(long, default_value_t = 1e-3, value_name = "LR", value_parser = crate::cli::values::positive::<f32>)]
    lr: f32,
    /// Final learning rate as a fraction of --lr (cosine decay).
    #[arg(long, default_value_t = 0.05, value_name = "F")]
    final_lr: f32,
    /// AdamW's decoupled weight decay (0.3 chose best on the validation part at batch 1,024 with 1-2M positions; 0.6 underfits there, 1e-4 overfits by far).
    #[arg(long, default_value_t = 0.3, value_name = "WD")]
    weight_decay: f32,
    /// Weight of the game result in the target, 0 to 1 (0: the labels only).
    #[arg(long, default_value_t = 0.0, value_name = "L", value_parser = crate::cli::values::fraction::<f32>)]
    lambda: f32,
    /// K of σ(K·cp) instead of fitting it to the training part's game results.
    #[arg(long, value_name = "K", value_parser = crate::cli::values::positive::<f32>)]
    k: Option<f32>,
    /// Labels to learn, in order of preference: `imported` (the stored label) or labeller names given to `chessgraph label`.
    #[arg(long, default_value = "imported", value_name = "NAME,..")]
    labels: String,
    /// Output weights' quantization scale, 1.0 ↦ QB (64, 128 or 256; finer keeps small weights apart, the weights are clipped to ±127/QB).
    #[arg(long, default_value_t = chessgraph_engine::nnue::QB, value_name = "QB", value_parser = crate::cli::values::int_in(&chessgraph_engine::nnue::QB_CHOICES))]
    qb: i32,
    /// Do not mirror training positions left-right (a↔h) at random.
    #[arg(long)]
    no_mirror: bool,
    /// Seed of the initial weights and the shuffling.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads [default: all cores]; results are reproducible for a given count.
    #[arg(long, value_name = "N", value_parser = crate::cli::values::at_least_one::<usize>)]
    threads: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `chessgraph train`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    crate::cli::not_stdout(Some(args.out.as_path()), "--out")?;
    if let Some(t) = args.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build_global()
            .context("cannot start the worker threads")?;
    }
    let conn = crate::cli::open_existing(db_path, "`chessgraph import FILE`")?;
    let mut out = std::io::stdout().lock();
    let load_start = Instant::now();
    let labels = LabelChoice::parse(&args.labels)?;
    let init = match &args.init {
        None => None,
        Some(path) => Some(std::sync::Arc::new(
            chessgraph_engine::nnue::Network::load(path)
                .with_context(|| format!("--init {}", path.display()))?,
        )),
    };
    let set = data::load(&conn, &labels, &args.source, args.features)
        .context("reading the labelled positions")?;
    anyhow::ensure!(
        !set.train.is_empty(),
        "the database {} has no labelled positions in its train part (import labelled \
         positions, or label them with `chessgraph label`)",
        db_path.display()
    );
    writeln!(
        out,
        "{} labelled positions ({} train, {} valid, {} test; {} without a label left out) read in {:.2} s",
        set.train.len() + set.valid.len() + set.test.len(),
        set.train.len(),
        set.valid.len(),
        set.test.len(),
        set.unlabelled,
        load_start.elapsed().as_secs_f64()
    )?;
    let k = crate::cli::choose_k(&mut out, args.k.map(f64::from), &set.train_pairs())? as f32;
    let opts = Options {
        features: args.features,
        hidden: args.hidden,
        buckets: args.buckets,
        epochs: args.epochs,
        batch: args.batch,
        lr: args.lr,
        final_lr: args.final_lr,
        weight_decay: args.weight_decay,
        lambda: args.lambda,
        k,
        seed: args.seed,
        mirror: !args.no_mirror,
        qb: args.qb,
        init,
    };
    let threads = rayon::current_num_threads();
    print_plan(&mut out, &opts, threads)?;
    out.flush()?;
    for warning in nnue::warnings(&set.train, &set.valid, &opts) {
        warn!("chessgraph: warning: {warning}");
    }

    let started = Instant::now();
    let mut trained = train_with_progress(&mut out, &set, &opts, args.quiet)?;
    let seconds = started.elapsed().as_secs_f64();
    let date: String = conn.query_row("SELECT strftime('%Y-%m-%dT%H:%M:%SZ', 'now')", [], |r| {
        r.get(0)
    })?;
    let made = provenance(
        db_path, &args, &labels, &set, &opts, &trained, threads, seconds, date,
    );
    trained.network.set_provenance(made);
    trained
        .network
        .save(&args.out)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    print_summary(&mut out, &args.out, &set, &opts, &trained, seconds)?;
    Ok(())
}

/// The kept epoch, the quantized network's losses and τ, and the rate.
fn print_summary(
    out: &mut impl Write,
    path: &Path,
    set: &data::Dataset,
    opts: &Options,
    trained: &nnue::Trained,
    seconds: f64,
) -> anyhow::Result<()> {
    writeln!(
        out,
        "kept epoch {} ({}); quantized network: valid loss {} τ {}, test loss {} τ {}",
        trained.best_epoch,
        if set.valid.is_empty() {
            "the last: no valid part"
        } else {
            "lowest valid loss"
        },
        crate::cli::metric(trained.valid.loss, 6),
        crate::cli::metric(trained.valid.tau, 4),
        crate::cli::metric(trained.test.loss, 6),
        crate::cli::metric(trained.test.tau, 4),
    )?;
    let positions = set.train.len() as f64 * opts.epochs as f64;
    writeln!(
        out,
        "wrote {}: trained on {} positions × {} epochs in {:.1} s ({:.0} positions/s)",
        path.display(),
        set.train.len(),
        opts.epochs,
        seconds,
        positions / seconds.max(1e-9)
    )?;
    Ok(())
}

/// Trains with a progress bar over every epoch's batches and a line per epoch on `out`.
fn train_with_progress(
    out: &mut impl Write,
    set: &data::Dataset,
    opts: &Options,
    quiet: bool,
) -> anyhow::Result<nnue::Trained> {
    let bar = Bar::new("train", Unit::Items("batches"), None, quiet);
    let mut io_error = None;
    let trained = nnue::train(&set.train, &set.valid, &set.test, opts, &mut |p| match p {
        Progress::Batch(epoch, done, total, loss) => {
            // Batches of every epoch, so that the rate is over the whole run.
            let total = total as u64;
            bar.set_length(total * opts.epochs as u64);
            bar.set_position((epoch as u64).saturating_sub(1) * total + done as u64);
            bar.set_message(format!("epoch {epoch}/{}, loss {loss:.6}", opts.epochs));
        }
        Progress::Epoch(e) => {
            let line = format!(
                "epoch {:>3}: train loss {:.6}, valid loss {}, lr {:.2e}, {:.0} positions/s",
                e.epoch,
                e.train_loss,
                crate::cli::metric(e.valid_loss, 6),
                e.lr,
                e.positions_per_s
            );
            bar.suspend(|| {
                if let Err(err) = writeln!(out, "{line}") {
                    io_error.get_or_insert(err);
                }
            });
        }
    })
    .context("train")?;
    bar.finish();
    if let Some(e) = io_error {
        return Err(e.into());
    }
    Ok(trained)
}

/// The network's shape and the training settings, one line.
fn print_plan(out: &mut impl Write, opts: &Options, threads: usize) -> anyhow::Result<()> {
    writeln!(
        out,
        "training {} → {} → 1 (SCReLU, {} inputs, {}) for {} epochs, batch {}, AdamW lr {} → {} (cosine), weight decay {}, λ {}, mirroring {}, seed {}, {} threads",
        opts.features.inputs(),
        opts.hidden,
        format!("{:?}", opts.features).to_lowercase(),
        crate::cli::plural(opts.buckets as u64, "output bucket"),
        opts.epochs,
        opts.batch,
        rate(opts.lr),
        rate(opts.lr * opts.final_lr),
        opts.weight_decay,
        opts.lambda,
        if opts.mirror { "on" } else { "off" },
        opts.seed,
        threads
    )?;
    Ok(())
}

/// What the network file records of how it was made.
#[allow(clippy::too_many_arguments)]
fn provenance(
    db_path: &Path,
    args: &Args,
    labels: &LabelChoice,
    set: &data::Dataset,
    opts: &Options,
    trained: &nnue::Trained,
    threads: usize,
    seconds: f64,
    date: String,
) -> serde_json::Value {
    serde_json::json!({
        "tool": format!("chessgraph {}", env!("CARGO_PKG_VERSION")),
        "date": date,
        // The file name only: a network file is shared, a local path says nothing elsewhere.
        "database": db_path.file_name().map_or_else(
            || db_path.display().to_string(),
            |n| n.to_string_lossy().into_owned()
        ),
        "labels": labels.describe(),
        "positions": {
            "train": set.train.len(),
            "valid": set.valid.len(),
            "test": set.test.len(),
        },
        "options": opts,
        "init": args.init.as_ref().map(|p| p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned()
        )),
        "sources": args.source,
        "threads": threads,
        "epochs": trained.epochs,
        "best_epoch": trained.best_epoch,
        "valid": trained.valid,
        "test": trained.test,
        "seconds": seconds,
    })
}

/// A learning rate to 3 significant digits, without the float's noise (5e-5, not
/// 0.000050000002).
fn rate(lr: f32) -> String {
    let v: f64 = format!("{lr:.2e}").parse().unwrap_or(f64::from(lr));
    format!("{v}")
}
