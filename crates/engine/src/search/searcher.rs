//! The [`Searcher`]: its state (transposition table, ordering heuristics, limits) and
//! the settings the engine changes between searches.

use super::tablebase::Tablebases;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use shakmaty::{Chess, Color, Move, Position};

use super::continuation::ContinuationHistory;
use super::correction::CorrectionHistory;
use super::mate::MateSearcher;
use super::nnue;
use super::ordering::piece_square;
use super::params::{lmr_base, lmr_divisor};
use super::time::Budget;
use super::tt::{HashTooLarge, TranspositionTable};
use super::{Control, Limits, MAX_PLY, Score};
use crate::eval::Evaluator;

/// The search. Owns the transposition table and the ordering heuristics; reuse it across
/// the moves of a game.
pub struct Searcher {
    pub(super) evaluator: Arc<Evaluator>,
    /// Incremental accumulators when the evaluator is a network.
    pub(super) nnue: Option<nnue::NnueState>,
    /// Shared with the helper threads of a Lazy SMP search.
    pub(super) tt: Arc<TranspositionTable>,
    /// The helper threads' searchers (`Threads` − 1), each with its own heuristics and
    /// accumulators, kept across searches (see `smp`).
    pub(super) helpers: Vec<Searcher>,
    /// Stops the helpers (set when this, the main thread's, search ends).
    pub(super) helper_stop: Arc<AtomicBool>,
    /// Nodes of every thread of the current search, each publishing per 1024 nodes (the
    /// main thread's table; the helpers hold a handle to it).
    pub(super) shared_nodes: Arc<AtomicU64>,
    /// True while this thread searches with others: it publishes its nodes and checks the
    /// node limit against the total.
    pub(super) publishing: bool,
    /// Depth of the first iteration (1; 2 in the odd helpers).
    pub(super) first_depth: u32,
    /// Full-width mate search for `go mate N`, created on first use. Its table holds
    /// proven facts about positions, so it is kept across searches and games.
    pub(super) mate: Option<Box<MateSearcher>>,
    pub(super) tablebase: Option<Arc<Tablebases>>,
    pub(super) control: Control,
    pub(super) multipv: usize,
    pub(super) overhead: Duration,
    // Per-search state.
    pub(super) keys: Vec<u64>,
    pub(super) killers: Vec<[u16; 2]>,
    /// The static evaluation of each ply on the current path (−`INF` in check), for the
    /// `improving` test.
    pub(super) evals: Vec<i32>,
    /// The move a singular-extension search at each ply leaves out (0: none).
    pub(super) excluded: Vec<u16>,
    pub(super) history: Vec<i32>,
    /// Continuation history: a quiet move's (piece, square) after the move one ply
    /// before (first table) and two plies before (second), see `continuation` and `ordering`.
    pub(super) continuation: ContinuationHistory,
    /// The (piece, square) index + 1 of the move played at each ply of the current path
    /// (0: a null move), the continuation history's context.
    pub(super) moved: Vec<u16>,
    /// The evaluator's learnt error by pawn structure.
    pub(super) correction: CorrectionHistory,
    pub(super) pv: Vec<[u16; MAX_PLY]>,
    pub(super) pv_len: [usize; MAX_PLY + 1],
    pub(super) lmr: Vec<[u8; 64]>,
    pub(super) nodes: u64,
    pub(super) tbhits: u64,
    pub(super) seldepth: usize,
    pub(super) start: Instant,
    pub(super) budget: Budget,
    pub(super) node_limit: u64,
    pub(super) pondering: bool,
    pub(super) stopped: bool,
}

impl Searcher {
    /// A searcher with a `hash_mib` MiB transposition table.
    pub fn new(evaluator: Arc<Evaluator>, hash_mib: usize) -> Searcher {
        Searcher::with_table(evaluator, TranspositionTable::new(hash_mib))
    }

    /// A searcher with a `hash_mib` MiB transposition table, or an error when the memory
    /// cannot be allocated (for sizes chosen by a user).
    pub fn try_new(evaluator: Arc<Evaluator>, hash_mib: usize) -> Result<Searcher, HashTooLarge> {
        Ok(Searcher::with_table(
            evaluator,
            TranspositionTable::try_new(hash_mib)?,
        ))
    }

    pub(super) fn with_table(evaluator: Arc<Evaluator>, tt: TranspositionTable) -> Searcher {
        let lmr = lmr_table();
        Searcher {
            nnue: evaluator.network().cloned().map(nnue::NnueState::new),
            evaluator,
            tt: Arc::new(tt),
            helpers: Vec::new(),
            helper_stop: Arc::new(AtomicBool::new(false)),
            shared_nodes: Arc::new(AtomicU64::new(0)),
            publishing: false,
            first_depth: 1,
            mate: None,
            tablebase: None,
            control: Control::default(),
            multipv: 1,
            overhead: Duration::from_millis(20),
            keys: Vec::with_capacity(1024),
            killers: vec![[0; 2]; MAX_PLY + 2],
            evals: vec![0; MAX_PLY + 2],
            excluded: vec![0; MAX_PLY + 2],
            history: vec![0; 2 * 64 * 64],
            continuation: ContinuationHistory::new(),
            moved: vec![0; MAX_PLY + 2],
            correction: CorrectionHistory::new(),
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
        for h in &mut self.helpers {
            h.nnue = evaluator.network().cloned().map(nnue::NnueState::new);
            h.evaluator = evaluator.clone();
        }
        self.evaluator = evaluator;
        self.tt.clear();
    }

    /// Resizes (and clears) the transposition table; if `mib` MiB cannot be allocated it
    /// falls back to 16 MiB and returns the error.
    pub fn set_hash(&mut self, mib: usize) -> Result<(), HashTooLarge> {
        // Free the old table first so that both need not fit at once (the helpers take
        // their handle from this one at each search).
        self.tt = Arc::new(TranspositionTable::tiny());
        for h in &mut self.helpers {
            h.tt = self.tt.clone();
        }
        match TranspositionTable::try_new(mib) {
            Ok(tt) => {
                self.tt = Arc::new(tt);
                Ok(())
            }
            Err(e) => {
                self.tt = Arc::new(TranspositionTable::new(16));
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
    pub fn set_tablebase(&mut self, tablebase: Option<Arc<Tablebases>>) {
        self.tablebase = tablebase;
    }

    /// Forgets everything learned (new game).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.clear_heuristics();
        for h in &mut self.helpers {
            h.clear_heuristics();
        }
    }

    fn clear_heuristics(&mut self) {
        self.history.fill(0);
        self.continuation.clear();
        self.correction.clear();
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
    pub(super) fn evaluate(&mut self, pos: &Chess, ply: usize) -> i32 {
        if let Some(nnue) = &mut self.nnue {
            return nnue
                .evaluate(pos, ply)
                .clamp(-crate::eval::EVAL_LIMIT, crate::eval::EVAL_LIMIT);
        }
        let v = self.evaluator.evaluate(pos);
        if pos.turn() == Color::White { v } else { -v }
    }

    /// The tree about to be searched starts at `root` (ply 0).
    pub(super) fn set_root(&mut self, root: &Chess) {
        if let Some(nnue) = &mut self.nnue {
            nnue.set_root(root);
        }
    }

    /// `m` (or a null move) is played at ply `ply` from `pos`.
    #[inline]
    pub(super) fn made(&mut self, pos: &Chess, ply: usize, m: Option<Move>) {
        self.moved[ply] = match m {
            Some(m) => {
                let ps = piece_square(pos.turn(), m.role(), m.to());
                self.continuation.touch(ps as usize);
                ps + 1
            }
            None => 0,
        };
        if let Some(nnue) = &mut self.nnue {
            nnue.make(ply, pos.turn(), m);
        }
    }

    /// Sets `stopped` when a limit is reached: nodes (of every thread), `stop`, the hard
    /// time limit (from `ponderhit` on when pondering). Polls the flags every 1024 nodes.
    #[inline]
    pub(super) fn check_limits(&mut self) {
        if self.nodes >= self.node_limit {
            self.stopped = true;
            return;
        }
        if self.nodes & 1023 != 0 {
            return;
        }
        if self.publishing
            && self.shared_nodes.fetch_add(1024, Ordering::Relaxed) + 1024 >= self.node_limit
        {
            // `go nodes N` counts the nodes of every thread.
            self.stopped = true;
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
}

/// Whether something besides `mate` ends the search: depth, nodes, time or `infinite`.
pub(super) fn bounded(limits: &Limits) -> bool {
    limits.depth.is_some()
        || limits.nodes.is_some()
        || limits.soft_nodes.is_some()
        || limits.movetime.is_some()
        || limits.clock.is_some()
        || limits.infinite
}

/// The late-move reduction of the `m`-th move at depth `d`, by [`lmr_base`] and
/// [`lmr_divisor`] (rebuilt at every search in a `tune` build, where they change).
pub(super) fn lmr_table() -> Vec<[u8; 64]> {
    let mut lmr = vec![[0u8; 64]; 64];
    for (d, row) in lmr.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            // Both constants are in hundredths (0.75 and 2.25, exact in binary).
            *r = (f64::from(lmr_base()) / 100.0
                + (d as f64).ln() * (m as f64).ln() / (f64::from(lmr_divisor()) / 100.0))
                as u8;
        }
    }
    lmr
}
