//! The evaluator: one linear evaluation function shared by tuning, `eval` and the engine.
//!
//! A position is described by a sparse list of term coefficients ([`terms`], layout in
//! [`layout`]) plus the game [`phase`]. An evaluator holds a middlegame and an endgame
//! weight (centipawns) per term. The evaluation, in centipawns from White's point of view,
//! is exactly
//!
//! ```text
//! mg   = Σ c_i · mg_i          eg = Σ c_i · eg_i          (64-bit integers)
//! eval = (mg · phase + eg · (24 − phase)) / 24
//! ```
//!
//! where `/` truncates toward zero (so mirrored positions get exactly opposite scores), and
//! the result is finally clamped to ±[`EVAL_LIMIT`] so that it never reaches mate scores.
//! [`Evaluator::evaluate`] computes the same number directly (with the engine's faster
//! study-mobility counter, [`study::mobility_counts`]) and skips term groups whose
//! weights are all zero; [`Evaluator::evaluate_terms`] computes it from a [`TermList`].
//!
//! Built-in evaluators ([`BUILTIN_NAMES`]):
//! * `material`: pawn 100, knight 300, bishop 300, rook 500, queen 900; nothing else.
//! * `simplified`: Tomasz Michniewski's Simplified Evaluation Function: pawn 100, knight
//!   320, bishop 330, rook 500, queen 900 and its piece-square tables (the king's
//!   middlegame table as middlegame weights, its endgame table as endgame weights; all
//!   other weights equal in both phases). The tuner's starting point.
//! * `seed003`: the graph-features study's bot: `simplified` + 3 × study mobility + 10 ×
//!   study king safety.
//! * `nnue`: the network chessgraph trained itself (`assets/nnue/chessgraph.nnue.zst`, built
//!   into the binary; see [`crate::nnue`]).

pub mod breakdown;
pub mod builtin;
mod features;
pub mod file;
pub mod layout;
pub mod study;

use std::path::Path;

use std::sync::Arc;

use shakmaty::{Chess, Color, Position};

pub use features::phase;
pub use file::Provenance;
pub use layout::{TERM_COUNT, Term, term_name};

use crate::nnue::Network;
use chessgraph_core::Error;
use chessgraph_core::Result;
use features::{Groups, Sink};

/// Full middlegame phase.
pub const MAX_PHASE: i32 = 24;

pub use chessgraph_core::chess::values::EVAL_LIMIT;

/// Names of the built-in evaluators.
pub const BUILTIN_NAMES: [&str; 4] = ["material", "simplified", "seed003", "nnue"];

/// The evaluator the engine plays and is measured with unless told otherwise: the
/// network, which beats the tuned linear evaluators in games.
pub const DEFAULT_EVALUATOR: &str = "nnue";

/// A value network's evaluation, kept out of line: [`Evaluator::evaluate`] is inlined
/// into the search, and the NNUE's and linear arms should not pay for this one's size.
#[cfg(feature = "cnn")]
#[inline(never)]
fn deep_evaluate(net: &chessgraph_cnn::Net, pos: &Chess) -> i32 {
    net.evaluate(pos).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// The evaluator name of a model file: its file name without the extension.
fn file_stem(path: &Path) -> String {
    path.file_stem().map_or_else(
        || path.display().to_string(),
        |s| s.to_string_lossy().into_owned(),
    )
}

/// Tapers middlegame and endgame sums by `phase` (0..=24), truncating toward zero, and
/// clamps to ±[`EVAL_LIMIT`].
#[inline]
pub fn taper(mg: i64, eg: i64, phase: i32) -> i32 {
    let phase = i64::from(phase.clamp(0, MAX_PHASE));
    let v = (mg * phase + eg * (i64::from(MAX_PHASE) - phase)) / i64::from(MAX_PHASE);
    v.clamp(-i64::from(EVAL_LIMIT), i64::from(EVAL_LIMIT)) as i32
}

/// Sparse term coefficients of one position plus its phase.
#[derive(Debug, Clone)]
pub struct TermList {
    dense: Vec<i32>,
    touched: Vec<u16>,
    entries: Vec<(u16, i32)>,
    phase: i32,
}

impl Default for TermList {
    fn default() -> Self {
        TermList::new()
    }
}

impl TermList {
    /// An empty list (reuse it across positions to avoid allocations).
    pub fn new() -> TermList {
        TermList {
            dense: vec![0; TERM_COUNT],
            touched: Vec::with_capacity(64),
            entries: Vec::with_capacity(64),
            phase: 0,
        }
    }

    /// `(term index, coefficient)` pairs, sorted by index, zero coefficients left out.
    pub fn entries(&self) -> &[(u16, i32)] {
        &self.entries
    }

    /// The game phase, 0 (ending) ..= 24 (middlegame).
    pub fn phase(&self) -> i32 {
        self.phase
    }

    /// Coefficient of term `index` (0 if absent).
    pub fn coefficient(&self, index: usize) -> i32 {
        self.entries
            .binary_search_by_key(&(index as u16), |e| e.0)
            .map_or(0, |i| self.entries[i].1)
    }

    fn finish(&mut self) {
        self.entries.clear();
        self.touched.sort_unstable();
        for &t in &self.touched {
            let c = std::mem::take(&mut self.dense[t as usize]);
            if c != 0 {
                self.entries.push((t, c));
            }
        }
        self.touched.clear();
    }
}

impl Sink for TermList {
    #[inline]
    fn add(&mut self, index: usize, coef: i32) {
        if coef == 0 {
            return;
        }
        let slot = &mut self.dense[index];
        if *slot == 0 && !self.touched.contains(&(index as u16)) {
            self.touched.push(index as u16);
        }
        *slot += coef;
    }
}

/// Computes the coefficients of every term of `pos` into `out`.
pub fn terms(pos: &Chess, out: &mut TermList) {
    out.touched.clear();
    out.dense.fill(0);
    features::extract(pos, &Groups::ALL, out);
    out.phase = phase(pos.board());
    out.finish();
}

/// Middlegame and endgame weights of every term, indexed as in [`layout`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Weights {
    /// Middlegame weights (centipawns), `TERM_COUNT` long.
    pub mg: Vec<i32>,
    /// Endgame weights (centipawns), `TERM_COUNT` long.
    pub eg: Vec<i32>,
}

impl Default for Weights {
    fn default() -> Self {
        Weights::zero()
    }
}

impl Weights {
    /// All weights zero.
    pub fn zero() -> Weights {
        Weights {
            mg: vec![0; TERM_COUNT],
            eg: vec![0; TERM_COUNT],
        }
    }

    /// Sets both weights of `term`.
    pub fn set(&mut self, term: Term, mg: i32, eg: i32) {
        let i = term.index();
        self.mg[i] = mg;
        self.eg[i] = eg;
    }

    /// `(mg, eg)` of `term`.
    pub fn get(&self, term: Term) -> (i32, i32) {
        let i = term.index();
        (self.mg[i], self.eg[i])
    }
}

struct WeightedSum<'a> {
    mg_w: &'a [i32],
    eg_w: &'a [i32],
    mg: i64,
    eg: i64,
}

impl Sink for WeightedSum<'_> {
    #[inline(always)]
    fn add(&mut self, index: usize, coef: i32) {
        self.mg += i64::from(coef) * i64::from(self.mg_w[index]);
        self.eg += i64::from(coef) * i64::from(self.eg_w[index]);
    }
}

/// A named evaluation: a set of linear weights, an NNUE ([`crate::nnue`]), or one of the
/// studies' value networks (`.safetensors`, feature `nets`).
#[derive(Debug, Clone)]
pub struct Evaluator {
    name: String,
    provenance: Provenance,
    model: Model,
}

/// What an evaluator computes with: weights per term, or a network.
#[derive(Clone, Debug)]
pub enum Model {
    /// Tapered weights per term.
    Linear(Linear),
    /// An NNUE.
    Network(Arc<Network>),
    /// One of the studies' convolutional value networks ([`chessgraph_cnn`]).
    #[cfg(feature = "cnn")]
    Deep(Arc<chessgraph_cnn::Net>),
}

/// A linear evaluator's tapered weights, with the term groups they use (so that terms
/// whose weights are all zero are never computed).
#[derive(Clone, Debug)]
pub struct Linear {
    weights: Weights,
    groups: Groups,
}

impl Linear {
    /// The weights.
    pub fn weights(&self) -> &Weights {
        &self.weights
    }
}

impl PartialEq for Evaluator {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.provenance == other.provenance
            && match (&self.model, &other.model) {
                (Model::Linear(a), Model::Linear(b)) => a.weights == b.weights,
                (Model::Network(a), Model::Network(b)) => a == b,
                #[cfg(feature = "cnn")]
                (Model::Deep(a), Model::Deep(b)) => a == b,
                _ => false,
            }
    }
}

impl Evaluator {
    /// An evaluator from weights.
    ///
    /// # Panics
    ///
    /// If the weight vectors are not `TERM_COUNT` long.
    pub fn new(name: impl Into<String>, provenance: Provenance, weights: Weights) -> Evaluator {
        assert_eq!(weights.mg.len(), TERM_COUNT, "mg weights length");
        assert_eq!(weights.eg.len(), TERM_COUNT, "eg weights length");
        let groups = Groups::active(|i| weights.mg[i] != 0 || weights.eg[i] != 0);
        Evaluator {
            name: name.into(),
            provenance,
            model: Model::Linear(Linear { weights, groups }),
        }
    }

    /// An evaluator that runs `network`.
    pub fn from_network(name: impl Into<String>, network: Network) -> Evaluator {
        let mut provenance = Provenance::default();
        if let Some(obj) = network.provenance().as_object() {
            provenance.extra = obj.clone().into_iter().collect();
        }
        Evaluator {
            name: name.into(),
            provenance,
            model: Model::Network(Arc::new(network)),
        }
    }

    /// An evaluator that runs a value network of the studies (`cnn-study`, `cnn-eval`,
    /// `policy-value`'s value head).
    #[cfg(feature = "cnn")]
    pub fn from_net(name: impl Into<String>, net: chessgraph_cnn::Net) -> Evaluator {
        let mut provenance = Provenance::default();
        if let Some(obj) = net.header().provenance.as_object() {
            provenance.extra = obj.clone().into_iter().collect();
        }
        Evaluator {
            name: name.into(),
            provenance,
            model: Model::Deep(Arc::new(net)),
        }
    }

    /// What the evaluator computes with.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The network, for a network evaluator.
    pub fn network(&self) -> Option<&Arc<Network>> {
        match &self.model {
            Model::Network(net) => Some(net),
            _ => None,
        }
    }

    /// The evaluator's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where the weights came from.
    pub fn provenance(&self) -> &Provenance {
        &self.provenance
    }

    /// The weights of a linear evaluator (`None` for a network, which has no terms).
    pub fn weights(&self) -> Option<&Weights> {
        match &self.model {
            Model::Linear(linear) => Some(&linear.weights),
            _ => None,
        }
    }

    /// The weights of a linear evaluator, or an error naming the evaluator and `why` the
    /// caller needs terms.
    pub fn linear_weights(&self, why: &str) -> Result<&Weights> {
        self.weights().ok_or_else(|| Error::NoTerms {
            name: self.name.clone(),
            why: why.to_owned(),
        })
    }

    /// Whether the expensive study-mobility term is in use.
    #[cfg(test)]
    pub fn uses_study_mobility(&self) -> bool {
        matches!(&self.model, Model::Linear(l) if l.groups.study_mobility)
    }

    /// Evaluation of `pos` in centipawns from White's point of view (see the module docs).
    #[inline]
    pub fn evaluate(&self, pos: &Chess) -> i32 {
        match &self.model {
            Model::Network(net) => {
                let v = net.evaluate(pos).clamp(-EVAL_LIMIT, EVAL_LIMIT);
                if pos.turn() == Color::White { v } else { -v }
            }
            #[cfg(feature = "cnn")]
            Model::Deep(net) => deep_evaluate(net, pos),
            Model::Linear(Linear { weights, groups }) => {
                let mut sum = WeightedSum {
                    mg_w: &weights.mg,
                    eg_w: &weights.eg,
                    mg: 0,
                    eg: 0,
                };
                features::extract(pos, groups, &mut sum);
                taper(sum.mg, sum.eg, phase(pos.board()))
            }
        }
    }

    /// Evaluations of several positions in centipawns from White's point of view, those of
    /// [`Evaluator::evaluate`] (a network's up to float rounding): a network model runs
    /// them as one batch (a forward pass per position costs several times more), the
    /// others one by one.
    pub fn evaluate_batch(&self, positions: &[Chess]) -> Vec<i32> {
        match &self.model {
            #[cfg(feature = "cnn")]
            Model::Deep(net) if !positions.is_empty() => net
                .values(positions.iter())
                .expect("a loaded value net evaluates any position")
                .into_iter()
                .map(|v| net.centipawns(v).clamp(-EVAL_LIMIT, EVAL_LIMIT))
                .collect(),
            _ => positions.iter().map(|p| self.evaluate(p)).collect(),
        }
    }

    /// The evaluation computed from a term list (equal to [`Evaluator::evaluate`] of the
    /// position the list was made from); `None` for a network, which has no terms.
    pub fn evaluate_terms(&self, terms: &TermList) -> Option<i32> {
        let weights = self.weights()?;
        let (mut mg, mut eg) = (0i64, 0i64);
        for &(i, c) in terms.entries() {
            mg += i64::from(c) * i64::from(weights.mg[i as usize]);
            eg += i64::from(c) * i64::from(weights.eg[i as usize]);
        }
        Some(taper(mg, eg, terms.phase()))
    }

    /// A built-in evaluator by name ([`BUILTIN_NAMES`]).
    pub fn builtin(name: &str) -> Option<Evaluator> {
        builtin::by_name(name)
    }

    /// A built-in evaluator if `s` names one, otherwise the evaluator file at path `s`.
    pub fn by_name_or_path(s: &str) -> Result<Evaluator> {
        if let Some(e) = Evaluator::builtin(s) {
            return Ok(e);
        }
        let path = Path::new(s);
        if !path.exists() {
            return Err(Error::UnknownEvaluator {
                name: s.to_owned(),
                builtins: BUILTIN_NAMES.join(", "),
                where_: "and no such file".into(),
            });
        }
        Evaluator::load(path)
    }

    /// Reads an evaluator file (see [`mod@file`]) or a network file (see
    /// [`crate::nnue::network`]; named after the file).
    pub fn load(path: &Path) -> Result<Evaluator> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        #[cfg(feature = "cnn")]
        if chessgraph_cnn::Net::is_net_file(&bytes)
            || path.extension().is_some_and(|x| x == "safetensors")
        {
            return Evaluator::load_net(&bytes, path);
        }
        if Network::is_network_file(&bytes) {
            let name = file_stem(path);
            let net = Network::from_bytes(&bytes, &path.display().to_string()).map_err(|e| {
                Error::EvaluatorFile {
                    path: path.to_owned(),
                    reason: match e {
                        crate::nnue::NetworkError::Format { reason, .. } => {
                            format!("damaged network file: {reason}")
                        }
                        other => other.to_string(),
                    },
                }
            })?;
            return Ok(Evaluator::from_network(name, net));
        }
        if path.extension().is_some_and(|x| x == "nnue") {
            return Err(Error::EvaluatorFile {
                path: path.to_owned(),
                reason: "not a chessgraph network file (it does not begin with the CGNNUE \
                         header; `chessgraph train` writes them)"
                    .into(),
            });
        }
        file::load(path)
    }

    /// A value network's model file as an evaluator; a policy-only net is refused.
    #[cfg(feature = "cnn")]
    fn load_net(bytes: &[u8], path: &Path) -> Result<Evaluator> {
        let net =
            chessgraph_cnn::Net::from_bytes(bytes, path).map_err(|e| Error::EvaluatorFile {
                path: path.to_owned(),
                reason: match e {
                    chessgraph_cnn::NetError::Format { reason, .. } => reason,
                    other => other.to_string(),
                },
            })?;
        if !net.arch().has_value() {
            return Err(Error::EvaluatorFile {
                path: path.to_owned(),
                reason: format!(
                    "a {} network has no value head, so it evaluates nothing (play it with \
                     `policy:model=FILE`)",
                    net.arch().as_str()
                ),
            });
        }
        Ok(Evaluator::from_net(file_stem(path), net))
    }

    /// Writes the evaluator: a network evaluator as a network file, a linear one as an
    /// evaluator file (see [`mod@file`]).
    pub fn save(&self, path: &Path) -> Result<()> {
        match &self.model {
            #[cfg(feature = "cnn")]
            Model::Deep(net) => net.save(path).map_err(|e| Error::EvaluatorFile {
                path: path.to_owned(),
                reason: e.to_string(),
            }),
            Model::Network(net) => net.save(path).map_err(|e| Error::io(path, e)),
            Model::Linear(_) => file::save(self, path),
        }
    }
}

#[cfg(test)]
mod tests;
