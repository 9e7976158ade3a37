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
//! * `seed003`: the study's bot: `simplified` + 3 × study mobility + 10 × study king
//!   safety.
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
use crate::{Error, Result};
use features::{Groups, Sink};

/// Full middlegame phase.
pub const MAX_PHASE: i32 = 24;

/// Evaluations are clamped to ±`EVAL_LIMIT` centipawns (far below mate scores).
pub const EVAL_LIMIT: i32 = 20_000;

/// Names of the built-in evaluators.
pub const BUILTIN_NAMES: [&str; 4] = ["material", "simplified", "seed003", "nnue"];

/// The evaluator the engine plays and is measured with unless told otherwise: the
/// network, which beats the tuned linear evaluators in games.
pub const DEFAULT_EVALUATOR: &str = "nnue";

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

/// A named evaluation: a set of linear weights, or an NNUE ([`crate::nnue`]).
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

    /// What the evaluator computes with.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The network, for a network evaluator.
    pub fn network(&self) -> Option<&Arc<Network>> {
        match &self.model {
            Model::Network(net) => Some(net),
            Model::Linear(_) => None,
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
            Model::Network(_) => None,
        }
    }

    /// The weights of a linear evaluator, or an error naming the evaluator and `why` the
    /// caller needs terms.
    pub fn linear_weights(&self, why: &str) -> Result<&Weights> {
        self.weights().ok_or_else(|| {
            Error::Invalid(format!(
                "{}: a network evaluator has no terms {why}",
                self.name
            ))
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

    /// The evaluation computed from a term list (equal to [`Evaluator::evaluate`] of the
    /// position the list was made from).
    pub fn evaluate_terms(&self, terms: &TermList) -> i32 {
        let Model::Linear(Linear { weights, .. }) = &self.model else {
            return 0;
        };
        let (mut mg, mut eg) = (0i64, 0i64);
        for &(i, c) in terms.entries() {
            mg += i64::from(c) * i64::from(weights.mg[i as usize]);
            eg += i64::from(c) * i64::from(weights.eg[i as usize]);
        }
        taper(mg, eg, terms.phase())
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
            return Err(Error::Invalid(format!(
                "unknown evaluator {s:?}: not a built-in ({}) and no such file",
                BUILTIN_NAMES.join(", ")
            )));
        }
        Evaluator::load(path)
    }

    /// Reads an evaluator file (see [`mod@file`]) or a network file (see
    /// [`crate::nnue::network`]; named after the file).
    pub fn load(path: &Path) -> Result<Evaluator> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        if Network::is_network_file(&bytes) {
            let name = path.file_stem().map_or_else(
                || path.display().to_string(),
                |s| s.to_string_lossy().into_owned(),
            );
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

    /// Writes the evaluator: a network evaluator as a network file, a linear one as an
    /// evaluator file (see [`mod@file`]).
    pub fn save(&self, path: &Path) -> Result<()> {
        match &self.model {
            Model::Network(net) => net.save(path).map_err(|e| Error::io(path, e)),
            Model::Linear(_) => file::save(self, path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    pub(crate) fn fixture_positions() -> Vec<Chess> {
        let text = include_str!("../../tests/fixtures/eval-positions-2k.csv");
        text.lines()
            .skip(1)
            .map(|line| {
                let fen = line.rsplit_once(',').unwrap().0;
                crate::chess::fen::parse(fen, crate::chess::fen::Leniency::Strict).unwrap()
            })
            .collect()
    }

    /// A dense evaluator with every term non-zero (pseudo-random weights).
    fn dense_evaluator() -> Evaluator {
        let mut w = Weights::zero();
        let mut x = 12345u32;
        for i in 0..TERM_COUNT {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            w.mg[i] = (x >> 16) as i32 % 61 - 30;
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            w.eg[i] = (x >> 16) as i32 % 61 - 30;
        }
        Evaluator::new("dense", Provenance::default(), w)
    }

    #[test]
    fn evaluate_equals_term_function_on_fixture() {
        let evals: Vec<Evaluator> = BUILTIN_NAMES
            .iter()
            .map(|n| Evaluator::builtin(n).unwrap())
            .filter(|e| e.weights().is_some())
            .chain([dense_evaluator()])
            .collect();
        let mut tl = TermList::new();
        let positions = fixture_positions();
        assert!(positions.len() >= 2000);
        for pos in &positions {
            terms(pos, &mut tl);
            for e in &evals {
                assert_eq!(
                    e.evaluate(pos),
                    e.evaluate_terms(&tl),
                    "{} on {}",
                    e.name(),
                    crate::chess::fen::to_fen(pos)
                );
            }
        }
    }

    #[test]
    fn start_position_is_symmetric() {
        let mut tl = TermList::new();
        terms(&Chess::default(), &mut tl);
        // Only tempo survives White-minus-Black in the start position.
        assert_eq!(tl.entries(), &[(layout::TEMPO as u16, 1)]);
        assert_eq!(tl.phase(), 24);
        for name in BUILTIN_NAMES.iter().filter(|&&n| n != "nnue") {
            assert_eq!(
                Evaluator::builtin(name)
                    .unwrap()
                    .evaluate(&Chess::default()),
                0
            );
        }
    }

    #[test]
    fn mirrored_position_negates_without_tempo() {
        let e = Evaluator::builtin("seed003").unwrap();
        for pos in fixture_positions().iter().step_by(7) {
            let mut setup = pos.to_setup(shakmaty::EnPassantMode::Legal);
            setup.mirror();
            let mirrored: Chess = setup.position(CastlingMode::Standard).unwrap();
            assert_eq!(e.evaluate(&mirrored), -e.evaluate(pos));
        }
    }

    #[test]
    fn every_term_is_colour_symmetric() {
        // Swapping colours (board mirrored, side to move flipped) must negate every
        // term and keep the phase; otherwise identical engines would favour one colour.
        let (mut a, mut b) = (TermList::new(), TermList::new());
        for pos in fixture_positions() {
            let mut setup = pos.to_setup(shakmaty::EnPassantMode::Legal);
            setup.mirror();
            let mirrored: Chess = setup.position(CastlingMode::Standard).unwrap();
            terms(&pos, &mut a);
            terms(&mirrored, &mut b);
            let negated: Vec<(u16, i32)> = a.entries().iter().map(|&(i, c)| (i, -c)).collect();
            assert_eq!(
                b.entries(),
                &negated[..],
                "{}",
                crate::chess::fen::to_fen(&pos)
            );
            assert_eq!(b.phase(), a.phase());
        }
    }

    #[test]
    fn hand_checked_terms() {
        // White: Kg1 Qd1 Nf3 pawns f2 g2 h2; Black: Kg8 Rd8 pawns f7 g7 h7. Black to move.
        let pos =
            crate::chess::fen::parse_position("3r2k1/5ppp/8/8/8/5N2/5PPP/3Q2K1 b - - 0 1").unwrap();
        let mut tl = TermList::new();
        terms(&pos, &mut tl);
        assert_eq!(
            tl.coefficient(Term::Material(shakmaty::Role::Queen).index()),
            1
        );
        assert_eq!(
            tl.coefficient(Term::Material(shakmaty::Role::Knight).index()),
            1
        );
        assert_eq!(
            tl.coefficient(Term::Material(shakmaty::Role::Rook).index()),
            -1
        );
        assert_eq!(
            tl.coefficient(Term::Material(shakmaty::Role::Pawn).index()),
            0
        );
        assert_eq!(tl.coefficient(Term::Tempo.index()), -1);
        // Phase: Q 4 + N 1 + R 2.
        assert_eq!(tl.phase(), 7);
        // Queen d1 and rook d8 attack each other on the open d-file and neither is
        // defended (Kg1, Nf3 do not reach d1; Kg8 does not reach d8): one hanging each.
        assert_eq!(tl.coefficient(Term::Hanging.index()), 0);
        // Defended: White f2 g2 h2 (king) and Nf3 (g2 pawn) = 4; Black f7 g7 h7 = 3.
        assert_eq!(tl.coefficient(Term::Defended.index()), 1);
        // Knight mobility: f3 -> e1 d2 d4 e5 g5 h4 (g1, h2 own) = 6.
        assert_eq!(
            tl.coefficient(Term::Mobility(shakmaty::Role::Knight).index()),
            6
        );
        // Pawn shields: three pawns each.
        assert_eq!(tl.coefficient(Term::PawnShield.index()), 0);
        // Rook PST d8 for Black is d1 mirrored; queen d1 for White.
        assert_eq!(
            tl.coefficient(Term::Pst(shakmaty::Role::Rook, shakmaty::Square::D1).index()),
            -1
        );
        assert_eq!(
            tl.coefficient(Term::Pst(shakmaty::Role::Queen, shakmaty::Square::D1).index()),
            1
        );
    }

    #[test]
    fn hand_checked_extra_terms() {
        // White: Kg1 Rd1 Ne5, pawns a5 c3 f4. Black: Kg8 Rc8 Bb6, pawns e6 g7 h7. White to move.
        let pos =
            crate::chess::fen::parse_position("2r3k1/6pp/1b2p3/P3N3/5P2/2P5/8/3R2K1 w - - 0 1")
                .unwrap();
        let mut tl = TermList::new();
        terms(&pos, &mut tl);
        let c = |t: Term| tl.coefficient(t.index());
        // Rd1 on the pawnless d-file; Rc8 on the c-file with only White's c3 pawn.
        assert_eq!(c(Term::RookOpenFile), 1);
        assert_eq!(c(Term::RookSemiOpenFile), -1);
        // Ne5: rank 5, defended by f4, no black pawn on the d- or f-file ahead.
        assert_eq!(c(Term::KnightOutpost), 1);
        // a5 attacks the bishop on b6.
        assert_eq!(c(Term::PawnThreats), 1);
        // King-zone attacks: White's Ne5 on f7 (1); Black's Bb6 on f2 and on g1, the king's
        // own square, where its ray stops (2). King danger 1² − 2².
        assert_eq!(c(Term::KingZoneAttacks), -1);
        assert_eq!(c(Term::KingDanger), -3);
        // Passed: a5 (stop a6: Kg8 6, Kg1 6), c3 (c4: 4 and 4), Black's h7 (h6: White's
        // king 5 away, Black's 2): 0 + 0 − (5 − 2).
        assert_eq!(c(Term::PassedKingDistance), -3);
        assert_eq!(c(Term::PassedBlocked), 0);
        // White to move with a5 (Bb6) and c3 (Rc8) attacked and undefended; nothing of
        // White's attacked by a lower-valued piece.
        assert_eq!(c(Term::StmHanging), 2);
        assert_eq!(c(Term::StmThreatened), 0);
        // The colour-blind hanging count: White 2, Black 1 (Bb6).
        assert_eq!(c(Term::Hanging), 1);
    }
}
