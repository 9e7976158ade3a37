//! The attack/defense graph as Arrow batches: the rows and columns of the `edges` table
//! that `analyze --edges all` stores (`position_id, from_sq, to_sq, attacker, target,
//! kind`, each position's edges ordered by target square, then source square), computed
//! from the positions.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_array::builder::{Int8Builder, Int64Builder, StringBuilder};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use rayon::prelude::*;

use chessgraph_core::graph::{self, Edge, piece_letter};

use crate::positions::{Invalid, RowError, position};

/// The schema of edge batches, the position's column named `id_column` (`position_id`
/// in a database's export, `row` for a column of FENs): squares 0..63 (a1 = 0) as Int8,
/// pieces as FEN letters, the kind as `attack` or `defend`.
pub fn schema(id_column: &str) -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new(id_column, DataType::Int64, false),
        Field::new("from_sq", DataType::Int8, false),
        Field::new("to_sq", DataType::Int8, false),
        Field::new("attacker", DataType::Utf8, false),
        Field::new("target", DataType::Utf8, false),
        Field::new("kind", DataType::Utf8, false),
    ]))
}

/// The graph of each FEN (read as the import reads it) in the `edges` table's order; a
/// null FEN has none, nor (under [`Invalid::Null`]) one that is not a position.
/// Positions in parallel.
pub fn graphs(fens: &[Option<&str>], invalid: Invalid) -> Result<Vec<Vec<Edge>>, RowError> {
    fens.par_iter()
        .enumerate()
        .map(|(row, fen)| {
            let mut edges = Vec::new();
            let Some(fen) = fen else { return Ok(edges) };
            if let Some(pos) = invalid.apply(position(row, fen))? {
                graph::edges(shakmaty::Position::board(&pos), &mut edges);
                edges.sort_unstable_by_key(|e| (e.to_sq, e.from_sq));
            }
            Ok(edges)
        })
        .collect()
}

/// The `graphs` of the positions `ids` as one batch of [`schema`]`(id_column)`.
pub fn batch(id_column: &str, ids: &[i64], graphs: &[Vec<Edge>]) -> RecordBatch {
    let n: usize = graphs.iter().map(Vec::len).sum();
    let mut position = Int64Builder::with_capacity(n);
    let mut from = Int8Builder::with_capacity(n);
    let mut to = Int8Builder::with_capacity(n);
    let mut attacker = StringBuilder::with_capacity(n, n);
    let mut target = StringBuilder::with_capacity(n, n);
    let mut kind = StringBuilder::with_capacity(n, n * 6);
    for (id, edges) in ids.iter().zip(graphs) {
        for e in edges {
            position.append_value(*id);
            from.append_value(e.from_sq as i8);
            to.append_value(e.to_sq as i8);
            attacker.append_value(piece_letter(e.attacker));
            target.append_value(piece_letter(e.target));
            kind.append_value(e.kind.as_str());
        }
    }
    RecordBatch::try_new(
        schema(id_column),
        vec![
            Arc::new(position.finish()),
            Arc::new(from.finish()),
            Arc::new(to.finish()),
            Arc::new(attacker.finish()),
            Arc::new(target.finish()),
            Arc::new(kind.finish()),
        ],
    )
    .expect("the columns match the schema")
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Array, Int8Array, Int64Array, StringArray};

    #[test]
    fn king_and_pawn_graph() {
        // K+P v K: only the white king (e1 = 4) defending its pawn (e2 = 12).
        let fens = [
            Some("4k3/8/8/8/8/8/4P3/4K3 w - -"),
            None,
            Some("4k3/8/8/8/8/8/8/4K3 w - -"),
        ];
        let graphs = graphs(&fens, Invalid::Raise).unwrap();
        assert_eq!(graphs.iter().map(Vec::len).collect::<Vec<_>>(), [1, 0, 0]);
        let b = batch("row", &[7, 8, 9], &graphs);
        assert_eq!(b.num_rows(), 1);
        assert_eq!(b.schema().field(0).name(), "row");
        let col = |i: usize| b.column(i).clone();
        let id = col(0);
        assert_eq!(
            id.as_any().downcast_ref::<Int64Array>().unwrap().value(0),
            7
        );
        let from = col(1);
        assert_eq!(
            from.as_any().downcast_ref::<Int8Array>().unwrap().value(0),
            4
        );
        let kind = col(5);
        let kind = kind.as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(kind.value(0), "defend");
        let bad = [None, Some("not a board w - -")];
        assert_eq!(super::graphs(&bad, Invalid::Raise).unwrap_err().row(), 1);
        assert!(super::graphs(&bad, Invalid::Null).unwrap()[1].is_empty());
    }
}
