//! Which terms move an evaluation, and by how much: the linear evaluation of one position
//! split into each term's contribution.
//!
//! A term with coefficient `c` and weights `mg`, `eg` contributes
//! `c · (mg · phase + eg · (24 − phase)) / 24` centipawns (White's point of view). The
//! contributions add up to the evaluation before its final truncation toward zero and
//! clamping to ±[`EVAL_LIMIT`](super::EVAL_LIMIT), so their sum is within one centipawn of
//! [`Evaluator::evaluate`] unless the position is clamped.

use shakmaty::Chess;

use super::{Evaluator, MAX_PHASE, TermList, layout::Term, terms};

/// One term's share of an evaluation.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TermContribution {
    /// The term's stable name (`material.knight`, `pst.knight.e4`, `tempo`, ...).
    pub name: String,
    /// The family it belongs to, for grouping: the name up to the first `.` (`material`,
    /// `pst`, `mobility`, `passed_pawn`) or, for a piece-square entry, `pst.knight`.
    pub group: String,
    /// Its coefficient in this position (White's count minus Black's).
    pub coefficient: i32,
    /// Middlegame weight (centipawns).
    pub mg: i32,
    /// Endgame weight (centipawns).
    pub eg: i32,
    /// Contribution in centipawns, White's point of view, tapered by the phase.
    pub cp: f64,
}

/// A linear evaluation split into its terms.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Breakdown {
    /// The evaluation, as [`Evaluator::evaluate`] gives it (centipawns, White's view).
    pub total: i32,
    /// The game phase used for tapering (0 ending ..= 24 middlegame).
    pub phase: i32,
    /// Every term with a non-zero coefficient and a non-zero weight, largest
    /// contribution (in absolute value) first.
    pub terms: Vec<TermContribution>,
}

/// The term-by-term breakdown of `evaluator` on `pos`, or `None` for a network evaluator
/// (whose evaluation has no terms).
pub fn breakdown(evaluator: &Evaluator, pos: &Chess) -> Option<Breakdown> {
    let w = evaluator.weights()?;
    let mut list = TermList::new();
    terms(pos, &mut list);
    let phase = list.phase().clamp(0, MAX_PHASE);
    let mut out: Vec<TermContribution> = list
        .entries()
        .iter()
        .filter(|&&(i, _)| w.mg[i as usize] != 0 || w.eg[i as usize] != 0)
        .map(|&(i, c)| {
            let (mg, eg) = (w.mg[i as usize], w.eg[i as usize]);
            let tapered =
                i64::from(mg) * i64::from(phase) + i64::from(eg) * i64::from(MAX_PHASE - phase);
            let term = Term::from_index(i as usize).expect("term index from a TermList");
            let name = term.to_string();
            let group = match term {
                Term::Pst(..) => name.rsplit_once('.').map_or(&*name, |(g, _)| g).to_owned(),
                _ => name.split('.').next().unwrap_or(&name).to_owned(),
            };
            TermContribution {
                name,
                group,
                coefficient: c,
                mg,
                eg,
                cp: f64::from(c) * tapered as f64 / f64::from(MAX_PHASE),
            }
        })
        .collect();
    out.sort_by(|a, b| b.cp.abs().total_cmp(&a.cp.abs()).then(a.name.cmp(&b.name)));
    Some(Breakdown {
        total: evaluator.evaluate_terms(&list)?,
        phase,
        terms: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{BUILTIN_NAMES, EVAL_LIMIT};

    #[test]
    fn contributions_add_up_to_the_evaluation() {
        let evaluators: Vec<Evaluator> = BUILTIN_NAMES
            .iter()
            .filter_map(|n| Evaluator::builtin(n))
            .collect();
        for pos in crate::eval::tests::fixture_positions().iter().step_by(13) {
            for e in &evaluators {
                let Some(b) = breakdown(e, pos) else {
                    assert!(e.weights().is_none(), "{} is linear", e.name());
                    continue;
                };
                assert_eq!(b.total, e.evaluate(pos), "{}", e.name());
                let sum: f64 = b.terms.iter().map(|t| t.cp).sum();
                if b.total.abs() < EVAL_LIMIT {
                    assert!(
                        (sum - f64::from(b.total)).abs() < 1.0,
                        "{sum} vs {}",
                        b.total
                    );
                }
            }
        }
    }

    #[test]
    fn hand_checked_material_and_groups() {
        // White is a knight up; material evaluator: exactly +300 from one term.
        let pos =
            chessgraph_core::chess::fen::parse_position("4k3/pppp4/8/8/8/5N2/PPPP4/4K3 w - - 0 1")
                .unwrap();
        let b = breakdown(&Evaluator::builtin("material").unwrap(), &pos).unwrap();
        assert_eq!(b.total, 300);
        assert_eq!(b.terms.len(), 1, "{:?}", b.terms);
        assert_eq!(b.terms[0].name, "material.knight");
        assert_eq!(b.terms[0].group, "material");
        assert_eq!(b.terms[0].cp, 300.0);
        // simplified has piece-square entries, grouped per piece.
        let b = breakdown(&Evaluator::builtin("simplified").unwrap(), &pos).unwrap();
        assert!(
            b.terms
                .iter()
                .any(|t| t.name == "pst.knight.f3" && t.group == "pst.knight")
        );
        assert!(breakdown(&Evaluator::builtin("nnue").unwrap(), &pos).is_none());
    }
}
