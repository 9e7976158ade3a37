//! The tuner's data: every stored position as a sparse row of term coefficients, with
//! its label, game result and split part.

use chessgraph_core::Error as CoreError;
use rayon::prelude::*;
use rusqlite::Connection;
use shakmaty::Chess;

use crate::fit::split::{self, Part};
use crate::stats::label_cp;
use chessgraph_core::chess::fen::parse_position;
use chessgraph_core::data::GameResult;
use chessgraph_engine::eval::{Evaluator, MAX_PHASE, TERM_COUNT, TermList, terms as term_list};
use chessgraph_engine::search::Quiescence;
use chessgraph_store::Result;
use chessgraph_store::labels::LabelChoice;

/// The positions as sparse term rows, with labels, results and split parts.
#[derive(Debug, Default)]
pub struct TuneSet {
    pub(super) offsets: Vec<usize>,
    pub(super) entries: Vec<(u16, i32)>,
    pub(super) phase: Vec<u8>,
    /// Label in centipawns (mates mapped, clamped); NaN when none.
    pub(super) label: Vec<f64>,
    /// Game result for White (1, 0.5, 0); NaN when none.
    pub(super) result: Vec<f64>,
    pub(super) part: Vec<Part>,
}

impl TuneSet {
    /// Number of positions.
    pub fn len(&self) -> usize {
        self.phase.len()
    }

    /// Whether there are no positions.
    pub fn is_empty(&self) -> bool {
        self.phase.is_empty()
    }

    pub(super) fn row(&self, i: usize) -> &[(u16, i32)] {
        &self.entries[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Number of positions in `part`.
    pub fn count(&self, part: Part) -> usize {
        self.part.iter().filter(|&&p| p == part).count()
    }

    /// Float prediction of weights `w` (mg then eg) for row `i`, untruncated.
    pub(super) fn predict(&self, w: &[f64], i: usize) -> f64 {
        let p = f64::from(self.phase[i]);
        let q = f64::from(MAX_PHASE) - p;
        let (mut mg, mut eg) = (0.0, 0.0);
        for &(t, c) in self.row(i) {
            mg += f64::from(c) * w[t as usize];
            eg += f64::from(c) * w[TERM_COUNT + t as usize];
        }
        (mg * p + eg * q) / f64::from(MAX_PHASE)
    }

    /// The integer evaluation of `evaluator` for row `i`, exactly as the engine computes it.
    pub(super) fn evaluate(&self, evaluator: &Evaluator, i: usize) -> i32 {
        let w = evaluator
            .weights()
            .expect("tune measures linear evaluators (run checks --start)");
        let (mut mg, mut eg) = (0i64, 0i64);
        for &(t, c) in self.row(i) {
            mg += i64::from(c) * i64::from(w.mg[t as usize]);
            eg += i64::from(c) * i64::from(w.eg[t as usize]);
        }
        chessgraph_engine::eval::taper(mg, eg, i32::from(self.phase[i]))
    }
}

/// One position's sparse `(term, coefficient)` pairs and its phase.
pub(super) type TermRow = (Vec<(u16, i32)>, u8);

/// Reads every position with its split part (assigning parts to new positions first) and
/// computes its term rows, in parallel. With `leaves`, each position is first replaced by
/// the quiet position its capture-only quiescence search under that evaluator ends in
/// (Texel's practice: the static evaluation is then fitted where the engine uses it).
pub fn load(
    conn: &Connection,
    leaves: Option<&Evaluator>,
    labels: &LabelChoice,
) -> Result<TuneSet> {
    let raw: Vec<(String, Option<f64>, f64, Part)> = split::labelled_rows(conn, labels)?
        .into_iter()
        .map(|r| {
            let result = r.result.map_or(f64::NAN, GameResult::white_score);
            (r.fen, label_cp(r.eval_cp, r.mate), result, r.part)
        })
        .collect();
    let leaves = leaves.map(|e| std::sync::Arc::new(e.clone()));
    let rows: Vec<Result<TermRow>> = raw
        .par_iter()
        .map_init(
            || (TermList::new(), leaves.clone().map(Quiescence::new)),
            |(tl, q), (fen, ..)| {
                let mut pos: Chess =
                    parse_position(fen).map_err(|source| CoreError::StoredPosition {
                        fen: fen.clone(),
                        source: source.into(),
                    })?;
                if let Some(q) = q {
                    pos = q.leaf(&pos).1;
                }
                term_list(&pos, tl);
                Ok((tl.entries().to_vec(), tl.phase() as u8))
            },
        )
        .collect();
    let mut set = TuneSet {
        offsets: vec![0],
        ..TuneSet::default()
    };
    for ((_, label, result, part), row) in raw.into_iter().zip(rows) {
        // Stored FENs were validated on import: one that no longer parses is an error,
        // never a silently smaller training set.
        let (entries, phase) = row?;
        set.entries.extend(entries);
        set.offsets.push(set.entries.len());
        set.phase.push(phase);
        set.label.push(label.unwrap_or(f64::NAN));
        set.result.push(result);
        set.part.push(part);
    }
    Ok(set)
}

/// Fits K so that `σ(K·label)` predicts the results of the training positions that have
/// both (least squares, golden-section search on log K), by the K policy
/// ([`crate::stats::k_or_default`]): K and the positions it was fitted on.
pub fn fit_k(set: &TuneSet) -> (f64, usize) {
    let pairs: Vec<(f64, f64)> = (0..set.len())
        .filter(|&i| set.part[i] == Part::Train && set.label[i].is_finite())
        .filter(|&i| set.result[i].is_finite())
        .map(|i| (set.label[i], set.result[i]))
        .collect();
    crate::stats::k_or_default(&pairs)
}
