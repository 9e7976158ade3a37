//! `chessgraph import`: load evaluated positions into the database.

use std::path::{Path, PathBuf};

use super::progress::{Progress, Unit};
use anyhow::Context;
use chessgraph_core::data::{Format, Pov};
use chessgraph_engine::uci::output::error_chain;
use chessgraph_store::import::{BulkMode, ImportOptions, ImportSummary};

/// Arguments of `chessgraph import`.
#[derive(clap::Args)]
pub struct Args {
    /// Input files (.csv, .pgn, .epd, Lichess evaluations .jsonl; optionally .gz or .zst); `-` reads standard input.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Input format, when the file name does not tell (required for `-`).
    #[arg(long, value_parser = super::values::one_of(&Format::ALL, Format::as_str))]
    format: Option<Format>,
    /// Whose point of view CSV evaluations use (EPD `ce` is always side to move, PGN and Lichess evaluations White).
    #[arg(long, value_parser = super::values::one_of(&Pov::ALL, Pov::as_str), default_value = "white")]
    pov: Pov,
    /// Read a file again even if it was imported completely before.
    #[arg(long)]
    force: bool,
    /// Rows per transaction.
    #[arg(long, default_value_t = 50_000, value_parser = super::values::at_least_one::<usize>)]
    batch_size: usize,
    /// Append rows and find duplicates once at the end (CSV, EPD, Lichess): `auto` for a file of 8 MiB or more into a database holding fewer positions than its bytes / 16.
    #[arg(long, value_parser = super::values::one_of(&BulkMode::ALL, BulkMode::as_str), default_value = "auto")]
    bulk: BulkMode,
    /// Compute the features of the new positions in the same pass (as `analyze --edges none` would afterwards).
    #[arg(long)]
    analyze: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `chessgraph import`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    // A file that cannot be opened fails before the database is touched: with no input at
    // all, no database is created.
    let many = args.files.len() > 1;
    let (readable, mut failed) = openable(&args.files);
    if readable.is_empty() {
        return Err(nothing_read(&failed, args.files.len()));
    }
    let mut conn = super::open_db(db_path)?;
    let opts = ImportOptions {
        format: args.format,
        pov: args.pov,
        force: args.force,
        batch_size: args.batch_size,
        bulk: args.bulk,
        analyze: args.analyze,
    };
    for file in readable {
        let progress = progress_bar(args.quiet, file);
        let result = chessgraph_store::import::import_file(&mut conn, file, &opts, &progress);
        // The summary below is the file's one line: the display goes without its own.
        drop(progress);
        let summary = match result {
            Ok(s) => s,
            Err(chessgraph_store::Error::Sqlite(e)) => {
                return Err(e)
                    .with_context(|| format!("cannot write to database {}", db_path.display()));
            }
            Err(e) => {
                // The library's errors name the file; say it once.
                let chain = error_chain(&e);
                let name = file.display().to_string();
                let reason = if chain.contains(&name) {
                    chain
                } else {
                    format!("{name}: {chain}")
                };
                if many {
                    warn!("chessgraph: error: {reason}");
                }
                failed.push((name, reason));
                continue;
            }
        };
        print_summary(file, &summary)?;
        // Nothing usable (every row rejected, or no row at all) fails the file.
        if !summary.already_imported && summary.imported + summary.duplicates == 0 {
            failed.push((
                file.display().to_string(),
                format!("nothing could be read from {}", file.display()),
            ));
        }
    }
    if !failed.is_empty() {
        return Err(nothing_read(&failed, args.files.len()));
    }
    Ok(())
}

/// The files that can be opened (`-` included), and (file, reason) for the others, each
/// said at once when there are several.
fn openable(files: &[PathBuf]) -> (Vec<&Path>, Vec<(String, String)>) {
    let mut failed = Vec::new();
    let mut readable = Vec::new();
    for file in files {
        if file == Path::new("-") {
            readable.push(file.as_path());
            continue;
        }
        let opened = std::fs::File::open(file).and_then(|f| f.metadata());
        let reason = match opened {
            Ok(meta) if !meta.is_dir() => {
                readable.push(file.as_path());
                continue;
            }
            Err(e) => format!("cannot open {}: {e}", file.display()),
            Ok(_) => format!(
                "{} is a directory: give the files in it (e.g. {}/*.pgn)",
                file.display(),
                file.display()
            ),
        };
        if files.len() > 1 {
            warn!("chessgraph: error: {reason}");
        }
        failed.push((file.display().to_string(), reason));
    }
    (readable, failed)
}

/// The file's one line (or that it was imported before), and its first rejected rows.
fn print_summary(file: &Path, summary: &ImportSummary) -> anyhow::Result<()> {
    if summary.already_imported {
        say!(
            "{}: already imported completely as source {} ({} rows); nothing added (use --force to read it again)",
            file.display(),
            summary.source_id,
            summary.rows_read
        )?;
        return Ok(());
    }
    say!(
        "{}: {} rows read, {} imported, {} duplicates, {} rejected{} in {:.2} s ({:.0} rows/s){}",
        file.display(),
        summary.rows_read,
        summary.imported,
        summary.duplicates,
        summary.rejected,
        if summary.games > 0 {
            format!(", {}", super::plural(summary.games, "game"))
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
    Ok(())
}

/// The error of an import where some files gave nothing: one file's own reason, or the
/// list of files (their reasons were printed as they came).
fn nothing_read(failed: &[(String, String)], files: usize) -> anyhow::Error {
    match failed {
        [(_, reason)] if files == 1 => anyhow::anyhow!("{reason}"),
        _ => anyhow::anyhow!(
            "nothing could be read from {}",
            failed
                .iter()
                .map(|(f, _)| f.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn progress_bar(quiet: bool, file: &Path) -> Progress {
    Progress::new(
        &format!("import {}", file.display()),
        Unit::Bytes,
        None,
        quiet,
    )
}
