//! The main alpha-beta search: principal variation search (negamax, fail-soft) with
//! check extension, reverse futility, null-move, late-move reductions and futility
//! pruning; Syzygy WDL probes inside the tree.

use super::tablebase::Outcome;
use shakmaty::{Chess, Position};

use super::ordering::{MAX_MOVES, pick_best};
use super::params::*;
use super::pruning::null_move;
use super::tt::{Bound, NO_EVAL, score_from_tt, score_to_tt};
use super::{INF, MATE, MATE_BOUND, MAX_PLY, Searcher, TB_WIN, encode};
use crate::chess::hash;

impl Searcher {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn negamax(
        &mut self,
        pos: &Chess,
        key: u64,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        allow_null: bool,
    ) -> i32 {
        self.pv_len[ply] = ply;
        let in_check = pos.is_check();
        if depth <= 0 && !in_check {
            return self.qsearch(pos, alpha, beta, ply);
        }
        self.nodes += 1;
        self.check_limits();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let pv_node = beta - alpha > 1;

        // Draws.
        if pos.halfmoves() >= 100 {
            if in_check && pos.legal_moves().is_empty() {
                return -MATE + ply as i32;
            }
            return 0;
        }
        if self.is_repetition(key, pos.halfmoves()) || pos.is_insufficient_material() {
            return 0;
        }
        if ply >= MAX_PLY - 1 {
            return if in_check { 0 } else { self.evaluate(pos, ply) };
        }

        // Mate distance pruning.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        let alpha_orig = alpha;

        let hit = self.tt.probe(key);
        let tt_move = hit.map_or(0, |h| h.mv);
        if let Some(h) = hit
            && !pv_node
            && h.depth >= depth
        {
            let s = score_from_tt(h.score, ply);
            let cut = match h.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
            };
            if cut {
                return s;
            }
        }

        if let Some(score) = self.probe_wdl(pos, ply) {
            self.tt.store(
                key,
                0,
                score_to_tt(score, ply),
                NO_EVAL,
                MAX_PLY as i32,
                Bound::Exact,
            );
            return score;
        }

        if in_check {
            depth += 1;
        }

        let static_eval = if in_check {
            -INF
        } else {
            match hit {
                Some(h) if h.eval != NO_EVAL => h.eval,
                _ => self.evaluate(pos, ply),
            }
        };

        if !pv_node && !in_check && beta.abs() < MATE_BOUND {
            // Reverse futility: far above beta with little depth left.
            if depth <= RFP_MAX_DEPTH && static_eval - RFP_MARGIN * depth >= beta {
                return static_eval;
            }
            // Null move: give the opponent a free move; still above beta means cut.
            let us = pos.board().by_color(pos.turn());
            let has_pieces = (us & !pos.board().pawns() & !pos.board().kings()).any();
            if allow_null
                && depth >= NMP_MIN_DEPTH
                && static_eval >= beta
                && has_pieces
                && let Some(null) = null_move(pos)
            {
                let r = NMP_BASE + depth / NMP_DEPTH_DIVISOR;
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
                );
                self.keys.pop();
                if self.stopped {
                    return 0;
                }
                if score >= beta {
                    return if score >= MATE_BOUND { beta } else { score };
                }
            }
        }

        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        let mut scores = [0i32; MAX_MOVES];
        self.score_moves(pos, &moves, tt_move, ply, &mut scores);

        let futility = !pv_node
            && !in_check
            && depth <= FUTILITY_MAX_DEPTH
            && alpha.abs() < MATE_BOUND
            && static_eval + FUTILITY_MARGIN * depth <= alpha;
        let mut best_score = -INF;
        let mut best_code = 0u16;
        let mut searched = 0usize;
        let mut quiets_tried = [0u16; MAX_MOVES];
        let mut quiets = 0;
        let killers = self.killers[ply];
        for idx in 0..moves.len() {
            let m = pick_best(&mut moves, &mut scores, idx);
            let code = encode(m);
            let quiet = !m.is_capture() && !m.is_promotion();

            let mut child = pos.clone();
            child.play_unchecked(m);
            self.made(pos, ply, Some(m));
            let gives_check = child.is_check();
            if futility && quiet && searched > 0 && !gives_check {
                continue;
            }
            let child_key = hash::key_after(pos, key, m, &child);
            let new_depth = depth - 1;
            self.keys.push(key);
            let mut score;
            if searched == 0 {
                score = -self.negamax(&child, child_key, new_depth, -beta, -alpha, ply + 1, true);
            } else {
                let mut r = 0;
                if depth >= LMR_MIN_DEPTH
                    && searched >= LMR_MIN_SEARCHED
                    && quiet
                    && !in_check
                    && !gives_check
                {
                    r = i32::from(self.lmr[depth.min(63) as usize][searched.min(63)]);
                    if pv_node {
                        r -= 1;
                    }
                    if code == killers[0] || code == killers[1] {
                        r -= 1;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                score = -self.negamax(
                    &child,
                    child_key,
                    new_depth - r,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    true,
                );
                if score > alpha && r > 0 && !self.stopped {
                    score = -self.negamax(
                        &child,
                        child_key,
                        new_depth,
                        -alpha - 1,
                        -alpha,
                        ply + 1,
                        true,
                    );
                }
                if score > alpha && score < beta && !self.stopped {
                    score =
                        -self.negamax(&child, child_key, new_depth, -beta, -alpha, ply + 1, true);
                }
            }
            self.keys.pop();
            if self.stopped {
                return 0;
            }
            searched += 1;
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_code = code;
                    alpha = score;
                    self.update_pv(ply, code);
                    if score >= beta {
                        if quiet {
                            self.update_quiet_stats(pos, code, depth, ply, &quiets_tried[..quiets]);
                        }
                        break;
                    }
                }
            }
            if quiet && code != best_code {
                quiets_tried[quiets] = code;
                quiets += 1;
            }
        }

        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let eval_store = if in_check { NO_EVAL } else { static_eval };
        self.tt.store(
            key,
            best_code,
            score_to_tt(best_score, ply),
            eval_store,
            depth,
            bound,
        );
        best_score
    }

    /// Syzygy WDL probe right after a capture or pawn move.
    pub(super) fn probe_wdl(&mut self, pos: &Chess, ply: usize) -> Option<i32> {
        let tb = self.tablebase.as_ref()?;
        if pos.halfmoves() != 0
            || pos.castles().any()
            || pos.board().occupied().count() > tb.max_pieces()
        {
            return None;
        }
        let wdl = tb.probe_wdl_after_zeroing(pos)?;
        self.tbhits += 1;
        Some(match wdl {
            Outcome::Win => TB_WIN - ply as i32,
            Outcome::Loss => -TB_WIN + ply as i32,
            Outcome::Draw => 0,
        })
    }
}
