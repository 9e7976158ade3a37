//! Alpha-beta search for the UCI engine, split by concept as engines such as rustic and
//! viridithas are:
//!
//! - `searcher`: the [`Searcher`] (transposition table, ordering heuristics, limits,
//!   settings) and its evaluation hook, linear or NNUE (`nnue`: incremental accumulators).
//! - `root`: iterative deepening with aspiration windows and MultiPV, `go mate N` and
//!   Syzygy roots; [`root_moves`]: the root's moves (`searchmoves`) or its score without
//!   one, for the engine and every player.
//! - `alphabeta`: the principal variation search (negamax, fail-soft) with check
//!   extension, internal iterative reduction, reverse futility, null-move (`pruning`),
//!   late-move reductions, late-move, futility and SEE pruning, repetition / fifty-move /
//!   insufficient-material draws, mate-distance pruning and Syzygy WDL probes;
//!   `singular`: singular extensions (with multi-cut and a negative extension).
//! - `qsearch`: captures and promotions with SEE and delta pruning, all evasions in
//!   check; the tuner's [`Quiescence`].
//! - `ordering`: TT move, SEE-filtered MVV-LVA, killers, history and continuation
//!   history (`continuation`: its tables, aged by row). `correction`: the evaluator's learnt error by pawn structure. `pv`: the PV
//!   table.
//! - `smp`: Lazy SMP, helper threads sharing the transposition table.
//! - [`tt`] (Polyglot Zobrist keys from [`chessgraph_core::chess::hash`]), [`see`], [`time`], [`mod@bench`].
//! - [`mate`]: the separate full-width mate search (`chessgraph solve`); `go mate N` runs
//!   it first, because the pruning above can miss the quiet key of a composed problem.

mod alphabeta;
pub mod bench;
mod continuation;
mod correction;

pub mod mate;
mod nnue;
mod node;
mod ordering;
pub mod params;
mod probcut;
mod pruning;
mod pv;
mod qsearch;
mod root;
mod root_moves;
mod searcher;
pub mod see;
mod singular;
mod smp;
pub mod tablebase;
pub mod time;
pub mod tt;

pub use qsearch::{Quiescence, qsearch_eval, qsearch_leaf};
pub use root_moves::{NoMove, root_moves};
pub use searcher::Searcher;
pub use smp::MAX_THREADS;

use std::fmt;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use shakmaty::{Chess, Move, MoveList, Position, Role, Square};

pub use time::{Budget, Clock, Limits};

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
    /// Wakes a thread blocked in [`Control::wait_while`] after a flag changed.
    wake: Arc<(Mutex<()>, Condvar)>,
}

impl Control {
    /// Wakes threads waiting in [`Control::wait_while`]; call after changing a flag.
    pub fn notify(&self) {
        let (lock, cvar) = &*self.wake;
        // Taking the lock orders this wake-up after a waiter's check of the flags.
        drop(lock.lock().unwrap_or_else(|e| e.into_inner()));
        cvar.notify_all();
    }

    /// Blocks while `condition` holds, re-checking it after every [`Control::notify`].
    pub fn wait_while(&self, mut condition: impl FnMut(&Control) -> bool) {
        let (lock, cvar) = &*self.wake;
        let mut guard = lock.lock().unwrap_or_else(|e| e.into_inner());
        while condition(self) {
            guard = cvar.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
    }
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

/// The from and to squares of compact encoding `code` (see [`encode`]).
#[inline]
pub(super) fn code_squares(code: u16) -> (Square, Square) {
    (
        Square::new(u32::from(code & 63)),
        Square::new(u32::from((code >> 6) & 63)),
    )
}

/// The legal move of `pos` with compact encoding `code`.
pub fn decode(pos: &Chess, code: u16) -> Option<Move> {
    if code == 0 {
        return None;
    }
    decode_in(&pos.legal_moves(), code)
}

/// The move of `moves` with compact encoding `code` (0: none).
pub fn decode_in(moves: &MoveList, code: u16) -> Option<Move> {
    if code == 0 {
        return None;
    }
    moves.iter().copied().find(|&m| encode(m) == code)
}

#[cfg(test)]
mod tests;
