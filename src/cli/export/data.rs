//! `chessgraph export data`: the database's tables as Parquet files.

use std::path::{Path, PathBuf};

use anyhow::Context;
use chessgraph_lab::columnar::{self, ExportOptions};

/// Output format of `export data`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DataFormat {
    /// Apache Parquet (zstd), one set of numbered files per table.
    Parquet,
}

/// Arguments of `chessgraph export data`.
#[derive(clap::Args)]
pub struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value = "parquet")]
    format: DataFormat,
    /// Directory to write into (created if missing): positions-00000.parquet, features-…, edges-…, labels-…, splits-….
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Most rows in one file; a larger table is split into numbered files.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    rows_per_file: u64,
    /// Replace the files of an earlier export in DIR instead of refusing.
    #[arg(long)]
    overwrite: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `chessgraph export data`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    crate::cli::not_stdout(Some(args.out.as_path()), "--out")?;
    let DataFormat::Parquet = args.format;
    let conn = crate::cli::open_reading(db_path, "`chessgraph import FILE`")?;
    let progress = crate::cli::progress::Progress::new(
        "export data",
        crate::cli::progress::Unit::Items("rows"),
        None,
        args.quiet,
    );
    let opts = ExportOptions {
        rows_per_file: usize::try_from(args.rows_per_file).unwrap_or(usize::MAX),
        overwrite: args.overwrite,
    };
    let summary =
        columnar::export_parquet(&conn, &args.out, &opts, &progress).with_context(|| {
            format!(
                "cannot export {} to {}",
                db_path.display(),
                args.out.display()
            )
        })?;
    progress.finish();
    let positions = summary.tables.first().map_or(0, |t| t.rows).max(1);
    for t in &summary.tables {
        say!(
            "{:<9} {:>11} rows in {} file{} ({:.1} MB, {:.1} bytes per position)",
            t.table,
            t.rows,
            t.files,
            if t.files == 1 { "" } else { "s" },
            t.bytes as f64 / 1e6,
            t.bytes as f64 / positions as f64
        )?;
    }
    say!(
        "exported {} rows ({:.1} MB) to {} in {:.2} s ({:.0} rows/s)",
        summary.rows(),
        summary.bytes() as f64 / 1e6,
        args.out.display(),
        summary.seconds,
        summary.rows() as f64 / summary.seconds.max(1e-9)
    )?;
    Ok(())
}
