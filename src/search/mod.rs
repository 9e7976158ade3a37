//! Alpha-beta search for the UCI engine.
//!
//! Iterative deepening with aspiration windows around a principal variation search
//! (negamax, fail-soft) and a quiescence search over captures and promotions (SEE and
//! delta pruning; all evasions when in check). Transposition table keyed by Polyglot
//! Zobrist keys ([`hash`]), move ordering (TT move, SEE-filtered MVV-LVA captures,
//! killers, history), check extension, reverse futility pruning, null-move pruning, late
//! move reductions, futility pruning of quiet moves near the leaves, repetition,
//! fifty-move and insufficient-material draws, mate-distance scores, optional Syzygy
//! WDL probes. Evaluations come from an [`Evaluator`], always the same function the tuner
//! fits. [`mate`] is the separate full-width mate search (`chessgraph solve`); `go mate N`
//! runs it first, because the pruning above can miss the quiet key of a composed problem.

pub mod bench;
pub mod hash;
pub mod mate;
mod nnue;
pub mod see;
pub mod time;
pub mod tt;

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, MoveList, Position, Role};
use shakmaty_syzygy::{Tablebase, Wdl};

use crate::eval::Evaluator;
use mate::{MateLimits, MateSearcher};
pub use time::{Budget, Clock, Limits};
use tt::{Bound, NO_EVAL, TranspositionTable};

/// Deepest ply the search reaches (also the PV length limit).
pub const MAX_PLY: usize = 128;
/// Deepest iteration.
pub const MAX_DEPTH: u32 = 100;
/// Score of being mated at the root; mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores at or beyond ±`MATE_BOUND` are mate scores.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// Score of a tablebase win at the root (below every mate score).
pub const TB_WIN: i32 = MATE_BOUND - MAX_PLY as i32 - 1;
/// Larger than any score.
pub const INF: i32 = 31_000;
/// Depth of the ordinary search that picks a move after `go mate N` proved that there is
/// no mate in N and nothing else (time, depth, nodes, infinite) bounds the search.
pub const NO_MATE_FALLBACK_DEPTH: u32 = 12;

/// A score as UCI reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// Centipawns from the side to move's point of view.
    Cp(i32),
    /// Mate in this many moves (negative: the side to move gets mated).
    Mate(i32),
}

impl Score {
    /// Converts an internal score (side to move's view).
    pub fn from_internal(v: i32) -> Score {
        if v >= MATE_BOUND {
            Score::Mate((MATE - v + 1) / 2)
        } else if v <= -MATE_BOUND {
            Score::Mate(-(MATE + v) / 2)
        } else {
            Score::Cp(v)
        }
    }
}

/// `cp 35` or `mate -3`, as in UCI `info score`.
impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

/// Progress report after each finished iteration (one per MultiPV line).
#[derive(Debug, Clone)]
pub struct Info {
    /// Iteration depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// MultiPV line number, from 1.
    pub multipv: usize,
    /// Score of the line.
    pub score: Score,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time since the search started.
    pub time: Duration,
    /// Transposition table fill, permille.
    pub hashfull: u32,
    /// Tablebase hits.
    pub tbhits: u64,
    /// Principal variation.
    pub pv: Vec<Move>,
}

impl Info {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        let us = self.time.as_micros().max(1) as u64;
        self.nodes.saturating_mul(1_000_000) / us
    }
}

/// Outcome of a search.
#[derive(Debug, Clone)]
pub struct SearchResult {
    /// Best move (`None` only when there is no legal move).
    pub best: Option<Move>,
    /// Expected reply, for pondering.
    pub ponder: Option<Move>,
    /// Score of the best move.
    pub score: Score,
    /// Last completed depth.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time used.
    pub time: Duration,
}

/// Flags shared with the thread that controls the search.
#[derive(Debug, Clone, Default)]
pub struct Control {
    /// Set to abort the search as soon as possible.
    pub stop: Arc<AtomicBool>,
    /// True while pondering; clearing it (`ponderhit`) starts the clock.
    pub pondering: Arc<AtomicBool>,
}

/// Compact move encoding for the TT and killers: from | to << 6 | promotion << 12
/// (castling as king to rook square). 0 is no move.
#[inline]
pub fn encode(m: Move) -> u16 {
    let promo = |p: Option<Role>| p.map_or(0, |r| r as u16);
    match m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => from as u16 | (to as u16) << 6 | promo(promotion) << 12,
        Move::EnPassant { from, to } => from as u16 | (to as u16) << 6,
        Move::Castle { king, rook } => king as u16 | (rook as u16) << 6,
        Move::Put { .. } => 0,
    }
}

/// The legal move of `pos` with compact encoding `code`.
pub fn decode(pos: &Chess, code: u16) -> Option<Move> {
    if code == 0 {
        return None;
    }
    pos.legal_moves().into_iter().find(|&m| encode(m) == code)
}

#[inline]
fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND - MAX_PLY as i32 {
        score + ply as i32
    } else if score <= -(MATE_BOUND - MAX_PLY as i32) {
        score - ply as i32
    } else {
        score
    }
}

#[inline]
fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND - MAX_PLY as i32 {
        score - ply as i32
    } else if score <= -(MATE_BOUND - MAX_PLY as i32) {
        score + ply as i32
    } else {
        score
    }
}

/// Position after a null move (side to move passes, en passant cleared). Only valid when
/// the side to move is not in check. The halfmove clock restarts so that repetition
/// detection below the null move never reaches across it.
fn null_move(pos: &Chess) -> Option<Chess> {
    let mut setup = pos.to_setup(EnPassantMode::Always);
    setup.ep_square = None;
    setup.halfmoves = 0;
    setup.swap_turn();
    setup.position(CastlingMode::Standard).ok()
}

const ORDER_TT: i32 = 30_000_000;
const ORDER_GOOD_CAPTURE: i32 = 20_000_000;
const ORDER_KILLER: i32 = 10_000_000;
const ORDER_BAD_CAPTURE: i32 = -10_000_000;
const ORDER_UNDERPROMOTION: i32 = -20_000_000;
const HISTORY_MAX: i32 = 1 << 14;

#[inline]
fn mvv_lva(m: Move) -> i32 {
    let victim = match m {
        Move::EnPassant { .. } => see::value(Role::Pawn),
        _ => m.capture().map_or(0, see::value),
    };
    let promo = m.promotion().map_or(0, see::value);
    16 * (victim + promo) - see::value(m.role()) / 10
}

struct RootMove {
    mv: Move,
    score: i32,
    pv: Vec<Move>,
}

/// The search. Owns the transposition table and the ordering heuristics; reuse it across
/// the moves of a game.
pub struct Searcher {
    evaluator: Arc<Evaluator>,
    /// Incremental accumulators when the evaluator is a network.
    nnue: Option<nnue::NnueState>,
    tt: TranspositionTable,
    /// Full-width mate search for `go mate N`, created on first use. Its table holds
    /// proven facts about positions, so it is kept across searches and games.
    mate: Option<Box<MateSearcher>>,
    tablebase: Option<Arc<Tablebase<Chess>>>,
    control: Control,
    multipv: usize,
    overhead: Duration,
    // Per-search state.
    keys: Vec<u64>,
    killers: Vec<[u16; 2]>,
    history: Vec<i32>,
    pv: Vec<[u16; MAX_PLY]>,
    pv_len: [usize; MAX_PLY + 1],
    lmr: Vec<[u8; 64]>,
    nodes: u64,
    tbhits: u64,
    seldepth: usize,
    start: Instant,
    budget: Budget,
    node_limit: u64,
    pondering: bool,
    stopped: bool,
}

impl Searcher {
    /// A searcher with a `hash_mib` MiB transposition table.
    pub fn new(evaluator: Arc<Evaluator>, hash_mib: usize) -> Searcher {
        Searcher::with_table(evaluator, TranspositionTable::new(hash_mib))
    }

    fn with_table(evaluator: Arc<Evaluator>, tt: TranspositionTable) -> Searcher {
        let mut lmr = vec![[0u8; 64]; 64];
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.25) as u8;
            }
        }
        Searcher {
            nnue: evaluator.network().cloned().map(nnue::NnueState::new),
            evaluator,
            tt,
            mate: None,
            tablebase: None,
            control: Control::default(),
            multipv: 1,
            overhead: Duration::from_millis(20),
            keys: Vec::with_capacity(1024),
            killers: vec![[0; 2]; MAX_PLY + 2],
            history: vec![0; 2 * 64 * 64],
            pv: vec![[0; MAX_PLY]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            lmr,
            nodes: 0,
            tbhits: 0,
            seldepth: 0,
            start: Instant::now(),
            budget: Budget::default(),
            node_limit: u64::MAX,
            pondering: false,
            stopped: false,
        }
    }

    /// The flags that stop the search and end pondering (share them with the UCI thread).
    pub fn control(&self) -> Control {
        self.control.clone()
    }

    /// The evaluator in use.
    pub fn evaluator(&self) -> &Arc<Evaluator> {
        &self.evaluator
    }

    /// Replaces the evaluator (clears the TT, whose scores came from the old one).
    pub fn set_evaluator(&mut self, evaluator: Arc<Evaluator>) {
        self.nnue = evaluator.network().cloned().map(nnue::NnueState::new);
        self.evaluator = evaluator;
        self.tt.clear();
    }

    /// Resizes (and clears) the transposition table; if `mib` MiB cannot be allocated it
    /// falls back to 16 MiB and returns the error.
    pub fn set_hash(&mut self, mib: usize) -> Result<(), String> {
        // Free the old table first so that both need not fit at once.
        self.tt = TranspositionTable::tiny();
        match TranspositionTable::try_new(mib) {
            Ok(tt) => {
                self.tt = tt;
                Ok(())
            }
            Err(e) => {
                self.tt = TranspositionTable::new(16);
                Err(e)
            }
        }
    }

    /// Number of principal variations to report (at least 1).
    pub fn set_multipv(&mut self, n: usize) {
        self.multipv = n.max(1);
    }

    /// Time reserved per move for process and GUI latency.
    pub fn set_overhead(&mut self, overhead: Duration) {
        self.overhead = overhead;
    }

    /// Syzygy tablebases to probe (or none).
    pub fn set_tablebase(&mut self, tablebase: Option<Arc<Tablebase<Chess>>>) {
        self.tablebase = tablebase;
    }

    /// Forgets everything learned (new game).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.history.fill(0);
        for k in &mut self.killers {
            *k = [0; 2];
        }
    }

    /// Score of a `depth`-ply search of `pos` from a cleared table, centipawns from White's
    /// point of view, mates as ±[`crate::eval::EVAL_LIMIT`]. Clearing first makes the
    /// result independent of earlier calls (the `eval --depth` figure).
    pub fn depth_eval(&mut self, pos: &Chess, depth: u32) -> i32 {
        use crate::eval::EVAL_LIMIT;
        let stm = if pos.legal_moves().is_empty() {
            // Mated (in check) or stalemate: nothing to search.
            if pos.is_check() { -EVAL_LIMIT } else { 0 }
        } else {
            self.clear();
            let limits = Limits {
                depth: Some(depth),
                ..Limits::default()
            };
            match self.search(pos, &[], &limits, &mut |_| {}).score {
                Score::Cp(v) => v.clamp(-EVAL_LIMIT, EVAL_LIMIT),
                Score::Mate(n) if n > 0 => EVAL_LIMIT,
                Score::Mate(_) => -EVAL_LIMIT,
            }
        };
        if pos.turn() == Color::White {
            stm
        } else {
            -stm
        }
    }

    /// Static evaluation of `pos`, the position at ply `ply` of the current line, from
    /// the side to move's point of view.
    #[inline]
    fn evaluate(&mut self, pos: &Chess, ply: usize) -> i32 {
        if let Some(nnue) = &mut self.nnue {
            return nnue
                .evaluate(pos, ply)
                .clamp(-crate::eval::EVAL_LIMIT, crate::eval::EVAL_LIMIT);
        }
        let v = self.evaluator.evaluate(pos);
        if pos.turn() == Color::White { v } else { -v }
    }

    /// The tree about to be searched starts at `root` (ply 0).
    fn set_root(&mut self, root: &Chess) {
        if let Some(nnue) = &mut self.nnue {
            nnue.set_root(root);
        }
    }

    /// `m` (or a null move) is played at ply `ply` from `pos`.
    #[inline]
    fn made(&mut self, pos: &Chess, ply: usize, m: Option<Move>) {
        if let Some(nnue) = &mut self.nnue {
            nnue.make(ply, pos.turn(), m);
        }
    }

    /// Searches `root`. `history` holds the keys ([`hash::key`]) of the game's earlier
    /// positions, oldest first, for repetition detection. `info` receives a report per
    /// finished iteration and MultiPV line.
    pub fn search(
        &mut self,
        root: &Chess,
        history: &[u64],
        limits: &Limits,
        info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        self.start = Instant::now();
        self.budget = time::budget(limits, self.overhead);
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        self.pondering = limits.ponder && self.control.pondering.load(Ordering::Relaxed);
        self.stopped = false;
        self.nodes = 0;
        self.tbhits = 0;
        self.seldepth = 0;
        self.tt.new_search();
        for k in &mut self.killers {
            *k = [0; 2];
        }
        for h in &mut self.history {
            *h /= 8;
        }
        self.keys.clear();
        self.keys.extend_from_slice(history);
        let root_key = hash::key(root);
        self.set_root(root);

        let mut legal = root.legal_moves();
        if !limits.searchmoves.is_empty() {
            legal.retain(|m| limits.searchmoves.contains(m));
        }
        if legal.is_empty() {
            let score = if root.is_check() { -MATE } else { 0 };
            return SearchResult {
                best: None,
                ponder: None,
                score: Score::from_internal(score),
                depth: 0,
                nodes: 0,
                time: self.start.elapsed(),
            };
        }

        // Order the root once (TT move, captures, ...) so that even an immediate stop
        // returns a sensible legal move.
        let tt_move = self.tt.probe(root_key).map_or(0, |h| h.mv);
        let mut scores = [0i32; 256];
        self.score_moves(root, &legal, tt_move, 0, &mut scores);
        let mut order: Vec<usize> = (0..legal.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(scores[i]));
        let mut root_moves: Vec<RootMove> = order
            .into_iter()
            .map(|i| RootMove {
                mv: legal[i],
                score: -INF,
                pv: vec![legal[i]],
            })
            .collect();

        // `go mate N`: the exact mate search, then (no mate in N) an ordinary search.
        let mut fallback_depth = None;
        if let Some(n) = limits.mate.filter(|&n| n > 0)
            && limits.searchmoves.is_empty()
            && !self.pondering
        {
            match self.mate_root(root, n, limits, info) {
                Ok(result) => return result,
                Err(true) if !bounded(limits) => fallback_depth = Some(NO_MATE_FALLBACK_DEPTH),
                Err(_) => {}
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
        let multipv = self.multipv.min(root_moves.len());
        let mut completed = 0;
        let mut best_score = -INF;
        let mut prev_scores = vec![0i32; multipv];
        for depth in 1..=max_depth {
            for pv_idx in 0..multipv {
                self.seldepth = 0;
                let prev = prev_scores[pv_idx];
                let mut delta = 20;
                let (mut alpha, mut beta) = if depth >= 4 && prev.abs() < MATE_BOUND {
                    (prev - delta, prev + delta)
                } else {
                    (-INF, INF)
                };
                let score = loop {
                    let score = self.search_root(
                        root,
                        root_key,
                        &mut root_moves,
                        pv_idx,
                        depth,
                        alpha,
                        beta,
                    );
                    if self.stopped {
                        break score;
                    }
                    if score <= alpha && alpha > -INF {
                        beta = (alpha + beta) / 2;
                        alpha = (score - delta).max(-INF);
                    } else if score >= beta && beta < INF {
                        beta = (score + delta).min(INF);
                    } else {
                        break score;
                    }
                    delta *= 2;
                    if delta > 1000 {
                        alpha = -INF;
                        beta = INF;
                    }
                };
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
                    nodes: self.nodes,
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
            if !self.pondering
                && let Some(soft) = self.budget.soft
                && self.start.elapsed() >= soft
            {
                break;
            }
        }
        if completed == 0 {
            best_score = root_moves[0].score;
        }
        let best = &root_moves[0];
        SearchResult {
            best: Some(best.mv),
            ponder: best.pv.get(1).copied(),
            score: Score::from_internal(best_score.clamp(-MATE, MATE)),
            depth: completed,
            nodes: self.nodes,
            time: self.start.elapsed(),
        }
    }

    /// `go mate n` at the root: the full-width mate search under the search's stop flag,
    /// deadline and node limit. `Ok` with the mate found; otherwise `Err(proven)`, where
    /// `proven` says that no mate in `n` exists (rather than a limit stopping the search).
    fn mate_root(
        &mut self,
        root: &Chess,
        n: u32,
        limits: &Limits,
        info: &mut dyn FnMut(&Info),
    ) -> Result<SearchResult, bool> {
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
            return Err(!r.stopped && r.no_mate_within >= n.min(mate::MAX_MATE_MOVES));
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
        Ok(SearchResult {
            best: Some(best),
            ponder: r.pv.get(1).copied(),
            score: report.score,
            depth: report.depth,
            nodes: self.nodes,
            time: report.time,
        })
    }

    fn tablebase_root(
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
        let (m, dtz) = tb.best_move(root).ok()??;
        if !limits.searchmoves.is_empty() && !limits.searchmoves.contains(&m) {
            return None;
        }
        if !root_moves.iter().any(|rm| rm.mv == m) {
            return None;
        }
        self.tbhits += 1;
        let dtz = dtz.ignore_rounding().0;
        let score = match dtz.signum() {
            1 => TB_WIN - dtz.min(100),
            -1 => -TB_WIN + (-dtz).min(100),
            _ => 0,
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
    fn search_root(
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
            let mut score;
            if i == pv_idx {
                score = -self.negamax(&child, key, new_depth, -beta, -alpha, 1, true);
            } else {
                score = -self.negamax(&child, key, new_depth, -alpha - 1, -alpha, 1, true);
                if score > alpha && score < beta && !self.stopped {
                    score = -self.negamax(&child, key, new_depth, -beta, -alpha, 1, true);
                }
            }
            self.keys.pop();
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

    /// Makes `code` followed by the child's PV the PV of `ply`.
    #[inline]
    fn update_pv(&mut self, ply: usize, code: u16) {
        self.pv[ply][ply] = code;
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply][ply + 1..child_len].copy_from_slice(&tail[0][ply + 1..child_len]);
        self.pv_len[ply] = child_len;
    }

    /// Moves of the PV table row `ply`, decoded along `pos`.
    fn pv_moves(&self, pos: &Chess, ply: usize) -> Vec<Move> {
        let mut out = Vec::new();
        let mut p = pos.clone();
        for &code in &self.pv[ply][ply..self.pv_len[ply].max(ply)] {
            let Some(m) = decode(&p, code) else { break };
            out.push(m);
            p.play_unchecked(m);
        }
        out
    }

    #[inline]
    fn check_limits(&mut self) {
        if self.nodes >= self.node_limit {
            self.stopped = true;
            return;
        }
        if self.nodes & 1023 != 0 {
            return;
        }
        if self.control.stop.load(Ordering::Relaxed) {
            self.stopped = true;
            return;
        }
        if self.pondering {
            if self.control.pondering.load(Ordering::Relaxed) {
                return;
            }
            // ponderhit: the clock starts now.
            self.pondering = false;
            self.start = Instant::now();
        }
        if let Some(hard) = self.budget.hard
            && self.start.elapsed() >= hard
        {
            self.stopped = true;
        }
    }

    fn is_repetition(&self, key: u64, halfmoves: u32) -> bool {
        let n = self.keys.len();
        let window = (halfmoves as usize).min(n);
        let mut i = 2;
        while i <= window {
            if self.keys[n - i] == key {
                return true;
            }
            i += 2;
        }
        false
    }

    fn score_moves(
        &self,
        pos: &Chess,
        moves: &MoveList,
        tt_move: u16,
        ply: usize,
        out: &mut [i32],
    ) {
        let turn = pos.turn() as usize;
        let killers = self.killers[ply];
        for (i, &m) in moves.iter().enumerate() {
            let code = encode(m);
            out[i] = if code == tt_move {
                ORDER_TT
            } else if let Some(p) = m.promotion().filter(|&p| p != Role::Queen) {
                ORDER_UNDERPROMOTION + see::value(p)
            } else if m.is_capture() || m.is_promotion() {
                if see::see(pos, m) >= 0 {
                    ORDER_GOOD_CAPTURE + mvv_lva(m)
                } else {
                    ORDER_BAD_CAPTURE + mvv_lva(m)
                }
            } else if code == killers[0] {
                ORDER_KILLER + 1
            } else if code == killers[1] {
                ORDER_KILLER
            } else {
                self.history[history_index(turn, code)]
            };
        }
    }

    fn update_quiet_stats(
        &mut self,
        pos: &Chess,
        code: u16,
        depth: i32,
        ply: usize,
        tried: &[u16],
    ) {
        let killers = &mut self.killers[ply];
        if killers[0] != code {
            killers[1] = killers[0];
            killers[0] = code;
        }
        let turn = pos.turn() as usize;
        let bonus = (depth * depth).min(400);
        let mut apply = |code: u16, delta: i32| {
            let h = &mut self.history[history_index(turn, code)];
            *h += delta - *h * delta.abs() / HISTORY_MAX;
        };
        apply(code, bonus);
        for &c in tried {
            apply(c, -bonus);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn negamax(
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
            if depth <= 6 && static_eval - 90 * depth >= beta {
                return static_eval;
            }
            // Null move: give the opponent a free move; still above beta means cut.
            let us = pos.board().by_color(pos.turn());
            let has_pieces = (us & !pos.board().pawns() & !pos.board().kings()).any();
            if allow_null
                && depth >= 3
                && static_eval >= beta
                && has_pieces
                && let Some(null) = null_move(pos)
            {
                let r = 3 + depth / 4;
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
        let mut scores = [0i32; 256];
        self.score_moves(pos, &moves, tt_move, ply, &mut scores);

        let futility = !pv_node
            && !in_check
            && depth <= 2
            && alpha.abs() < MATE_BOUND
            && static_eval + 120 * depth <= alpha;
        let mut best_score = -INF;
        let mut best_code = 0u16;
        let mut searched = 0usize;
        let mut quiets_tried: Vec<u16> = Vec::new();
        let killers = self.killers[ply];
        for idx in 0..moves.len() {
            // Selection sort step: bring the best remaining move to `idx`.
            let mut best_i = idx;
            for j in idx + 1..moves.len() {
                if scores[j] > scores[best_i] {
                    best_i = j;
                }
            }
            scores.swap(idx, best_i);
            moves.swap(idx, best_i);
            let m = moves[idx];
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
                if depth >= 3 && searched >= 3 && quiet && !in_check && !gives_check {
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
                            self.update_quiet_stats(pos, code, depth, ply, &quiets_tried);
                        }
                        break;
                    }
                }
            }
            if quiet && code != best_code {
                quiets_tried.push(code);
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
    fn probe_wdl(&mut self, pos: &Chess, ply: usize) -> Option<i32> {
        let tb = self.tablebase.as_ref()?;
        if pos.halfmoves() != 0
            || pos.castles().any()
            || pos.board().occupied().count() > tb.max_pieces()
        {
            return None;
        }
        let wdl = tb.probe_wdl_after_zeroing(pos).ok()?;
        self.tbhits += 1;
        Some(match wdl {
            Wdl::Win => TB_WIN - ply as i32,
            Wdl::Loss => -TB_WIN + ply as i32,
            Wdl::CursedWin | Wdl::BlessedLoss | Wdl::Draw => 0,
        })
    }

    fn qsearch(&mut self, pos: &Chess, mut alpha: i32, beta: i32, ply: usize) -> i32 {
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

        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return if in_check {
                -MATE + ply as i32
            } else {
                stand_pat
            };
        }
        if !in_check {
            moves.retain(|m| m.is_capture() || m.promotion() == Some(Role::Queen));
        }
        let mut scored: Vec<(i32, Move)> = moves.iter().map(|&m| (mvv_lva(m), m)).collect();
        scored.sort_unstable_by_key(|&(s, _)| std::cmp::Reverse(s));

        let mut best = stand_pat;
        for (_, m) in scored {
            if !in_check {
                if !m.is_promotion() {
                    let gain = match m {
                        Move::EnPassant { .. } => see::value(Role::Pawn),
                        _ => m.capture().map_or(0, see::value),
                    };
                    // Delta pruning: even winning the piece outright cannot reach alpha.
                    if stand_pat + gain + 200 <= alpha {
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

/// Whether something besides `mate` ends the search: depth, nodes, time or `infinite`.
fn bounded(limits: &Limits) -> bool {
    limits.depth.is_some()
        || limits.nodes.is_some()
        || limits.movetime.is_some()
        || limits.clock.is_some()
        || limits.infinite
}

#[inline]
fn history_index(turn: usize, code: u16) -> usize {
    turn * 4096 + (code & 0xfff) as usize
}

/// Static evaluation after a capture-only quiescence search, centipawns from White's
/// point of view (the `eval` command's "after captures" figure). Mates found by the
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

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::uci::UciMove;

    fn pos(fen: &str) -> Chess {
        crate::data::parse_position(fen).unwrap()
    }

    fn searcher(name: &str) -> Searcher {
        Searcher::new(Arc::new(Evaluator::builtin(name).unwrap()), 4)
    }

    fn depth(d: u32) -> Limits {
        Limits {
            depth: Some(d),
            ..Limits::default()
        }
    }

    fn uci(m: Option<Move>) -> String {
        m.map_or("0000".into(), |m| UciMove::from_standard(m).to_string())
    }

    #[test]
    fn qsearch_score_is_the_static_eval_of_its_leaf() {
        let e = Evaluator::builtin("seed003").unwrap();
        let mut resolved = 0;
        for line in include_str!("../../tests/fixtures/eval-positions-2k.csv")
            .lines()
            .skip(1)
            .step_by(5)
        {
            let p = pos(line.rsplit_once(',').unwrap().0);
            let (v, leaf) = qsearch_leaf(&e, &p);
            if leaf.is_check() || leaf.legal_moves().is_empty() {
                continue;
            }
            assert_eq!(v, e.evaluate(&leaf), "{line}");
            resolved += usize::from(leaf.board() != p.board());
        }
        // Some positions have captures worth making.
        assert!(resolved > 20, "{resolved}");
    }

    #[test]
    fn score_conversion() {
        assert_eq!(Score::from_internal(MATE - 1), Score::Mate(1));
        assert_eq!(Score::from_internal(MATE - 3), Score::Mate(2));
        assert_eq!(Score::from_internal(-MATE + 2), Score::Mate(-1));
        assert_eq!(Score::from_internal(-MATE), Score::Mate(0));
        assert_eq!(Score::from_internal(35), Score::Cp(35));
        assert_eq!(Score::Mate(-3).to_string(), "mate -3");
        assert_eq!(score_from_tt(score_to_tt(MATE - 9, 4), 6), MATE - 11);
    }

    #[test]
    fn encode_decode_round_trip() {
        for fen in bench::POSITIONS {
            let p = pos(fen);
            for m in p.legal_moves() {
                assert_eq!(decode(&p, encode(m)), Some(m));
            }
        }
    }

    #[test]
    fn finds_mate_in_one() {
        // Back-rank mate: Re8#.
        let p = pos("6k1/5ppp/8/8/8/8/5PPP/4R1K1 w - - 0 1");
        let r = searcher("material").search(&p, &[], &depth(3), &mut |_| {});
        assert_eq!(uci(r.best), "e1e8");
        assert_eq!(r.score, Score::Mate(1));
    }

    #[test]
    fn finds_mate_in_two() {
        let mut s = searcher("seed003");
        // Rook ladder: 1. Rb7 Kg8 2. Ra8#.
        let p = pos("7k/8/8/8/8/8/R7/1R5K w - - 0 1");
        let r = s.search(&p, &[], &depth(5), &mut |_| {});
        assert_eq!(r.score, Score::Mate(2), "{}", uci(r.best));
        // Morphy: 1. Ra6! bxa6 2. b7#.
        let p = pos("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1");
        let r = s.search(&p, &[], &depth(5), &mut |_| {});
        assert_eq!(r.score, Score::Mate(2), "{}", uci(r.best));
        assert_eq!(uci(r.best), "a1a6");
    }

    #[test]
    fn go_mate_stops_at_proven_mate() {
        let p = pos("6k1/5ppp/8/8/8/8/5PPP/4R1K1 w - - 0 1");
        let limits = Limits {
            mate: Some(1),
            ..Limits::default()
        };
        let r = searcher("seed003").search(&p, &[], &limits, &mut |_| {});
        assert_eq!(r.score, Score::Mate(1));
        assert!(r.depth <= 2, "stopped at depth {}", r.depth);
    }

    #[test]
    fn go_mate_finds_quiet_keys_of_composed_problems() {
        // Composed #2 (Baird) whose key the pruning search misses: with go mate 2 the
        // full-width search answers, and its key mates in two against every defence.
        let p = pos("5B2/7Q/2n1n3/2Pkr3/1Pp3PN/2P5/2NKb3/1B2R3 w - - 0 1");
        let limits = Limits {
            mate: Some(2),
            ..Limits::default()
        };
        let mut infos = Vec::new();
        let r = searcher("seed003").search(&p, &[], &limits, &mut |i| infos.push(i.clone()));
        assert_eq!(r.score, Score::Mate(2));
        let key = r.best.unwrap();
        assert_eq!(
            mate::verify_mate(&p, key, 2, &MateLimits::none()),
            Some(true),
            "{}",
            uci(Some(key))
        );
        let last = infos.last().unwrap();
        assert_eq!((last.score, last.pv[0]), (Score::Mate(2), key));
        assert!(last.nodes > 0 && last.nodes == r.nodes);
    }

    #[test]
    fn go_mate_without_a_mate_still_moves() {
        // King and pawn against king: no mate in 2. The proof is followed by an ordinary
        // search of bounded depth, which returns a legal move.
        let p = pos("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
        let limits = Limits {
            mate: Some(2),
            ..Limits::default()
        };
        let r = searcher("seed003").search(&p, &[], &limits, &mut |_| {});
        assert!(p.is_legal(r.best.unwrap()));
        assert!(matches!(r.score, Score::Cp(_)), "{:?}", r.score);
        assert_eq!(r.depth, NO_MATE_FALLBACK_DEPTH);
        // With a depth limit the ordinary search keeps it.
        let limits = Limits {
            mate: Some(2),
            depth: Some(3),
            ..Limits::default()
        };
        let r = searcher("seed003").search(&p, &[], &limits, &mut |_| {});
        assert_eq!(r.depth, 3);
    }

    #[test]
    fn does_not_hang_the_queen() {
        // White queen on d4 attacked by the c5 pawn: it must move away (or be defended by
        // capture), never stay en prise at depth 2.
        let p = pos("4k3/8/8/2p5/3Q4/8/8/4K3 w - - 0 1");
        let r = searcher("material").search(&p, &[], &depth(2), &mut |_| {});
        let mut after = p.clone();
        after.play_unchecked(r.best.unwrap());
        let q = after.board().queens() & after.board().white();
        assert_eq!(q.count(), 1);
        let sq = q.first().unwrap();
        let attacked = after
            .board()
            .attacks_to(sq, Color::Black, after.board().occupied());
        assert!(
            attacked.is_empty() || uci(r.best) == "d4c5",
            "{}",
            uci(r.best)
        );
    }

    #[test]
    fn takes_free_material_with_quiescence() {
        // Depth 1 + quiescence: Rxd5 wins a rook; Qxd5?? is not needed.
        let p = pos("3qk3/8/8/3r4/8/8/3R4/3RK3 w - - 0 1");
        let r = searcher("material").search(&p, &[], &depth(1), &mut |_| {});
        assert_eq!(uci(r.best), "d2d5");
    }

    #[test]
    fn repetition_is_a_draw() {
        // White is a queen down. The position after Kf1 already occurred in the game
        // (history), so Kf1 repeats it: a draw, the best White can get.
        let p = pos("3qk3/8/8/8/8/8/8/4K3 w - - 10 40");
        let kf1 = "e1f1".parse::<UciMove>().unwrap().to_move(&p).unwrap();
        let mut after = p.clone();
        after.play_unchecked(kf1);
        // Game: ... Kf1-position (Black to move), two more plies, now White to move.
        let history = [hash::key(&after), 0x1111, 0x2222];
        let mut s = searcher("seed003");
        let r = s.search(&p, &history, &depth(5), &mut |_| {});
        assert_eq!(uci(r.best), "e1f1");
        assert_eq!(r.score, Score::Cp(0));
        // Without that history the queen-down score comes back.
        s.clear();
        let r = s.search(&p, &[], &depth(5), &mut |_| {});
        assert!(
            matches!(r.score, Score::Cp(cp) if cp < -700),
            "{:?}",
            r.score
        );
        // The window is the halfmove clock: nothing before the last irreversible move.
        s.keys.clear();
        s.keys.extend([hash::key(&after), hash::key(&p)]);
        assert!(s.is_repetition(hash::key(&after), 2));
        assert!(!s.is_repetition(hash::key(&after), 1));
    }

    #[test]
    fn no_legal_moves() {
        let stalemate = pos("8/8/8/8/8/6k1/6p1/6K1 w - - 0 1");
        let r = searcher("seed003").search(&stalemate, &[], &depth(1), &mut |_| {});
        assert_eq!((r.best, r.score), (None, Score::Cp(0)));
        let mated = pos("7k/7P/6K1/8/3B4/8/8/8 b - - 0 1");
        let r = searcher("seed003").search(&mated, &[], &depth(1), &mut |_| {});
        assert_eq!((r.best, r.score), (None, Score::Mate(0)));
    }

    #[test]
    fn stop_flag_and_node_limit_return_a_legal_move() {
        let p = Chess::default();
        let mut s = searcher("seed003");
        s.control.stop.store(true, Ordering::Relaxed);
        // Nodes are only checked every 1024 nodes for the flag: still a legal move.
        let r = s.search(&p, &[], &Limits::default(), &mut |_| {});
        assert!(p.is_legal(r.best.unwrap()));
        s.control.stop.store(false, Ordering::Relaxed);
        let limits = Limits {
            nodes: Some(5000),
            ..Limits::default()
        };
        let r = s.search(&p, &[], &limits, &mut |_| {});
        assert!(r.nodes <= 5000 + 1);
        assert!(p.is_legal(r.best.unwrap()));
    }

    #[test]
    fn zero_time_still_moves() {
        let p = pos(bench::POSITIONS[1]);
        let limits = Limits {
            clock: Some(Clock {
                time: Duration::from_millis(1),
                inc: Duration::ZERO,
                movestogo: None,
            }),
            ..Limits::default()
        };
        let r = searcher("seed003").search(&p, &[], &limits, &mut |_| {});
        assert!(p.is_legal(r.best.unwrap()));
    }

    #[test]
    fn multipv_reports_distinct_lines() {
        let mut s = searcher("seed003");
        s.set_multipv(3);
        let mut lines: Vec<Info> = Vec::new();
        s.search(&Chess::default(), &[], &depth(4), &mut |i| {
            lines.push(i.clone())
        });
        let last: Vec<&Info> = lines.iter().filter(|i| i.depth == 4).collect();
        assert_eq!(last.len(), 3);
        assert_eq!(
            last.iter().map(|i| i.multipv).collect::<Vec<_>>(),
            vec![1, 2, 3]
        );
        assert_ne!(last[0].pv[0], last[1].pv[0]);
        assert_ne!(last[1].pv[0], last[2].pv[0]);
    }

    #[test]
    fn pv_is_legal_and_info_is_filled() {
        let mut s = searcher("seed003");
        let mut infos: Vec<Info> = Vec::new();
        let p = pos(bench::POSITIONS[4]);
        let r = s.search(&p, &[], &depth(6), &mut |i| infos.push(i.clone()));
        assert_eq!(infos.len(), 6);
        let last = infos.last().unwrap();
        assert_eq!(last.pv[0], r.best.unwrap());
        let mut q = p.clone();
        for &m in &last.pv {
            assert!(q.is_legal(m));
            q.play_unchecked(m);
        }
        assert!(last.seldepth >= 6 && last.nodes > 0 && last.hashfull > 0);
    }

    #[test]
    fn qsearch_eval_resolves_captures() {
        let e = Evaluator::builtin("material").unwrap();
        // White to move wins the undefended rook: statically equal, a rook up after
        // captures.
        let p = pos("4k3/8/8/3r4/8/8/3R4/4K3 w - - 0 1");
        assert_eq!(e.evaluate(&p), 0);
        assert_eq!(qsearch_eval(&e, &p), 500);
        // With Black to move the rook on d2 is defended by the king: nothing to win.
        let p = pos("4k3/8/8/3r4/8/8/3R4/4K3 b - - 0 1");
        assert_eq!(qsearch_eval(&e, &p), 0);
        // Undefended: Black wins it (White's point of view).
        let p = pos("4k3/8/8/3r4/8/8/3R4/6K1 b - - 0 1");
        assert_eq!(qsearch_eval(&e, &p), -500);
        // Quiet position: equal to the static evaluation.
        let p = Chess::default();
        assert_eq!(qsearch_eval(&e, &p), e.evaluate(&p));
    }

    #[test]
    fn search_evaluations_match_term_function() {
        // Positions reached in search: walk PVs of the bench and compare evaluate()
        // against the sparse term function at every position along them.
        let e = Evaluator::builtin("seed003").unwrap();
        let mut tl = crate::eval::TermList::new();
        let mut s = searcher("seed003");
        let mut checked = 0;
        for fen in bench::POSITIONS.iter().take(20) {
            let p = pos(fen);
            let mut pv = Vec::new();
            s.search(&p, &[], &depth(4), &mut |i| pv = i.pv.clone());
            let mut q = p.clone();
            for m in pv {
                for reply in q.legal_moves() {
                    let mut c = q.clone();
                    c.play_unchecked(reply);
                    crate::eval::terms(&c, &mut tl);
                    assert_eq!(e.evaluate(&c), e.evaluate_terms(&tl));
                    checked += 1;
                }
                q.play_unchecked(m);
            }
        }
        assert!(checked > 500, "{checked}");
    }
}
