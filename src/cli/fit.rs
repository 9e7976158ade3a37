//! `chessgraph fit linear|logistic`: fit evaluation weights on the train part of the split,
//! print coefficients and held-out measures, store the fit in `fits`. (`fit moves` is the
//! former name of `chessgraph train moves`.)

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use chessgraph_learn::fit::{Coefficient, FitRecord, Selection, Target, linear, logistic};
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
    Moves(super::train::moves::Args),
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

#[derive(Copy, Clone, clap::ValueEnum)]
enum TargetArg {
    /// White won the game.
    Result,
    /// The evaluation favors White.
    Sign,
}

/// Runs `chessgraph fit`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    let conn = match args.model {
        Model::Moves(a) => return super::train::moves::run(db_path, a),
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
