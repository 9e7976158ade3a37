//! The networks' training data: the database's labelled positions, by split part, with
//! their best moves.

use chessgraph_core::Error as CoreError;
use rayon::prelude::*;
use rusqlite::Connection;
use shakmaty::Chess;

use crate::fit::split::{self, Part};
use crate::stats::label_cp;
use chessgraph_cnn::policy_index;
use chessgraph_core::chess::fen::parse_position;
use chessgraph_core::chess::moves::parse_uci;
use chessgraph_store::Result;
use chessgraph_store::labels::LabelChoice;

/// One training position.
#[derive(Clone, Debug)]
pub struct Sample {
    /// The position.
    pub pos: Chess,
    /// The label in centipawns, White's view (mates mapped), NaN when there is none.
    pub label_cp: f32,
    /// Whether the label is a mate score (left out of τ, as `rate evaluator` does).
    pub mate: bool,
    /// The game result for White (1, ½, 0), NaN when unknown.
    pub result: f32,
    /// The policy index of the best move, when one is stored and legal (for self-play
    /// positions: the most visited move).
    pub best: Option<u16>,
    /// Self-play's value target: the game's outcome for White (+1, 0, −1), learnt instead
    /// of the label.
    pub outcome: Option<f32>,
    /// Self-play's policy target: the share of the search's visits per move (policy
    /// index), learnt instead of the best move alone. Empty for other positions.
    pub visits: Vec<(u16, f32)>,
}

/// The samples of each part.
#[derive(Debug, Default)]
pub struct NetData {
    /// Trained on.
    pub train: Vec<Sample>,
    /// Chooses the epoch (early stopping).
    pub valid: Vec<Sample>,
    /// Measured once, at the end.
    pub test: Vec<Sample>,
    /// Positions left out for want of what the architecture learns (a label, a move).
    pub left_out: usize,
}

impl NetData {
    /// The samples of `part`.
    pub fn part(&self, part: Part) -> &[Sample] {
        match part {
            Part::Train => &self.train,
            Part::Valid => &self.valid,
            Part::Test => &self.test,
        }
    }
}

/// What a sample must have to be kept.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Needs {
    /// A label (value nets).
    pub label: bool,
    /// A best move (policy nets).
    pub best_move: bool,
}

/// Reads the positions of `sources` (all when empty) with what `needs` asks, with the
/// label `labels` picks and the best move stored for it.
pub fn load(
    conn: &Connection,
    labels: &LabelChoice,
    sources: &[String],
    needs: Needs,
) -> Result<NetData> {
    let rows = split::labelled_rows_from(conn, labels, sources)?;
    let samples: Vec<Result<Option<(Part, Sample)>>> = rows
        .into_par_iter()
        .map(|r| {
            let label = label_cp(r.eval_cp, r.mate);
            if needs.label && label.is_none() {
                return Ok(None);
            }
            let pos = parse_position(&r.fen).map_err(|source| CoreError::StoredPosition {
                fen: r.fen.clone(),
                source: source.into(),
            })?;
            let best = r
                .best_move
                .as_deref()
                .and_then(|m| parse_uci(&pos, m))
                .map(|m| policy_index(&m) as u16);
            if needs.best_move && best.is_none() {
                return Ok(None);
            }
            Ok(Some((
                r.part,
                Sample {
                    pos,
                    label_cp: label.map_or(f32::NAN, |l| l as f32),
                    mate: r.eval_cp.is_none() && r.mate.is_some(),
                    result: r.result.map_or(f32::NAN, |g| g.white_score() as f32),
                    best,
                    outcome: None,
                    visits: Vec::new(),
                },
            )))
        })
        .collect();
    let mut data = NetData::default();
    for s in samples {
        match s? {
            None => data.left_out += 1,
            Some((Part::Train, s)) => data.train.push(s),
            Some((Part::Valid, s)) => data.valid.push(s),
            Some((Part::Test, s)) => data.test.push(s),
        }
    }
    Ok(data)
}

/// `(label, result)` pairs of the samples that have both, to fit the label scale k.
pub fn label_result_pairs(samples: &[Sample]) -> Vec<(f64, f64)> {
    samples
        .iter()
        .filter(|s| !s.label_cp.is_nan() && !s.result.is_nan() && !s.mate)
        .map(|s| (f64::from(s.label_cp), f64::from(s.result)))
        .collect()
}
