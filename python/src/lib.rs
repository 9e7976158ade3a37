//! `chessgraph._chessgraph`: the Rust half of the Python package (`python/chessgraph`
//! is the other). Columns of positions go in and out as Arrow arrays (pyarrow's, through
//! the Arrow C data interface): the work runs with the GIL released, on every core
//! (rayon), and a bad value raises `ValueError` naming its row. The SQL functions are the
//! scalar ones `chessgraph.connect` registers on a `sqlite3.Connection`; each is the same
//! core function as in chessgraph's own connections ([`chessgraph_sql`]).

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, Int32Array, RecordBatch, make_array};
use arrow_pyarrow::{PyArrowType, Table};
use arrow_schema::DataType;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rayon::prelude::*;

use chessgraph_arrow::positions::Invalid;
use chessgraph_arrow::{edges as graphs, positions, table};
use chessgraph_core::chess::packed;
use chessgraph_engine::eval::Evaluator as EngineEvaluator;
use chessgraph_store::Error as StoreError;

type ArrowIn = PyArrowType<arrow_data::ArrayData>;
type ArrowOut = PyArrowType<arrow_data::ArrayData>;

/// A store error as the Python exception a caller expects: the user's mistakes (a
/// missing file, an unknown name) as `ValueError`, the rest as `RuntimeError`.
fn store_err(e: StoreError) -> PyErr {
    let message = std::iter::successors(Some(&e as &dyn std::error::Error), |e| e.source())
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(": ");
    if e.is_users() {
        PyValueError::new_err(message)
    } else {
        PyRuntimeError::new_err(message)
    }
}

fn row_err(e: positions::RowError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The `errors=` argument: `"raise"` (the default) or `"null"`.
fn invalid(errors: &str) -> PyResult<Invalid> {
    match errors {
        "raise" => Ok(Invalid::Raise),
        "null" => Ok(Invalid::Null),
        other => Err(PyValueError::new_err(format!(
            "errors={other:?}: expected \"raise\" or \"null\""
        ))),
    }
}

/// The values of a string array (Utf8, LargeUtf8 or Utf8View), nulls as `None`.
fn strings(array: &ArrayRef) -> PyResult<Vec<Option<&str>>> {
    Ok(match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().iter().collect(),
        DataType::LargeUtf8 => array.as_string::<i64>().iter().collect(),
        DataType::Utf8View => array.as_string_view().iter().collect(),
        other => {
            return Err(PyValueError::new_err(format!(
                "expected FEN strings, got an array of {other}"
            )));
        }
    })
}

/// The values of a binary array (Binary, LargeBinary or BinaryView), nulls as `None`.
fn binaries(array: &ArrayRef) -> PyResult<Vec<Option<&[u8]>>> {
    Ok(match array.data_type() {
        DataType::Binary => array.as_binary::<i32>().iter().collect(),
        DataType::LargeBinary => array.as_binary::<i64>().iter().collect(),
        DataType::BinaryView => array.as_binary_view().iter().collect(),
        other => {
            return Err(PyValueError::new_err(format!(
                "expected packed boards (binary), got an array of {other}"
            )));
        }
    })
}

/// The features of each FEN (a string array) as a record batch, one row each.
#[pyfunction]
#[pyo3(signature = (fens, errors = "raise"))]
fn features(py: Python<'_>, fens: ArrowIn, errors: &str) -> PyResult<PyArrowType<RecordBatch>> {
    let invalid = invalid(errors)?;
    let array = make_array(fens.0);
    let fens = strings(&array)?;
    let batch = py
        .detach(|| positions::features(&fens, invalid))
        .map_err(row_err)?;
    Ok(PyArrowType(batch))
}

/// The attack/defense graph of each FEN as one record batch, `row` the FEN's index.
#[pyfunction]
#[pyo3(signature = (fens, errors = "raise"))]
fn edges(py: Python<'_>, fens: ArrowIn, errors: &str) -> PyResult<PyArrowType<RecordBatch>> {
    let invalid = invalid(errors)?;
    let array = make_array(fens.0);
    let fens = strings(&array)?;
    let batch = py
        .detach(|| {
            let graphs = graphs::graphs(&fens, invalid)?;
            let rows: Vec<i64> = (0..fens.len() as i64).collect();
            Ok(graphs::batch("row", &rows, &graphs))
        })
        .map_err(row_err)?;
    Ok(PyArrowType(batch))
}

/// The packed board of each FEN, a binary array.
#[pyfunction]
#[pyo3(signature = (fens, errors = "raise"))]
fn pack(py: Python<'_>, fens: ArrowIn, errors: &str) -> PyResult<ArrowOut> {
    let invalid = invalid(errors)?;
    let array = make_array(fens.0);
    let fens = strings(&array)?;
    let packed = py
        .detach(|| positions::pack(&fens, invalid))
        .map_err(row_err)?;
    Ok(PyArrowType(packed.into_data()))
}

/// The normalized FEN of each packed board, a string array.
#[pyfunction]
#[pyo3(signature = (boards, errors = "raise"))]
fn fen(py: Python<'_>, boards: ArrowIn, errors: &str) -> PyResult<ArrowOut> {
    let invalid = invalid(errors)?;
    let array = make_array(boards.0);
    let boards = binaries(&array)?;
    let fens = py
        .detach(|| positions::fens(&boards, invalid))
        .map_err(row_err)?;
    Ok(PyArrowType(fens.into_data()))
}

/// The key of each packed board, an int64 array.
#[pyfunction]
fn key(boards: ArrowIn) -> PyResult<ArrowOut> {
    let array = make_array(boards.0);
    Ok(PyArrowType(positions::keys(&binaries(&array)?).into_data()))
}

/// Every row of table `table` of the database at `db`, as a pyarrow Table.
#[pyfunction]
fn read(py: Python<'_>, db: PathBuf, table: &str) -> PyResult<PyArrowType<Table>> {
    let (batches, schema) = py
        .detach(|| -> Result<_, StoreError> {
            if !db.exists() {
                return Err(StoreError::Core(chessgraph_core::Error::Invalid(format!(
                    "no database at {}",
                    db.display()
                ))));
            }
            let conn = chessgraph_store::open_read_only(&db)?;
            conn.execute_batch("BEGIN")?;
            let schema = table::schema_of(&conn, table)?;
            let mut batches = Vec::new();
            table::read(&conn, table, 1 << 16, |b| {
                batches.push(b);
                Ok(())
            })?;
            Ok((batches, schema))
        })
        .map_err(store_err)?;
    let table =
        Table::try_new(batches, schema).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok(PyArrowType(table))
}

/// An evaluator of the CLI (`--evaluator NAME`): a built-in, an evaluator or network file,
/// or one stored in a database.
#[pyclass(frozen, module = "chessgraph._chessgraph")]
struct Evaluator {
    inner: Arc<EngineEvaluator>,
}

/// Positions per batch handed to one evaluation (a network's batch).
const EVAL_CHUNK: usize = 256;

#[pymethods]
impl Evaluator {
    /// Resolves `name` as `chessgraph eval --evaluator NAME --db DB` does.
    #[new]
    #[pyo3(signature = (name, db = None))]
    fn new(py: Python<'_>, name: &str, db: Option<PathBuf>) -> PyResult<Self> {
        let db = db.unwrap_or_else(|| PathBuf::from("chessgraph.db"));
        let inner = py
            .detach(|| chessgraph_store::evaluators::resolve(&db, name))
            .map_err(store_err)?;
        Ok(Evaluator {
            inner: Arc::new(inner),
        })
    }

    /// The evaluator's name.
    #[getter]
    fn name(&self) -> String {
        self.inner.name().to_owned()
    }

    /// The evaluation of each FEN in centipawns from White's point of view, an int32
    /// array (null for a null FEN).
    #[pyo3(signature = (fens, errors = "raise"))]
    fn evaluate(&self, py: Python<'_>, fens: ArrowIn, errors: &str) -> PyResult<ArrowOut> {
        let invalid = invalid(errors)?;
        let array = make_array(fens.0);
        let fens = strings(&array)?;
        let evaluator = &self.inner;
        let scores = py
            .detach(|| -> Result<Vec<Option<i32>>, positions::RowError> {
                let chunks: Vec<Vec<Option<i32>>> = fens
                    .par_chunks(EVAL_CHUNK)
                    .enumerate()
                    .map(|(c, chunk)| evaluate_chunk(evaluator, c * EVAL_CHUNK, chunk, invalid))
                    .collect::<Result<_, _>>()?;
                Ok(chunks.into_iter().flatten().collect())
            })
            .map_err(row_err)?;
        Ok(PyArrowType(Int32Array::from(scores).into_data()))
    }

    fn __repr__(&self) -> String {
        format!("Evaluator({:?})", self.inner.name())
    }
}

/// The evaluations of the FENs of one chunk starting at row `first`, as one batch.
fn evaluate_chunk(
    evaluator: &EngineEvaluator,
    first: usize,
    chunk: &[Option<&str>],
    invalid: Invalid,
) -> Result<Vec<Option<i32>>, positions::RowError> {
    let mut rows = Vec::with_capacity(chunk.len());
    let mut present = Vec::with_capacity(chunk.len());
    for (i, fen) in chunk.iter().enumerate() {
        let Some(fen) = fen else { continue };
        if let Some(pos) = invalid.apply(positions::position(first + i, fen))? {
            rows.push(i);
            present.push(pos);
        }
    }
    let mut out = vec![None; chunk.len()];
    for (i, v) in rows.into_iter().zip(evaluator.evaluate_batch(&present)) {
        out[i] = Some(v);
    }
    Ok(out)
}

/// `pack_fen(fen)` of SQL: the packed bytes of a FEN.
#[pyfunction]
fn pack_fen<'py>(py: Python<'py>, fen: Option<&str>) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let Some(fen) = fen else { return Ok(None) };
    let bytes = packed::pack_fen(fen)
        .map_err(|e| PyValueError::new_err(format!("pack_fen({fen:?}): {e}")))?;
    Ok(Some(PyBytes::new(py, &bytes)))
}

/// `board_fen(board)` of SQL: the normalized FEN of packed bytes.
#[pyfunction]
fn board_fen(board: Option<&[u8]>) -> PyResult<Option<String>> {
    board
        .map(packed::board_fen)
        .transpose()
        .map_err(|e| PyValueError::new_err(format!("board_fen: {e}")))
}

/// `board_key(board)` of SQL: the key of packed bytes.
#[pyfunction]
fn board_key(board: Option<&[u8]>) -> Option<i64> {
    board.map(packed::key)
}

/// `board_attacks(board, color)` of SQL: the squares `color` attacks, as a bitboard.
#[pyfunction]
fn board_attacks(board: Option<&[u8]>, color: &str) -> PyResult<Option<i64>> {
    let color = match color {
        "white" => shakmaty::Color::White,
        "black" => shakmaty::Color::Black,
        _ => {
            return Err(PyValueError::new_err(
                "board_attacks: the color is 'white' or 'black'",
            ));
        }
    };
    board
        .map(|b| chessgraph_core::graph::board_attacks(b, color).map(|a| a as i64))
        .transpose()
        .map_err(|e| PyValueError::new_err(format!("board_attacks: {e}")))
}

/// `split_part(key, seed, train_pct, valid_pct)` of SQL: the part of a split key.
#[pyfunction]
fn split_part(
    key: Option<&str>,
    seed: i64,
    train_pct: u32,
    valid_pct: u32,
) -> Option<&'static str> {
    let meta = chessgraph_core::split::SplitMeta {
        seed,
        train_pct,
        valid_pct,
        test_pct: 0,
    };
    key.map(|k| meta.part_of(k).as_str())
}

/// `game_key(line, white, black, event, date, start_fen)` of SQL: a game's split key.
#[pyfunction]
#[pyo3(signature = (line, white, black, event, date, start_fen))]
fn game_key(
    line: i64,
    white: Option<&str>,
    black: Option<&str>,
    event: Option<&str>,
    date: Option<&str>,
    start_fen: Option<&str>,
) -> String {
    chessgraph_core::split::game_key(line, white, black, event, date, start_fen)
}

/// The module.
#[pymodule]
fn _chessgraph(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("SQL_FUNCTIONS", chessgraph_sql::NAMES.to_vec())?;
    m.add(
        "FEATURE_COLUMNS",
        chessgraph_core::graph::Features::COLUMNS.to_vec(),
    )?;
    m.add("TABLES", table::NAMES.to_vec())?;
    m.add_class::<Evaluator>()?;
    m.add_function(wrap_pyfunction!(features, m)?)?;
    m.add_function(wrap_pyfunction!(edges, m)?)?;
    m.add_function(wrap_pyfunction!(pack, m)?)?;
    m.add_function(wrap_pyfunction!(fen, m)?)?;
    m.add_function(wrap_pyfunction!(key, m)?)?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    for f in [
        wrap_pyfunction!(pack_fen, m)?,
        wrap_pyfunction!(board_fen, m)?,
        wrap_pyfunction!(board_key, m)?,
        wrap_pyfunction!(board_attacks, m)?,
        wrap_pyfunction!(split_part, m)?,
        wrap_pyfunction!(game_key, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
