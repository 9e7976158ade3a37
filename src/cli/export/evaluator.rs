//! `chessgraph export evaluator`: write an evaluator file — a built-in, an evaluator stored by
//! `tune`, or a stored linear fit turned into an evaluator.

use std::path::{Path, PathBuf};

use anyhow::Context;
use chessgraph_learn::fit::export::fit_to_evaluator;
use chessgraph_store::evaluators;

/// Arguments of `chessgraph export evaluator`.
#[derive(clap::Args)]
pub struct Args {
    /// The evaluator: a built-in name (material, simplified, seed003) or a name/id stored by `tune`.
    #[arg(required_unless_present = "fit", conflicts_with = "fit")]
    evaluator: Option<String>,
    /// Export stored linear fit #N instead: its weights replace the matching terms of --base.
    #[arg(long, value_name = "N")]
    fit: Option<i64>,
    /// With --fit: the evaluator whose other weights are kept.
    #[arg(long, default_value = "simplified", value_name = "EVALUATOR")]
    base: String,
    /// With --fit: leave out features that have no evaluator term instead of failing.
    #[arg(long)]
    drop_unmapped: bool,
    /// With --fit: the exported evaluator's name [default: fit-N].
    #[arg(long)]
    name: Option<String>,
    /// The file to write (`-`: standard output).
    #[arg(long, short, value_name = "FILE")]
    out: PathBuf,
}

/// Runs `chessgraph export evaluator`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    let evaluator = match (args.fit, &args.evaluator) {
        (Some(id), _) => {
            let conn = crate::cli::open_reading(db_path, "`chessgraph fit linear`")?;
            let base = evaluators::resolve(db_path, &args.base)
                .with_context(|| format!("--base {}", args.base))?;
            let name = args.name.unwrap_or_else(|| format!("fit-{id}"));
            let c = fit_to_evaluator(&conn, id, &base, &name, args.drop_unmapped)
                .with_context(|| format!("exporting fit #{id}"))?;
            if !c.dropped.is_empty() {
                warn!("left out (no evaluator term): {}", c.dropped.join(", "));
            }
            if c.intercept != 0.0 {
                warn!(
                    "left out: the intercept {:.2} cp (an evaluator scores mirrored positions as exact opposites)",
                    c.intercept
                );
            }
            c.evaluator
        }
        (None, Some(name)) => evaluators::resolve(db_path, name)?,
        (None, None) => unreachable!("clap requires an evaluator or --fit"),
    };
    if crate::cli::is_stdout(&args.out) {
        use std::io::Write;
        let text = chessgraph_engine::eval::file::to_string(&evaluator)?;
        writeln!(std::io::stdout().lock(), "{text}")?;
        return Ok(());
    }
    evaluator
        .save(&args.out)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    say!(
        "wrote evaluator {:?} to {}",
        evaluator.name(),
        args.out.display()
    )?;
    Ok(())
}
