//! `chessgraph solve`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::progress::{Progress, Unit};
use anyhow::Context;

use chessgraph_core::data::lichess_puzzles::LichessReader;
use chessgraph_core::data::puzzles::{PuzzleSet, Source};
use chessgraph_engine::players::Spec;
use chessgraph_engine::search::Limits;
use chessgraph_lab::suites::bestmove::{Attempt, Contestant};
use chessgraph_lab::suites::lichess::Filter;
use chessgraph_lab::suites::lichess_stats::LichessSummary;
use chessgraph_lab::suites::puzzles::{REPORT_HEADER, Solver};
use chessgraph_lab::suites::solve::FileResult;

/// A player's time per puzzle when neither --movetime, --depth nor --nodes is given.
const DEFAULT_MOVETIME_MS: u64 = 1000;

/// Arguments of `chessgraph solve`.
#[derive(clap::Args)]
pub struct Args {
    /// Puzzle files: EPD with `dm N` (mate problems) or `bm`/`am`/STS `c0` points (best-move suites), PGN games with a FEN tag whose moves are the solution, or the Lichess puzzle database CSV (by its header or a .csv name; streamed) (plain, .gz or .zst; `-` for stdin). Several files give one summary each.
    #[arg(long, value_name = "FILE", required = true, num_args = 1..)]
    input: Vec<PathBuf>,
    /// Who solves: `engine` (mate problems by the mate search, best-move puzzles by the full search) or any player, NAME[:key=value,...] (e.g. `random:seed=1`, `minimax:depth=4`), whose mate-problem moves the mate search referees.
    #[arg(long, default_value = "engine", value_name = "SPEC")]
    player: String,
    /// The player's evaluator: a built-in name (material, simplified, seed003, nnue), an evaluator or network file, or one stored by `tune` in --db [default: nnue for the engine; seed003, the graph-features study's evaluator, for the studies' players, which reproduce the study].
    #[arg(long)]
    evaluator: Option<String>,
    /// Time limit per puzzle in milliseconds (mate search: default no limit, search until solved; players: default 1000 unless --depth or --nodes is given).
    #[arg(long, value_name = "MS", value_parser = crate::cli::values::at_least_one::<u64>)]
    movetime: Option<u64>,
    /// Depth limit of the player's search in plies (not of the mate search); makes the engine's moves repeatable.
    #[arg(long, value_name = "N", value_parser = crate::cli::values::at_least_one::<u32>)]
    depth: Option<u32>,
    /// Node limit of the player's search (not of the mate search).
    #[arg(long, value_name = "N", value_parser = crate::cli::values::at_least_one::<u64>)]
    nodes: Option<u64>,
    /// Take only the first N puzzles of each file (after the filters).
    #[arg(long, value_name = "N", value_parser = crate::cli::values::at_least_one::<usize>)]
    limit: Option<usize>,
    /// Lichess puzzles: only those rated at least this.
    #[arg(long, value_name = "RATING")]
    min_rating: Option<u32>,
    /// Lichess puzzles: only those rated at most this.
    #[arg(long, value_name = "RATING")]
    max_rating: Option<u32>,
    /// Lichess puzzles: only those with any of these themes (comma-separated, e.g. `mateIn2,fork`).
    #[arg(long, value_name = "THEMES", value_delimiter = ',')]
    themes: Vec<String>,
    /// Print the results as JSON (totals and one record per file, with every best-move position and the first 10,000 Lichess puzzles) instead of the tables.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `chessgraph solve`: per file, one report line per mate problem, the misses of the
/// best-move puzzles, the summaries (for Lichess puzzles: the misses and the tables by theme
/// and rating); each file's record is stored as a `solve` run.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    let (mut contestant, run_info) = contestant(db_path, &args)?;

    let filter = Filter {
        min_rating: args.min_rating,
        max_rating: args.max_rating,
        themes: args.themes.clone(),
    };
    let sources = open_sources(&args, &filter)?;
    let length = expected_length(&sources, args.limit);

    let bar = progress(args.quiet || args.json, length);
    let mut out = std::io::stdout().lock();
    let start = Instant::now();
    let mut records = Vec::with_capacity(sources.len());
    let (mut solved, mut total, mut unreadable, mut filtered) = (0, 0, 0, 0);
    for (file, source) in sources {
        let (record, counts) = match source {
            Source::Set(set) if set.puzzles.is_empty() => {
                unreadable += set.bad.len();
                continue;
            }
            Source::Set(set) => {
                let result = solve_set(file, set, &mut contestant, &bar, &mut out, args.json)?;
                let counts = (result.solved(), result.attempted(), result.bad.len());
                (result.record(&run_info), counts)
            }
            Source::Lichess(reader) => {
                let mut run = run_info.clone();
                run["file"] = file.clone().into();
                // Every move of a Lichess line is the player's: no mate search.
                run["mate_search"] = false.into();
                run["filter"] = filter.to_json();
                run["limit"] = args.limit.into();
                let (summary, outside) = solve_lichess(
                    &file,
                    reader,
                    &mut contestant,
                    (&filter, args.limit),
                    &bar,
                    &mut out,
                    args.json,
                )?;
                filtered += outside;
                if summary.all.total == 0 {
                    unreadable += summary.unreadable;
                    continue;
                }
                let all = &summary.all;
                let counts = (all.solved, all.total, summary.unreadable);
                (summary.record(&run), counts)
            }
        };
        let label = if args.player == "engine" {
            record["file"].as_str().unwrap_or_default().to_owned()
        } else {
            format!(
                "{} ({})",
                record["file"].as_str().unwrap_or_default(),
                contestant.name()
            )
        };
        super::record_run(db_path, "solve", &label, &record);
        solved += counts.0;
        total += counts.1;
        unreadable += counts.2;
        records.push(record);
    }
    bar.finish();
    if total == 0 {
        let outside = if filtered > 0 {
            format!(", {filtered} outside --min-rating, --max-rating and --themes")
        } else {
            String::new()
        };
        anyhow::bail!(
            "no puzzle could be read from {} ({unreadable} unreadable{outside}); nothing solved \
             or recorded",
            args.input
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let totals = (solved, total, unreadable);
    print_totals(
        &mut out,
        &args,
        &run_info,
        &records,
        totals,
        start.elapsed().as_secs_f64(),
    )
}

/// The player the arguments name, with the limits of every puzzle, and the run's
/// description stored with each file's result.
fn contestant(db_path: &Path, args: &Args) -> anyhow::Result<(Contestant, serde_json::Value)> {
    let (player, name, _) = super::player(db_path, &args.player, args.evaluator.as_deref())?;
    let is_engine = Spec::parse(&args.player)?.name == "engine";
    let movetime = args.movetime.map(Duration::from_millis);
    let limits = Limits {
        movetime: match (movetime, args.depth, args.nodes) {
            (None, None, None) => Some(Duration::from_millis(DEFAULT_MOVETIME_MS)),
            _ => movetime,
        },
        depth: args.depth,
        nodes: args.nodes,
        ..Limits::default()
    };
    let mate_search = is_engine.then(|| Solver::new(movetime));
    let contestant = Contestant::new(player, mate_search, limits.clone());
    // The player's limits; mate problems go to the mate search (limited by --movetime only)
    // when `mate_search` is true.
    let run_info = serde_json::json!({
        "player": contestant.name(),
        "evaluator": name,
        "mate_search": is_engine,
        "movetime_ms": limits.movetime.map(|d| d.as_millis() as u64),
        "depth": limits.depth,
        "nodes": limits.nodes,
    });
    Ok((contestant, run_info))
}

/// Every input opened (EPD/PGN sets read whole, Lichess files streamed), with its
/// unreadable puzzles said once.
fn open_sources(args: &Args, filter: &Filter) -> anyhow::Result<Vec<(String, Source)>> {
    let mut sources = Vec::with_capacity(args.input.len());
    for path in &args.input {
        let mut source = chessgraph_core::data::puzzles::open(path)
            .with_context(|| format!("cannot read puzzles from {}", path.display()))?;
        if let Source::Set(set) = &mut source {
            for bad in &set.bad {
                warn!(
                    "chessgraph: warning: {}:{bad}; puzzle skipped",
                    path.display()
                );
            }
            if !filter.is_empty() {
                warn!(
                    "chessgraph: warning: --min-rating, --max-rating and --themes filter Lichess \
                     puzzles only; {} is not a Lichess puzzle file",
                    path.display()
                );
            }
            set.puzzles.truncate(args.limit.unwrap_or(usize::MAX));
        }
        sources.push((path.display().to_string(), source));
    }
    Ok(sources)
}

/// How many puzzles the run will try, when it can be known before (for the progress bar).
fn expected_length(sources: &[(String, Source)], limit: Option<usize>) -> Option<usize> {
    let set_of = |s: &Source| match s {
        Source::Set(set) => Some(set.puzzles.len()),
        Source::Lichess(_) => None,
    };
    let streamed = sources.iter().any(|(_, s)| set_of(s).is_none());
    let known: usize = sources.iter().filter_map(|(_, s)| set_of(s)).sum();
    match (streamed, limit) {
        (false, _) => Some(known),
        (true, Some(n)) => Some(sources.iter().map(|(_, s)| set_of(s).unwrap_or(n)).sum()),
        (true, None) => None,
    }
}

/// The totals: one JSON document with `--json`, else one line.
fn print_totals(
    out: &mut impl Write,
    args: &Args,
    run_info: &serde_json::Value,
    records: &[serde_json::Value],
    (solved, total, unreadable): (usize, usize, usize),
    elapsed: f64,
) -> anyhow::Result<()> {
    if args.json {
        let mut v = run_info.clone();
        v["solved"] = solved.into();
        v["attempted"] = total.into();
        v["unreadable"] = unreadable.into();
        v["files"] = records.to_vec().into();
        if let [one] = records {
            // One file: its record's keys at the top too, as `solve --json` always gave.
            for (k, x) in one.as_object().into_iter().flatten() {
                v[k] = x.clone();
            }
        }
        serde_json::to_writer_pretty(&mut *out, &v)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "solve: {solved}/{total} solved ({} file{}), {elapsed:.1} s ({:.1} puzzles/s)",
            records.len(),
            if records.len() == 1 { "" } else { "s" },
            total as f64 / elapsed.max(1e-9)
        )?;
    }
    Ok(())
}

/// Solves an EPD or PGN file's puzzles: a report line per mate problem, then the summaries.
fn solve_set(
    file: String,
    set: PuzzleSet,
    contestant: &mut Contestant,
    bar: &indicatif::ProgressBar,
    out: &mut impl Write,
    json: bool,
) -> anyhow::Result<FileResult> {
    let mates = set.puzzles.iter().filter(|p| p.mate_in.is_some()).count();
    if !json {
        writeln!(
            out,
            "== {file}: {} puzzles ({mates} mate, {} best-move), {} unreadable; player {}",
            set.puzzles.len(),
            set.puzzles.len() - mates,
            set.bad.len(),
            contestant.name()
        )?;
        if mates > 0 {
            writeln!(out, "{REPORT_HEADER}")?;
        }
    }
    let mut result = FileResult::new(file, set.bad);
    for puzzle in &set.puzzles {
        let attempt = contestant.attempt(puzzle);
        if let (Attempt::Mate(report), false) = (&attempt, json) {
            bar.suspend(|| writeln!(out, "{report}").and_then(|()| out.flush()))?;
        }
        result.push(attempt);
        bar.inc(1);
    }
    if !json {
        bar.suspend(|| write!(out, "{result}"))?;
    }
    Ok(result)
}

/// Solves a Lichess puzzle file row by row (the filter's puzzles, at most `limit`),
/// warning about bad rows as they come; prints the misses and the tables when a puzzle was
/// tried. Returns the summary and the number of puzzles the filter left out.
fn solve_lichess(
    file: &str,
    mut reader: LichessReader<Box<dyn std::io::BufRead + Send>>,
    contestant: &mut Contestant,
    (filter, limit): (&Filter, Option<usize>),
    bar: &indicatif::ProgressBar,
    out: &mut impl Write,
    json: bool,
) -> anyhow::Result<(LichessSummary, usize)> {
    let mut summary = LichessSummary::default();
    let mut outside = 0;
    while limit.is_none_or(|n| summary.all.total < n) {
        let Some(item) = reader.next() else { break };
        match item {
            Err(e) => {
                bar.suspend(|| {
                    warn!(
                        "chessgraph: warning: {file}: the input breaks at line {} ({e}); the \
                         puzzles before it are counted",
                        reader.line()
                    )
                });
                break;
            }
            Ok(Err(bad)) => {
                bar.suspend(|| warn!("chessgraph: warning: {file}:{bad}; puzzle skipped"));
                summary.add_bad(bad);
            }
            Ok(Ok(puzzle)) if filter.accepts(&puzzle) => {
                summary.add(contestant.attempt_line(&puzzle));
                bar.inc(1);
            }
            Ok(Ok(_)) => outside += 1,
        }
    }
    if !json && summary.all.total > 0 {
        bar.suspend(|| {
            writeln!(
                out,
                "== {file}: Lichess puzzles{}; player {}",
                limit.map_or(String::new(), |n| format!(" (the first {n})")),
                contestant.name()
            )?;
            write!(out, "{summary}")
        })?;
    }
    Ok((summary, outside))
}

/// A progress bar over the puzzles on standard error (hidden when asked or not a terminal);
/// a counter when the number of puzzles is not known (a streamed Lichess file).
fn progress(hidden: bool, total: Option<usize>) -> Progress {
    Progress::new(
        "solve",
        Unit::Items("puzzles"),
        total.map(|n| n as u64),
        hidden,
    )
}
