//! `chessgraph label`: label the database's positions with a UCI engine.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use super::progress::{Progress, Unit};
use anyhow::Context;
use chessgraph_engine::engines::command;
use chessgraph_lab::label::uci::{Go, UciLabeller};
use chessgraph_lab::label::{self, Labeller, LabellingError};
use chessgraph_store::labels;

/// Arguments of `chessgraph label`.
#[derive(clap::Args)]
pub struct Args {
    /// Engine command line, quoted as in a shell, e.g. "/usr/games/stockfish" or "chessgraph engine --evaluator mine" (this program, with --db).
    #[arg(long, value_name = "CMD")]
    engine: String,
    /// Name the labels are stored under (what `--labels` selects) [default: the program's file name].
    #[arg(long)]
    name: Option<String>,
    /// Nodes per position.
    #[arg(
        long,
        default_value_t = 5000,
        value_name = "N",
        conflicts_with = "depth",
        value_parser = super::values::at_least_one::<u64>
    )]
    nodes: u64,
    /// Depth per position instead of a node count.
    #[arg(long, value_name = "D", value_parser = super::values::at_least_one::<u32>)]
    depth: Option<u32>,
    /// Engine processes in parallel [default: all cores].
    #[arg(long, value_name = "J", value_parser = super::values::at_least_one::<usize>)]
    jobs: Option<usize>,
    /// UCI option for every engine, NAME=VALUE (repeatable); Threads=1 and Hash=16 unless given.
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = super::values::uci_option)]
    options: Vec<(String, String)>,
    /// Seconds to wait for an engine's answer before restarting it.
    #[arg(long, default_value_t = 30.0, value_name = "S", value_parser = super::values::positive::<f64>)]
    timeout: f64,
    /// Only positions first stored by these sources: an id (see `chessgraph stats`) or the beginning of their paths, e.g. `datagen`.
    #[arg(long, value_name = "ID|PREFIX")]
    source: Option<String>,
    /// Label at most this many positions in this run.
    #[arg(long, value_name = "N")]
    limit: Option<u64>,
    /// Try again the positions an earlier run gave up on.
    #[arg(long)]
    retry_failed: bool,
    /// Delete this labeller's labels first and label everything again.
    #[arg(long)]
    relabel: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `chessgraph label`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    let command = command::parse("--engine", &args.engine, db_path)?;
    let name = match &args.name {
        Some(n) => n.clone(),
        // The program's file name: `stockfish` for "/usr/games/stockfish -x".
        None => Path::new(&command[0])
            .file_name()
            .map_or_else(|| command[0].clone(), |f| f.to_string_lossy().into_owned()),
    };
    labels::check_name(&name)?;
    let options = chessgraph_lab::label::uci::options_with_defaults(&args.options);
    let go = match args.depth {
        Some(d) => Go::Depth(d),
        None => Go::Nodes(args.nodes),
    };
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let timeout = Duration::from_secs_f64(args.timeout);

    let conn = super::open_existing(db_path, "`chessgraph import FILE`")?;
    let mut out = std::io::stdout().lock();
    if args.relabel {
        let n = labels::delete(&conn, &name)?;
        writeln!(out, "deleted {n} labels by {name}")?;
    } else if args.retry_failed {
        let n = labels::clear_failures(&conn, &name)?;
        writeln!(out, "{n} positions {name} gave up on will be tried again")?;
    }
    let pending = labels::pending_count(&conn, &name, args.source.as_deref())?.max(0) as u64;
    let todo = args.limit.map_or(pending, |l| l.min(pending));
    writeln!(
        out,
        "labelling {todo} of {pending} positions without a {name} label with `{}` ({}), {jobs} engines",
        args.engine,
        match go {
            Go::Nodes(n) => format!("{n} nodes"),
            Go::Depth(d) => format!("depth {d}"),
        }
    )?;
    out.flush()?;

    let bar = Progress::new("label", Unit::Items("positions"), Some(todo), args.quiet);
    let start = || -> Result<Box<dyn Labeller>, LabellingError> {
        Ok(Box::new(UciLabeller::start(
            &command, &options, go, timeout,
        )?))
    };
    let started = Instant::now();
    let counts = label::run(
        &conn,
        &name,
        args.source.as_deref(),
        jobs,
        args.limit,
        &start,
        &mut |c| {
            bar.set_position(c.labelled + c.failed());
            let secs = started.elapsed().as_secs_f64().max(1e-9);
            bar.set_message(format!(
                "{} labelled, {} failed, {:.0} labelled/s",
                c.labelled,
                c.failed(),
                c.labelled as f64 / secs
            ));
        },
    )
    .with_context(|| format!("labelling with `{}`", args.engine))?;
    bar.finish();
    print_summary(
        &mut out,
        &args.engine,
        &name,
        &counts,
        started.elapsed().as_secs_f64(),
    )
}

/// The counts with the rate; an error when the engine labelled none of the positions tried.
fn print_summary(
    out: &mut impl Write,
    engine: &str,
    name: &str,
    counts: &label::Counts,
    secs: f64,
) -> anyhow::Result<()> {
    writeln!(
        out,
        "labelled {} positions as {name} in {secs:.1} s ({:.0} positions/s); gave up on {} ({} crashes, {} timeouts, {} garbage answers); {} engine restarts",
        counts.labelled,
        counts.labelled as f64 / secs.max(1e-9),
        counts.failed(),
        counts.crashed,
        counts.timed_out,
        counts.garbage,
        counts.restarts
    )?;
    if counts.failed() > 0 {
        writeln!(
            out,
            "the reasons are in the label_failures table; `--retry-failed` tries those positions again"
        )?;
    }
    anyhow::ensure!(
        counts.labelled > 0 || counts.failed() == 0,
        "`{engine}` labelled none of the {} positions tried ({} crashes, {} timeouts, {} garbage \
         answers; the reasons are in the label_failures table)",
        counts.failed(),
        counts.crashed,
        counts.timed_out,
        counts.garbage
    );
    Ok(())
}
