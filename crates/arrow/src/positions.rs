//! Columns computed from a column of positions, one output row per input row: the
//! features ([`features`]: the `features` table's columns after `position_id`), the
//! packed board ([`pack`]), the FEN of a packed board ([`fens`]) and its key ([`keys`]).
//!
//! A FEN is read as the import reads it (4 or 6 fields; castling rights the board cannot
//! have are dropped), so a position's features here are those `analyze` stores for it.
//! A null input gives a null output (as SQL's functions do); a value that is not a
//! position is a [`RowError`] naming its row, or a null too under [`Invalid::Null`] (for
//! a query over millions of rows, where one bad line should not stop the job). Positions
//! are computed in parallel.

use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, BinaryArray, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use rayon::prelude::*;
use shakmaty::Chess;

use chessgraph_core::chess::fen::{FenError, Leniency, parse};
use chessgraph_core::chess::packed::{self, PackedError};
use chessgraph_core::graph::{self, Features};

/// Why an input row is not a position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RowError {
    /// The FEN does not parse, or names an illegal position.
    #[error("row {row}: {source}: {fen:?}")]
    Fen {
        /// The row, 0-based.
        row: usize,
        /// The FEN given.
        fen: String,
        /// What is wrong with it.
        #[source]
        source: FenError,
    },
    /// The bytes are not a packed position.
    #[error("row {row}: {source}")]
    Packed {
        /// The row, 0-based.
        row: usize,
        /// What is wrong with them.
        #[source]
        source: PackedError,
    },
}

impl RowError {
    /// The row, 0-based.
    pub fn row(&self) -> usize {
        match self {
            RowError::Fen { row, .. } | RowError::Packed { row, .. } => *row,
        }
    }
}

/// What to do with an input value that is not a position.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Invalid {
    /// Stop with a [`RowError`] naming the first such row.
    #[default]
    Raise,
    /// Give a null output for it, as for a null input.
    Null,
}

impl Invalid {
    /// `result` of a row under this rule: its value, none, or the error.
    pub fn apply<T>(self, result: Result<T, RowError>) -> Result<Option<T>, RowError> {
        match (result, self) {
            (Ok(v), _) => Ok(Some(v)),
            (Err(_), Invalid::Null) => Ok(None),
            (Err(e), Invalid::Raise) => Err(e),
        }
    }
}

/// The position of FEN `fen` at `row`, read as the import reads it.
pub fn position(row: usize, fen: &str) -> Result<Chess, RowError> {
    parse(fen, Leniency::DropCastling).map_err(|source| RowError::Fen {
        row,
        fen: fen.to_owned(),
        source,
    })
}

/// Computes `f` of every non-null value in parallel, in input order; a bad row is
/// handled as `invalid` says (the first, the lowest, is the error).
fn per_row<T: ?Sized + Sync, U: Send>(
    values: &[Option<&T>],
    invalid: Invalid,
    f: impl Fn(usize, &T) -> Result<U, RowError> + Sync,
) -> Result<Vec<Option<U>>, RowError> {
    values
        .par_iter()
        .enumerate()
        .map(|(row, v)| match v {
            Some(v) => invalid.apply(f(row, v)),
            None => Ok(None),
        })
        .collect()
}

/// The schema of [`features`]: [`Features::COLUMNS`], Int64 as SQLite stores them,
/// nullable (a null FEN has null features).
pub fn features_schema() -> SchemaRef {
    let fields: Vec<Field> = Features::COLUMNS
        .iter()
        .map(|name| Field::new(*name, DataType::Int64, true))
        .collect();
    Arc::new(Schema::new(fields))
}

/// The features of each FEN, one row each, as `analyze` computes and stores them.
pub fn features(fens: &[Option<&str>], invalid: Invalid) -> Result<RecordBatch, RowError> {
    let values = fens
        .par_iter()
        .enumerate()
        .map_init(Vec::new, |edges, (row, fen)| {
            let Some(fen) = fen else { return Ok(None) };
            invalid.apply(position(row, fen).map(|pos| graph::analyze(&pos, edges).values()))
        })
        .collect::<Result<Vec<_>, RowError>>()?;
    let mut builders: Vec<Int64Builder> = (0..Features::COLUMNS.len())
        .map(|_| Int64Builder::with_capacity(values.len()))
        .collect();
    for row in &values {
        match row {
            Some(v) => builders
                .iter_mut()
                .zip(v)
                .for_each(|(b, x)| b.append_value(*x)),
            None => builders.iter_mut().for_each(Int64Builder::append_null),
        }
    }
    let arrays: Vec<ArrayRef> = builders
        .iter_mut()
        .map(|b| Arc::new(b.finish()) as ArrayRef)
        .collect();
    Ok(RecordBatch::try_new(features_schema(), arrays).expect("the columns match the schema"))
}

/// The packed board of each FEN (`position_rows.board`, `pack_fen` in SQL).
pub fn pack(fens: &[Option<&str>], invalid: Invalid) -> Result<BinaryArray, RowError> {
    let boards = per_row(fens, invalid, |row, fen| {
        Ok(packed::pack(&position(row, fen)?))
    })?;
    let mut b = BinaryBuilder::with_capacity(boards.len(), boards.len() * 20);
    for board in &boards {
        b.append_option(board.as_deref());
    }
    Ok(b.finish())
}

/// The normalized FEN of each packed board (`positions.fen`, `board_fen` in SQL).
pub fn fens(boards: &[Option<&[u8]>], invalid: Invalid) -> Result<StringArray, RowError> {
    let fens = per_row(boards, invalid, |row, bytes| {
        packed::board_fen(bytes).map_err(|source| RowError::Packed { row, source })
    })?;
    let mut b = StringBuilder::with_capacity(fens.len(), fens.len() * 60);
    for fen in &fens {
        b.append_option(fen.as_deref());
    }
    Ok(b.finish())
}

/// The key of each packed board (`position_rows.key`, `board_key` in SQL). Any bytes have
/// a key; those of a position are what the database indexes.
pub fn keys(boards: &[Option<&[u8]>]) -> Int64Array {
    boards.iter().map(|b| b.map(packed::key)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn features_follow_the_core_and_nulls_pass_through() {
        let fens = [Some(START), None, Some("4k3/8/8/8/8/8/8/4K2R w KQ - 0 1")];
        let batch = features(&fens, Invalid::Raise).unwrap();
        assert_eq!(batch.num_rows(), 3);
        assert_eq!(batch.schema(), features_schema());
        let col = |name: &str| {
            batch
                .column_by_name(name)
                .unwrap()
                .as_any()
                .downcast_ref::<Int64Array>()
                .unwrap()
                .clone()
        };
        assert_eq!(col("total_material").value(0), 78);
        assert_eq!(col("mobility_white").value(0), 20);
        assert!(col("material").is_null(1));
        // The impossible queenside right is dropped, as on import: only O-O counts.
        let pos = parse("4k3/8/8/8/8/8/8/4K2R w K - 0 1", Leniency::Strict).unwrap();
        let expected = graph::analyze(&pos, &mut Vec::new());
        assert_eq!(
            col("mobility_white").value(2),
            i64::from(expected.mobility_white)
        );
    }

    #[test]
    fn a_bad_row_is_named_or_null() {
        let input = [Some(START), Some("8/8/8 w - -"), Some("8/8/8 w - -")];
        let err = features(&input, Invalid::Raise).unwrap_err();
        assert_eq!(err.row(), 1);
        assert!(err.to_string().starts_with("row 1: invalid FEN"), "{err}");
        let nulls = features(&input, Invalid::Null).unwrap();
        assert_eq!(nulls.num_rows(), 3);
        assert_eq!(nulls.column(0).null_count(), 2);
        let bad = [Some(&[1u8, 2, 3][..])];
        let err = fens(&bad, Invalid::Raise).unwrap_err();
        assert_eq!(
            err.to_string(),
            "row 0: packed position of 3 bytes, expected 0"
        );
        assert!(fens(&bad, Invalid::Null).unwrap().is_null(0));
        assert!(pack(&input, Invalid::Null).unwrap().is_null(2));
    }

    #[test]
    fn pack_fens_and_keys_round_trip() {
        let packed = pack(&[Some(START), None], Invalid::Raise).unwrap();
        assert!(packed.is_null(1));
        let boards: Vec<Option<&[u8]>> = packed.iter().collect();
        let back = fens(&boards, Invalid::Raise).unwrap();
        assert_eq!(
            back.value(0),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
        );
        assert!(back.is_null(1));
        let k = keys(&boards);
        assert_eq!(k.value(0), packed::key(packed.value(0)));
        assert!(k.is_null(1));
    }
}
