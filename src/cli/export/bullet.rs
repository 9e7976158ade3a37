//! `chessgraph export bullet`: the labelled positions with game results as training data
//! for the bullet trainer (32-byte `ChessBoard` records, shuffled).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use chessgraph_learn::fit::split::Part;
use chessgraph_learn::train::bullet;
use chessgraph_store::labels::LabelChoice;

/// Arguments of `chessgraph export bullet`.
#[derive(clap::Args)]
pub struct Args {
    /// The file to write (bullet reads it as it is; `-`: standard output).
    #[arg(long, short, value_name = "FILE")]
    out: PathBuf,
    /// Only positions of this source: an id (see `chessgraph stats`) or the beginning of source paths, e.g. `datagen:` (repeatable; default all).
    #[arg(long, value_name = "SOURCE")]
    source: Vec<String>,
    /// Labels to write, in order of preference: `imported` (the stored label: datagen's search score) or labeller names given to `chessgraph label`.
    #[arg(long, default_value = "imported", value_name = "NAME,..")]
    labels: String,
    /// Only this part of the split: train, valid or test [default: every part].
    #[arg(long, value_name = "PART", value_parser = part)]
    part: Option<Part>,
    /// Seed of the shuffle.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn part(s: &str) -> Result<Part, String> {
    Part::parse(s).ok_or_else(|| format!("{s:?}: expected train, valid or test"))
}

/// Runs `chessgraph export bullet`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    let conn = crate::cli::open_existing(db_path, "`chessgraph datagen` or `chessgraph import`")?;
    let labels = LabelChoice::parse(&args.labels)?;
    let started = Instant::now();
    let mut file: Box<dyn Write> = if crate::cli::is_stdout(&args.out) {
        Box::new(std::io::BufWriter::new(std::io::stdout().lock()))
    } else {
        let f = std::fs::File::create(&args.out)
            .with_context(|| format!("cannot create {}", args.out.display()))?;
        Box::new(std::io::BufWriter::new(f))
    };
    let written = bullet::write(
        &conn,
        &labels,
        &args.source,
        args.part,
        args.seed,
        &mut file,
    )?;
    file.flush()
        .with_context(|| format!("writing {}", args.out.display()))?;
    let secs = started.elapsed().as_secs_f64();
    warn!(
        "{} records ({:.1} MB) written to {} in {secs:.1} s ({:.0} positions/s); left out: {} without a game result, {} without a label{}",
        written.records,
        written.records as f64 * 32.0 / 1e6,
        args.out.display(),
        written.records as f64 / secs.max(1e-9),
        written.no_result,
        written.unlabelled,
        if args.part.is_some() {
            format!(", {} of other parts", written.other_part)
        } else {
            String::new()
        }
    );
    Ok(())
}
