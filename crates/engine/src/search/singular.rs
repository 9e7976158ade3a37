//! Singular extensions: whether the transposition table's move is the only good move of
//! a node, decided by a reduced search of the others (with multi-cut and a negative
//! extension as by-products).

use shakmaty::Chess;

use super::node::Node;
use super::params::{se_margin, se_min_depth, se_tt_depth_margin};
use super::tt::{Bound, score_from_tt};
use super::{MATE_BOUND, Searcher};

/// What the singular search decides for the table's move.
pub(super) enum Singular {
    /// Search it this many plies deeper (−1: shallower).
    Extend(i32),
    /// The node fails high with this score without searching it.
    Cut(i32),
}

impl Searcher {
    /// Singular extension of the table's move `code` at a node of depth ≥
    /// [`se_min_depth`] whose entry is a lower bound or exact from at most
    /// [`se_tt_depth_margin`] plies shallower: the node is searched again without that move
    /// to half the depth, against a bound [`se_margin`] × depth below the table's score.
    /// If every other move fails low there, the move is singular and is extended a ply;
    /// if that reduced search still beats the node's beta, several moves do and the node
    /// is cut (multi-cut); if the table's score alone beats beta, the move is searched a
    /// ply shallower (negative extension).
    pub(super) fn singular(&mut self, pos: &Chess, node: &Node, code: u16, beta: i32) -> Singular {
        let Some(h) = node.hit else {
            return Singular::Extend(0);
        };
        let tt_score = score_from_tt(h.score, node.ply);
        if node.depth < se_min_depth()
            || h.depth < node.depth - se_tt_depth_margin()
            || h.bound == Bound::Upper
            || tt_score.abs() >= MATE_BOUND
        {
            return Singular::Extend(0);
        }
        let s_beta = tt_score - se_margin() * node.depth;
        let s_depth = (node.depth - 1) / 2;
        self.excluded[node.ply] = code;
        let score = self.negamax(
            pos,
            node.key,
            s_depth,
            s_beta - 1,
            s_beta,
            node.ply,
            false,
            node.cut_node,
        );
        self.excluded[node.ply] = 0;
        if self.stopped {
            Singular::Extend(0)
        } else if score < s_beta {
            Singular::Extend(1)
        } else if s_beta >= beta {
            Singular::Cut(s_beta)
        } else if tt_score >= beta {
            Singular::Extend(-1)
        } else {
            Singular::Extend(0)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::eval::Evaluator;
    use crate::search::tt::{Hit, NO_EVAL};
    use crate::search::{Limits, encode};
    use chessgraph_core::chess::fen::parse_position;
    use chessgraph_core::chess::hash;
    use chessgraph_core::chess::moves::parse_uci;

    fn searcher() -> Searcher {
        Searcher::new(Arc::new(Evaluator::builtin("seed003").unwrap()), 4)
    }

    /// Runs the singular test of `mv` at `fen`'s root child level (ply 1, depth 8) with a
    /// table entry of `tt_score` (lower bound) and the node's `beta`.
    fn singular_at(fen: &str, mv: &str, tt_score: i32, beta: i32) -> Singular {
        let pos = parse_position(fen).unwrap();
        let m = parse_uci(&pos, mv).unwrap();
        let mut s = searcher();
        s.new_search(&pos, &[], &Limits::default());
        let key = hash::key(&pos);
        let node = Node {
            key,
            depth: 8,
            ply: 1,
            pv_node: false,
            cut_node: false,
            in_check: false,
            static_eval: 0,
            improving: true,
            hit: Some(Hit {
                mv: encode(m),
                score: tt_score,
                eval: NO_EVAL,
                depth: 8,
                bound: Bound::Lower,
            }),
            excluded: 0,
        };
        let verdict = s.singular(&pos, &node, encode(m), beta);
        assert!(s.excluded.iter().all(|&e| e == 0), "exclusion left set");
        verdict
    }

    #[test]
    fn the_only_winning_capture_is_extended() {
        // Rxd4 wins a rook; every other move lets Black trade rooks.
        let fen = "4k3/8/8/8/3r4/8/3R4/4K3 w - - 0 1";
        assert!(matches!(
            singular_at(fen, "d2d4", 400, 300),
            Singular::Extend(1)
        ));
    }

    #[test]
    fn many_good_moves_cut_or_shorten_the_table_move() {
        // A queen up, almost any move keeps the score: nothing is singular.
        let fen = "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1";
        let e = Evaluator::builtin("seed003")
            .unwrap()
            .evaluate(&parse_position(fen).unwrap());
        let tt = e - 200;
        // The others beat tt − 16 and that is above beta: multi-cut.
        assert!(matches!(
            singular_at(fen, "a1a7", tt, tt - 300),
            Singular::Cut(s) if s == tt - 2 * 8
        ));
        // Beta between: the table move is searched a ply shallower.
        assert!(matches!(
            singular_at(fen, "a1a7", tt, tt - 10),
            Singular::Extend(-1)
        ));
    }
}
