//! Writing imported rows: sources, games, positions and rejects, in batched transactions.
//!
//! Safety with real files: every batch commits the rows and the source's counters
//! together, so a killed import leaves a consistent DB. A re-run of the same file (same
//! path and content fingerprint) resumes the unfinished source: it reads the file again
//! from the start, recognises the rows the killed run already stored (same source, line
//! and ply) as its own, and ends with the same rows, ids and counters as an uninterrupted
//! run. A file that was imported completely before is skipped unless forced.
//!
//! An input that breaks part-way (a truncated download, a corrupt archive) fails the
//! import, but every row read before the break is committed first and the source stays
//! unfinished. The same path, once the file is complete (grown, with the bytes the broken
//! run read unchanged: checked by fingerprinting that run's length of the new file),
//! resumes that source as above.

use chessgraph_core::Error as CoreError;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::Instant;

use indicatif::ProgressBar;
use rusqlite::{Connection, OptionalExtension, params};

use crate::Error;
use crate::Result;
use chessgraph_core::chess::fnv::Fnv1a64;
use chessgraph_core::data::{self, Format, Item, ReadOptions, Reject};
use chessgraph_core::graph::Features;

mod bulk;
mod generated;
mod writer;
pub use bulk::{BulkMode, Unfinished, settle, unfinished};
pub use generated::GeneratedSource;
use writer::Writer;
#[cfg(test)]
mod tests;

/// How to import one file.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Format; guessed from the file name when `None`.
    pub format: Option<Format>,
    /// Point of view of CSV evaluations.
    pub pov: data::Pov,
    /// Read a file again even if it was imported completely before.
    pub force: bool,
    /// Rows per transaction.
    pub batch_size: usize,
    /// When to append rows and find duplicates at the end ([`BulkMode`]).
    pub bulk: BulkMode,
    /// Compute and store the features of every new position in the same pass (what
    /// `analyze --edges none` does afterwards).
    pub analyze: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            format: None,
            pov: data::Pov::White,
            force: false,
            batch_size: 50_000,
            bulk: BulkMode::Auto,
            analyze: false,
        }
    }
}

/// What one import did.
#[derive(Clone, Debug, Default)]
pub struct ImportSummary {
    /// The `sources.id` of this run.
    pub source_id: i64,
    /// Path as stored.
    pub path: String,
    /// Format used.
    pub format: &'static str,
    /// Rows read (imported + duplicates + rejected).
    pub rows_read: u64,
    /// New positions stored.
    pub imported: u64,
    /// Rows whose position was already stored.
    pub duplicates: u64,
    /// Rows rejected (see `import_errors`).
    pub rejected: u64,
    /// Games read (PGN).
    pub games: u64,
    /// Wall time.
    pub seconds: f64,
    /// Set when the file had been imported completely before and was skipped.
    pub already_imported: bool,
    /// Set when an unfinished earlier run of the same file was resumed.
    pub resumed: bool,
    /// The first few rejects, for the report.
    pub first_rejects: Vec<Reject>,
}

impl ImportSummary {
    /// Rows per second.
    pub fn rows_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.rows_read as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// Items per message from the reading thread to the writing one.
const PIPE_BATCH: usize = 4096;

/// How many rejects a summary keeps for display.
const SHOWN_REJECTS: usize = 10;

/// Imports `path` (`-` for standard input) into the open database.
///
/// When the input breaks part-way ([`chessgraph_core::Error::BrokenInput`]: a truncated or corrupt file),
/// the rows read before the break are committed, the source is left unfinished (see the
/// module's documentation for how a later run resumes it) and the error is returned.
pub fn import_file(
    conn: &mut Connection,
    path: &Path,
    opts: &ImportOptions,
    progress: &ProgressBar,
) -> Result<ImportSummary> {
    let started = Instant::now();
    let file = SourceFile::locate(path, opts)?;
    let mut summary = ImportSummary {
        path: file.stored_path.clone(),
        format: file.format.as_str(),
        ..ImportSummary::default()
    };
    let previous = file.previous(conn)?;

    let input = data::open_input_with_progress(path, progress)?;
    // Held to the end: other processes see this import running, not interrupted.
    let _running = bulk::Running::hold(conn);
    // The bulk path's last id before its rows and the last line committed.
    let (source_id, bulk_state) = match previous {
        Some((id, Some(_))) if !opts.force => {
            stored_counts(conn, id, &mut summary)?;
            summary.source_id = id;
            summary.already_imported = true;
            return Ok(summary);
        }
        Some((id, None)) => (id, resume_source(conn, id, &file, &mut summary)?),
        _ => new_source(conn, &file, input.compression.as_str(), opts)?,
    };
    summary.source_id = source_id;
    if bulk_state.is_some() {
        bulk::sort_in_files(conn)?;
    }

    let mut writer = Writer::new(conn.transaction()?, source_id, opts.batch_size, summary);
    if let Some((_, skip)) = bulk_state {
        writer.bulk(skip);
    }
    pipe(&mut writer, file.format, input.reader, opts)?;
    let mut summary = finish(writer, bulk_state)?;
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// The input as the `sources` table knows it: the path stored (canonical; `-` for
/// standard input), the format and the content fingerprint (none for standard input).
struct SourceFile<'a> {
    path: &'a Path,
    stored_path: String,
    format: Format,
    fingerprint: Option<String>,
}

impl SourceFile<'_> {
    /// Finds the format (given or guessed from the name) and, for a file, its canonical
    /// path and fingerprint; an error for an unknown format, a missing file or a folder.
    fn locate<'a>(path: &'a Path, opts: &ImportOptions) -> Result<SourceFile<'a>> {
        let format = match opts.format.or_else(|| Format::from_path(path)) {
            Some(f) => f,
            None => {
                return Err(Error::UnknownFormat(path.to_owned()));
            }
        };
        let is_stdin = path == Path::new("-");
        let (stored_path, fingerprint) = if is_stdin {
            ("-".to_owned(), None)
        } else {
            let canonical = std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?;
            if canonical.is_dir() {
                return Err(Error::InputIsDirectory(path.to_owned()));
            }
            (
                canonical.display().to_string(),
                Some(fingerprint(&canonical)?),
            )
        };
        Ok(SourceFile {
            path,
            stored_path,
            format,
            fingerprint,
        })
    }

    /// The newest earlier source of this very file (same path, fingerprint and format)
    /// with its finish time, or else an unfinished one whose file has grown since
    /// ([`grown_unfinished`]); none for standard input.
    fn previous(&self, conn: &Connection) -> Result<Option<(i64, Option<String>)>> {
        let Some(fp) = &self.fingerprint else {
            return Ok(None);
        };
        let found = conn
            .query_row(
                "SELECT id, finished_at FROM sources WHERE path = ?1 AND fingerprint = ?2 AND format = ?3 \
                 ORDER BY id DESC LIMIT 1",
                params![self.stored_path, fp, self.format.as_str()],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        if found.is_some() {
            return Ok(found);
        }
        Ok(
            grown_unfinished(conn, Path::new(&self.stored_path), self.format, fp)?
                .map(|id| (id, None)),
        )
    }
}

/// Readies the unfinished source `id` for a resumed run and returns its bulk state (the
/// bulk path's last id before its rows and the last line committed), if it took that path.
fn resume_source(
    conn: &mut Connection,
    id: i64,
    file: &SourceFile,
    summary: &mut ImportSummary,
) -> Result<Option<(i64, u64)>> {
    bulk::settle_others(conn, Some(id))?;
    summary.resumed = true;
    let bulk_state = bulk::pending(conn, id)?;
    if bulk_state.is_some() {
        // A bulk run goes on after the lines it committed, with their counts.
        stored_counts(conn, id, summary)?;
        conn.execute(
            "UPDATE sources SET fingerprint = ?2 WHERE id = ?1",
            params![id, file.fingerprint],
        )?;
    } else {
        // Resume a killed or broken run: start its counts and rejects again from
        // scratch (and take the fingerprint of the file as it is now, when it grew).
        let tx = conn.transaction()?;
        tx.execute(
            "UPDATE sources SET rows_read = 0, rows_imported = 0, rows_duplicate = 0, rows_rejected = 0, \
             fingerprint = ?2 WHERE id = ?1",
            params![id, file.fingerprint],
        )?;
        tx.execute("DELETE FROM import_errors WHERE source_id = ?1", [id])?;
        tx.commit()?;
    }
    Ok(bulk_state)
}

/// Inserts a new source for `file` and returns its id with the bulk state (the bulk
/// path's last id before its rows, and no line committed yet) when it takes that path.
fn new_source(
    conn: &mut Connection,
    file: &SourceFile,
    compression: &str,
    opts: &ImportOptions,
) -> Result<(i64, Option<(i64, u64)>)> {
    bulk::settle_others(conn, None)?;
    conn.execute(
        "INSERT INTO sources (path, format, compression, fingerprint, pov, started_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
        params![
            file.stored_path,
            file.format.as_str(),
            compression,
            file.fingerprint,
            opts.pov.as_str()
        ],
    )?;
    let id = conn.last_insert_rowid();
    let mut bulk_state = None;
    if bulk::wanted(conn, file.path, file.format, opts.bulk)? {
        bulk_state = Some((bulk::begin(conn, id)?, 0));
    }
    Ok((id, bulk_state))
}

/// Reads `reader` on a second thread and writes its items through `writer` on this one.
/// When the input breaks, the rows written so far are committed with their counters and
/// the break is returned.
fn pipe(
    writer: &mut Writer<'_>,
    format: Format,
    reader: Box<dyn std::io::BufRead + Send>,
    opts: &ImportOptions,
) -> Result<()> {
    let read_opts = ReadOptions { pov: opts.pov };
    // Parsing and validation run on a second thread, writing on this one: the two halves
    // cost about the same, so the pipeline nearly halves the wall time on two cores.
    std::thread::scope(|scope| -> Result<()> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<(Item, Option<Features>)>>(8);
        let analyze = opts.analyze;
        let reader = scope.spawn(move || {
            let mut batch = Vec::with_capacity(PIPE_BATCH);
            let mut edges = Vec::new();
            let read = data::read(format, reader, read_opts, &mut |item| {
                // `--analyze`: the features are computed here, beside the parsing, and
                // written with the row.
                let features = match &item {
                    Item::Row(row) if analyze => chessgraph_core::chess::packed::unpack(&row.board)
                        .ok()
                        .map(|pos| chessgraph_core::graph::analyze(&pos, &mut edges)),
                    _ => None,
                };
                batch.push((item, features));
                if batch.len() == PIPE_BATCH {
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(PIPE_BATCH));
                    tx.send(full).map_err(|_| CoreError::WriterStopped)?;
                }
                Ok(())
            });
            // The rows read before a break are handed over too: they are kept.
            if !batch.is_empty() {
                // A writer that stopped has its own error, which is the one reported.
                let _ = tx.send(batch);
            }
            read
        });
        let written = rx
            .iter()
            .flatten()
            .try_for_each(|(item, features)| writer.item(item, features.as_ref()));
        // On a write error the receiver is dropped here, which stops the reader.
        drop(rx);
        let read = reader.join().expect("import reader thread panicked");
        written?;
        if let Err(e) = read {
            // The input broke (or a reader failed) after the rows written so far, which
            // are good: commit them with their counters, leave the source unfinished for
            // a later run to resume, and report the break.
            writer.flush_counters()?;
            writer.tx.execute_batch("COMMIT; BEGIN")?;
            return Err(e.into());
        }
        Ok(())
    })
}

/// Ends a complete read: finishes the bulk path, stores the counters, drops the games
/// that left no position, marks the source finished and commits; returns the summary.
fn finish(mut writer: Writer<'_>, bulk_state: Option<(i64, u64)>) -> Result<ImportSummary> {
    let source_id = writer.source_id;
    if let Some((after, _)) = bulk_state {
        bulk::finish(&writer.tx, source_id, after, &mut writer.summary)?;
    }
    writer.flush_counters()?;
    // A game whose moves gave no stored position (no evals, all rejected, or not a game at
    // all) leaves no row behind (`positions_game` makes each lookup an index probe).
    writer.tx.execute(
        "DELETE FROM games WHERE source_id = ?1 \
         AND NOT EXISTS (SELECT 1 FROM positions p WHERE p.game_id = games.id)",
        [source_id],
    )?;
    writer.tx.execute(
        "UPDATE sources SET finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1",
        [source_id],
    )?;
    writer.tx.commit()?;
    Ok(writer.summary)
}

/// Copies the counters stored for source `id` into `summary`.
fn stored_counts(conn: &Connection, id: i64, summary: &mut ImportSummary) -> Result<()> {
    (
        summary.rows_read,
        summary.imported,
        summary.duplicates,
        summary.rejected,
    ) = conn.query_row(
        "SELECT rows_read, rows_imported, rows_duplicate, rows_rejected FROM sources WHERE id = ?1",
        [id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )?;
    Ok(())
}

/// The start positions of every stored game (normalized FENs; the start position itself
/// for games without a `FEN` tag is not listed): what a new datagen run must not reuse.
pub fn game_starts(conn: &Connection) -> Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT start_fen FROM games WHERE start_fen IS NOT NULL")?;
    let fens = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(fens
        .iter()
        .filter_map(|f| {
            chessgraph_core::chess::fen::parse(
                f,
                chessgraph_core::chess::fen::Leniency::DropCastling,
            )
            .ok()
        })
        .map(|p| chessgraph_core::chess::fen::normalized_fen(&p))
        .collect())
}

/// Size and a hash of the first and last MiB: tells "the same file again" cheaply.
fn fingerprint(path: &Path) -> Result<String> {
    let len = std::fs::metadata(path)
        .map_err(|e| Error::io(path, e))?
        .len();
    fingerprint_of_prefix(path, len)
}

/// The [`fingerprint`] the first `len` bytes of `path` would have as a file of their own
/// (`len` at most the file's length).
fn fingerprint_of_prefix(path: &Path, len: u64) -> Result<String> {
    const PART: u64 = 1 << 20;
    let io = |e| Error::io(path, e);
    let mut file = File::open(path).map_err(io)?;
    let mut hash = Fnv1a64::default();
    let mut buf = Vec::with_capacity(PART.min(len) as usize);
    (&mut file)
        .take(PART.min(len))
        .read_to_end(&mut buf)
        .map_err(io)?;
    hash.write(&buf);
    if len > PART {
        buf.clear();
        let start = len.saturating_sub(PART).max(PART);
        file.seek(SeekFrom::Start(start)).map_err(io)?;
        file.take(len - start).read_to_end(&mut buf).map_err(io)?;
        hash.write(&buf);
    }
    Ok(format!("{len}:{:016x}", hash.finish()))
}

/// The newest unfinished source of `path` in `format` whose file has grown since, its
/// old bytes unchanged: the run broke on a truncated file (a download cut short) that is
/// complete now, `fp` being its fingerprint. Such a run is resumed like a killed one.
fn grown_unfinished(
    conn: &Connection,
    path: &Path,
    format: Format,
    fp: &str,
) -> Result<Option<i64>> {
    let newest: Option<(i64, Option<String>)> = conn
        .query_row(
            "SELECT id, fingerprint FROM sources WHERE path = ?1 AND format = ?2 \
             AND finished_at IS NULL ORDER BY id DESC LIMIT 1",
            params![path.display().to_string(), format.as_str()],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((id, Some(old))) = newest else {
        return Ok(None);
    };
    let size = |fp: &str| fp.split_once(':').and_then(|(n, _)| n.parse::<u64>().ok());
    let (Some(old_len), Some(new_len)) = (size(&old), size(fp)) else {
        return Ok(None);
    };
    if old_len >= new_len || fingerprint_of_prefix(path, old_len)? != old {
        return Ok(None);
    }
    Ok(Some(id))
}
