//! `chessgraph report`: a Markdown page with the data, fits, evaluators and recorded runs.

use std::path::{Path, PathBuf};

use anyhow::Context;
use chessgraph_lab::report;

/// Arguments of `chessgraph report`.
#[derive(clap::Args)]
pub struct Args {
    /// Write the report to this file instead of standard output (`-`: standard output).
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Link the heatmaps in this folder (as written by `chessgraph heatmap --out-dir`), relative to the report.
    #[arg(long, value_name = "DIR")]
    heatmaps: Option<String>,
    /// Title of the report [default: the database's file name].
    #[arg(long)]
    title: Option<String>,
    /// How many stored fits to show, newest first.
    #[arg(long, default_value_t = 6)]
    fits: usize,
}

/// Runs `chessgraph report`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    let conn = super::open_reading(db_path, "`chessgraph import FILE`")?;
    let opts = report::Options {
        title: args.title,
        heatmaps: args.heatmaps,
        max_fits: args.fits,
    };
    let md = report::render(&conn, db_path, &opts).context("cannot read the database")?;
    // `-` is standard output, as everywhere else.
    match args.out.filter(|p| !super::is_stdout(p)) {
        Some(path) => {
            std::fs::write(&path, &md)
                .with_context(|| format!("cannot write the report to {}", path.display()))?;
            say!(
                "wrote {} ({} lines, {} sections)",
                path.display(),
                md.lines().count(),
                md.lines().filter(|l| l.starts_with("## ")).count()
            )?;
        }
        None => {
            use std::io::Write;
            std::io::stdout().lock().write_all(md.as_bytes())?;
        }
    }
    Ok(())
}
