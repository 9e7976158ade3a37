//! Pruning: before the moves (reverse futility, the null move), the quiet-move limit of
//! late-move pruning and the SEE pruning margins the move loop applies, and the
//! `improving` signal they depend on.

use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

use super::node::Node;
use super::params::*;
use super::{INF, MATE_BOUND, Searcher};
use chessgraph_core::chess::hash;

/// Position after a null move (side to move passes, en passant cleared). Only valid when
/// the side to move is not in check. The halfmove clock restarts so that repetition
/// detection below the null move never reaches across it.
pub(super) fn null_move(pos: &Chess) -> Option<Chess> {
    let mut setup = pos.to_setup(EnPassantMode::Always);
    setup.ep_square = None;
    setup.halfmoves = 0;
    setup.swap_turn();
    setup.position(CastlingMode::Standard).ok()
}

impl Searcher {
    /// Pruning before the moves at a non-PV node out of check: reverse futility (static
    /// evaluation far above beta with little depth left) and the null move (a free move
    /// for the opponent still fails high). `Some` is the node's score (0 when stopped).
    pub(super) fn prune_before_moves(
        &mut self,
        pos: &Chess,
        node: &Node,
        beta: i32,
        allow_null: bool,
    ) -> Option<i32> {
        let Node {
            key,
            depth,
            ply,
            static_eval,
            ..
        } = *node;
        if node.pv_node || node.in_check || beta.abs() >= MATE_BOUND {
            return None;
        }
        let rfp_depth = depth - i32::from(node.improving);
        if depth <= rfp_max_depth() && static_eval - rfp_margin() * rfp_depth >= beta {
            return Some(static_eval);
        }
        let us = pos.board().by_color(pos.turn());
        let has_pieces = (us & !pos.board().pawns() & !pos.board().kings()).any();
        if !(allow_null && depth >= nmp_min_depth() && static_eval >= beta && has_pieces) {
            return None;
        }
        let null = null_move(pos)?;
        let r = nmp_base() + depth / nmp_depth_divisor();
        let null_key = hash::key_after_null(pos, key);
        self.made(pos, ply, None);
        self.keys.push(key);
        let score = -self.negamax(
            &null,
            null_key,
            depth - 1 - r,
            -beta,
            -beta + 1,
            ply + 1,
            false,
            !node.cut_node,
        );
        self.keys.pop();
        if self.stopped {
            return Some(0);
        }
        (score >= beta).then_some(if score >= MATE_BOUND { beta } else { score })
    }

    /// Whether the static evaluation at `ply` is above the one two plies before (four when
    /// that one was in check; `true` when both were, or near the root).
    pub(super) fn improving(&self, ply: usize, static_eval: i32) -> bool {
        if static_eval == -INF {
            return false;
        }
        let earlier = [2, 4]
            .into_iter()
            .filter(|&back| ply >= back)
            .map(|back| self.evals[ply - back])
            .find(|&e| e != -INF);
        earlier.is_none_or(|e| static_eval > e)
    }
}

/// How many quiet moves late-move pruning searches at `depth` before skipping the rest.
pub(super) fn lmp_quiet_limit(depth: i32, improving: bool) -> usize {
    let n = (lmp_base() + depth * depth) as usize;
    if improving { n } else { n / 2 }
}

/// SEE pruning threshold at `depth`: a move that loses more material than this by the
/// static exchange evaluation is skipped (linear in depth for a quiet move, which risks
/// only the moved piece; quadratic for a capture, which may open lines).
pub(super) fn see_prune_margin(quiet: bool, depth: i32) -> i32 {
    if quiet {
        -see_quiet_margin() * depth
    } else {
        -see_noisy_margin() * depth * depth
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::eval::Evaluator;

    fn searcher() -> Searcher {
        Searcher::new(Arc::new(Evaluator::builtin("seed003").unwrap()), 4)
    }

    #[test]
    fn lmp_keeps_half_the_quiets_when_not_improving() {
        assert_eq!(lmp_quiet_limit(1, true), 4);
        assert_eq!(lmp_quiet_limit(1, false), 2);
        assert_eq!(lmp_quiet_limit(6, true), 39);
        assert_eq!(lmp_quiet_limit(6, false), 19);
    }

    #[test]
    fn improving_looks_two_plies_back_then_four() {
        let mut s = searcher();
        s.evals[..4].copy_from_slice(&[50, 0, 40, 0]);
        assert!(s.improving(4, 41));
        assert!(!s.improving(4, 40));
        // In check at ply 2: ply 0's evaluation decides.
        s.evals[2] = -INF;
        assert!(s.improving(4, 51));
        assert!(!s.improving(4, 45));
        // Near the root there is nothing to compare with; in check it is never improving.
        assert!(s.improving(1, -500));
        assert!(!s.improving(4, -INF));
    }
}
