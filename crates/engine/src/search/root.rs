//! The root: iterative deepening with aspiration windows and MultiPV, the `go mate N`
//! mate search, and Syzygy tablebase roots.

use std::sync::atomic::Ordering;
use std::time::Instant;

use shakmaty::{Chess, Move, MoveList, Position};

use super::mate::{self, MateLimits, MateSearcher};
use super::params::{aspiration_delta, aspiration_max_delta, aspiration_min_depth};
use super::searcher::bounded;
use super::tablebase::Outcome;
use super::time;
use super::tt::{Bound, NO_EVAL, score_to_tt};
use super::{
    INF, Info, Limits, MATE, MATE_BOUND, MAX_DEPTH, NO_MATE_FALLBACK_DEPTH, Score, SearchResult,
    Searcher, TB_WIN, encode, root_moves,
};
use chessgraph_core::chess::hash;

/// What the mate search at the root concluded.
pub(super) enum MateOutcome {
    /// A mate in at most N, with the move.
    Found(SearchResult),
    /// Proven: no mate in N exists.
    NoMate,
    /// A limit (time, nodes, stop) ended it before a proof either way.
    Stopped,
}

#[derive(Clone)]
pub(super) struct RootMove {
    mv: Move,
    score: i32,
    pv: Vec<Move>,
    /// Nodes searched below this move in this search (for time management).
    nodes: u64,
}

impl Searcher {
    /// Searches `root`. `history` holds the keys ([`chessgraph_core::chess::hash::key`]) of the
    /// game's earlier positions, oldest first, for repetition detection. `info` receives a
    /// report per finished iteration and MultiPV line.
    pub fn search(
        &mut self,
        root: &Chess,
        history: &[u64],
        limits: &Limits,
        info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        self.new_search(root, history, limits);
        self.tt.new_search();
        let root_key = hash::key(root);
        let legal = match root_moves(root, limits) {
            Ok(moves) => moves,
            Err(none) => return none.result(self.start.elapsed()),
        };
        let mut root_moves = self.order_root(root, root_key, &legal);

        // `go mate N`: the exact mate search, then (no mate in N) an ordinary search.
        let mut fallback_depth = None;
        if let Some(n) = limits.mate.filter(|&n| n > 0)
            && limits.searchmoves.is_empty()
            && !self.pondering
        {
            match self.mate_root(root, n, limits, info) {
                MateOutcome::Found(result) => return result,
                MateOutcome::NoMate if !bounded(limits) => {
                    fallback_depth = Some(NO_MATE_FALLBACK_DEPTH);
                }
                MateOutcome::NoMate | MateOutcome::Stopped => {}
            }
        }

        // Syzygy: in a tablebase position the DTZ-optimal move is the answer.
        if let Some(result) = self.tablebase_root(root, limits, &root_moves, info) {
            return result;
        }

        let max_depth = limits
            .depth
            .or(fallback_depth)
            .unwrap_or(MAX_DEPTH)
            .clamp(1, MAX_DEPTH);
        let (completed, best_score) = self.deepen_with_helpers(
            root,
            history,
            root_key,
            &mut root_moves,
            max_depth,
            limits,
            info,
        );
        let best = &root_moves[0];
        SearchResult {
            best: Some(best.mv),
            ponder: best.pv.get(1).copied(),
            score: Score::from_internal(best_score.clamp(-MATE, MATE)),
            depth: completed,
            nodes: self.total_nodes(),
            time: self.start.elapsed(),
        }
    }

    /// Resets the counters, limits and heuristics for a search of `root` after the
    /// game's `history`: killers cleared, history and continuation scores aged, the TT's generation moved.
    pub(super) fn new_search(&mut self, root: &Chess, history: &[u64], limits: &Limits) {
        self.start = Instant::now();
        #[cfg(feature = "tune")]
        {
            self.lmr = super::searcher::lmr_table();
        }
        self.budget = time::budget(limits, self.overhead);
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        self.pondering = limits.ponder && self.control.pondering.load(Ordering::Relaxed);
        self.stopped = false;
        self.nodes = 0;
        self.tbhits = 0;
        self.seldepth = 0;
        for k in &mut self.killers {
            *k = [0; 2];
        }
        for h in &mut self.history {
            *h /= 8;
        }
        self.continuation.age();
        self.keys.clear();
        self.keys.extend_from_slice(history);
        self.set_root(root);
    }

    /// The root moves ordered once (TT move, captures, ...), so that even an immediate
    /// stop returns a sensible legal move.
    fn order_root(&mut self, root: &Chess, root_key: u64, legal: &MoveList) -> Vec<RootMove> {
        let tt_move = self.tt.probe(root_key).map_or(0, |h| h.mv);
        let mut scores = [0i32; super::ordering::MAX_MOVES];
        self.score_moves(root, legal, tt_move, 0, &mut scores);
        let mut order: Vec<usize> = (0..legal.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(scores[i]));
        order
            .into_iter()
            .map(|i| RootMove {
                mv: legal[i],
                score: -INF,
                pv: vec![legal[i]],
                nodes: 0,
            })
            .collect()
    }

    /// Iterative deepening to `max_depth` with MultiPV, reporting each finished line;
    /// ends on a stop, a found `go mate N`, a proven mate or the soft time limit. Returns
    /// the last completed depth and the best score (the best root move's, or the static
    /// evaluation, when no iteration finished).
    pub(super) fn iterative_deepening(
        &mut self,
        root: &Chess,
        root_key: u64,
        root_moves: &mut [RootMove],
        max_depth: u32,
        limits: &Limits,
        info: &mut dyn FnMut(&Info),
    ) -> (u32, i32) {
        let multipv = self.multipv.min(root_moves.len());
        let mut completed = 0;
        let mut best_score = -INF;
        let mut prev_scores = vec![0i32; multipv];
        let mut progress = time::Progress::default();
        // The root's static evaluation, for the `improving` test two plies down.
        self.evals[0] = if root.is_check() {
            -INF
        } else {
            self.evaluate(root, 0)
        };
        for depth in self.first_depth.min(max_depth)..=max_depth {
            for pv_idx in 0..multipv {
                self.seldepth = 0;
                let score = self.aspiration(
                    root,
                    root_key,
                    root_moves,
                    pv_idx,
                    depth,
                    prev_scores[pv_idx],
                );
                if self.stopped {
                    break;
                }
                prev_scores[pv_idx] = score;
                if pv_idx == 0 {
                    best_score = score;
                }
                let report = Info {
                    depth,
                    seldepth: self.seldepth as u32,
                    multipv: pv_idx + 1,
                    score: Score::from_internal(score),
                    nodes: self.total_nodes(),
                    time: self.start.elapsed(),
                    hashfull: self.tt.hashfull(),
                    tbhits: self.tbhits,
                    pv: root_moves[pv_idx].pv.clone(),
                };
                info(&report);
            }
            if self.stopped {
                break;
            }
            completed = depth;
            if let Some(n) = limits.mate
                && best_score >= MATE - (2 * n as i32 - 1)
            {
                break;
            }
            if best_score.abs() >= MATE_BOUND
                && depth as i32 > 2 * (MATE - best_score.abs()) + 4
                && !limits.infinite
                && limits.depth.is_none()
            {
                // A proven mate does not change with more depth.
                break;
            }
            let factor = progress.after_iteration(
                depth,
                root_moves[0].mv,
                best_score,
                root_moves[0].nodes as f64 / self.nodes.max(1) as f64,
            );
            if !self.pondering
                && let Some(soft) = self.budget.soft_scaled(factor)
                && self.start.elapsed() >= soft
            {
                break;
            }
            if limits.soft_nodes.is_some_and(|n| self.nodes >= n) {
                break;
            }
        }
        if completed == 0 {
            best_score = root_moves[0].score;
            if best_score == -INF {
                // Stopped before the first root move was searched: report the static
                // evaluation, not the "mated now" that -INF would read as.
                best_score = self.evaluate(root, 0);
            }
        }
        (completed, best_score)
    }

    /// Aspiration windows: one root search of line `pv_idx` at `depth` in a window around
    /// the previous iteration's score `prev`, widened (doubling) on a fail low or high,
    /// full width beyond [`aspiration_max_delta`].
    fn aspiration(
        &mut self,
        root: &Chess,
        root_key: u64,
        root_moves: &mut [RootMove],
        pv_idx: usize,
        depth: u32,
        prev: i32,
    ) -> i32 {
        let mut delta = aspiration_delta();
        let (mut alpha, mut beta) =
            if depth as i32 >= aspiration_min_depth() && prev.abs() < MATE_BOUND {
                (prev - delta, prev + delta)
            } else {
                (-INF, INF)
            };
        loop {
            let score = self.search_root(root, root_key, root_moves, pv_idx, depth, alpha, beta);
            if self.stopped {
                return score;
            }
            if score <= alpha && alpha > -INF {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INF);
            } else if score >= beta && beta < INF {
                beta = (score + delta).min(INF);
            } else {
                return score;
            }
            delta *= 2;
            if delta > aspiration_max_delta() {
                alpha = -INF;
                beta = INF;
            }
        }
    }

    /// `go mate n` at the root: the full-width mate search under the search's stop flag,
    /// deadline and node limit.
    pub(super) fn mate_root(
        &mut self,
        root: &Chess,
        n: u32,
        limits: &Limits,
        info: &mut dyn FnMut(&Info),
    ) -> MateOutcome {
        let mate_limits = MateLimits {
            stop: Some(self.control.stop.clone()),
            deadline: self.budget.hard.map(|hard| self.start + hard),
            nodes: limits.nodes,
        };
        let searcher = self
            .mate
            .get_or_insert_with(|| Box::new(MateSearcher::new(mate::DEFAULT_TT_MB)));
        let r = searcher.search(root, n, &mate_limits);
        self.nodes += r.nodes;
        let (Some(best), Some(k)) = (r.best, r.mate_in) else {
            return if !r.stopped && r.no_mate_within >= n.min(mate::MAX_MATE_MOVES) {
                MateOutcome::NoMate
            } else {
                MateOutcome::Stopped
            };
        };
        let report = Info {
            depth: 2 * k - 1,
            seldepth: r.pv.len() as u32,
            multipv: 1,
            score: Score::Mate(k as i32),
            nodes: self.nodes,
            time: self.start.elapsed(),
            hashfull: self.tt.hashfull(),
            tbhits: self.tbhits,
            pv: r.pv.clone(),
        };
        info(&report);
        MateOutcome::Found(SearchResult {
            best: Some(best),
            ponder: r.pv.get(1).copied(),
            score: report.score,
            depth: report.depth,
            nodes: self.nodes,
            time: report.time,
        })
    }

    pub(super) fn tablebase_root(
        &mut self,
        root: &Chess,
        limits: &Limits,
        root_moves: &[RootMove],
        info: &mut dyn FnMut(&Info),
    ) -> Option<SearchResult> {
        let tb = self.tablebase.as_ref()?;
        if root.board().occupied().count() > tb.max_pieces() || root.castles().any() {
            return None;
        }
        let (m, outcome, dtz) = tb.best_move(root)?;
        if !limits.searchmoves.is_empty() && !limits.searchmoves.contains(&m) {
            return None;
        }
        if !root_moves.iter().any(|rm| rm.mv == m) {
            return None;
        }
        self.tbhits += 1;
        let plies = dtz.min(100) as i32;
        let score = match outcome {
            Outcome::Win => TB_WIN - plies,
            Outcome::Loss => -TB_WIN + plies,
            Outcome::Draw => 0,
        };
        let report = Info {
            depth: 1,
            seldepth: 1,
            multipv: 1,
            score: Score::from_internal(score),
            nodes: 0,
            time: self.start.elapsed(),
            hashfull: self.tt.hashfull(),
            tbhits: self.tbhits,
            pv: vec![m],
        };
        info(&report);
        Some(SearchResult {
            best: Some(m),
            ponder: None,
            score: report.score,
            depth: 1,
            nodes: 0,
            time: self.start.elapsed(),
        })
    }

    /// Searches the root moves from `pv_idx` on; keeps the best at `pv_idx`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn search_root(
        &mut self,
        root: &Chess,
        root_key: u64,
        root_moves: &mut [RootMove],
        pv_idx: usize,
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        let depth = depth as i32;
        let alpha_orig = alpha;
        let in_check = root.is_check();
        let mut best = -INF;
        for i in pv_idx..root_moves.len() {
            let m = root_moves[i].mv;
            let mut child = root.clone();
            child.play_unchecked(m);
            self.made(root, 0, Some(m));
            let key = hash::key_after(root, root_key, m, &child);
            let new_depth = depth - 1 + i32::from(in_check);
            self.keys.push(root_key);
            let nodes_before = self.nodes;
            let mut score;
            if i == pv_idx {
                score = -self.negamax(&child, key, new_depth, -beta, -alpha, 1, true, false);
            } else {
                score = -self.negamax(&child, key, new_depth, -alpha - 1, -alpha, 1, true, true);
                if score > alpha && score < beta && !self.stopped {
                    score = -self.negamax(&child, key, new_depth, -beta, -alpha, 1, true, false);
                }
            }
            self.keys.pop();
            root_moves[i].nodes += self.nodes - nodes_before;
            if self.stopped {
                break;
            }
            root_moves[i].score = score;
            if score > best {
                best = score;
                let mut pv = vec![m];
                pv.extend(self.pv_moves(&child, 1));
                root_moves[i].pv = pv;
                if score > alpha {
                    alpha = score;
                    // Proven better: move it to the front now, so that an abort in the
                    // middle of the iteration still plays it.
                    root_moves[pv_idx..=i].rotate_right(1);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        if !self.stopped {
            root_moves[pv_idx + 1..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
            let best_move = root_moves[pv_idx].mv;
            let bound = if best >= beta {
                Bound::Lower
            } else if best > alpha_orig {
                Bound::Exact
            } else {
                Bound::Upper
            };
            if pv_idx == 0 {
                self.tt.store(
                    root_key,
                    encode(best_move),
                    score_to_tt(best, 0),
                    NO_EVAL,
                    depth,
                    bound,
                );
            }
        }
        best
    }
}
