//! `chessgraph train cnn`: train one of the studies' networks (`cnn-study`, `cnn-eval`,
//! `resnet-policy`, `policy-value`) on the database's split and write the model file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use chessgraph_cnn::{Arch, Net, Shape};
use chessgraph_learn::train::cnn::{self, Needs, NetOptions, NetProgress, PartMetrics, data};
use chessgraph_store::labels::LabelChoice;

use crate::cli::progress::{Progress as Bar, Unit};

/// Arguments of `chessgraph train cnn`.
#[derive(clap::Args)]
pub struct Args {
    /// The architecture: `cnn-study` (players study's CNN), `cnn-eval` (evaluation-only CNN), `resnet-policy`, `policy-value`.
    #[arg(long, value_parser = crate::cli::values::one_of(&Arch::ALL, Arch::as_str), value_name = "ARCH")]
    arch: Arch,
    /// Write the model here (safetensors with chessgraph's header); rewritten after every better epoch.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Filters per convolution [default: 32].
    #[arg(long, value_name = "C", value_parser = crate::cli::values::between::<1, 512>)]
    channels: Option<usize>,
    /// Residual blocks (conv layers for cnn-study) [default: 4].
    #[arg(long, value_name = "N", value_parser = crate::cli::values::between::<1, 64>)]
    blocks: Option<usize>,
    /// Most passes over the train part [default: the study's: cnn-study 100, cnn-eval 15, the ResNets 20].
    #[arg(long, value_name = "N", value_parser = crate::cli::values::at_least_one::<usize>)]
    epochs: Option<usize>,
    /// Stop after this many epochs without a lower valid loss.
    #[arg(long, default_value_t = 2, value_name = "N", value_parser = crate::cli::values::at_least_one::<usize>)]
    patience: usize,
    /// Positions per mini-batch [default: the study's: cnn-study 2,048, the others 512].
    #[arg(long, value_name = "N", value_parser = crate::cli::values::at_least_one::<usize>)]
    batch: Option<usize>,
    /// Adam's learning rate.
    #[arg(long, default_value_t = 1e-3, value_name = "LR", value_parser = crate::cli::values::positive::<f64>)]
    lr: f64,
    /// Time-based learning-rate decay per step, lr / (1 + decay · step) [default: cnn-eval 1e-4 as the study, else 0].
    #[arg(long, value_name = "D", value_parser = crate::cli::values::non_negative)]
    decay: Option<f64>,
    /// Decoupled weight decay (0: plain Adam, as the studies).
    #[arg(long, default_value_t = 0.0, value_name = "WD", value_parser = crate::cli::values::non_negative)]
    weight_decay: f64,
    /// Train on at most this many positions of the train part, spread evenly over it (for learning curves; valid and test stay whole).
    #[arg(long, value_name = "N", value_parser = crate::cli::values::at_least_one::<usize>)]
    train_positions: Option<usize>,
    /// Measure each epoch on at most this many positions of the valid part, spread evenly over it (the test part stays whole).
    #[arg(long, value_name = "N", value_parser = crate::cli::values::at_least_one::<usize>)]
    valid_positions: Option<usize>,
    /// Labels to learn, in order of preference: `imported` or labeller names given to `chessgraph label`.
    #[arg(long, default_value = "imported", value_name = "NAME,..")]
    labels: String,
    /// Train only on positions of this source: an id or the beginning of source paths (repeatable; default all).
    #[arg(long, value_name = "SOURCE")]
    source: Vec<String>,
    /// k of σ(k·cp) instead of fitting it to the train part's game results.
    #[arg(long, value_name = "K", value_parser = crate::cli::values::positive::<f64>)]
    k: Option<f64>,
    /// Start from this model's weights (same architecture and size): fine-tuning, or resuming a checkpoint.
    #[arg(long, value_name = "FILE")]
    init: Option<PathBuf>,
    /// Seed of the initial weights and the shuffling.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `chessgraph train cnn`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    crate::cli::not_stdout(Some(args.out.as_path()), "--out")?;
    let opts = options(&args);
    let conn = crate::cli::open_existing(db_path, "`chessgraph import FILE`")?;
    let mut out = std::io::stdout().lock();
    let init = match &args.init {
        None => None,
        Some(path) => Some(Net::load(path).with_context(|| format!("--init {}", path.display()))?),
    };
    let load_start = Instant::now();
    let labels = LabelChoice::parse(&args.labels)?;
    let needs = Needs {
        label: opts.arch.has_value(),
        best_move: opts.arch.has_policy(),
    };
    let mut set = data::load(&conn, &labels, &args.source, needs)
        .context("reading the training positions")?;
    if let Some(n) = args.train_positions {
        set.train = spread(std::mem::take(&mut set.train), n);
    }
    if let Some(n) = args.valid_positions {
        set.valid = spread(std::mem::take(&mut set.valid), n);
    }
    writeln!(
        out,
        "{} positions ({} train, {} valid, {} test; {} without {} left out) read in {:.2} s",
        set.train.len() + set.valid.len() + set.test.len(),
        set.train.len(),
        set.valid.len(),
        set.test.len(),
        set.left_out,
        match (needs.label, needs.best_move) {
            (true, true) => "a label and a best move",
            (false, true) => "a best move",
            _ => "a label",
        },
        load_start.elapsed().as_secs_f64()
    )?;
    let opts = NetOptions {
        k: crate::cli::choose_k(&mut out, args.k, &data::label_result_pairs(&set.train))?,
        ..opts
    };
    print_plan(&mut out, &opts)?;
    out.flush()?;
    let provenance = serde_json::json!({
        "tool": format!("chessgraph {}", env!("CARGO_PKG_VERSION")),
        "database": db_path.file_name().map(|n| n.to_string_lossy().into_owned()),
        "labels": labels.describe(),
        "sources": args.source,
        "positions": {"train": set.train.len(), "valid": set.valid.len(), "test": set.test.len()},
        "epochs": opts.epochs, "batch": opts.batch, "lr": opts.lr, "decay": opts.decay,
        "seed": opts.seed,
    });
    let mut trained = train_with_progress(&mut out, &set, &opts, init.as_ref(), provenance, &args)?;
    stamp(&mut trained)?;
    trained
        .net
        .save(&args.out)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    print_summary(&mut out, &args.out, set.train.len(), &trained)
}

/// The architecture, its size and the settings, one line.
fn print_plan(out: &mut impl Write, opts: &NetOptions) -> anyhow::Result<()> {
    writeln!(
        out,
        "training {} ({} channels × {} {}) for at most {} epochs (patience {}), batch {}, Adam lr {} decay {}, weight decay {}, seed {}, {} threads",
        opts.arch.as_str(),
        opts.shape.channels,
        opts.shape.blocks,
        if opts.arch == Arch::CnnStudy {
            "conv layers"
        } else {
            "blocks"
        },
        opts.epochs,
        opts.patience,
        opts.batch,
        opts.lr,
        opts.decay,
        opts.weight_decay,
        opts.seed,
        rayon::current_num_threads()
    )?;
    Ok(())
}

/// Writes what the training found into the kept network's header.
fn stamp(trained: &mut cnn::Trained) -> anyhow::Result<()> {
    let mut made = trained.net.header().provenance.clone();
    made["best_epoch"] = trained.best_epoch.into();
    made["epochs_run"] = trained.epochs_run.into();
    made["seconds"] = trained.seconds.into();
    made["valid"] = serde_json::to_value(&trained.valid)?;
    made["test"] = serde_json::to_value(&trained.test)?;
    trained.net.set_provenance(made);
    Ok(())
}

/// The test part's figures and the training's rate.
fn print_summary(
    out: &mut impl Write,
    path: &Path,
    train: usize,
    trained: &cnn::Trained,
) -> anyhow::Result<()> {
    writeln!(
        out,
        "kept epoch {}; test part: {} ({} positions measured in {:.2} s, {:.0} positions/s)",
        trained.best_epoch,
        figures(&trained.test),
        trained.test.positions,
        trained.test_seconds,
        trained.test.positions as f64 / trained.test_seconds.max(1e-9)
    )?;
    writeln!(
        out,
        "wrote {}: trained on {} positions × {} epochs in {:.1} s ({:.0} positions/s)",
        path.display(),
        train,
        trained.epochs_run,
        trained.seconds,
        trained.positions_seen as f64 / trained.seconds.max(1e-9)
    )?;
    Ok(())
}

/// At most `n` of `samples`, spread evenly over them (every source represented, the same
/// positions every run).
fn spread(samples: Vec<data::Sample>, n: usize) -> Vec<data::Sample> {
    let len = samples.len();
    if n >= len {
        return samples;
    }
    let mut keep = (0..n).map(|i| i * len / n).peekable();
    samples
        .into_iter()
        .enumerate()
        .filter_map(|(i, s)| {
            (keep.peek() == Some(&i)).then(|| {
                keep.next();
                s
            })
        })
        .collect()
}

/// The options the arguments ask for, with the architecture's defaults.
fn options(args: &Args) -> NetOptions {
    let default = NetOptions::for_arch(args.arch);
    NetOptions {
        shape: Shape {
            channels: args.channels.unwrap_or(default.shape.channels),
            blocks: args.blocks.unwrap_or(default.shape.blocks),
        },
        epochs: args.epochs.unwrap_or(default.epochs),
        batch: args.batch.unwrap_or(default.batch),
        lr: args.lr,
        decay: args.decay.unwrap_or(default.decay),
        weight_decay: args.weight_decay,
        patience: args.patience,
        seed: args.seed,
        ..default
    }
}

/// The figures of a part, one line.
fn figures(m: &PartMetrics) -> String {
    let mut parts = vec![format!("loss {}", crate::cli::metric(m.loss, 5))];
    if let Some(t) = m.tau {
        parts.push(format!("τ {}", crate::cli::metric(t, 4)));
    }
    if let (Some(t1), Some(t3)) = (m.top1, m.top3) {
        parts.push(format!(
            "top-1 {:.1} %, top-3 {:.1} %",
            100.0 * t1,
            100.0 * t3
        ));
    }
    parts.join(", ")
}

/// Trains with a progress bar, a line per epoch, and the best epoch written to `--out`
/// as it comes (a checkpoint).
fn train_with_progress(
    out: &mut impl Write,
    set: &data::NetData,
    opts: &NetOptions,
    init: Option<&Net>,
    provenance: serde_json::Value,
    args: &Args,
) -> anyhow::Result<cnn::Trained> {
    let bar = Bar::new("train cnn", Unit::Items("batches"), None, args.quiet);
    let mut failed: Option<anyhow::Error> = None;
    let trained = cnn::train(set, opts, init, provenance, &mut |p| match p {
        NetProgress::Batch(epoch, done, total, loss) => {
            let total = total as u64;
            bar.set_length(total * opts.epochs as u64);
            bar.set_position((epoch as u64 - 1) * total + done as u64);
            bar.set_message(format!("epoch {epoch}/{}, loss {loss:.5}", opts.epochs));
        }
        NetProgress::Epoch {
            epoch,
            train_loss,
            seconds,
            valid,
            best,
        } => {
            let rate = set.train.len() as f64 / seconds.max(1e-9);
            let line = format!(
                "epoch {epoch:>3}: train loss {train_loss:.5}, valid {}{}, {rate:.0} positions/s trained",
                figures(valid),
                if best.is_some() { " (best)" } else { "" }
            );
            if let Some(Err(e)) = best.map(|net| net.save(&args.out)) {
                failed.get_or_insert(anyhow::Error::new(e).context("writing the checkpoint"));
            }
            bar.suspend(|| {
                if let Err(e) = writeln!(out, "{line}") {
                    failed.get_or_insert(e.into());
                }
            });
        }
    })
    .context("train cnn")?;
    bar.finish();
    if let Some(e) = failed {
        return Err(e);
    }
    Ok(trained)
}
