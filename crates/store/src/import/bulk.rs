//! The bulk path of an import, for large files of positions (CSV, EPD, the Lichess
//! database) into a database that holds few: rows are appended in file order without
//! looking each one up, with the position index dropped, and duplicates are found once at
//! the end from the rebuilt index — one sort instead of a random index descent per row,
//! which is what makes a row-by-row import slow once the index outgrows the page cache.
//!
//! The result is the one a row-by-row import gives (the first row of a position wins, a
//! later duplicate lends it a game result, best or next move and labels it lacks, and is
//! counted as a duplicate), except that the ids of the duplicates' rows stay unused.
//!
//! A killed bulk import leaves its source marked (`sources.bulk_after_id`, `bulk_line`):
//! every batch commits its rows with the last input line they reach, so the next run of
//! the same file skips the lines committed and goes on; the duplicate search and the index
//! are one final transaction. An import of another file, and every other command that
//! reads positions, first finishes that search for the rows committed ([`settle`]; the
//! interrupted source then resumes like a killed row-by-row one). A bulk import that is
//! still running holds a lock on the database file ([`Running`]), so that no other process
//! settles its rows under it.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::ImportSummary;
use super::writer::{Lent, lend};
use crate::Error;
use crate::Result;
use chessgraph_core::data::Format;

/// When an import takes the bulk path.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum BulkMode {
    /// For a file of at least 8 MiB in a format without games, when the
    /// database holds fewer positions than the file's bytes / 16 (a position takes at
    /// least ~16 bytes of input even compressed, so the file is the larger part).
    #[default]
    Auto,
    /// For every file without games.
    Always,
    /// Never: every row looked up as it comes.
    Never,
}

impl BulkMode {
    /// Every mode, in the order `--bulk` lists them.
    pub const ALL: [BulkMode; 3] = [BulkMode::Auto, BulkMode::Always, BulkMode::Never];

    /// The spelling on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            BulkMode::Auto => "auto",
            BulkMode::Always => "always",
            BulkMode::Never => "never",
        }
    }
}

/// The smallest file [`BulkMode::Auto`] imports in bulk.
pub const AUTO_MIN_BYTES: u64 = 8 << 20;

/// `PRAGMA cache_size` while the index is built (negative: KiB).
const SORT_CACHE_KIB: i64 = -65_536;

/// The index the bulk path drops and rebuilds, as in the migration.
const KEY_INDEX: &str = "CREATE INDEX IF NOT EXISTS position_rows_key ON position_rows(key)";

/// Whether a new import of `path` in `format` takes the bulk path.
pub(super) fn wanted(
    conn: &Connection,
    path: &Path,
    format: Format,
    mode: BulkMode,
) -> Result<bool> {
    if format == Format::Pgn || path == Path::new("-") {
        return Ok(false);
    }
    match mode {
        BulkMode::Never => Ok(false),
        BulkMode::Always => Ok(true),
        BulkMode::Auto => {
            let bytes = std::fs::metadata(path)
                .map_err(|e| Error::io(path, e))?
                .len();
            // The largest id bounds the positions stored, and costs one index descent
            // where counting them reads a whole index.
            let stored: u64 =
                conn.query_row("SELECT coalesce(max(id), 0) FROM position_rows", [], |r| {
                    r.get(0)
                })?;
            Ok(bytes >= AUTO_MIN_BYTES && stored < bytes / 16)
        }
    }
}

/// Finishes every interrupted bulk import but the one of `resuming`, before another
/// import: its committed rows are checked for duplicates and the index is rebuilt, so the
/// new import finds them. The source stays unfinished, an ordinary killed import: run
/// again, its file is read from the start and its own rows are recognised.
pub(super) fn settle_others(conn: &mut Connection, resuming: Option<i64>) -> Result<()> {
    let pending: Vec<(i64, i64, u64, u64)> = conn
        .prepare(
            "SELECT id, bulk_after_id, rows_imported, rows_duplicate FROM sources \
             WHERE bulk_after_id IS NOT NULL ORDER BY id",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (source_id, after, imported, duplicates) in pending {
        if Some(source_id) == resuming {
            continue;
        }
        sort_in_files(conn)?;
        let tx = conn.transaction()?;
        let mut summary = ImportSummary {
            imported,
            duplicates,
            ..ImportSummary::default()
        };
        finish(&tx, source_id, after, &mut summary)?;
        tx.execute(
            "UPDATE sources SET rows_imported = ?2, rows_duplicate = ?3 WHERE id = ?1",
            params![source_id, summary.imported, summary.duplicates],
        )?;
        tx.commit()?;
    }
    Ok(())
}

/// An interrupted bulk import: its rows are stored but not yet checked for duplicates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unfinished {
    /// Its source's id.
    pub source_id: i64,
    /// The file, as the import stored it.
    pub path: String,
    /// The last input line it committed.
    pub line: u64,
    /// The rows it stored.
    pub rows: u64,
}

/// The interrupted bulk imports of the database, oldest first.
pub fn unfinished(conn: &Connection) -> Result<Vec<Unfinished>> {
    Ok(conn
        .prepare(
            "SELECT id, path, coalesce(bulk_line, 0), rows_imported FROM sources \
             WHERE bulk_after_id IS NOT NULL ORDER BY id",
        )?
        .query_map([], |r| {
            Ok(Unfinished {
                source_id: r.get(0)?,
                path: r.get(1)?,
                line: r.get(2)?,
                rows: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?)
}

/// Settles every interrupted bulk import before a command reads positions: its committed
/// rows are merged into the earlier rows of their positions (with everything that hangs
/// off them) and the position index is rebuilt, so that the database holds one row per
/// position again. The sources stay unfinished: importing the file again goes on from
/// there. Returns what it settled, as it was before; refuses while a bulk import runs.
pub fn settle(conn: &mut Connection) -> Result<Vec<Unfinished>> {
    let found = unfinished(conn)?;
    if found.is_empty() {
        return Ok(found);
    }
    if Running::held(conn) {
        return Err(Error::ImportRunning {
            db: db_path(conn).unwrap_or_default(),
            file: found[0].path.clone(),
        });
    }
    settle_others(conn, None)?;
    Ok(found)
}

/// The database file of `conn` (none for an in-memory database).
fn db_path(conn: &Connection) -> Option<PathBuf> {
    conn.path().filter(|p| !p.is_empty()).map(PathBuf::from)
}

/// The lock a running bulk import holds on its database file (an advisory `flock`, which
/// SQLite's own byte-range locks do not see), so that other processes can tell it from an
/// interrupted one. Released when dropped, or when the process ends however it ends.
pub(super) struct Running {
    _file: Option<std::fs::File>,
}

impl Running {
    /// Takes the lock on `conn`'s file (nothing for an in-memory database, or where the
    /// system has no such locks).
    pub(super) fn hold(conn: &Connection) -> Running {
        let file = db_path(conn)
            .and_then(|p| std::fs::File::open(p).ok())
            .filter(|f| f.try_lock().is_ok());
        Running { _file: file }
    }

    /// Whether another open file holds the lock on `conn`'s file.
    fn held(conn: &Connection) -> bool {
        let Some(file) = db_path(conn).and_then(|p| std::fs::File::open(p).ok()) else {
            return false;
        };
        matches!(
            file.try_lock_shared(),
            Err(std::fs::TryLockError::WouldBlock)
        )
    }
}

/// Lets the index build's sort spill to temporary files instead of memory (outside a
/// transaction: SQLite refuses the change inside one).
pub(super) fn sort_in_files(conn: &Connection) -> Result<()> {
    conn.pragma_update(None, "temp_store", "FILE")?;
    Ok(())
}

/// The unfinished bulk import of `source_id`: the last id before its rows and the last
/// input line it committed.
pub(super) fn pending(conn: &Connection, source_id: i64) -> Result<Option<(i64, u64)>> {
    Ok(conn
        .query_row(
            "SELECT bulk_after_id, coalesce(bulk_line, 0) FROM sources \
             WHERE id = ?1 AND bulk_after_id IS NOT NULL",
            [source_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

/// Starts a bulk import of `source_id`: marks it, drops the position index. Returns the
/// last id before its rows.
pub(super) fn begin(conn: &mut Connection, source_id: i64) -> Result<i64> {
    let tx = conn.transaction()?;
    let after: i64 = tx.query_row("SELECT coalesce(max(id), 0) FROM position_rows", [], |r| {
        r.get(0)
    })?;
    tx.execute(
        "UPDATE sources SET bulk_after_id = ?2, bulk_line = 0 WHERE id = ?1",
        params![source_id, after],
    )?;
    tx.execute_batch("DROP INDEX IF EXISTS position_rows_key")?;
    tx.commit()?;
    Ok(after)
}

/// Ends the bulk import of `source_id` inside `tx`: rebuilds the index, merges every row
/// above `after` into the first row of its position and deletes it, counting it in
/// `summary` as a duplicate instead of an import; clears the mark.
pub(super) fn finish(
    tx: &Transaction<'_>,
    source_id: i64,
    after: i64,
    summary: &mut ImportSummary,
) -> Result<()> {
    // The index build sorts every key: SQLite's sorter holds up to a page cache's worth
    // per thread in memory before it spills, so a smaller cache keeps the peak at the
    // same height whatever the size of the database.
    let cache: i64 = tx.query_row("PRAGMA cache_size", [], |r| r.get(0))?;
    tx.pragma_update(None, "cache_size", SORT_CACHE_KIB)?;
    let built = tx.execute_batch(KEY_INDEX);
    tx.pragma_update(None, "cache_size", cache)?;
    built?;
    // Keys held by more than one row, one of them new: one pass over the index in key
    // order (a covering scan; grouping in SQL would read every row of the table too).
    let mut keys: Vec<i64> = Vec::new();
    {
        let mut scan = tx.prepare(
            "SELECT key, id FROM position_rows INDEXED BY position_rows_key ORDER BY key",
        )?;
        let mut rows = scan.query([])?;
        // The current key, how many rows hold it, and whether one of them is new.
        let mut run: Option<(i64, u32, bool)> = None;
        while let Some(r) = rows.next()? {
            let (key, id): (i64, i64) = (r.get(0)?, r.get(1)?);
            match &mut run {
                Some((k, n, new)) if *k == key => {
                    *n += 1;
                    *new |= id > after;
                }
                _ => {
                    if let Some((k, n, true)) = run
                        && n > 1
                    {
                        keys.push(k);
                    }
                    run = Some((key, 1, id > after));
                }
            }
        }
        if let Some((k, n, true)) = run
            && n > 1
        {
            keys.push(k);
        }
    }
    let mut rows = tx.prepare("SELECT id, board FROM position_rows WHERE key = ?1 ORDER BY id")?;
    for key in keys {
        let group: Vec<(i64, Vec<u8>)> = rows
            .query_map([key], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        // Keys can collide: a row is a duplicate of the first earlier row with its bytes.
        for (i, (dup, board)) in group.iter().enumerate() {
            let Some((first, _)) = group[..i].iter().find(|(_, b)| b == board) else {
                continue;
            };
            if *dup > after {
                merge(tx, *first, *dup)?;
                summary.imported -= 1;
                summary.duplicates += 1;
            }
        }
    }
    tx.execute(
        "DELETE FROM label_failures WHERE position_id > ?1 \
         AND position_id NOT IN (SELECT id FROM position_rows)",
        [after],
    )?;
    tx.execute(
        "UPDATE sources SET bulk_after_id = NULL, bulk_line = NULL WHERE id = ?1",
        [source_id],
    )?;
    Ok(())
}

/// Folds the row `dup` into the row `first` of the same position, as a row-by-row import
/// does with a duplicate: a game result, best and next moves and labels `first` lacks.
fn merge(tx: &Transaction<'_>, first: i64, dup: i64) -> Result<()> {
    let lent = tx
        .prepare_cached(
            "SELECT result, game_id, ply, best_move, next_move FROM position_rows WHERE id = ?1",
        )?
        .query_row([dup], |r| {
            Ok(Lent {
                result: r.get(0)?,
                game_id: r.get(1)?,
                ply: r.get(2)?,
                best_move: r.get(3)?,
                next_move: r.get(4)?,
            })
        })?;
    lend(tx, first, &lent)?;
    // `labeller_id IN (...)` lets SQLite use the key (labeller, position) for each one.
    tx.prepare_cached(
        "UPDATE OR IGNORE label_rows SET position_id = ?1 \
         WHERE labeller_id IN (SELECT id FROM labellers) AND position_id = ?2",
    )?
    .execute(params![first, dup])?;
    // Everything that hangs off a position row goes with it: a command that ran before the
    // merge (an `analyze`, a `label`) may have given the duplicate features, edges or labels
    // (its label failures, keyed by labeller first, are cleared once in `finish`).
    for sql in [
        "DELETE FROM label_rows WHERE labeller_id IN (SELECT id FROM labellers) AND position_id = ?1",
        "DELETE FROM feature_rows WHERE position_id = ?1",
        "DELETE FROM edges WHERE position_id = ?1",
        "DELETE FROM position_rows WHERE id = ?1",
    ] {
        tx.prepare_cached(sql)?.execute([dup])?;
    }
    Ok(())
}
