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
    load_chunked(conn, labels, sources, set, split::CHUNK_ROWS)
}

/// [`load`], turning `chunk` rows at a time into samples.
fn load_chunked(
    conn: &Connection,
    labels: &LabelChoice,
    sources: &[String],
    set: FeatureSet,
    chunk_len: usize,
) -> Result<Dataset> {
    let mut data = Dataset::default();
    let mut chunk = Vec::with_capacity(chunk_len);
    split::for_each_labelled_row(conn, labels, sources, |r| {
        let Some(label) = label_cp(r.eval_cp, r.mate).map(|l| l as f32) else {
            data.unlabelled += 1;
            return Ok(());
        };
        let result = r.result.map_or(f32::NAN, |g| g.white_score() as f32);
        chunk.push((r.fen, label, r.eval_cp.is_none(), result, r.part));
        if chunk.len() == chunk_len {
            data.add(std::mem::take(&mut chunk), set)?;
        }
        Ok(())
    })?;
    data.add(chunk, set)?;
    Ok(data)
}

impl Dataset {
    /// Turns rows (FEN, White-view label, whether a mate, result, part) into samples of
    /// `set`'s features, in order, each into its part.
    fn add(&mut self, rows: Vec<(String, f32, bool, f32, Part)>, set: FeatureSet) -> Result<()> {
        let samples: Vec<(Part, Sample)> = rows
            .into_par_iter()
            .map(|(fen, label, is_mate, result, part)| {
                let pos = parse_position(&fen).map_err(|source| CoreError::StoredPosition {
                    fen: fen.clone(),
                    source: source.into(),
                });
                let sample = Sample {
                    mate: is_mate,
                    ..Sample::new(&pos?, set, label, result)
                };
                Ok((part, sample))
            })
            .collect::<Result<_>>()?;
        for (part, sample) in samples {
            match part {
                Part::Train => self.train.push(sample),
                Part::Valid => self.valid.push(sample),
                Part::Test => self.test.push(sample),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read in chunks of 7 rows (the last one short), the fixture's positions are the
    /// samples made from all its rows at once, in the same order and parts.
    #[test]
    fn chunked_reading_makes_the_samples_of_all_rows() {
        let conn = split::fixture_db();
        let labels = LabelChoice::default();
        let set = FeatureSet::Threats;
        let data = load_chunked(&conn, &labels, &[], set, 7).unwrap();
        let mut expected: [Vec<(Vec<u16>, f32)>; 3] = Default::default();
        for r in split::labelled_rows(&conn, &labels).unwrap() {
            let label = label_cp(r.eval_cp, r.mate).unwrap() as f32;
            let s = Sample::new(&parse_position(&r.fen).unwrap(), set, label, f32::NAN);
            expected[r.part as usize].push((s.white_features().to_vec(), s.label_cp));
        }
        let got = [&data.train, &data.valid, &data.test].map(|part| {
            part.iter()
                .map(|s| (s.white_features().to_vec(), s.label_cp))
                .collect::<Vec<_>>()
        });
        assert_eq!(got, expected);
        // Several chunks, the last one short; every part has positions.
        let rows = data.train.len() + data.valid.len() + data.test.len() + data.unlabelled;
        assert!(rows > 1800 && !rows.is_multiple_of(7), "{rows}");
        assert!(!data.valid.is_empty() && !data.test.is_empty());
    }
}
