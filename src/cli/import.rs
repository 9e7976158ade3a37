//! `chessgraph import`: load evaluated positions into the database.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::Context;
use chessgraph::data::{Format, Pov};
use chessgraph::db::{self, import::ImportOptions};
use chessgraph::uci::output::error_chain;
use indicatif::{ProgressBar, ProgressStyle};

/// Arguments of `chessgraph import`.
#[derive(clap::Args)]
pub struct Args {
    /// Input files (.csv, .pgn, .epd, Lichess evaluations .jsonl; optionally .gz or .zst); `-` reads standard input.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Input format, when the file name does not tell (required for `-`).
    #[arg(long, value_parser = super::one_of(&Format::ALL, Format::as_str))]
    format: Option<Format>,
    /// Whose point of view CSV evaluations use (EPD `ce` is always side to move, PGN and Lichess evaluations White).
    #[arg(long, value_parser = super::one_of(&Pov::ALL, Pov::as_str), default_value = "white")]
    pov: Pov,
    /// Read a file again even if it was imported completely before.
    #[arg(long)]
    force: bool,
    /// Rows per transaction.
    #[arg(long, default_value_t = 50_000)]
    batch_size: usize,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `chessgraph import`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    let mut conn =
        db::open(db_path).with_context(|| format!("cannot open database {}", db_path.display()))?;
    let opts = ImportOptions {
        format: args.format,
        pov: args.pov,
        force: args.force,
        batch_size: args.batch_size,
    };
    let mut failed = Vec::new();
    for file in &args.files {
        let progress = progress_bar(args.quiet, file);
        let result = db::import::import_file(&mut conn, file, &opts, &progress);
        progress.finish_and_clear();
        let summary = match result {
            Ok(s) => s,
            Err(chessgraph::Error::Sqlite(e)) => {
                return Err(e)
                    .with_context(|| format!("cannot write to database {}", db_path.display()));
            }
            Err(e) => {
                warn!("chessgraph: error: {}: {}", file.display(), error_chain(&e));
                failed.push(file.display().to_string());
                continue;
            }
        };
        if summary.already_imported {
            say!(
                "{}: already imported completely as source {} ({} rows); nothing added (use --force to read it again)",
                file.display(),
                summary.source_id,
                summary.rows_read
            )?;
            continue;
        }
        say!(
            "{}: {} rows read, {} imported, {} duplicates, {} rejected{} in {:.2} s ({:.0} rows/s){}",
            file.display(),
            summary.rows_read,
            summary.imported,
            summary.duplicates,
            summary.rejected,
            if summary.games > 0 {
                format!(", {}", super::plural(summary.games as u64, "game"))
            } else {
                String::new()
            },
            summary.seconds,
            summary.rows_per_second(),
            if summary.resumed {
                " [resumed an unfinished import]"
            } else {
                ""
            },
        )?;
        for reject in &summary.first_rejects {
            say!("  {}:{}: {}", file.display(), reject.line, reject.reason)?;
        }
        if summary.rejected > summary.first_rejects.len() as u64 {
            say!(
                "  … {} more: SELECT line, reason, text FROM import_errors WHERE source_id = {}",
                summary.rejected - summary.first_rejects.len() as u64,
                summary.source_id
            )?;
        }
        // Nothing usable (every row rejected, or no row at all) fails the file.
        if summary.imported + summary.duplicates == 0 {
            failed.push(file.display().to_string());
        }
    }
    // Store the new positions' train/valid/test parts now, so that the commands that only
    // read the database never have to write.
    chessgraph::fit::split::ensure(&conn)
        .with_context(|| format!("cannot write to database {}", db_path.display()))?;
    if !failed.is_empty() {
        anyhow::bail!("nothing could be read from {}", failed.join(", "));
    }
    Ok(())
}

fn progress_bar(quiet: bool, file: &Path) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_message(file.display().to_string());
    bar
}
