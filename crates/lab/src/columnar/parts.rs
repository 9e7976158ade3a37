//! A table written as numbered Parquet files of bounded size: `NAME-00000.parquet`,
//! `NAME-00001.parquet`, … each of at most `rows_per_file` rows, so that any reader
//! (DuckDB, Polars, Spark) reads them in parallel with a glob and no file grows huge.
//!
//! Each file is written under a temporary name and renamed when complete: a killed export
//! never leaves a truncated `.parquet` for a glob to trip on.

use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;

use chessgraph_store::Error;
use chessgraph_store::Result;

/// Rows per row group (the unit readers parallelize and skip by statistics).
const ROW_GROUP_ROWS: usize = 1 << 18;

/// zstd level: 3 is zstd's default, a good size/speed balance.
const ZSTD_LEVEL: i32 = 3;

/// What one table's files hold.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct PartsSummary {
    /// Table name (the files' prefix).
    pub table: String,
    /// Rows written.
    pub rows: u64,
    /// Files written.
    pub files: usize,
    /// Bytes on disk.
    pub bytes: u64,
}

/// Writes one table's batches into numbered Parquet files.
pub struct PartWriter {
    dir: PathBuf,
    table: String,
    schema: SchemaRef,
    rows_per_file: usize,
    current: Option<Open>,
    summary: PartsSummary,
}

/// The file being written.
struct Open {
    writer: ArrowWriter<File>,
    tmp: PathBuf,
    path: PathBuf,
    rows: usize,
}

/// Whether a column is a row id: sorted integers, stored as deltas instead of a dictionary.
fn is_id(name: &str) -> bool {
    name == "id" || name == "position_id"
}

/// The writer settings: zstd, dictionaries for repeated values, delta-encoded ids.
fn properties(schema: &SchemaRef) -> Result<WriterProperties> {
    let zstd = ZstdLevel::try_new(ZSTD_LEVEL).map_err(|e| Error::Arrow {
        what: format!("zstd level {ZSTD_LEVEL}"),
        source: e.into(),
    })?;
    let mut props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(zstd))
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_created_by(format!("chessgraph {}", env!("CARGO_PKG_VERSION")));
    for field in schema.fields() {
        if is_id(field.name()) {
            let col = ColumnPath::from(field.name().as_str());
            props = props
                .set_column_dictionary_enabled(col.clone(), false)
                .set_column_encoding(col, Encoding::DELTA_BINARY_PACKED);
        }
    }
    Ok(props.build())
}

/// The file name of part `index` of `table`.
pub fn part_name(table: &str, index: usize) -> String {
    format!("{table}-{index:05}.parquet")
}

impl PartWriter {
    /// A writer of `table` into `dir` (which must exist), `rows_per_file` rows at most
    /// per file.
    pub fn new(dir: &Path, table: &str, schema: SchemaRef, rows_per_file: usize) -> PartWriter {
        PartWriter {
            dir: dir.to_owned(),
            table: table.to_owned(),
            schema,
            rows_per_file: rows_per_file.max(1),
            current: None,
            summary: PartsSummary {
                table: table.to_owned(),
                ..PartsSummary::default()
            },
        }
    }

    /// The schema every batch must have.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn error(path: &Path, e: impl std::error::Error + Send + Sync + 'static) -> Error {
        Error::Columnar {
            path: path.to_owned(),
            source: Box::new(e),
        }
    }

    fn open(&mut self) -> Result<&mut Open> {
        if self.current.is_none() {
            let path = self.dir.join(part_name(&self.table, self.summary.files));
            let tmp = path.with_extension("parquet.tmp");
            let file = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
            let props = properties(&self.schema)?;
            let writer = ArrowWriter::try_new(file, self.schema.clone(), Some(props))
                .map_err(|e| Self::error(&tmp, e))?;
            self.current = Some(Open {
                writer,
                tmp,
                path,
                rows: 0,
            });
        }
        Ok(self.current.as_mut().expect("opened above"))
    }

    fn close(&mut self) -> Result<()> {
        if let Some(open) = self.current.take() {
            open.writer.close().map_err(|e| Self::error(&open.tmp, e))?;
            std::fs::rename(&open.tmp, &open.path).map_err(|e| Error::io(&open.path, e))?;
            let len = std::fs::metadata(&open.path)
                .map_err(|e| Error::io(&open.path, e))?
                .len();
            self.summary.files += 1;
            self.summary.bytes += len;
        }
        Ok(())
    }

    /// Appends `batch`, starting a new file whenever the current one is full.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let mut offset = 0;
        while offset < batch.num_rows() {
            let limit = self.rows_per_file;
            let open = self.open()?;
            let take = (limit - open.rows).min(batch.num_rows() - offset);
            open.writer
                .write(&batch.slice(offset, take))
                .map_err(|e| Self::error(&open.tmp, e))?;
            open.rows += take;
            let full = open.rows == limit;
            offset += take;
            self.summary.rows += take as u64;
            if full {
                self.close()?;
            }
        }
        Ok(())
    }

    /// Closes the last file (an empty table still gets one file, holding the schema, so
    /// that a glob over the table finds it) and says what was written.
    pub fn finish(mut self) -> Result<PartsSummary> {
        if self.summary.files == 0 && self.current.is_none() {
            self.open()?;
        }
        self.close()?;
        Ok(self.summary)
    }
}

/// The export files already in `dir` for `tables` (`NAME-NNNNN.parquet`, and temporary
/// files a killed export left).
pub fn existing_parts(dir: &Path, tables: &[&str]) -> Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(dir, e)),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let stem = name
            .strip_suffix(".parquet")
            .or_else(|| name.strip_suffix(".parquet.tmp"));
        let ours = stem.and_then(|s| s.rsplit_once('-')).is_some_and(|(t, n)| {
            tables.contains(&t) && n.len() == 5 && n.bytes().all(|b| b.is_ascii_digit())
        });
        if ours {
            found.push(entry.path());
        }
    }
    found.sort();
    Ok(found)
}
