//! The tables of a database as Arrow batches: [`NAMES`], each read in its key order
//! ([`read`]), every column keeping its name, SQLite `INTEGER` becoming Int64, `REAL`
//! Float64 and `TEXT` Utf8, nullable exactly where the table allows NULL — so a reader
//! of the batches (a Parquet file, a pyarrow table) sees the same table as SQL on the
//! database does. `edges` holds the graph of every analyzed position (every one with a
//! `features` row), computed from its board ([`crate::edges`]): a database analyzed with
//! `--edges none` still gives the whole graph, one analyzed with `--edges all` the rows
//! of its `edges` table. Everything streams: memory does not grow with the table.

use std::sync::Arc;

use arrow_array::builder::{Float64Builder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use chessgraph_core::Error as CoreError;
use chessgraph_store::Error;
use chessgraph_store::Result;
use chessgraph_store::export::{self as db_export, Column, ColumnType};
use rusqlite::Connection;

use crate::edges;
use crate::positions::{Invalid, RowError};

/// The tables [`read`] reads, in the order an export writes them.
pub const NAMES: [&str; 5] = ["positions", "features", EDGES, "labels", "splits"];

/// The edge table's name (the others are [`db_export::TABLES`]).
pub const EDGES: &str = "edges";

/// Positions per chunk whose graphs are computed at once (in parallel).
const GRAPH_CHUNK: usize = 16_384;

/// The Arrow schema of a table with `columns`.
pub fn schema(columns: &[Column]) -> SchemaRef {
    let fields: Vec<Field> = columns
        .iter()
        .map(|c| {
            let kind = match c.kind {
                ColumnType::Integer => DataType::Int64,
                ColumnType::Real => DataType::Float64,
                ColumnType::Text => DataType::Utf8,
            };
            Field::new(&c.name, kind, c.nullable)
        })
        .collect();
    Arc::new(Schema::new(fields))
}

enum Builder {
    Int(Int64Builder),
    Real(Float64Builder),
    Text(StringBuilder),
}

/// Collects rows of one table into Arrow batches.
pub struct TableBatch {
    schema: SchemaRef,
    builders: Vec<Builder>,
    rows: usize,
}

impl TableBatch {
    /// An empty batch for a table with `columns`.
    pub fn new(columns: &[Column]) -> TableBatch {
        let builders = columns
            .iter()
            .map(|c| match c.kind {
                ColumnType::Integer => Builder::Int(Int64Builder::new()),
                ColumnType::Real => Builder::Real(Float64Builder::new()),
                ColumnType::Text => Builder::Text(StringBuilder::new()),
            })
            .collect();
        TableBatch {
            schema: schema(columns),
            builders,
            rows: 0,
        }
    }

    /// The schema of the batches.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Rows collected since the last [`TableBatch::finish`].
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether no row is collected.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Appends one SQLite row (columns in the order given to [`TableBatch::new`]).
    pub fn append(&mut self, row: &rusqlite::Row<'_>) -> Result<()> {
        for (i, b) in self.builders.iter_mut().enumerate() {
            match b {
                Builder::Int(b) => b.append_option(row.get::<_, Option<i64>>(i)?),
                Builder::Real(b) => b.append_option(row.get::<_, Option<f64>>(i)?),
                Builder::Text(b) => b.append_option(
                    row.get_ref(i)?
                        .as_str_or_null()
                        .map_err(rusqlite::Error::from)?,
                ),
            }
        }
        self.rows += 1;
        Ok(())
    }

    /// The collected rows as a batch; the builders start empty again.
    pub fn finish(&mut self) -> Result<RecordBatch> {
        let arrays: Vec<ArrayRef> = self
            .builders
            .iter_mut()
            .map(|b| -> ArrayRef {
                match b {
                    Builder::Int(b) => Arc::new(b.finish()),
                    Builder::Real(b) => Arc::new(b.finish()),
                    Builder::Text(b) => Arc::new(b.finish()),
                }
            })
            .collect();
        self.rows = 0;
        RecordBatch::try_new(self.schema.clone(), arrays).map_err(|e| Error::Arrow {
            what: "a stored row does not fit its table".into(),
            source: e.into(),
        })
    }
}

/// The stored table `name`, if it is one of [`NAMES`] but `edges`; otherwise an error
/// listing them.
fn stored_table(name: &str) -> Result<Option<&'static db_export::Table>> {
    if name == EDGES {
        return Ok(None);
    }
    match db_export::TABLES.iter().find(|t| t.name == name) {
        Some(t) => Ok(Some(t)),
        None => Err(CoreError::Invalid(format!(
            "no table {name:?} to read: the tables are {}",
            NAMES.join(", ")
        ))
        .into()),
    }
}

/// The schema of table `name` (one of [`NAMES`]) in `conn`.
pub fn schema_of(conn: &Connection, name: &str) -> Result<SchemaRef> {
    match stored_table(name)? {
        Some(t) => Ok(schema(&db_export::columns(conn, t.name)?)),
        None => Ok(edges::schema("position_id")),
    }
}

/// Rows of table `name` (one of [`NAMES`]); for `edges`, the analyzed positions (the
/// edges' count is known once their graphs are computed).
pub fn row_count(conn: &Connection, name: &str) -> Result<u64> {
    match stored_table(name)? {
        Some(t) => db_export::row_count(conn, t.name),
        None => db_export::row_count(conn, "feature_rows"),
    }
}

/// Reads table `name` (one of [`NAMES`]) of `conn` in its key order, calling `f` with
/// batches of at most `batch_rows` rows (`edges`: of the graphs of at most that many
/// positions). Give `conn` one read transaction to read several tables as one snapshot.
pub fn read(
    conn: &Connection,
    name: &str,
    batch_rows: usize,
    mut f: impl FnMut(RecordBatch) -> Result<()>,
) -> Result<()> {
    let Some(t) = stored_table(name)? else {
        return db_export::for_each_analyzed_chunk(conn, batch_rows.min(GRAPH_CHUNK), |chunk| {
            f(stored_edges(chunk)?)
        });
    };
    let columns = db_export::columns(conn, t.name)?;
    let mut batch = TableBatch::new(&columns);
    db_export::for_each_row(conn, t, &columns, |row| {
        batch.append(row)?;
        if batch.len() == batch_rows {
            f(batch.finish()?)?;
        }
        Ok(())
    })?;
    if !batch.is_empty() {
        f(batch.finish()?)?;
    }
    Ok(())
}

/// The edges of stored positions `(id, FEN)`; a FEN that does not parse was not written
/// by chessgraph.
fn stored_edges(chunk: &[(i64, String)]) -> Result<RecordBatch> {
    let fens: Vec<Option<&str>> = chunk.iter().map(|(_, fen)| Some(fen.as_str())).collect();
    let ids: Vec<i64> = chunk.iter().map(|(id, _)| *id).collect();
    let graphs = edges::graphs(&fens, Invalid::Raise).map_err(|e| match e {
        RowError::Fen { row, fen, source } => Error::from(CoreError::StoredPosition {
            fen: format!("#{} {fen}", ids[row]),
            source: source.into(),
        }),
        RowError::Packed { .. } => unreachable!("edges are computed from FENs"),
    })?;
    Ok(edges::batch("position_id", &ids, &graphs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_reads_and_others_are_refused() {
        let mut conn = chessgraph_store::open_in_memory().unwrap();
        conn.execute_batch(
            "INSERT INTO sources (id, path, format, compression, pov, started_at) \
             VALUES (1, 't', 'csv', 'none', 'white', 'now');
             INSERT INTO positions (id, fen, source_id, line, eval_cp) \
             VALUES (1, '4k3/8/8/8/8/8/4P3/4K3 w - -', 1, 2, 50), \
                    (2, '4k3/8/8/8/8/8/8/4K3 b - -', 1, 3, NULL);",
        )
        .unwrap();
        let opts = chessgraph_store::analyze::AnalyzeOptions::default();
        let hidden = indicatif::ProgressBar::hidden();
        let analyzed = chessgraph_store::analyze::analyze(&mut conn, &opts, &hidden).unwrap();
        assert_eq!(analyzed.positions, 2);
        for name in NAMES {
            let schema = schema_of(&conn, name).unwrap();
            let mut rows = 0;
            read(&conn, name, 1, |b| {
                assert_eq!(b.schema(), schema, "{name}");
                assert!(b.num_rows() <= 1 || name == EDGES, "{name}");
                rows += b.num_rows();
                Ok(())
            })
            .unwrap();
            let expected = match name {
                "positions" | "features" | "splits" => 2,
                EDGES => 1,
                _ => 0,
            };
            assert_eq!(rows, expected, "{name}");
        }
        let positions = schema_of(&conn, "positions").unwrap();
        assert!(positions.field_with_name("eval_cp").unwrap().is_nullable());
        assert!(!positions.field_with_name("fen").unwrap().is_nullable());
        let err = read(&conn, "games", 10, |_| Ok(())).unwrap_err();
        assert!(
            err.to_string()
                .contains("positions, features, edges, labels, splits"),
            "{err}"
        );
    }
}
