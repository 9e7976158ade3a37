//! The attack/defense graph as Arrow batches, computed from the positions' boards: the
//! same rows, columns and order as the `edges` table that `analyze --edges all` stores
//! (`position_id, from_sq, to_sq, attacker, target, kind`, ordered by position, target
//! square, source square), whether or not the database stores them.

use chessgraph_core::Error as CoreError;
use std::sync::Arc;

use arrow_array::builder::{Int8Builder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use rayon::prelude::*;
use shakmaty::Board;

use chessgraph_core::graph::{self, Edge};
use chessgraph_store::Error;
use chessgraph_store::Result;
use chessgraph_store::analyze::piece_letter;

/// The schema of the edge files: squares 0..63 (a1 = 0) as Int8, pieces as FEN letters.
pub fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("position_id", DataType::Int64, false),
        Field::new("from_sq", DataType::Int8, false),
        Field::new("to_sq", DataType::Int8, false),
        Field::new("attacker", DataType::Utf8, false),
        Field::new("target", DataType::Utf8, false),
        Field::new("kind", DataType::Utf8, false),
    ]))
}

/// The graph of each position `(id, normalized FEN)`, in the `edges` table's key order;
/// positions in parallel.
pub fn compute(positions: &[(i64, String)]) -> Result<Vec<Vec<Edge>>> {
    positions
        .par_iter()
        .map(|(id, fen)| {
            let board_field = fen.split(' ').next().unwrap_or_default();
            let board: Board = board_field
                .parse()
                .map_err(
                    |e: shakmaty::fen::ParseFenError| CoreError::StoredPosition {
                        fen: format!("#{id} {fen}"),
                        source: e.into(),
                    },
                )?;
            let mut edges = Vec::with_capacity(32);
            graph::edges(&board, &mut edges);
            edges.sort_unstable_by_key(|e| (e.to_sq, e.from_sq));
            Ok(edges)
        })
        .collect()
}

/// The edges of `positions` (ids) with their computed `graphs`, as one batch.
pub fn batch(ids: &[i64], graphs: &[Vec<Edge>]) -> Result<RecordBatch> {
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
    let arrays: Vec<ArrayRef> = vec![
        Arc::new(position.finish()),
        Arc::new(from.finish()),
        Arc::new(to.finish()),
        Arc::new(attacker.finish()),
        Arc::new(target.finish()),
        Arc::new(kind.finish()),
    ];
    RecordBatch::try_new(schema(), arrays).map_err(|e| Error::Arrow {
        what: "edge batch".into(),
        source: e.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Array, Int8Array, StringArray};

    #[test]
    fn king_and_pawn_graph() {
        // K+P v K: only the white king (e1 = 4) defending its pawn (e2 = 12).
        let positions = vec![
            (7, "4k3/8/8/8/8/8/4P3/4K3 w - -".to_owned()),
            (9, "4k3/8/8/8/8/8/8/4K3 w - -".to_owned()),
        ];
        let graphs = compute(&positions).unwrap();
        assert_eq!(graphs[0].len(), 1);
        assert!(graphs[1].is_empty());
        let b = batch(&[7, 9], &graphs).unwrap();
        assert_eq!(b.num_rows(), 1);
        let col = |i: usize| b.column(i).clone();
        let from = col(1);
        let from = from.as_any().downcast_ref::<Int8Array>().unwrap();
        assert_eq!(from.value(0), 4);
        let kind = col(5);
        let kind = kind.as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(kind.value(0), "defend");
        assert!(compute(&[(1, "not a board w - -".into())]).is_err());
    }
}
