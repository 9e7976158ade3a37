//! The stored labelled positions as training data for the bullet trainer (its 32-byte
//! `ChessBoard` records, [`chessgraph_core::data::bullet`]): engine authors train their
//! networks with bullet on the engine's own self-play, and `datagen` stores exactly that —
//! the search's score and the game's result for every kept position.

use std::io::Write;

use rayon::prelude::*;
use rusqlite::Connection;

use crate::fit::split::{self, Part};
use crate::stats::label_cp;
use chessgraph_core::Error as CoreError;
use chessgraph_core::chess::fen::parse_position;
use chessgraph_core::chess::rng::SplitMix;
use chessgraph_core::data::bullet::{RECORD_BYTES, encode};
use chessgraph_store::Result;
use chessgraph_store::labels::LabelChoice;

/// What was written and what was left out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Written {
    /// Records written.
    pub records: u64,
    /// Left out: no game result (the format needs one).
    pub no_result: u64,
    /// Left out: no label of the chosen ones.
    pub unlabelled: u64,
    /// Left out: another part of the split.
    pub other_part: u64,
}

/// Writes every position of `sources` (all when empty) that has a label of `labels` and a
/// game result, in `part` of the split (every part when `None`), to `out` as bullet
/// records, in an order shuffled by `seed` (bullet reads its file in order). Mates are
/// written as the learning tools read them (±2,500 cp).
pub fn write(
    conn: &Connection,
    labels: &LabelChoice,
    sources: &[String],
    part: Option<Part>,
    seed: u64,
    out: &mut impl Write,
) -> Result<Written> {
    let mut counts = Written::default();
    let mut records: Vec<[u8; RECORD_BYTES]> = Vec::new();
    // The FENs are held a chunk at a time; the records (32 bytes each) all, to be shuffled.
    let mut chunk = Vec::with_capacity(split::CHUNK_ROWS);
    split::for_each_labelled_row(conn, labels, sources, |r| {
        if part.is_some_and(|p| p != r.part) {
            counts.other_part += 1;
            return Ok(());
        }
        let Some(label) = label_cp(r.eval_cp, r.mate) else {
            counts.unlabelled += 1;
            return Ok(());
        };
        let Some(result) = r.result else {
            counts.no_result += 1;
            return Ok(());
        };
        chunk.push((r.fen, label.round() as i32, result.white_score() as f32));
        if chunk.len() == split::CHUNK_ROWS {
            records.extend(encode_all(std::mem::take(&mut chunk))?);
        }
        Ok(())
    })?;
    records.extend(encode_all(chunk)?);
    // Fisher–Yates with the seeded generator: the same file for the same data and seed.
    let mut rng = SplitMix(seed);
    for i in (1..records.len()).rev() {
        records.swap(i, rng.below(i + 1));
    }
    for r in &records {
        out.write_all(r)
            .map_err(|e| CoreError::Invalid(format!("writing the records: {e}")))?;
    }
    counts.records = records.len() as u64;
    Ok(counts)
}

/// Encodes (FEN, White-view score, White's result) rows as bullet records, in order.
fn encode_all(rows: Vec<(String, i32, f32)>) -> Result<Vec<[u8; RECORD_BYTES]>> {
    rows.into_par_iter()
        .map(|(fen, score, result)| {
            // Stored positions are legal: a failure here is a damaged database.
            let pos = parse_position(&fen)
                .map_err(|e| CoreError::Invalid(format!("stored position {fen}: {e}")))?;
            Ok(encode(&pos, score, result))
        })
        .collect()
}
