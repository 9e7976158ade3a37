//! `chessgraph train moves`: the PUC-Rio study's move classifier — logistic regression of
//! "the winner played this legal move" on the board/from/to columns — fitted on the
//! database's games, stored in the fits and written with `--out` for
//! `--player logistic:model=FILE`.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::progress::{Progress, Unit};
use anyhow::Context;
use chessgraph_learn::fit::Target;
use chessgraph_learn::fit::moves::{self, MoveMetrics, MovesOptions};

/// Arguments of `chessgraph train moves`.
#[derive(clap::Args)]
pub struct Args {
    /// Write the model (versioned JSON) to FILE, for `chessgraph engine --player logistic:model=FILE`.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// L2 penalty (> 0) on the weights (not the intercept), against the log-loss summed over the examples.
    #[arg(long, default_value_t = 1.0)]
    alpha: f64,
    /// Most Newton steps (it usually converges in under 15).
    #[arg(long, default_value_t = 50)]
    max_iterations: usize,
    /// Seed of the train/held-out split by game [default: the seed stored in the database].
    #[arg(long)]
    seed: Option<i64>,
    /// Print the stored fit (weights, metrics) as JSON instead of the summary.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `chessgraph train moves`: fits the move classifier.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    let conn = crate::cli::open_existing(db_path, "`chessgraph import GAMES.pgn`")?;
    moves(&conn, db_path, args, &mut std::io::stdout().lock())
}

fn moves(
    conn: &rusqlite::Connection,
    db_path: &Path,
    a: Args,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let opts = MovesOptions {
        alpha: a.alpha,
        seed: a.seed,
        max_iterations: a.max_iterations,
    };
    crate::cli::not_stdout(a.out.as_deref(), "--out")?;
    let bar = Progress::new("train moves: examples", Unit::Items("games"), None, a.quiet);
    let db_name = db_path.file_name().map_or_else(
        || db_path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let f = moves::run(conn, &opts, &db_name, &mut |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    })
    .context("train moves")?;
    bar.finish();
    if let Some(path) = &a.out {
        f.model
            .write(path)
            .with_context(|| format!("writing the model to {}", path.display()))?;
    }
    if a.json {
        serde_json::to_writer_pretty(&mut *out, &f.record)?;
        writeln!(out)?;
        return Ok(());
    }
    print_fit(out, &f, a.alpha)?;
    if let Some(path) = &a.out {
        writeln!(out, "model written to {}", path.display())?;
    }
    Ok(())
}

/// The fit's record: its games, examples, rates and the metrics table.
fn print_fit(out: &mut impl Write, f: &moves::MovesFit, alpha: f64) -> anyhow::Result<()> {
    let c = &f.collected;
    writeln!(
        out,
        "fit #{}: logistic, target {}",
        f.record.id,
        Target::WinnerMove.describe()
    )?;
    writeln!(
        out,
        "games:  {} decisive ({} train, {} valid, {} test; split seed {}); {} winner's moves \
         recovered, {} not (positions not stored under the game){}",
        c.decisive_games,
        c.games_by_part[0],
        c.games_by_part[1],
        c.games_by_part[2],
        f.record.seed,
        c.moves,
        c.missing,
        if c.broken > 0 {
            format!(", {} unreadable positions or moves", c.broken)
        } else {
            String::new()
        }
    )?;
    let examples = f.record.n_train + f.record.n_test;
    let built = f.build_time.as_secs_f64();
    writeln!(
        out,
        "built {examples} examples ({} train, {} held out) in {built:.2} s ({:.0} examples/s); \
         fitted in {:.2} s ({} Newton steps{}, α {})\n",
        f.record.n_train,
        f.record.n_test,
        examples as f64 / built.max(1e-9),
        f.fit_time.as_secs_f64(),
        f.iterations,
        if f.converged {
            ""
        } else {
            ", NOT converged: raise --max-iterations"
        },
        alpha
    )?;
    writeln!(
        out,
        "{:<9} {:>9} {:>10} {:>9} {:>9} {:>9} {:>7} {:>7} {:>7}",
        "", "positions", "examples", "log-loss", "accuracy", "all-neg", "AUC", "top-1", "random"
    )?;
    for (name, m) in [("train", Some(f.train)), ("held-out", f.test)] {
        match m {
            Some(m) => metrics_row(out, name, &m)?,
            None => writeln!(out, "{name:<9} {:>9}  (no held-out games)", 0)?,
        }
    }
    writeln!(
        out,
        "\naccuracy at 0.5 beside all-neg (calling every move not played); top-1: the most \
         probable legal move is the one played, beside random (mean of 1 / legal moves)"
    )?;
    writeln!(
        out,
        "the board columns are the same for every move of a position: the move ranking comes \
         from the from- and to-square weights alone"
    )?;
    Ok(())
}

fn metrics_row(out: &mut impl Write, name: &str, m: &MoveMetrics) -> std::io::Result<()> {
    writeln!(
        out,
        "{name:<9} {:>9} {:>10} {:>9.4} {:>9.4} {:>9.4} {:>7} {:>7.4} {:>7.4}",
        m.positions,
        m.examples,
        m.log_loss,
        m.accuracy,
        m.accuracy_all_negative,
        crate::cli::metric(m.auc, 4),
        m.top1,
        m.top1_random
    )
}
