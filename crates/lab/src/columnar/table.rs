//! Arrow batches of any stored table: every column keeps its name, SQLite `INTEGER`
//! becomes Int64, `REAL` Float64 and `TEXT` Utf8, nullable exactly where the table
//! allows NULL — so a Parquet reader sees the same table as SQL on the database does.

use std::sync::Arc;

use arrow_array::builder::{Float64Builder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use chessgraph_store::Error;
use chessgraph_store::Result;
use chessgraph_store::export::{Column, ColumnType};

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
