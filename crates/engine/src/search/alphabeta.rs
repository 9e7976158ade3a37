//! The main alpha-beta search: principal variation search (negamax, fail-soft) with
//! check and singular extensions, internal iterative reduction, reverse futility,
//! null-move, ProbCut, late-move reductions, late-move, continuation-history, futility
//! and SEE pruning (an `improving` flag tempers reverse futility, late-move and
//! continuation-history pruning and the reductions); Syzygy WDL probes inside the tree.

use super::tablebase::Outcome;
use shakmaty::{Chess, Position};

use super::node::Node;
use super::ordering::{MAX_MOVES, ORDER_GOOD_CAPTURE, ORDER_KILLER, drop_quiets, pick_best};
use super::params::*;
use super::pruning::{lmp_quiet_limit, see_prune_margin};
use super::singular::Singular;
use super::tt::Hit;
use super::tt::{Bound, NO_EVAL, score_from_tt, score_to_tt};
use super::{INF, MATE, MATE_BOUND, MAX_PLY, Searcher, TB_WIN, code_squares, encode, see};
use chessgraph_core::chess::check::CheckInfo;
use chessgraph_core::chess::moves::is_quiet;
use chessgraph_core::chess::{game, hash};

impl Searcher {
    /// Principal variation search of `pos` (Zobrist key `key`) to `depth` plies within
    /// (`alpha`, `beta`), fail-soft: draws and the ply limit, mate distance pruning, the
    /// TT cutoff, a Syzygy WDL probe, check extension, pruning before the moves, then the
    /// move loop and the TT store. `cut_node`: a null-window node its parent expects to
    /// fail high (its late quiet moves are reduced more).
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
        cut_node: bool,
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
        if let Some(score) = self.draw_or_horizon(pos, key, in_check, ply) {
            return score;
        }

        // Mate distance pruning.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        let alpha_orig = alpha;

        // A singular search of this node leaves one move out: the table's entry is the
        // full node's, so it neither cuts nor is overwritten.
        let excluded = self.excluded[ply];
        let hit = self.tt.probe(key);
        if excluded == 0
            && let Some(score) = tt_cutoff(hit, pv_node, depth, alpha, beta, ply)
        {
            return score;
        }
        if excluded == 0
            && let Some(score) = self.probe_wdl(pos, ply)
        {
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
        if depth >= iir_min_depth() && hit.is_none_or(|h| h.mv == 0) {
            depth -= 1;
        }
        // The table keeps the raw evaluation; the search prunes by the corrected one.
        let raw_eval = if in_check {
            -INF
        } else {
            match hit {
                Some(h) if h.eval != NO_EVAL => h.eval,
                _ => self.evaluate(pos, ply),
            }
        };
        let static_eval = if in_check {
            -INF
        } else {
            (raw_eval + self.correction.get(pos)).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
        };
        self.evals[ply] = static_eval;
        let node = Node {
            key,
            depth,
            ply,
            pv_node,
            cut_node,
            in_check,
            static_eval,
            improving: self.improving(ply, static_eval),
            hit: if excluded == 0 { hit } else { None },
            excluded,
        };
        if excluded == 0
            && let Some(score) = self
                .prune_before_moves(pos, &node, beta, allow_null)
                .or_else(|| self.probcut(pos, &node, beta))
        {
            return score;
        }

        let tt_move = hit.map_or(0, |h| h.mv);
        let Some((best_score, best_code)) = self.move_loop(pos, &node, tt_move, alpha, beta) else {
            return 0;
        };
        if excluded != 0 {
            // Every other move pruned, or none left: the excluded move is singular.
            return best_score.max(alpha_orig);
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if !in_check
            && best_score.abs() < MATE_BOUND
            && is_quiet_code(pos, best_code)
            && !(bound == Bound::Lower && best_score <= static_eval)
            && !(bound == Bound::Upper && best_score >= static_eval)
        {
            self.correction.update(pos, depth, best_score, raw_eval);
        }
        let eval_store = if in_check { NO_EVAL } else { raw_eval };
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

    /// The score of a node decided without a search: a draw by the fifty-move rule (unless
    /// mated), by repetition or by insufficient material, or the ply limit (the static
    /// evaluation; 0 in check).
    fn draw_or_horizon(
        &mut self,
        pos: &Chess,
        key: u64,
        in_check: bool,
        ply: usize,
    ) -> Option<i32> {
        if pos.halfmoves() >= 100 {
            if in_check && pos.legal_moves().is_empty() {
                return Some(-MATE + ply as i32);
            }
            return Some(0);
        }
        if game::drawn_in_tree(pos, &self.keys, key) {
            return Some(0);
        }
        if ply >= MAX_PLY - 1 {
            return Some(if in_check { 0 } else { self.evaluate(pos, ply) });
        }
        None
    }

    /// The move loop: ordered moves, SEE and futility pruning, PVS with late-move
    /// reductions, the PV and the quiet-move statistics on a cutoff. Returns the best score
    /// and move code (mate or stalemate without a move), `None` when stopped.
    fn move_loop(
        &mut self,
        pos: &Chess,
        node: &Node,
        tt_move: u16,
        mut alpha: i32,
        beta: i32,
    ) -> Option<(i32, u16)> {
        let Node {
            key, depth, ply, ..
        } = *node;
        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return Some((if node.in_check { -MATE + ply as i32 } else { 0 }, 0));
        }
        let mut scores = [0i32; MAX_MOVES];
        self.score_moves(pos, &moves, tt_move, ply, &mut scores);

        let futility = !node.pv_node
            && !node.in_check
            && depth <= futility_max_depth()
            && alpha.abs() < MATE_BOUND
            && node.static_eval + futility_base() + futility_margin() * depth <= alpha;
        // At a futile node every quiet move but the first that does not give check is
        // pruned, decided before the move is made.
        let check_info = futility.then(|| CheckInfo::new(pos));
        let mut best_score = -INF;
        let mut best_code = 0u16;
        let mut searched = 0usize;
        let mut quiets_tried = [0u16; MAX_MOVES];
        let mut quiets = 0;
        let lmp_limit = (!node.pv_node && !node.in_check && depth <= lmp_max_depth())
            .then(|| lmp_quiet_limit(depth, node.improving));
        let mut quiets_seen = 0usize;
        let mut idx = 0;
        while idx < moves.len() {
            let m = pick_best(&mut moves, &mut scores, idx);
            let order = scores[idx];
            idx += 1;
            let code = encode(m);
            let quiet = is_quiet(m);
            if quiet {
                quiets_seen += 1;
                // Late-move pruning: the quiet moves after the first few (well ordered,
                // by the table, killers and history) rarely matter this close to the leaves.
                // Every later quiet move is pruned too, so they leave the list at once
                // rather than each being selected only to be skipped.
                if lmp_limit.is_some_and(|n| quiets_seen > n) && best_score > -MATE_BOUND {
                    drop_quiets(&mut moves, &mut scores, idx);
                    continue;
                }
                // Continuation-history pruning: a quiet move that has done badly after the
                // moves just played is not worth a search this close to the leaves.
                if !node.pv_node
                    && !node.in_check
                    && searched > 0
                    && best_score > -MATE_BOUND
                    && self.continuation_prunes(pos, m, ply, depth, node.improving)
                {
                    continue;
                }
            }
            // The cheap futility test first: a quiet move it prunes needs no SEE.
            if let Some(info) = &check_info
                && quiet
                && searched > 0
                && !info.gives_check(pos, m)
            {
                continue;
            }
            if searched > 0
                && !node.in_check
                && best_score > -MATE_BOUND
                && depth <= see_prune_max_depth()
                && order < ORDER_GOOD_CAPTURE
                && see::see(pos, m) < see_prune_margin(quiet, depth)
            {
                continue;
            }

            if code == node.excluded {
                continue;
            }
            let ext = if searched == 0 && code == tt_move {
                match self.singular(pos, node, code, beta) {
                    Singular::Extend(e) => e,
                    Singular::Cut(score) => return Some((score, code)),
                }
            } else {
                0
            };

            let mut child = pos.clone();
            child.play_unchecked(m);
            self.made(pos, ply, Some(m));
            let gives_check = child.is_check();
            let child_key = hash::key_after(pos, key, m, &child);
            let r = if searched > 0 && quiet && !node.in_check && !gives_check {
                self.lmr_reduction(node, searched, order)
            } else {
                0
            };
            self.keys.push(key);
            let new_depth = depth - 1 + ext;
            let score = self.pvs_child(
                &child,
                child_key,
                ply + 1,
                new_depth,
                searched == 0,
                r,
                alpha,
                beta,
                node.cut_node,
            );
            self.keys.pop();
            if self.stopped {
                return None;
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
        Some((best_score, best_code))
    }

    /// Late-move reduction of a quiet, non-checking move searched after `searched` others
    /// with ordering score `order`: from the table by depth and move number, one less at a
    /// PV node and for a killer, one more when not improving, [`cut_node_reduction`] more
    /// at an expected cut node, a ply less or more per
    /// [`lmr_history_divisor`] of the move's history (at most two either way), at most the
    /// remaining depth less one.
    fn lmr_reduction(&self, node: &Node, searched: usize, order: i32) -> i32 {
        let depth = node.depth;
        if depth < lmr_min_depth() || (searched as i32) < lmr_min_searched() {
            return 0;
        }
        let mut r = i32::from(self.lmr[depth.min(63) as usize][searched.min(63)]);
        if node.pv_node {
            r -= 1;
        }
        if order >= ORDER_KILLER {
            r -= 1;
        } else {
            r -= (order / lmr_history_divisor()).clamp(-2, 2);
        }
        if !node.improving {
            r += 1;
        }
        if node.cut_node {
            r += cut_node_reduction();
        }
        r.clamp(0, depth - 2)
    }

    /// Principal variation search of one child at `ply` to `new_depth`: the first move
    /// (`first`) with the full window, the others with a null window reduced by `r`,
    /// re-searched at full depth when a reduced search beats alpha, then with the full
    /// window when inside it. The child of a node expected to cut (`cut_node`) is expected
    /// to fail low, and the other way round; a reduced search's child is expected to cut.
    #[allow(clippy::too_many_arguments)]
    fn pvs_child(
        &mut self,
        child: &Chess,
        child_key: u64,
        ply: usize,
        new_depth: i32,
        first: bool,
        r: i32,
        alpha: i32,
        beta: i32,
        cut_node: bool,
    ) -> i32 {
        let pv_node = beta - alpha > 1;
        if first {
            let cut = !pv_node && !cut_node;
            return -self.negamax(child, child_key, new_depth, -beta, -alpha, ply, true, cut);
        }
        let mut score = -self.negamax(
            child,
            child_key,
            new_depth - r,
            -alpha - 1,
            -alpha,
            ply,
            true,
            r > 0 || !cut_node,
        );
        if score > alpha && r > 0 && !self.stopped {
            score = -self.negamax(
                child,
                child_key,
                new_depth,
                -alpha - 1,
                -alpha,
                ply,
                true,
                !cut_node,
            );
        }
        if score > alpha && score < beta && !self.stopped {
            score = -self.negamax(child, child_key, new_depth, -beta, -alpha, ply, true, false);
        }
        score
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

/// Whether the move with code `code` in `pos` is quiet (no move counts as quiet): the
/// correction history learns only from nodes whose result is not a capture's.
fn is_quiet_code(pos: &Chess, code: u16) -> bool {
    if code == 0 {
        return true;
    }
    let (_, to) = code_squares(code);
    code >> 12 == 0 && !pos.board().by_color(!pos.turn()).contains(to)
}

/// The transposition table cutoff at a non-PV node: an entry at least as deep whose bound
/// decides the window returns its score.
fn tt_cutoff(
    hit: Option<Hit>,
    pv_node: bool,
    depth: i32,
    alpha: i32,
    beta: i32,
    ply: usize,
) -> Option<i32> {
    let h = hit.filter(|h| !pv_node && h.depth >= depth)?;
    let s = score_from_tt(h.score, ply);
    let cut = match h.bound {
        Bound::Exact => true,
        Bound::Lower => s >= beta,
        Bound::Upper => s <= alpha,
    };
    cut.then_some(s)
}
