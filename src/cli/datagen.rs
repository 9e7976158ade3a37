//! `chessgraph datagen`: self-play games at fixed nodes per move, stored as a source of
//! labelled positions.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use super::progress::{Progress, Unit};
use anyhow::Context;
use chessgraph_core::data::openings::read_openings;
use chessgraph_engine::datagen::opening::{OpeningBook, Openings};
use chessgraph_engine::datagen::{self, Counts, Options};
use chessgraph_store::import::GeneratedSource;

/// Arguments of `chessgraph datagen`.
#[derive(clap::Args)]
pub struct Args {
    /// Games the source should hold when done (a re-run with the same settings resumes).
    #[arg(long, default_value_t = 100, value_name = "N")]
    games: u64,
    /// Nodes searched per move: a soft limit, as engine authors generate data (the iteration that passes it finishes, up to 8 times as many nodes).
    #[arg(long, default_value_t = 5000, value_name = "N", value_parser = super::values::at_least_one::<u64>)]
    nodes: u64,
    /// Search each move to this depth instead of a node count.
    #[arg(long, value_name = "D", value_parser = super::values::at_least_one::<u32>)]
    depth: Option<u32>,
    /// Random plies from the start position that open each game (when no --openings).
    #[arg(long, default_value_t = 8, value_name = "N")]
    random_plies: u32,
    /// Start positions, one FEN or EPD per line (each used once).
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// Evaluator of the playing engine: a built-in name (material, simplified, seed003, nnue), an evaluator or network file, or one stored by `tune` in --db.
    #[arg(long, default_value = chessgraph_engine::eval::DEFAULT_EVALUATOR)]
    evaluator: String,
    /// Worker threads, one game each [default: all cores].
    #[arg(long, value_name = "N", value_parser = super::values::at_least_one::<usize>)]
    threads: Option<usize>,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Hash table per worker, MiB.
    #[arg(long, default_value_t = 16, value_name = "MIB", value_parser = super::values::hash_mib)]
    hash: usize,
    /// Adjudicate a win once the score stays at or beyond this many centipawns for 6 plies.
    #[arg(long, default_value_t = 1000, value_name = "CP", value_parser = super::values::positive::<i32>)]
    win_cp: i32,
    /// Draw games longer than this many plies.
    #[arg(long, default_value_t = 400, value_name = "N")]
    max_plies: u32,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `chessgraph datagen`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let evaluator = chessgraph_store::evaluators::resolve(db_path, &args.evaluator)
        .with_context(|| format!("--evaluator {}", args.evaluator))?;
    let openings = match &args.openings {
        Some(path) => Openings::List(read_openings(path)?),
        None => Openings::Random(args.random_plies),
    };
    let opts = Options {
        nodes: args.nodes,
        depth: args.depth,
        hash_mib: args.hash,
        win_cp: args.win_cp,
        max_plies: args.max_plies,
        ..Options::default()
    };
    let source_name = source_name(&args);
    let mut conn = super::open_db(db_path)?;
    super::settle_imports(&mut conn, db_path)?;
    let used = chessgraph_store::import::game_starts(&conn)?;
    let (mut source, resumed) = GeneratedSource::open(&mut conn, &source_name, "datagen")?;
    let stored: std::collections::HashSet<u64> = source.stored_games()?.into_iter().collect();
    let todo: Vec<u64> = (1..=args.games).filter(|i| !stored.contains(i)).collect();
    let book = OpeningBook::new(openings, args.seed, used);

    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} {source_name}: {} of {} games stored, {} to play on {threads} threads",
        if resumed { "resuming" } else { "new source" },
        stored.len(),
        args.games,
        todo.len()
    )?;
    out.flush()?;
    let bar = Progress::new(
        "datagen",
        Unit::Items("games"),
        Some(todo.len() as u64),
        args.quiet,
    );
    let started = Instant::now();
    let mut counts = Counts::default();
    let mut endings = std::collections::BTreeMap::<&str, u64>::new();
    let mut played = 0u64;
    datagen::run(
        Arc::new(evaluator),
        &book,
        &todo,
        threads,
        &opts,
        &mut |game| -> chessgraph_store::Result<()> {
            let (info, rows) = game.rows();
            source.write_game(&info, &rows)?;
            counts.add(&game.counts);
            *endings.entry(game.ending.describe()).or_default() += 1;
            played += 1;
            bar.inc(1);
            let secs = started.elapsed().as_secs_f64().max(1e-9);
            bar.set_message(format!(
                "{} positions kept, {:.0} positions/s",
                counts.kept,
                counts.kept as f64 / secs
            ));
            Ok(())
        },
    )?;
    bar.finish();
    let summary = source.finish()?;
    let secs = started.elapsed().as_secs_f64();
    if played < todo.len() as u64 {
        warn!(
            "chessgraph: warning: only {played} of {} games played: the openings ran out \
             (use more --random-plies or a longer --openings file)",
            todo.len()
        );
    }
    print_summary(&mut out, &counts, &endings, played, secs, &summary)
}

/// The source's name: the settings, so that the same command resumes it and other
/// settings start another.
fn source_name(args: &Args) -> String {
    format!(
        "datagen:evaluator={},{},openings={},seed={},win-cp={},max-plies={}",
        args.evaluator,
        match args.depth {
            Some(d) => format!("depth={d}"),
            None => format!("nodes={}", args.nodes),
        },
        match &args.openings {
            Some(p) => p.display().to_string(),
            None => format!("random-{}", args.random_plies),
        },
        args.seed,
        args.win_cp,
        args.max_plies
    )
}

/// The filters' counts, the games' endings and the rates.
fn print_summary(
    out: &mut impl Write,
    counts: &Counts,
    endings: &std::collections::BTreeMap<&str, u64>,
    played: u64,
    secs: f64,
    summary: &chessgraph_store::import::ImportSummary,
) -> anyhow::Result<()> {
    writeln!(
        out,
        "searched {} positions: kept {}, left out {} in check, {} with a capture or promotion as best move, {} with a mate score",
        counts.searched, counts.kept, counts.in_check, counts.tactical, counts.mate_score
    )?;
    let endings: Vec<String> = endings.iter().map(|(k, v)| format!("{k} {v}")).collect();
    writeln!(out, "game endings: {}", endings.join(", "))?;
    writeln!(
        out,
        "{} in {secs:.1} s ({:.0} positions/s kept, {:.0} searched/s); the source now holds {}, {} new positions ({} already stored)",
        super::plural(played, "game"),
        counts.kept as f64 / secs.max(1e-9),
        counts.searched as f64 / secs.max(1e-9),
        super::plural(summary.games, "game"),
        summary.imported,
        summary.duplicates
    )?;
    Ok(())
}
