//! `chessgraph heatmap`: mean evaluation per piece and square, drawn as PNG boards plus a CSV.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use chessgraph_lab::heatmap;

/// Arguments of `chessgraph heatmap`.
#[derive(clap::Args)]
pub struct Args {
    /// Directory for the 12 piece PNGs, grid.png and heatmap.csv (created if missing).
    #[arg(long, value_name = "DIR", default_value = "heatmaps")]
    out_dir: PathBuf,
    /// SQL condition on positions/features columns choosing the positions.
    #[arg(long = "where", value_name = "SQL", default_value = heatmap::DEFAULT_FILTER)]
    filter: String,
    /// Leave cells with fewer positions than this blank.
    #[arg(long, default_value_t = 40, value_name = "N")]
    min_samples: u64,
    /// Half-width of the color scale in centipawns [default: from the data, the 95th percentile of |mean|].
    #[arg(long, value_name = "CP")]
    range: Option<f64>,
}

/// Runs `chessgraph heatmap`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    let start = Instant::now();
    let conn = super::open_reading(db_path, "`chessgraph import FILE` and `chessgraph analyze`")?;
    let opts = heatmap::Options {
        out_dir: args.out_dir,
        filter: args.filter,
        min_samples: args.min_samples,
        range: args.range,
    };
    let s = heatmap::run(&conn, &opts).context("heatmap")?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} positions; {} of 768 piece-square cells with at least {} positions; color scale ±{} cp",
        s.positions, s.cells_shown, opts.min_samples, s.range
    )?;
    writeln!(
        out,
        "wrote {} files to {} in {:.2} s",
        s.files.len(),
        opts.out_dir.display(),
        start.elapsed().as_secs_f64()
    )?;
    Ok(())
}
