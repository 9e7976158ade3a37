//! `chessgraph solve`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};

use chessgraph::measure::puzzles::{self, REPORT_HEADER, Solver};
use chessgraph::measure::solve_run::FileResult;
use chessgraph::measure::suites::{Attempt, Contestant};
use chessgraph::players::{self, Spec};
use chessgraph::search::Limits;

/// A player's time per puzzle when neither --movetime, --depth nor --nodes is given.
const DEFAULT_MOVETIME_MS: u64 = 1000;

/// Arguments of `chessgraph solve`.
#[derive(clap::Args)]
pub struct Args {
    /// Puzzle files: EPD with `dm N` (mate problems) or `bm`/`am`/STS `c0` points (best-move suites), or PGN games with a FEN tag whose moves are the solution (plain, .gz or .zst; `-` for stdin). Several files give one summary each.
    #[arg(long, value_name = "FILE", required = true, num_args = 1..)]
    input: Vec<PathBuf>,
    /// Who solves: `engine` (mate problems by the mate search, best-move puzzles by the full search) or any player, NAME[:key=value,...] (e.g. `random:seed=1`, `minimax:depth=4`), whose mate-problem moves the mate search referees.
    #[arg(long, default_value = "engine", value_name = "SPEC")]
    player: String,
    /// Time limit per puzzle in milliseconds (mate search: default no limit, search until solved; players: default 1000 unless --depth or --nodes is given).
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// Depth limit of the player's search in plies (not of the mate search); makes the engine's moves repeatable.
    #[arg(long, value_name = "N")]
    depth: Option<u32>,
    /// Node limit of the player's search (not of the mate search).
    #[arg(long, value_name = "N")]
    nodes: Option<u64>,
    /// Print the results as JSON (totals and one record per file, with every best-move position) instead of the tables.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `chessgraph solve`: per file, one report line per mate problem, the misses of the
/// best-move puzzles, the summaries; each file's record is stored as a `solve` run.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(args.movetime != Some(0), "--movetime must be at least 1 ms");
    anyhow::ensure!(args.depth != Some(0), "--depth must be at least 1");
    anyhow::ensure!(args.nodes != Some(0), "--nodes must be at least 1");
    let spec = Spec::parse(&args.player)?;
    let seed003 = chessgraph::db::evaluators::resolve(db_path, "seed003")?;
    let db = db_path.to_owned();
    let resolve = move |s: &str| chessgraph::db::evaluators::resolve(&db, s);
    let player = players::build(&spec, Arc::new(seed003), &resolve)
        .with_context(|| format!("--player {}", args.player))?;
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
    let mate_search = (spec.name == "engine").then(|| Solver::new(movetime));
    let mut contestant = Contestant::new(player, mate_search, limits.clone());
    // The player's limits; mate problems go to the mate search (limited by --movetime only)
    // when `mate_search` is true.
    let run_info = serde_json::json!({
        "player": contestant.name(),
        "mate_search": spec.name == "engine",
        "movetime_ms": limits.movetime.map(|d| d.as_millis() as u64),
        "depth": limits.depth,
        "nodes": limits.nodes,
    });

    let mut sets = Vec::with_capacity(args.input.len());
    for path in &args.input {
        let set = puzzles::load(path)
            .with_context(|| format!("cannot read puzzles from {}", path.display()))?;
        for bad in &set.bad {
            warn!(
                "chessgraph: warning: {}:{bad}; puzzle skipped",
                path.display()
            );
        }
        sets.push((path.display().to_string(), set));
    }
    let total: usize = sets.iter().map(|(_, s)| s.puzzles.len()).sum();
    let unreadable: usize = sets.iter().map(|(_, s)| s.bad.len()).sum();
    anyhow::ensure!(
        total > 0,
        "no puzzle could be read from {} ({unreadable} unreadable)",
        args.input
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );

    let bar = progress(args.quiet || args.json, total);
    let mut out = std::io::stdout().lock();
    let start = Instant::now();
    let mut results = Vec::with_capacity(sets.len());
    for (file, set) in sets {
        let mates = set.puzzles.iter().filter(|p| p.mate_in.is_some()).count();
        if !args.json {
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
            if let (Attempt::Mate(report), false) = (&attempt, args.json) {
                bar.suspend(|| writeln!(out, "{report}").and_then(|()| out.flush()))?;
            }
            result.push(attempt);
            bar.inc(1);
        }
        if !args.json {
            bar.suspend(|| write!(out, "{result}"))?;
        }
        let label = if args.player == "engine" {
            result.file.clone()
        } else {
            format!("{} ({})", result.file, contestant.name())
        };
        super::record_run(db_path, "solve", &label, &result.record(&run_info));
        results.push(result);
    }
    bar.finish_and_clear();
    let elapsed = start.elapsed().as_secs_f64();
    let solved: usize = results.iter().map(FileResult::solved).sum();
    if args.json {
        let mut v = run_info.clone();
        v["solved"] = solved.into();
        v["attempted"] = total.into();
        v["unreadable"] = unreadable.into();
        v["files"] = results.iter().map(|r| r.record(&run_info)).collect();
        if let [one] = results.as_slice() {
            // One file: its record's keys at the top too, as `solve --json` always gave.
            for (k, x) in one.record(&run_info).as_object().into_iter().flatten() {
                v[k] = x.clone();
            }
        }
        serde_json::to_writer_pretty(&mut out, &v)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "solve: {solved}/{total} solved ({} file{}), {elapsed:.1} s ({:.1} puzzles/s)",
            results.len(),
            if results.len() == 1 { "" } else { "s" },
            total as f64 / elapsed.max(1e-9)
        )?;
    }
    Ok(())
}

/// A progress bar over the puzzles on standard error (hidden when asked or not a terminal).
fn progress(hidden: bool, total: usize) -> ProgressBar {
    if hidden || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("solve [{bar:30}] {pos}/{len} puzzles {per_sec} eta {eta}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar
}
