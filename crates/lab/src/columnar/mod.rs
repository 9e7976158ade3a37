//! Columnar export: the database's tables as Parquet files that DuckDB, Polars, Spark or
//! pyarrow read as they are (`chessgraph export data --format parquet --out DIR`).
//!
//! The tables and their columns are [`chessgraph_arrow::table`]'s: `positions`,
//! `features`, `labels` and `splits` copied column for column from SQLite, `edges` the
//! graph of every analyzed position computed from its board. Every table is written as
//! numbered files of at most `rows_per_file` rows ([`parts`]):
//! `DIR/positions-00000.parquet`, `DIR/edges-00000.parquet`, `DIR/edges-00001.parquet`, …
//! Everything streams: memory does not grow with the database.

pub mod parts;

use chessgraph_core::Error as CoreError;
use std::path::Path;
use std::time::Instant;

use indicatif::ProgressBar;
use rusqlite::Connection;

use chessgraph_arrow::table;
use chessgraph_store::Error;
use chessgraph_store::Result;

pub use parts::PartsSummary;

/// Rows per Arrow batch handed to the writer.
const BATCH_ROWS: usize = 65_536;

/// How to export.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// Most rows in one file.
    pub rows_per_file: usize,
    /// Replace the files of an earlier export in the directory instead of refusing.
    pub overwrite: bool,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            rows_per_file: 1_000_000,
            overwrite: false,
        }
    }
}

/// What an export wrote.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct ExportSummary {
    /// One entry per table, in the order written.
    pub tables: Vec<PartsSummary>,
    /// Wall time.
    pub seconds: f64,
}

impl ExportSummary {
    /// Rows written over all tables.
    pub fn rows(&self) -> u64 {
        self.tables.iter().map(|t| t.rows).sum()
    }

    /// Bytes written over all tables.
    pub fn bytes(&self) -> u64 {
        self.tables.iter().map(|t| t.bytes).sum()
    }
}

/// Writes every table of `conn` into `dir` (created if missing) as Parquet files.
/// `progress` counts rows (its length is set here).
pub fn export_parquet(
    conn: &Connection,
    dir: &Path,
    opts: &ExportOptions,
    progress: &ProgressBar,
) -> Result<ExportSummary> {
    let started = Instant::now();
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let old = parts::existing_parts(dir, &table::NAMES)?;
    if !old.is_empty() {
        if !opts.overwrite {
            return Err(CoreError::Invalid(format!(
                "{} already holds an export ({} files such as {}); use --overwrite to replace it",
                dir.display(),
                old.len(),
                old[0].display()
            ))
            .into());
        }
        for f in &old {
            std::fs::remove_file(f).map_err(|e| Error::io(f, e))?;
        }
    }
    // One read transaction: every table is the same snapshot of the database.
    conn.execute_batch("BEGIN")?;
    let result = export_tables(conn, dir, opts, progress);
    let _ = conn.execute_batch("COMMIT");
    let tables = result?;
    Ok(ExportSummary {
        tables,
        seconds: started.elapsed().as_secs_f64(),
    })
}

fn export_tables(
    conn: &Connection,
    dir: &Path,
    opts: &ExportOptions,
    progress: &ProgressBar,
) -> Result<Vec<PartsSummary>> {
    // Rows written: the edges' count is added as their graphs are computed.
    let mut total = 0;
    for name in table::NAMES.iter().filter(|n| **n != table::EDGES) {
        total += table::row_count(conn, name)?;
    }
    progress.set_length(total);
    let mut out = Vec::new();
    for name in table::NAMES {
        let schema = table::schema_of(conn, name)?;
        let mut writer = parts::PartWriter::new(dir, name, schema, opts.rows_per_file);
        table::read(conn, name, BATCH_ROWS, |batch| {
            let rows = batch.num_rows() as u64;
            if name == table::EDGES {
                progress.inc_length(rows);
            }
            writer.write(&batch)?;
            progress.inc(rows);
            Ok(())
        })?;
        out.push(writer.finish()?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_refusal_to_mix_exports() {
        let conn = chessgraph_store::open_in_memory().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let opts = ExportOptions::default();
        let s = export_parquet(&conn, dir.path(), &opts, &ProgressBar::hidden()).unwrap();
        // An empty database still gives one (empty) file per table.
        assert_eq!(s.tables.len(), 5);
        assert!(s.tables.iter().all(|t| t.files == 1 && t.rows == 0));
        assert!(dir.path().join("edges-00000.parquet").exists());
        let again = export_parquet(&conn, dir.path(), &opts, &ProgressBar::hidden());
        assert!(again.unwrap_err().to_string().contains("--overwrite"));
        let over = ExportOptions {
            overwrite: true,
            ..opts
        };
        export_parquet(&conn, dir.path(), &over, &ProgressBar::hidden()).unwrap();
    }
}
