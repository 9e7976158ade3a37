//! `chessgraph fit linear|logistic`: fit evaluation weights on the train part of the split,
//! print coefficients and held-out measures, store the fit in `fits`. The PUC-Rio study's
//! move classifier is here too, run as `chessgraph train moves` (and `fit moves`, its former
//! name).

use std::io::Write;
use std::path::{Path, PathBuf};

use super::progress::{Progress, Unit};
use anyhow::Context;
use chessgraph_learn::fit::moves::{MoveMetrics, MovesOptions};
use chessgraph_learn::fit::{Coefficient, FitRecord, Selection, Target, linear, logistic, moves};
use chessgraph_store::labels::LabelChoice;

/// Arguments of `chessgraph fit`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    model: Model,
}

#[derive(clap::Subcommand)]
enum Model {
    /// Least squares of eval_cp (White's view, mates left out) on features, with standard errors, R² and RMSE.
    Linear(Common),
    /// Logistic regression of the game result (White won) or the evaluation's sign on features: log-loss, accuracy, AUC.
    Logistic(LogisticArgs),
    /// Former name of `train moves`.
    #[command(hide = true)]
    Moves(MovesArgs),
}

/// Options every model takes.
#[derive(clap::Args)]
struct Common {
    /// Features columns to fit on, comma-separated [default: mobility,center_control,king_safety,connectivity].
    #[arg(long, value_delimiter = ',', value_name = "A,B,..")]
    features: Option<Vec<String>>,
    /// Add `material` to the features (and drop `material = 0` from the default filter).
    #[arg(long)]
    material: bool,
    /// SQL condition on positions/features columns choosing the rows [default: material = 0 AND total_material > 40].
    #[arg(long = "where", value_name = "SQL")]
    filter: Option<String>,
    /// Seed of the train/held-out split [default: the seed stored in the database].
    #[arg(long)]
    seed: Option<i64>,
    /// Labels to fit, in order of preference: `imported` or labeller names given to `chessgraph label`.
    #[arg(long, default_value = "imported", value_name = "NAME,..")]
    labels: String,
    /// Print the stored fit (coefficients, metrics) as JSON instead of the tables.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct LogisticArgs {
    #[command(flatten)]
    common: Common,
    /// What to predict: `result` (White won the game; PGN rows only) or `sign` (eval > 0, mates by sign).
    #[arg(long, value_enum, default_value_t = TargetArg::Result)]
    target: TargetArg,
}

/// Arguments of `chessgraph train moves`.
#[derive(clap::Args)]
pub struct MovesArgs {
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

#[derive(Copy, Clone, clap::ValueEnum)]
enum TargetArg {
    /// White won the game.
    Result,
    /// The evaluation favors White.
    Sign,
}

/// Runs `chessgraph train moves`: fits the move classifier.
pub fn run_moves(db_path: &Path, args: MovesArgs) -> anyhow::Result<()> {
    let conn = super::open_existing(db_path, "`chessgraph import GAMES.pgn`")?;
    moves(&conn, db_path, args, &mut std::io::stdout().lock())
}

/// Runs `chessgraph fit`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    let conn = match args.model {
        Model::Moves(a) => return run_moves(db_path, a),
        _ => super::open_existing(db_path, "`chessgraph import FILE` and `chessgraph analyze`")?,
    };
    let mut out = std::io::stdout().lock();
    match args.model {
        Model::Moves(_) => unreachable!("returned above"),
        Model::Linear(c) => {
            let json = c.json;
            let sel = selection(c)?;
            let f = linear::run(&conn, &sel).context("fit linear")?;
            if json {
                serde_json::to_writer_pretty(&mut out, &f.record)?;
                writeln!(out)?;
                return Ok(());
            }
            header(&mut out, &f.record)?;
            coefficient_table(&mut out, &f.record.coefficients, "t")?;
            writeln!(out, "\n{:<8} {:>8} {:>9} {:>9}", "", "n", "R²", "RMSE")?;
            for (name, m) in [("train", Some(f.train)), ("test", f.test)] {
                match m {
                    Some(m) => writeln!(out, "{name:<8} {:>8} {:>9.4} {:>9.1}", m.n, m.r2, m.rmse)?,
                    None => writeln!(out, "{name:<8} {:>8} {:>9} {:>9}", 0, "-", "-")?,
                }
            }
            writeln!(out, "\nresidual standard error {:.1} cp", f.sigma)?;
        }
        Model::Logistic(a) => {
            let target = match a.target {
                TargetArg::Result => Target::WhiteWon,
                TargetArg::Sign => Target::Sign,
            };
            let json = a.common.json;
            let sel = selection(a.common)?;
            let f = logistic::run(&conn, &sel, target).context("fit logistic")?;
            if json {
                serde_json::to_writer_pretty(&mut out, &f.record)?;
                writeln!(out)?;
                return Ok(());
            }
            header(&mut out, &f.record)?;
            coefficient_table(&mut out, &f.record.coefficients, "z")?;
            writeln!(
                out,
                "\n{:<8} {:>8} {:>7} {:>9} {:>9} {:>9} {:>7}",
                "", "n", "rate", "log-loss", "baseline", "accuracy", "AUC"
            )?;
            for (name, m) in [("train", Some(f.train)), ("test", f.test)] {
                match m {
                    Some(m) => writeln!(
                        out,
                        "{name:<8} {:>8} {:>7.3} {:>9.4} {:>9.4} {:>9.4} {:>7}",
                        m.n,
                        m.positive_rate,
                        m.log_loss,
                        m.baseline_log_loss,
                        m.accuracy,
                        super::metric(m.auc, 4)
                    )?,
                    None => writeln!(out, "{name:<8} {:>8}  (no held-out rows)", 0)?,
                }
            }
            writeln!(
                out,
                "\nbaseline: always predicting the train rate; AUC is `-` when the part has one outcome only"
            )?;
        }
    }
    Ok(())
}

fn selection(c: Common) -> anyhow::Result<Selection> {
    let mut sel = Selection::new(c.features, c.material, c.filter, c.seed);
    sel.labels = LabelChoice::parse(&c.labels)?;
    Ok(sel)
}

fn header(out: &mut impl Write, r: &FitRecord) -> std::io::Result<()> {
    writeln!(
        out,
        "fit #{}: {}, target {}",
        r.id,
        r.kind,
        r.target.describe()
    )?;
    writeln!(out, "rows:   {}", r.filter)?;
    let skipped = match (r.without_target, r.target) {
        (0, _) => String::new(),
        (n, Target::EvalCp) => format!("; {n} mate scores left out"),
        (n, Target::WhiteWon) => format!("; {n} rows without a game result left out"),
        (n, Target::Sign) => format!("; {n} rows without an evaluation left out"),
        (n, Target::WinnerMove) => format!("; {n} winner's moves not recovered"),
    };
    writeln!(
        out,
        "split:  seed {}: {} train, {} test (valid + test parts){skipped}\n",
        r.seed, r.n_train, r.n_test
    )
}

fn coefficient_table(
    out: &mut impl Write,
    coefs: &[Coefficient],
    stat: &str,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<22} {:>12} {:>11} {:>9}",
        "coefficient", "estimate", "std.error", stat
    )?;
    for c in coefs {
        writeln!(
            out,
            "{:<22} {:>12.4} {:>11.4} {:>9.2}",
            c.name, c.estimate, c.std_error, c.statistic
        )?;
    }
    Ok(())
}

fn moves(
    conn: &rusqlite::Connection,
    db_path: &Path,
    a: MovesArgs,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let opts = MovesOptions {
        alpha: a.alpha,
        seed: a.seed,
        max_iterations: a.max_iterations,
    };
    super::not_stdout(a.out.as_deref(), "--out")?;
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
        a.alpha
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
    if let Some(path) = &a.out {
        writeln!(out, "model written to {}", path.display())?;
    }
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
        super::metric(m.auc, 4),
        m.top1,
        m.top1_random
    )
}
