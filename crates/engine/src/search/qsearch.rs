//! Quiescence search: captures and promotions (SEE and delta pruning), all evasions in
//! check; and the reusable [`Quiescence`] the tuner and `rate evaluator` use for leaf positions.

use std::sync::Arc;

use shakmaty::{Chess, Color, Position};

use super::ordering::{MAX_MOVES, pick_best};
use super::params::delta_margin;
use super::tt::TranspositionTable;
use super::{INF, MATE, MAX_PLY, Searcher, encode, see};
use crate::eval::Evaluator;
use chessgraph_core::chess::movegen::noisy_moves;
use chessgraph_core::chess::values::{captured_value, mvv_lva};

impl Searcher {
    pub(super) fn qsearch(&mut self, pos: &Chess, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv_len[ply] = ply;
        self.nodes += 1;
        self.check_limits();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let in_check = pos.is_check();
        if ply >= MAX_PLY - 1 {
            return if in_check { 0 } else { self.evaluate(pos, ply) };
        }
        let stand_pat = if in_check {
            -INF
        } else {
            self.evaluate(pos, ply)
        };
        if stand_pat >= beta {
            return stand_pat;
        }
        alpha = alpha.max(stand_pat);

        // In check every evasion is searched. Out of check only the noisy moves are
        // generated: a position without them returns the stand-pat score, whether it has
        // quiet moves or is stalemate.
        let mut moves = if in_check {
            pos.legal_moves()
        } else {
            noisy_moves(pos)
        };
        if moves.is_empty() && in_check {
            return -MATE + ply as i32;
        }
        let mut scores = [0i32; MAX_MOVES];
        for (s, &m) in scores.iter_mut().zip(moves.iter()) {
            *s = mvv_lva(m);
        }

        let mut best = stand_pat;
        for i in 0..moves.len() {
            let m = pick_best(&mut moves, &mut scores, i);
            if !in_check {
                if !m.is_promotion() {
                    let gain = captured_value(m);
                    // Delta pruning: even winning the piece outright cannot reach alpha.
                    if stand_pat + gain + delta_margin() <= alpha {
                        continue;
                    }
                }
                if see::see(pos, m) < 0 {
                    continue;
                }
            }
            let mut child = pos.clone();
            child.play_unchecked(m);
            self.made(pos, ply, Some(m));
            let score = -self.qsearch(&child, -beta, -alpha, ply + 1);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    // The capture sequence is kept as a PV, so the quiet position the
                    // score comes from can be recovered (`qsearch_leaf`).
                    self.update_pv(ply, encode(m));
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}

/// Static evaluation after a capture-only quiescence search, centipawns from White's
/// point of view (`rate evaluator`'s "after captures" figure). Mates found by the
/// evasion search in check are reported as ±[`crate::eval::EVAL_LIMIT`].
pub fn qsearch_eval(evaluator: &Evaluator, pos: &Chess) -> i32 {
    qsearch_leaf(evaluator, pos).0
}

/// A reusable capture-only quiescence search (keep one per thread: making a [`Searcher`]
/// is far dearer than a typical quiescence search).
pub struct Quiescence {
    searcher: Searcher,
}

impl Quiescence {
    /// A quiescence searcher with `evaluator`.
    pub fn new(evaluator: Arc<Evaluator>) -> Quiescence {
        Quiescence {
            searcher: Searcher::with_table(evaluator, TranspositionTable::tiny()),
        }
    }

    /// The quiet position the quiescence search of `pos` ends in (its principal variation
    /// played out), with the score from White's point of view. The tuner fits the static
    /// evaluation of these leaves, the positions the engine's evaluation actually sees.
    pub fn leaf(&mut self, pos: &Chess) -> (i32, Chess) {
        let s = &mut self.searcher;
        s.nodes = 0;
        s.seldepth = 0;
        s.stopped = false;
        s.set_root(pos);
        let v = s
            .qsearch(pos, -INF, INF, 0)
            .clamp(-crate::eval::EVAL_LIMIT, crate::eval::EVAL_LIMIT);
        let mut leaf = pos.clone();
        for m in s.pv_moves(pos, 0) {
            leaf.play_unchecked(m);
        }
        (if pos.turn() == Color::White { v } else { -v }, leaf)
    }
}

/// [`Quiescence::leaf`] with a one-off searcher.
pub fn qsearch_leaf(evaluator: &Evaluator, pos: &Chess) -> (i32, Chess) {
    Quiescence::new(Arc::new(evaluator.clone())).leaf(pos)
}
