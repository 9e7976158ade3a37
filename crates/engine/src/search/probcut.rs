//! ProbCut: at a non-PV node deep enough, a capture whose exchange already lifts the
//! static evaluation well above beta is verified by a shallow search; when it still beats
//! that raised bound the node is cut without its full search.

use shakmaty::{Chess, Position};

use super::node::Node;
use super::ordering::{MAX_MOVES, pick_best};
use super::params::{probcut_margin, probcut_min_depth, probcut_reduction};
use super::tt::score_from_tt;
use super::{MATE_BOUND, Searcher, see};
use chessgraph_core::chess::hash;
use chessgraph_core::chess::movegen::noisy_moves;
use chessgraph_core::chess::values::mvv_lva;

impl Searcher {
    /// ProbCut at `node` (non-PV, out of check, depth ≥ [`probcut_min_depth`]): each
    /// capture or queen promotion whose SEE reaches `beta` + [`probcut_margin`] from the
    /// static evaluation is tried by the quiescence search, then by a null-window search
    /// [`probcut_reduction`] plies shallower; the first to beat the raised bound there is
    /// the node's score. Skipped when the table already holds a deep enough score below
    /// that bound. `None`: no cut (or stopped).
    pub(super) fn probcut(&mut self, pos: &Chess, node: &Node, beta: i32) -> Option<i32> {
        if node.pv_node
            || node.in_check
            || node.depth < probcut_min_depth()
            || beta.abs() >= MATE_BOUND
        {
            return None;
        }
        let r_beta = beta + probcut_margin();
        if let Some(h) = node.hit
            && h.depth > node.depth - probcut_reduction()
            && score_from_tt(h.score, node.ply) < r_beta
        {
            return None;
        }
        let mut moves = noisy_moves(pos);
        let mut scores = [0i32; MAX_MOVES];
        for (s, &m) in scores.iter_mut().zip(moves.iter()) {
            *s = mvv_lva(m);
        }
        let ply = node.ply;
        for i in 0..moves.len() {
            let m = pick_best(&mut moves, &mut scores, i);
            if node.static_eval + see::see(pos, m) < r_beta {
                continue;
            }
            let mut child = pos.clone();
            child.play_unchecked(m);
            self.made(pos, ply, Some(m));
            let mut score = -self.qsearch(&child, -r_beta, -r_beta + 1, ply + 1);
            if score >= r_beta && !self.stopped {
                let child_key = hash::key_after(pos, node.key, m, &child);
                self.keys.push(node.key);
                score = -self.negamax(
                    &child,
                    child_key,
                    node.depth - probcut_reduction(),
                    -r_beta,
                    -r_beta + 1,
                    ply + 1,
                    true,
                    !node.cut_node,
                );
                self.keys.pop();
            }
            if self.stopped {
                return None;
            }
            if score >= r_beta {
                return Some(score);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::eval::Evaluator;
    use crate::search::Limits;
    use chessgraph_core::chess::fen::parse_position;

    fn node_at(pos: &Chess, s: &mut Searcher, depth: i32) -> Node {
        s.new_search(pos, &[], &Limits::default());
        Node {
            key: hash::key(pos),
            depth,
            ply: 1,
            pv_node: false,
            cut_node: false,
            in_check: false,
            static_eval: s.evaluate(pos, 1),
            improving: true,
            hit: None,
            excluded: 0,
        }
    }

    #[test]
    fn a_free_queen_cuts_and_a_quiet_position_does_not() {
        let mut s = Searcher::new(Arc::new(Evaluator::builtin("seed003").unwrap()), 4);
        // White's rook takes an undefended queen: far above a beta near the evaluation.
        let pos = parse_position("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1").unwrap();
        let node = node_at(&pos, &mut s, 6);
        let beta = node.static_eval + 100;
        let cut = s.probcut(&pos, &node, beta);
        assert!(cut.is_some_and(|v| v >= beta + probcut_margin()), "{cut:?}");
        // Nothing to capture: no cut, whatever beta.
        let quiet = parse_position("4k3/8/8/8/8/8/3R4/4K3 w - - 0 1").unwrap();
        let node = node_at(&quiet, &mut s, 6);
        assert_eq!(s.probcut(&quiet, &node, node.static_eval - 500), None);
        // Too shallow: no cut.
        let node = node_at(&pos, &mut s, probcut_min_depth() - 1);
        assert_eq!(s.probcut(&pos, &node, node.static_eval + 100), None);
    }
}
