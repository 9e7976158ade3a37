//! A fitted move model and its file: `P(move) = σ(intercept + w · columns)` over the
//! 192 columns of [`super::encoding`].
//!
//! ```json
//! {
//!   "format": "chessgraph-move-model",
//!   "version": 1,
//!   "encoding": {"name": "side-to-move-v1", "description": "192 columns: ..."},
//!   "intercept": -3.2,
//!   "weights": {
//!     "board": [[a8 .. h8], ..., [a1 .. h1]],
//!     "from":  [[...], ...],
//!     "to":    [[...], ...]
//!   },
//!   "provenance": {"db": "games.db", "fit_id": 3, "examples": 1200000, ...}
//! }
//! ```
//!
//! Each weight group is 8 rows of 8 numbers as on a diagram seen from the side to move:
//! the first row is its eighth rank, the last its first. Unknown keys, another format,
//! version or encoding, and missing or non-finite weights are errors naming the file.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use shakmaty::{Chess, Move, Position};

use super::encoding::{self, Board};
use chessgraph_core::chess::moves::uci;

/// Value of the `format` key.
pub const FORMAT: &str = "chessgraph-move-model";
/// The file format version this code reads and writes.
pub const VERSION: u64 = 1;

/// What is wrong with a model file.
#[derive(Debug, thiserror::Error)]
#[error("move model file {path}: {reason}")]
pub struct ModelFileError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub reason: String,
}

/// Weights of a logistic move model, indexed by the side to move's square (a1 = 0).
#[derive(Clone, Debug, PartialEq)]
pub struct MoveModel {
    /// The constant term.
    pub intercept: f64,
    /// Per square, times the piece code on it.
    pub board: [f64; 64],
    /// Per square the move leaves.
    pub from: [f64; 64],
    /// Per square the move reaches.
    pub to: [f64; 64],
    /// Where the weights came from (free-form JSON object).
    pub provenance: Map<String, Value>,
}

/// 8 rows of 8, rank 8 first.
type Diagram = [[f64; 8]; 8];

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Weights {
    board: Diagram,
    from: Diagram,
    to: Diagram,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EncodingInfo {
    name: String,
    #[serde(default)]
    description: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    format: String,
    version: u64,
    encoding: EncodingInfo,
    intercept: f64,
    weights: Weights,
    #[serde(default)]
    provenance: Map<String, Value>,
}

fn to_diagram(w: &[f64; 64]) -> Diagram {
    let mut d = [[0.0; 8]; 8];
    for (row, line) in d.iter_mut().enumerate() {
        for (file, v) in line.iter_mut().enumerate() {
            *v = w[8 * (7 - row) + file];
        }
    }
    d
}

fn from_diagram(d: &Diagram) -> [f64; 64] {
    let mut w = [0.0; 64];
    for (row, line) in d.iter().enumerate() {
        for (file, v) in line.iter().enumerate() {
            w[8 * (7 - row) + file] = *v;
        }
    }
    w
}

impl MoveModel {
    /// A model from the intercept and the 192 weights in column order.
    pub fn from_columns(intercept: f64, weights: &[f64]) -> MoveModel {
        assert_eq!(weights.len(), encoding::COLUMNS);
        let group = |k: usize| -> [f64; 64] { weights[64 * k..64 * (k + 1)].try_into().unwrap() };
        MoveModel {
            intercept,
            board: group(0),
            from: group(1),
            to: group(2),
            provenance: Map::new(),
        }
    }

    /// The 192 weights in column order.
    pub fn columns(&self) -> Vec<f64> {
        [self.board, self.from, self.to].concat()
    }

    /// The log-odds of a move from `from` to `to` (side to move's squares) on `board`.
    pub fn logit(&self, board: &Board, from: usize, to: usize) -> f64 {
        let b: f64 = board
            .iter()
            .zip(&self.board)
            .map(|(&c, w)| f64::from(c) * w)
            .sum();
        self.intercept + b + self.from[from] + self.to[to]
    }

    /// The log-odds of every move of `moves` in `pos`.
    pub fn logits(&self, pos: &Chess, moves: &[Move]) -> Vec<f64> {
        let board = encoding::board(pos);
        moves
            .iter()
            .map(|m| {
                let (f, t) = encoding::move_squares(m, pos.turn());
                self.logit(&board, f, t)
            })
            .collect()
    }

    /// The move of `moves` (legal in `pos`) with the highest probability, `None` when
    /// `moves` is empty; ties by [`prefer`].
    pub fn best(&self, pos: &Chess, moves: &[Move]) -> Option<Move> {
        let logits = self.logits(pos, moves);
        best_index(&logits, moves).map(|i| moves[i])
    }

    /// The model as its file's JSON text.
    pub fn to_json(&self) -> String {
        let file = File {
            format: FORMAT.into(),
            version: VERSION,
            encoding: EncodingInfo {
                name: encoding::NAME.into(),
                description: encoding::DESCRIPTION.into(),
            },
            intercept: self.intercept,
            weights: Weights {
                board: to_diagram(&self.board),
                from: to_diagram(&self.from),
                to: to_diagram(&self.to),
            },
            provenance: self.provenance.clone(),
        };
        let mut s = serde_json::to_string_pretty(&file).expect("finite numbers serialize");
        s.push('\n');
        s
    }

    /// Parses a model file's text; `path` names it in errors.
    pub fn from_json(text: &str, path: &Path) -> Result<MoveModel, ModelFileError> {
        let bad = |reason: String| ModelFileError {
            path: path.to_owned(),
            reason,
        };
        // Format and version first, so that another file or version is named as such and
        // not as a missing key.
        let value: Value =
            serde_json::from_str(text).map_err(|e| bad(format!("not valid JSON: {e}")))?;
        let format = value.get("format").and_then(Value::as_str);
        if format != Some(FORMAT) {
            return Err(bad(match format {
                Some(f) => format!("format {f:?}, expected {FORMAT:?}"),
                None => format!("no \"format\": {FORMAT:?} key (not a move model file)"),
            }));
        }
        match value.get("version").and_then(Value::as_u64) {
            Some(VERSION) => {}
            Some(v) => {
                return Err(bad(format!(
                    "version {v}; this chessgraph reads version {VERSION}"
                )));
            }
            None => return Err(bad("no integer \"version\"".into())),
        }
        // From the text again, so that errors give the line and column.
        let file: File = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        if file.encoding.name != encoding::NAME {
            return Err(bad(format!(
                "encoding {:?}; this chessgraph knows {:?}",
                file.encoding.name,
                encoding::NAME
            )));
        }
        let model = MoveModel {
            intercept: file.intercept,
            board: from_diagram(&file.weights.board),
            from: from_diagram(&file.weights.from),
            to: from_diagram(&file.weights.to),
            provenance: file.provenance,
        };
        let names = encoding::names();
        if !model.intercept.is_finite() {
            return Err(bad("the intercept is not a finite number".into()));
        }
        if let Some(i) = model.columns().iter().position(|w| !w.is_finite()) {
            return Err(bad(format!("weight {} is not a finite number", names[i])));
        }
        Ok(model)
    }

    /// Reads a model file.
    pub fn read(path: &Path) -> Result<MoveModel, ModelFileError> {
        let text = std::fs::read_to_string(path).map_err(|e| ModelFileError {
            path: path.to_owned(),
            reason: format!("cannot read it: {e}"),
        })?;
        MoveModel::from_json(&text, path)
    }

    /// Writes the model file.
    pub fn write(&self, path: &Path) -> chessgraph_core::Result<()> {
        std::fs::write(path, self.to_json()).map_err(|e| chessgraph_core::Error::io(path, e))
    }
}

/// Orders two moves of equal probability: the higher promotion piece first (a queen
/// promotion before the under-promotions of the same pawn, which the columns cannot tell
/// apart, and a promotion before a plain move), then the smaller UCI string. `Less` means
/// `a` is preferred.
pub fn prefer(a: &Move, b: &Move) -> Ordering {
    let promo = |m: &Move| m.promotion().map_or(0, encoding::role_code);
    promo(b).cmp(&promo(a)).then_with(|| uci(a).cmp(&uci(b)))
}

/// The index of the highest of `logits` (one per move of `moves`), ties by [`prefer`].
pub fn best_index(logits: &[f64], moves: &[Move]) -> Option<usize> {
    assert_eq!(logits.len(), moves.len());
    let mut best: Option<usize> = None;
    for i in 0..moves.len() {
        best = match best {
            None => Some(i),
            Some(b) => match logits[i].total_cmp(&logits[b]) {
                Ordering::Greater => Some(i),
                Ordering::Equal if prefer(&moves[i], &moves[b]).is_lt() => Some(i),
                _ => Some(b),
            },
        };
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_core::chess::fen::{Leniency, parse};

    fn model() -> MoveModel {
        let w: Vec<f64> = (0..192).map(|i| (i as f64 - 96.0) / 64.0).collect();
        let mut m = MoveModel::from_columns(-2.5, &w);
        m.provenance.insert("examples".into(), Value::from(1234));
        m
    }

    #[test]
    fn file_round_trips() {
        let m = model();
        let text = m.to_json();
        let back = MoveModel::from_json(&text, Path::new("m.json")).unwrap();
        assert_eq!(back, m);
        // Diagram rows: the first row of `board` is rank 8 (indices 56..64).
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["weights"]["board"][0][0], m.board[56]);
        assert_eq!(v["weights"]["board"][7][7], m.board[7]);
        assert_eq!(v["encoding"]["name"], encoding::NAME);
    }

    #[test]
    fn bad_files_are_refused_with_the_reason() {
        let text = model().to_json();
        let err = |t: &str| {
            MoveModel::from_json(t, Path::new("dir/m.json"))
                .unwrap_err()
                .to_string()
        };
        let e = err(&text[..text.len() / 2]);
        assert!(
            e.contains("dir/m.json") && e.contains("not valid JSON"),
            "{e}"
        );
        let e = err(&text.replace("\"version\": 1", "\"version\": 2"));
        assert!(e.contains("version 2"), "{e}");
        let e = err(&text.replace(FORMAT, "chessgraph-evaluator"));
        assert!(e.contains("chessgraph-evaluator"), "{e}");
        let e = err(&text.replace(encoding::NAME, "other"));
        assert!(e.contains("encoding \"other\""), "{e}");
        let e = err(&text.replace("\"intercept\"", "\"intercept_\""));
        assert!(e.contains("intercept"), "{e}");
        // A short row of weights.
        let v: Value = serde_json::from_str(&text).unwrap();
        let mut short = v.clone();
        short["weights"]["to"][3] = serde_json::json!([1.0, 2.0]);
        let e = err(&serde_json::to_string_pretty(&short).unwrap());
        assert!(e.contains("expected an array of length 8 at line"), "{e}");
        let e = err("[]");
        assert!(e.contains("not a move model file"), "{e}");
        let e = MoveModel::read(Path::new("/no/such/model.json"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/no/such/model.json") && e.contains("cannot read"),
            "{e}"
        );
    }

    #[test]
    fn best_move_follows_from_and_to_weights() {
        let pos = parse("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", Leniency::Strict).unwrap();
        let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
        // Only b7 -> b8 weighted: the promotions tie, the queen is chosen.
        let mut w = vec![0.0; 192];
        w[64 + 49] = 1.0; // from b7
        w[128 + 57] = 1.0; // to b8
        let m = MoveModel::from_columns(0.0, &w);
        let best = m.best(&pos, &moves).unwrap();
        assert_eq!(uci(&best), "b7b8q");
        // All zero: every move ties, the smallest UCI string wins whatever the order.
        let zero = MoveModel::from_columns(0.0, &[0.0; 192]);
        let mut rev = moves.clone();
        rev.reverse();
        let a = zero.best(&pos, &moves).unwrap();
        assert_eq!(a, zero.best(&pos, &rev).unwrap());
        assert_eq!(uci(&a), "b7b8q");
        assert_eq!(zero.best(&pos, &[]), None);
    }
}
