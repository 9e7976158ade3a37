//! `chessgraph export data --format parquet`: the files read back with the parquet crate
//! equal the SQLite tables row for row (edges too, also from a database analyzed with
//! `--edges none`), files stay under the row bound, and an independent reader (DuckDB or
//! pyarrow, through `scripts/check/parquet.py`) agrees, with the README's recipes.

use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::{Array, Float64Array, Int8Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::cgtest;
use crate::util::{Dir, fixture};

/// Keys the tables are compared in.
const TABLES: [(&str, &str); 5] = [
    ("positions", "id"),
    ("features", "position_id"),
    ("edges", "position_id, to_sq, from_sq"),
    ("labels", "position_id, labeller"),
    ("splits", "position_id"),
];

const ROWS_PER_FILE: usize = 20_000;

/// The files of `table` in `dir`, in name order.
fn parts(dir: &Path, table: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_str().unwrap();
            name.starts_with(&format!("{table}-")) && name.ends_with(".parquet")
        })
        .collect();
    files.sort();
    files
}

/// One cell as text: what both readers must agree on.
fn cell(array: &dyn Array, i: usize) -> String {
    if array.is_null(i) {
        return "NULL".into();
    }
    let any = array.as_any();
    match array.data_type() {
        DataType::Int64 => any
            .downcast_ref::<Int64Array>()
            .unwrap()
            .value(i)
            .to_string(),
        DataType::Int8 => any
            .downcast_ref::<Int8Array>()
            .unwrap()
            .value(i)
            .to_string(),
        DataType::Float64 => any
            .downcast_ref::<Float64Array>()
            .unwrap()
            .value(i)
            .to_string(),
        DataType::Utf8 => any
            .downcast_ref::<StringArray>()
            .unwrap()
            .value(i)
            .to_owned(),
        other => panic!("unexpected column type {other}"),
    }
}

/// The column names and rows of one exported table, file after file, with the rows of
/// each file (parquet crate reader).
fn read_parquet(dir: &Path, table: &str) -> (Vec<String>, Vec<Vec<String>>, Vec<usize>) {
    let (mut names, mut rows, mut per_file) = (Vec::new(), Vec::new(), Vec::new());
    for (n, path) in parts(dir, table).iter().enumerate() {
        assert_eq!(
            path.file_name().unwrap().to_str().unwrap(),
            format!("{table}-{n:05}.parquet")
        );
        let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap())
            .unwrap()
            .build()
            .unwrap();
        let mut in_file = 0;
        for batch in reader {
            let batch: RecordBatch = batch.unwrap();
            names = batch
                .schema()
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .collect();
            for i in 0..batch.num_rows() {
                rows.push(batch.columns().iter().map(|c| cell(c, i)).collect());
            }
            in_file += batch.num_rows();
        }
        per_file.push(in_file);
    }
    (names, rows, per_file)
}

/// The rows of `table` in the database, as text, in `order`.
fn read_sqlite(dir: &Dir, table: &str, columns: &[String], order: &str) -> Vec<Vec<String>> {
    let conn = dir.sql();
    let sql = format!(
        "SELECT {} FROM {table} ORDER BY {order}",
        columns.join(", ")
    );
    let mut stmt = conn.prepare(&sql).unwrap();
    let n = columns.len();
    stmt.query_map([], |r| {
        Ok((0..n)
            .map(|i| match r.get_ref(i).unwrap() {
                rusqlite::types::ValueRef::Null => "NULL".to_owned(),
                rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                rusqlite::types::ValueRef::Real(v) => v.to_string(),
                rusqlite::types::ValueRef::Text(t) => String::from_utf8(t.to_vec()).unwrap(),
                rusqlite::types::ValueRef::Blob(_) => panic!("blob in {table}"),
            })
            .collect())
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// A database with positions, features, labels and splits (the CSV and the Lichess
/// fixtures), analyzed with `--edges EDGES`.
fn database(dir: &Dir, edges: &str) {
    dir.ok(&["import", &fixture("positions-2000.csv")]);
    dir.ok(&["import", &fixture("lichess-evals.jsonl")]);
    dir.ok(&["analyze", "--quiet", "--edges", edges]);
}

fn export(dir: &Dir, out: &str) -> String {
    dir.ok(&[
        "export",
        "data",
        "--format",
        "parquet",
        "--out",
        out,
        "--rows-per-file",
        &ROWS_PER_FILE.to_string(),
    ])
}

cgtest!(parquet_files_equal_the_sqlite_tables, |dir| {
    database(&dir, "all");
    // Positions imported after the analysis have no features and no edges, in SQLite and
    // in the export alike.
    dir.ok(&["import", &fixture("bestmoves-1500.epd")]);
    assert!(dir.int("SELECT count(*) FROM positions") > dir.int("SELECT count(*) FROM features"));
    let out = export(&dir, "out");
    let exported = dir.path().join("out");
    // One count: the rows written, every table's files together.
    let written: usize = TABLES
        .iter()
        .map(|(table, _)| read_parquet(&exported, table).1.len())
        .sum();
    assert!(out.contains(&format!("exported {written} rows")), "{out}");
    for (table, order) in TABLES {
        let (columns, rows, per_file) = read_parquet(&exported, table);
        let stored = read_sqlite(&dir, table, &columns, order);
        assert!(!stored.is_empty(), "{table} is empty");
        assert_eq!(rows.len(), stored.len(), "{table}: row count");
        assert!(rows == stored, "{table}: rows differ");
        assert!(
            per_file.iter().all(|&n| n <= ROWS_PER_FILE),
            "{table}: {per_file:?}"
        );
        // Every SQLite column is exported, in the table's order.
        let all: Vec<String> = dir
            .sql()
            .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(columns, all, "{table}: columns");
    }
    let edges = dir.int("SELECT count(*) FROM edges") as usize;
    assert!(
        parts(&exported, "edges").len() == edges.div_ceil(ROWS_PER_FILE)
            && edges > 2 * ROWS_PER_FILE,
        "edges split into files of at most {ROWS_PER_FILE} rows"
    );
    // A second export into the same directory is refused, then allowed with --overwrite.
    let again = dir.run(&["export", "data", "--out", "out"]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--overwrite"));
    dir.ok(&["export", "data", "--out", "out", "--overwrite", "--quiet"]);
    assert_eq!(parts(&exported, "edges").len(), 1, "old parts are replaced");
});

cgtest!(a_database_without_edges_exports_the_whole_graph, |dir| {
    database(&dir, "none");
    assert_eq!(dir.int("SELECT count(*) FROM edges"), 0);
    let reference = Dir::new();
    database(&reference, "all");
    export(&dir, "out");
    let (columns, rows, _) = read_parquet(&dir.path().join("out"), "edges");
    let stored = read_sqlite(&reference, "edges", &columns, TABLES[2].1);
    assert_eq!(rows.len(), stored.len());
    assert!(rows == stored, "computed edges differ from analyze's");
    // Attacks only: the database holds a sixth of the rows, the export still all of them.
    let attacks = Dir::new();
    database(&attacks, "attacks");
    let kept = attacks.int("SELECT count(*) FROM edges");
    assert_eq!(
        kept,
        reference.int("SELECT count(*) FROM edges WHERE kind = 'attack'")
    );
    assert_eq!(
        attacks.int("SELECT count(*) FROM edges WHERE kind <> 'attack'"),
        0
    );
});

cgtest!(an_independent_reader_agrees, |dir| {
    if !chessgraph_testkit::parquet_reader() {
        return;
    }
    // numpy solves the regression recipe's normal equations beside DuckDB (pyarrow alone
    // checks the tables only).
    let python = std::process::Command::new("python3")
        .args(["-c", "import duckdb, numpy"])
        .output();
    let available = |o: &std::io::Result<std::process::Output>| {
        o.as_ref().map(|o| o.status.success()).unwrap_or(false)
    };
    database(&dir, "all");
    export(&dir, "out");
    dir.ok(&["heatmap", "--out-dir", "heat", "--min-samples", "1"]);
    let fit = dir.ok(&["fit", "linear", "--json"]);
    let fit_path = dir.create("fit.json", fit);
    let script = chessgraph_testkit::repo_root().join("scripts/check/parquet.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg("--db")
        .arg(dir.db())
        .arg("--dir")
        .arg(dir.path().join("out"))
        .args(["--rows-per-file", &ROWS_PER_FILE.to_string()])
        .arg("--heatmap-csv")
        .arg(dir.path().join("heat/heatmap.csv"))
        .arg("--fit-json")
        .arg(&fit_path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for table in ["positions", "features", "edges", "labels", "splits"] {
        assert!(text.contains(&format!("{table}: ")), "{text}");
    }
    if available(&python) {
        assert!(
            text.contains("heatmap recipe") && text.contains("regression recipe"),
            "{text}"
        );
    }
});
