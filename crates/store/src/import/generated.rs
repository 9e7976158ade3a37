//! Sources chessgraph makes itself (`datagen`): written game by game through the import's
//! writer, resumable like an imported file.

use std::time::Instant;

use rusqlite::{Connection, OptionalExtension, params};

use super::{ImportSummary, Writer};
use crate::Result;
use chessgraph_core::data::{GameInfo, Row};

/// A source that chessgraph makes itself (`datagen`): rows arrive game by game, and each
/// game is committed with the source's counters, so a killed run keeps every finished
/// game and a re-run with the same `path` resumes the source.
pub struct GeneratedSource<'c> {
    writer: Writer<'c>,
    started: Instant,
}

impl<'c> GeneratedSource<'c> {
    /// Opens the source named `path` (format `format`) that an earlier run made — to
    /// resume it after a kill, or to add games to it — or starts a new one. Returns it and
    /// whether an earlier source was found.
    pub fn open(
        conn: &'c mut Connection,
        path: &str,
        format: &'static str,
    ) -> Result<(GeneratedSource<'c>, bool)> {
        let previous: Option<(i64, u64, u64, u64, u64)> = conn
            .query_row(
                "SELECT id, rows_read, rows_imported, rows_duplicate, rows_rejected FROM sources \
                 WHERE path = ?1 AND format = ?2 ORDER BY id DESC LIMIT 1",
                params![path, format],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .optional()?;
        let mut summary = ImportSummary {
            path: path.to_owned(),
            format,
            ..ImportSummary::default()
        };
        let source_id = match previous {
            Some((id, read, imported, dup, rejected)) => {
                summary.resumed = true;
                summary.rows_read = read;
                summary.imported = imported;
                summary.duplicates = dup;
                summary.rejected = rejected;
                summary.games = conn.query_row(
                    "SELECT count(*) FROM games WHERE source_id = ?1",
                    [id],
                    |r| r.get(0),
                )?;
                id
            }
            None => {
                conn.execute(
                    "INSERT INTO sources (path, format, compression, fingerprint, pov, started_at) \
                     VALUES (?1, ?2, 'none', NULL, 'white', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                    params![path, format],
                )?;
                conn.last_insert_rowid()
            }
        };
        summary.source_id = source_id;
        let resumed = summary.resumed;
        let writer = Writer::new(conn.transaction()?, source_id, usize::MAX, summary);
        Ok((
            GeneratedSource {
                writer,
                started: Instant::now(),
            },
            resumed,
        ))
    }

    /// The `line` numbers of the games already stored in this source.
    pub fn stored_games(&self) -> Result<Vec<u64>> {
        let mut stmt = self
            .writer
            .tx
            .prepare("SELECT line FROM games WHERE source_id = ?1")?;
        let lines = stmt
            .query_map([self.writer.source_id], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<u64>>>()?;
        Ok(lines)
    }

    /// Stores one game and its positions, and commits them.
    pub fn write_game(&mut self, info: &GameInfo, rows: &[Row]) -> Result<()> {
        self.writer.begin_immediate()?;
        self.writer.game(info)?;
        for row in rows {
            self.writer.row(row, None)?;
        }
        self.writer.commit_batch()
    }

    /// The counts so far.
    pub fn summary(&self) -> &ImportSummary {
        &self.writer.summary
    }

    /// Marks the source finished and returns what was stored.
    pub fn finish(mut self) -> Result<ImportSummary> {
        self.writer.begin_immediate()?;
        self.writer.flush_counters()?;
        self.writer.tx.execute(
            "UPDATE sources SET finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1",
            [self.writer.source_id],
        )?;
        self.writer.tx.commit()?;
        let mut summary = self.writer.summary;
        summary.seconds = self.started.elapsed().as_secs_f64();
        Ok(summary)
    }
}
