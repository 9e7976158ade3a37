//! Columnar export: the database's tables as Parquet files that DuckDB, Polars, Spark or
//! pyarrow read as they are (`chessgraph export data --format parquet --out DIR`).
//!
//! `positions`, `features`, `labels` and `splits` are copied column for column from
//! SQLite (see [`table`]); `edges` holds the graph of every analyzed position (every one
//! with a `features` row, as in SQLite), computed from its board ([`edges`]), so a database
//! analyzed with `--edges none` still exports the whole graph, and one analyzed with
//! `--edges all` exports the rows of its `edges` table. Every table is
//! written as numbered files of at most `rows_per_file` rows ([`parts`]):
//! `DIR/positions-00000.parquet`, `DIR/edges-00000.parquet`, `DIR/edges-00001.parquet`, …
//! Everything streams: memory does not grow with the database.

pub mod edges;
pub mod parts;
pub mod table;

use chessgraph_core::Error as CoreError;
use std::path::Path;
use std::time::Instant;

use indicatif::ProgressBar;
use rusqlite::Connection;

use chessgraph_store::Error;
use chessgraph_store::Result;
use chessgraph_store::export as db_export;

pub use parts::PartsSummary;

/// The edge table's name (the other tables are [`db_export::TABLES`]).
pub const EDGES: &str = "edges";

/// Rows per Arrow batch handed to the writer.
const BATCH_ROWS: usize = 65_536;

/// Positions per chunk whose graphs are computed at once (in parallel).
const GRAPH_CHUNK: usize = 16_384;

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

/// Every table name an export writes.
pub fn table_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = db_export::TABLES.iter().map(|t| t.name).collect();
    names.insert(2, EDGES);
    names
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
    let names = table_names();
    let old = parts::existing_parts(dir, &names)?;
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
    for t in &db_export::TABLES {
        total += db_export::row_count(conn, t.name)?;
    }
    progress.set_length(total);
    let mut out = Vec::new();
    for t in &db_export::TABLES {
        out.push(export_table(conn, dir, t, opts, progress)?);
        if t.name == "features" {
            out.push(export_edges(conn, dir, opts, progress)?);
        }
    }
    Ok(out)
}

/// Copies one stored table.
fn export_table(
    conn: &Connection,
    dir: &Path,
    t: &db_export::Table,
    opts: &ExportOptions,
    progress: &ProgressBar,
) -> Result<PartsSummary> {
    let columns = db_export::columns(conn, t.name)?;
    let mut batch = table::TableBatch::new(&columns);
    let mut writer =
        parts::PartWriter::new(dir, t.name, batch.schema().clone(), opts.rows_per_file);
    db_export::for_each_row(conn, t, &columns, |row| {
        batch.append(row)?;
        if batch.len() == BATCH_ROWS {
            writer.write(&batch.finish()?)?;
            progress.inc(BATCH_ROWS as u64);
        }
        Ok(())
    })?;
    if !batch.is_empty() {
        let n = batch.len() as u64;
        writer.write(&batch.finish()?)?;
        progress.inc(n);
    }
    writer.finish()
}

/// Computes and writes the attack/defense graph of every analyzed position.
fn export_edges(
    conn: &Connection,
    dir: &Path,
    opts: &ExportOptions,
    progress: &ProgressBar,
) -> Result<PartsSummary> {
    let mut writer = parts::PartWriter::new(dir, EDGES, edges::schema(), opts.rows_per_file);
    db_export::for_each_analyzed_chunk(conn, GRAPH_CHUNK, |chunk| {
        let graphs = edges::compute(chunk)?;
        let ids: Vec<i64> = chunk.iter().map(|(id, _)| *id).collect();
        let rows = graphs.iter().map(Vec::len).sum::<usize>() as u64;
        writer.write(&edges::batch(&ids, &graphs)?)?;
        progress.inc_length(rows);
        progress.inc(rows);
        Ok(())
    })?;
    writer.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_refusal_to_mix_exports() {
        assert_eq!(
            table_names(),
            ["positions", "features", "edges", "labels", "splits"]
        );
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
