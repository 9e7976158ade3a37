//! The writing half of an import: one row, game or reject at a time into the open
//! transaction, committed in batches with the source's counters.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Transaction, params};

use super::{ImportSummary, SHOWN_REJECTS};
use crate::Result;
use chessgraph_core::data::{GameInfo, Item, Label, Reject, Row};
use chessgraph_core::graph::Features;

/// The stored key of a row's packed board (`position_rows.key`): the board's 47-bit key.
/// Collisions are too rare to meet in a test (about 2⁻⁴⁷ a pair), so this crate's tests
/// can narrow the key to a few bits to make them.
fn row_key(board: &[u8]) -> i64 {
    let key = chessgraph_core::chess::packed::key(board);
    #[cfg(test)]
    let key = key & tests_key_mask::MASK.get();
    key
}

/// The mask the tests narrow the key with (all bits otherwise).
#[cfg(test)]
pub(crate) mod tests_key_mask {
    thread_local! {
        pub(crate) static MASK: std::cell::Cell<i64> = const { std::cell::Cell::new(-1) };
    }
}

/// Test hook, the only one of the import: `CHESSGRAPH_TEST_PAUSE_AFTER_BATCH=N:PATH` makes
/// the import, right after committing its Nth batch (counted from 1 in this run), create
/// the file PATH and then wait for as long as PATH exists. A test waits for PATH to
/// appear, and then knows exactly what is committed: it can kill the process at that
/// point (the kill-and-resume tests) or delete PATH to let the import go on. Unset (or
/// not `N:PATH`), it does nothing.
const PAUSE_VAR: &str = "CHESSGRAPH_TEST_PAUSE_AFTER_BATCH";

/// The batch number and file of [`PAUSE_VAR`], when set.
fn pause_after_batch() -> Option<(u64, std::path::PathBuf)> {
    let value = std::env::var(PAUSE_VAR).ok()?;
    let (n, path) = value.split_once(':')?;
    Some((n.parse().ok()?, path.into()))
}

/// Does the pause of [`PAUSE_VAR`] if it is set for batch `batch`.
fn pause_if_asked(batch: u64) {
    let Some((n, path)) = pause_after_batch() else {
        return;
    };
    if n != batch {
        return;
    }
    if let Err(e) = std::fs::write(&path, format!("paused after batch {batch}\n")) {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "chessgraph: {PAUSE_VAR}: cannot create {}: {e}",
            path.display()
        );
        return;
    }
    while path.exists() {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

pub(super) struct Writer<'c> {
    pub(super) tx: Transaction<'c>,
    pub(super) source_id: i64,
    game_id: Option<i64>,
    in_batch: usize,
    batch_size: usize,
    /// Batches committed by this run (for the test hook of [`PAUSE_VAR`]).
    batches: u64,
    /// `labellers.id` of the engine labels met so far.
    labellers: HashMap<&'static str, i64>,
    /// Set on the bulk path (`bulk.rs`): rows are appended without a lookup, and
    /// the input lines up to this one were committed by an earlier run and are skipped.
    bulk_skip: Option<u64>,
    /// The last input line of a row or reject written.
    last_line: u64,
    pub(super) summary: ImportSummary,
}

impl<'c> Writer<'c> {
    /// A writer of `source_id` into `tx`, committing every `batch_size` rows.
    pub(super) fn new(
        tx: Transaction<'c>,
        source_id: i64,
        batch_size: usize,
        summary: ImportSummary,
    ) -> Writer<'c> {
        Writer {
            tx,
            source_id,
            game_id: None,
            in_batch: 0,
            batch_size: batch_size.max(1),
            batches: 0,
            labellers: HashMap::new(),
            bulk_skip: None,
            last_line: 0,
            summary,
        }
    }

    /// Takes the bulk path, skipping the input lines up to `skip` (committed before).
    pub(super) fn bulk(&mut self, skip: u64) {
        self.bulk_skip = Some(skip);
        self.last_line = skip;
    }

    /// Whether the item at `line` was committed by an earlier bulk run.
    fn skipped(&self, line: u64) -> bool {
        self.bulk_skip.is_some_and(|skip| line <= skip)
    }

    /// Writes one item; `features`, computed by the reader for `import --analyze`, are
    /// stored with a new position.
    pub(super) fn item(&mut self, item: Item, features: Option<&Features>) -> Result<()> {
        match item {
            Item::Game(info) => self.game(&info)?,
            Item::Row(row) => self.row(&row, features)?,
            Item::Reject(reject) => self.reject(reject)?,
        }
        if self.in_batch >= self.batch_size {
            self.commit_batch()?;
        }
        Ok(())
    }

    pub(super) fn game(&mut self, info: &GameInfo) -> Result<()> {
        self.summary.games += 1;
        self.tx
            .prepare_cached(
                "INSERT INTO games (source_id, line, white, black, event, date, result, start_fen) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (source_id, line) DO NOTHING",
            )?
            .execute(params![
                self.source_id,
                info.line,
                info.white,
                info.black,
                info.event,
                info.date,
                info.result.map(|r| r.as_str()),
                info.start_fen
            ])?;
        let id = self
            .tx
            .prepare_cached("SELECT id FROM games WHERE source_id = ?1 AND line = ?2")?
            .query_row(params![self.source_id, info.line], |r| r.get(0))?;
        self.game_id = Some(id);
        Ok(())
    }

    pub(super) fn row(&mut self, row: &Row, features: Option<&Features>) -> Result<()> {
        if self.skipped(row.line) {
            return Ok(());
        }
        self.summary.rows_read += 1;
        self.in_batch += 1;
        self.last_line = row.line;
        let (eval_cp, mate) = match row.label {
            Label::None => (None, None),
            Label::Cp(cp) => (Some(cp), None),
            Label::Mate(m) => (None, Some(m)),
        };
        let game_id = if row.ply.is_some() {
            self.game_id
        } else {
            None
        };
        if self.bulk_skip.is_some() {
            // Duplicates are found at the end, all at once.
            return self.insert(row, row_key(&row.board), eval_cp, mate, game_id, features);
        }
        let key = row_key(&row.board);
        // Already stored: by a killed earlier run of this very source (then it is ours),
        // or by another row or file (a duplicate). Keys that collide are told apart by
        // the bytes.
        let stored: Option<(i64, bool)> = self
            .tx
            .prepare_cached(
                "SELECT id, source_id = ?2 AND line = ?3 AND ply IS ?4 FROM position_rows \
                 WHERE key = ?5 AND board = ?1",
            )?
            .query_row(
                params![row.board, self.source_id, row.line, row.ply, key],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let Some((id, ours)) = stored else {
            return self.insert(row, key, eval_cp, mate, game_id, features);
        };
        if ours {
            self.summary.imported += 1;
        } else {
            self.summary.duplicates += 1;
            lend(
                &self.tx,
                id,
                &Lent {
                    result: row.result.map(|r| r.as_str().to_owned()),
                    game_id,
                    ply: row.ply.map(i64::from),
                    best_move: row.best_move.clone(),
                    next_move: row.next_move.clone(),
                },
            )?;
        }
        self.engine_label(row, id, eval_cp, mate)
    }

    /// Stores `row` as a new position.
    fn insert(
        &mut self,
        row: &Row,
        key: i64,
        eval_cp: Option<i32>,
        mate: Option<i32>,
        game_id: Option<i64>,
        features: Option<&Features>,
    ) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT INTO position_rows (board, key, eval_cp, mate, source_id, line, game_id, \
                 ply, result, best_move, next_move, fen_input) \
                 VALUES (?1, ?12, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            )?
            .execute(params![
                row.board,
                eval_cp,
                mate,
                self.source_id,
                row.line,
                game_id,
                row.ply,
                row.result.map(|r| r.as_str()),
                row.best_move,
                row.next_move,
                row.fen_input,
                key,
            ])?;
        self.summary.imported += 1;
        let id = self.tx.last_insert_rowid();
        if let Some(f) = features {
            crate::analyze::write_features(&self.tx, id, f)?;
        }
        self.engine_label(row, id, eval_cp, mate)
    }

    /// Stores the row's engine label (Lichess evaluations) under its labeller's name, for
    /// a new position and for one another source stored first: the first label of a
    /// labeller wins, as the first row of a position does.
    fn engine_label(
        &mut self,
        row: &Row,
        position_id: i64,
        eval_cp: Option<i32>,
        mate: Option<i32>,
    ) -> Result<()> {
        let Some(engine) = &row.engine else {
            return Ok(());
        };
        let labeller_id = match self.labellers.get(engine.labeller) {
            Some(&id) => id,
            None => {
                let id = crate::labels::labeller_id(&self.tx, engine.labeller)?;
                self.labellers.insert(engine.labeller, id);
                id
            }
        };
        self.tx
            .prepare_cached(
                "INSERT INTO label_rows (position_id, labeller_id, eval_cp, mate, depth, nodes, created_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, unixepoch()) \
                 ON CONFLICT (labeller_id, position_id) DO NOTHING",
            )?
            .execute(params![
                position_id,
                labeller_id,
                eval_cp,
                mate,
                engine.depth,
                engine.nodes as i64
            ])?;
        Ok(())
    }

    fn reject(&mut self, reject: Reject) -> Result<()> {
        if self.skipped(reject.line) {
            return Ok(());
        }
        self.last_line = reject.line;
        self.summary.rows_read += 1;
        self.summary.rejected += 1;
        self.in_batch += 1;
        self.tx
            .prepare_cached(
                "INSERT INTO import_errors (source_id, line, text, reason) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT DO NOTHING",
            )?
            .execute(params![
                self.source_id,
                reject.line,
                reject.text,
                reject.reason
            ])?;
        if self.summary.first_rejects.len() < SHOWN_REJECTS {
            self.summary.first_rejects.push(reject);
        }
        Ok(())
    }

    pub(super) fn flush_counters(&mut self) -> Result<()> {
        let s = &self.summary;
        self.tx.execute(
            "UPDATE sources SET rows_read = ?2, rows_imported = ?3, rows_duplicate = ?4, rows_rejected = ?5 \
             WHERE id = ?1",
            params![self.source_id, s.rows_read, s.imported, s.duplicates, s.rejected],
        )?;
        if self.bulk_skip.is_some() {
            self.tx.execute(
                "UPDATE sources SET bulk_line = ?2 WHERE id = ?1",
                params![self.source_id, self.last_line],
            )?;
        }
        Ok(())
    }

    /// Ends the idle transaction (nothing is pending in it) and begins one that takes the
    /// write lock at once: another process writing to the same database (several
    /// `datagen` processes on one file) is then waited for, where a transaction that read
    /// first could not write after the other's commit (SQLite's snapshot rule).
    pub(super) fn begin_immediate(&mut self) -> Result<()> {
        self.tx.execute_batch("COMMIT; BEGIN IMMEDIATE")?;
        Ok(())
    }

    /// Commits the rows so far with the counters that describe them, and starts a new
    /// transaction.
    pub(super) fn commit_batch(&mut self) -> Result<()> {
        self.flush_counters()?;
        // Swap in a fresh transaction: commit the old one, begin the next on the same
        // connection.
        self.tx.execute_batch("COMMIT; BEGIN")?;
        self.in_batch = 0;
        self.batches += 1;
        pause_if_asked(self.batches);
        Ok(())
    }
}

/// What a later row of a stored position brings that its first row may lack.
#[derive(Debug, Default)]
pub(super) struct Lent {
    /// The game result, with the game and ply it comes from.
    pub result: Option<String>,
    /// The game.
    pub game_id: Option<i64>,
    /// Plies from the game's start.
    pub ply: Option<i64>,
    /// The input's best move.
    pub best_move: Option<String>,
    /// The move played next in the game.
    pub next_move: Option<String>,
}

/// The one rule for a duplicate, on both import paths: the first row of the position
/// (`first`) keeps everything it has and takes from the duplicate a game result (with its
/// game and ply) when it has none — it came first from a file without games, e.g. the CSV
/// — and the best and next moves it lacks.
pub(super) fn lend(tx: &Transaction<'_>, first: i64, lent: &Lent) -> Result<()> {
    if lent.result.is_some() {
        tx.prepare_cached(
            "UPDATE position_rows SET result = ?2, game_id = ?3, ply = ?4 \
             WHERE id = ?1 AND result IS NULL",
        )?
        .execute(params![first, lent.result, lent.game_id, lent.ply])?;
    }
    if lent.best_move.is_some() || lent.next_move.is_some() {
        tx.prepare_cached(
            "UPDATE position_rows SET best_move = coalesce(best_move, ?2), \
             next_move = coalesce(next_move, ?3) WHERE id = ?1 \
             AND (best_move IS NULL OR next_move IS NULL)",
        )?
        .execute(params![first, lent.best_move, lent.next_move])?;
    }
    Ok(())
}
