//! Training samples: the database's labelled positions as compact feature lists.

use chessgraph_core::Error as CoreError;
use rayon::prelude::*;
use rusqlite::Connection;
use shakmaty::{Chess, Color, Position};

use crate::fit::split::{self, Part};
use crate::stats::{MATE_LABEL_CP, label_cp};
use chessgraph_core::chess::fen::parse_position;
use chessgraph_engine::nnue::features::{self, FeatureSet};
use chessgraph_store::Result;
use chessgraph_store::labels::LabelChoice;

pub use chessgraph_engine::nnue::features::MAX_FEATURES;

/// One training position.
#[derive(Copy, Clone, Debug)]
pub struct Sample {
    /// Active features from White's perspective; the first `len` are used.
    pub features: [u16; MAX_FEATURES],
    /// Number of used features.
    pub len: u8,
    /// Side to move.
    pub white_to_move: bool,
    /// Label, centipawns from White's view (mates mapped, clamped).
    pub label_cp: f32,
    /// Game result for White (1, ½, 0), NaN when unknown.
    pub result: f32,
    /// Whether the label was a mate score (left out of τ, as `rate evaluator` does).
    pub mate: bool,
    /// Pieces on the board, kings included (chooses the output bucket).
    pub pieces: u8,
}

impl Sample {
    /// Builds a sample of `set`'s features from a position and its White-view label and
    /// result.
    pub fn new(pos: &Chess, set: FeatureSet, label_cp: f32, result: f32) -> Sample {
        let mut s = Sample {
            features: [0; MAX_FEATURES],
            len: 0,
            white_to_move: pos.turn() == Color::White,
            label_cp: label_cp.clamp(-MATE_LABEL_CP as f32, MATE_LABEL_CP as f32),
            result,
            mate: false,
            pieces: pos.board().occupied().count() as u8,
        };
        for f in features::active(pos, set).take(MAX_FEATURES) {
            s.features[s.len as usize] = f as u16;
            s.len += 1;
        }
        s
    }

    /// The same position mirrored left-right (files a↔h), same label and result.
    pub fn mirrored_files(mut self) -> Sample {
        for f in &mut self.features[..self.len as usize] {
            *f ^= 7;
        }
        self
    }

    /// The used features from White's perspective.
    pub fn white_features(&self) -> &[u16] {
        &self.features[..self.len as usize]
    }
}

/// The labelled positions of a database, by split part.
#[derive(Debug, Default)]
pub struct Dataset {
    /// Trained on.
    pub train: Vec<Sample>,
    /// Held out to choose the epoch and hyper-parameters.
    pub valid: Vec<Sample>,
    /// Held out for the final figures.
    pub test: Vec<Sample>,
    /// Positions without a label (left out).
    pub unlabelled: usize,
}

impl Dataset {
    /// The samples of `part`.
    pub fn part(&self, part: Part) -> &[Sample] {
        match part {
            Part::Train => &self.train,
            Part::Valid => &self.valid,
            Part::Test => &self.test,
        }
    }

    /// (label in cp, game result) of the train part's positions with a game result: what
    /// K of σ(K·cp) is fitted on.
    pub fn train_pairs(&self) -> Vec<(f64, f64)> {
        self.train
            .iter()
            .filter(|s| !s.result.is_nan())
            .map(|s| (f64::from(s.label_cp), f64::from(s.result)))
            .collect()
    }
}

/// Reads every position with a label of `labels` (of the `sources` selected, all when
/// empty) as `set`'s features, with its split part (assigning parts first).
pub fn load(
    conn: &Connection,
    labels: &LabelChoice,
    sources: &[String],
    set: FeatureSet,
) -> Result<Dataset> {
    let mut rows = Vec::new();
    let mut unlabelled = 0;
    for r in split::labelled_rows_from(conn, labels, sources)? {
        let Some(label) = label_cp(r.eval_cp, r.mate).map(|l| l as f32) else {
            unlabelled += 1;
            continue;
        };
        let result = r.result.map_or(f32::NAN, |g| g.white_score() as f32);
        rows.push((r.fen, label, r.eval_cp.is_none(), result, r.part));
    }
    let samples: Vec<(Part, Result<Sample>)> = rows
        .into_par_iter()
        .map(|(fen, label, is_mate, result, part)| {
            let sample = parse_position(&fen)
                .map(|pos| Sample {
                    mate: is_mate,
                    ..Sample::new(&pos, set, label, result)
                })
                .map_err(|source| {
                    CoreError::StoredPosition {
                        fen: fen.clone(),
                        source: source.into(),
                    }
                    .into()
                });
            (part, sample)
        })
        .collect();
    let mut set = Dataset {
        unlabelled,
        ..Dataset::default()
    };
    for (part, sample) in samples {
        let sample = sample?;
        match part {
            Part::Train => set.train.push(sample),
            Part::Valid => set.valid.push(sample),
            Part::Test => set.test.push(sample),
        }
    }
    Ok(set)
}
