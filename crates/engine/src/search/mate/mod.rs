//! Full-width mate search: "the side to move mates in at most N moves against every
//! defence", for `dm N` problems and the UCI engine's `go mate N`.
//!
//! Composed problems have quiet key moves (no check, no capture, often a retreat or a
//! zugzwang waiting move) that the pruning of a normal alpha-beta search never looks at,
//! so this search is exact: every legal attacker move is tried at every attacker node and
//! every legal defence at every defender node. Speed comes only from things that cannot
//! lose a mate:
//!
//! - iterative deepening on the number of moves k = 1..N at the root, so the shortest
//!   mate is found (and root moves are reordered by how hard they were to refute);
//! - at the last attacker move only checking moves can mate, and they are recognized
//!   without playing them;
//! - at attacker nodes with k ≥ 2 a cheap mate-in-1 test runs first;
//! - a transposition table keyed by shakmaty's Zobrist hash storing proven bounds
//!   ("mates in ≤ k", "no mate in ≤ k" — both facts about the position, valid in any
//!   search) and the mating move or refutation for move ordering;
//! - at defender nodes the refutation is looked for first where it usually is: the
//!   stored refutation, killer refutations of the same ply, history, checks and captures.
//!
//! The 50-move rule and repetitions are ignored (a mate in N ≤ 50 is never affected).
//! The search polls its [`MateLimits`] (stop flag, deadline, node budget) every 1,024
//! nodes.
//!
//! Files: this one (limits, results, the searcher and its root iteration), `proof` (the
//! attacker and defender nodes, the table), `order` (move ordering, check detection
//! without playing the move), `tests`.

mod order;
mod proof;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use shakmaty::{Chess, Move, Position};

use chessgraph_core::chess::check::CheckInfo;
use order::{NO_MOVE, child_hash, position_hash, static_order_key, unpack};

/// The longest mate the search accepts (bounds stored in the table are `u8`).
pub const MAX_MATE_MOVES: u32 = chessgraph_core::data::puzzles::MAX_MATE_MOVES;

/// Default transposition table size in MiB.
pub const DEFAULT_TT_MB: usize = 32;

/// When the search has to stop before it has an answer.
#[derive(Clone, Debug, Default)]
pub struct MateLimits {
    /// Set (from another thread) to stop the search; polled every 1,024 nodes.
    pub stop: Option<Arc<AtomicBool>>,
    /// Wall-clock time at which the search stops.
    pub deadline: Option<Instant>,
    /// Node budget.
    pub nodes: Option<u64>,
}

impl MateLimits {
    /// No limit at all: the search runs until it has proven mate or no mate.
    pub fn none() -> MateLimits {
        MateLimits::default()
    }

    /// Stops after `time` of wall-clock time from now.
    pub fn movetime(time: std::time::Duration) -> MateLimits {
        MateLimits {
            deadline: Some(Instant::now() + time),
            ..MateLimits::default()
        }
    }
}

/// What a mate search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MateResult {
    /// The key: first move of the shortest mate found.
    pub best: Option<Move>,
    /// The side to move mates in this many of its moves (the shortest mate).
    pub mate_in: Option<u32>,
    /// A mating line: the key, the longest defence, the attacker's fastest reply, …
    /// Ends in checkmate unless the search was stopped while building it.
    pub pv: Vec<Move>,
    /// The largest k for which it is proven that there is no mate in k or fewer moves.
    pub no_mate_within: u32,
    /// Whether a limit stopped the search before it had an answer.
    pub stopped: bool,
    /// Positions visited.
    pub nodes: u64,
}

impl MateResult {
    /// Whether the search proved a mate.
    pub fn is_mate(&self) -> bool {
        self.mate_in.is_some()
    }
}

/// Mate search with a fresh table of [`DEFAULT_TT_MB`]: does the side to move of `pos`
/// mate in at most `n` moves? Finds the shortest mate.
pub fn mate_search(pos: &Chess, n: u32, limits: &MateLimits) -> MateResult {
    MateSearcher::new(DEFAULT_TT_MB).search(pos, n, limits)
}

/// Checks with a fresh table (nothing shared with the search that found `key`) that
/// playing `key` in `pos` mates in at most `n` moves against every defence.
/// `None` if a limit stopped the check, or if `key` is not legal in `pos`.
pub fn verify_mate(pos: &Chess, key: Move, n: u32, limits: &MateLimits) -> Option<bool> {
    if n == 0 || !pos.is_legal(key) {
        return None;
    }
    let mut searcher = MateSearcher::new(4);
    searcher.start(limits);
    let mut child = pos.clone();
    child.play_unchecked(key);
    let key_hash = position_hash(&child);
    let n = n.min(MAX_MATE_MOVES);
    searcher.ensure_plies(n);
    let mates = searcher.defender(&child, key_hash, n, 1);
    (!searcher.stopped).then_some(mates)
}

/// A mate searcher that keeps its transposition table between searches (its entries are
/// facts about positions, so they stay true for any later search).
pub struct MateSearcher {
    tt: Vec<TtEntry>,
    /// Off only in tests that check the table changes nothing but speed (not compiled
    /// into the engine).
    #[cfg(test)]
    use_tt: bool,
    /// Two killer moves per ply: mating moves at attacker plies, refutations at defender plies.
    killers: Vec<[u16; 2]>,
    /// History counters by side (0 attacker, 1 defender) and from*64+to.
    history: Vec<u32>,
    nodes: u64,
    stopped: bool,
    stop: Option<Arc<AtomicBool>>,
    deadline: Option<Instant>,
    max_nodes: u64,
}

/// One table entry. Bounds are in attacker moves; 0 means "nothing known".
#[derive(Clone, Copy, Default)]
struct TtEntry {
    key: u64,
    /// Attacker node: side to move mates in ≤ this. Defender node: side to move is
    /// mated within this many attacker moves (counting the one that led here).
    mate_le: u8,
    /// The same statement is proven false for every bound ≤ this.
    no_mate_le: u8,
    /// Mating move (attacker) or refutation (defender), packed; 0 if none.
    mv: u16,
}

/// Defender nodes are stored under `hash ^ DEFENDER_SALT` so that a position can be an
/// attacker node in one search and a defender node in another without mixing facts.
const DEFENDER_SALT: u64 = 0x9e37_79b9_7f4a_7c15;

const ATTACKER: usize = 0;
const DEFENDER: usize = 1;

impl MateSearcher {
    /// A searcher with a transposition table of about `tt_mb` MiB (at least 1).
    pub fn new(tt_mb: usize) -> MateSearcher {
        let entries = (tt_mb.max(1) << 20) / std::mem::size_of::<TtEntry>();
        let entries = 1usize << (usize::BITS - 1 - entries.leading_zeros());
        MateSearcher {
            tt: vec![TtEntry::default(); entries],
            #[cfg(test)]
            use_tt: true,
            killers: Vec::new(),
            history: vec![0; 2 * 64 * 64],
            nodes: 0,
            stopped: false,
            stop: None,
            deadline: None,
            max_nodes: u64::MAX,
        }
    }

    /// Forgets everything learnt: table, killers, history.
    pub fn clear(&mut self) {
        self.tt.fill(TtEntry::default());
        self.killers.clear();
        self.history.fill(0);
    }

    /// Does the side to move of `pos` mate in at most `n` moves (`n` is capped at
    /// [`MAX_MATE_MOVES`])? Returns the shortest mate found, or how far the absence of
    /// a mate was proven.
    pub fn search(&mut self, pos: &Chess, n: u32, limits: &MateLimits) -> MateResult {
        self.start(limits);
        let n = n.min(MAX_MATE_MOVES);
        self.ensure_plies(n);
        self.history.fill(0);
        let mut result = MateResult {
            best: None,
            mate_in: None,
            pv: Vec::new(),
            no_mate_within: 0,
            stopped: false,
            nodes: 0,
        };
        let root_hash = position_hash(pos);
        let moves = pos.legal_moves();
        if moves.is_empty() {
            // Checkmated or stalemated: no mate at any depth.
            result.no_mate_within = n;
            return result;
        }
        if self.poll_now() {
            result.stopped = true;
            return result;
        }
        // Root moves with the nodes their refutation cost in the last iteration: a move
        // that was hard to refute is tried earlier in the next one.
        let info = CheckInfo::new(pos);
        let mut root: Vec<(Move, u64)> = moves
            .iter()
            .map(|&m| (m, static_order_key(pos, &info, m)))
            .collect();
        root.sort_by_key(|&(_, s)| std::cmp::Reverse(s));
        let mut found = None;
        'deepening: for k in 1..=n {
            if k == 1 {
                if let Some(m) = self.mate_in_1(pos, &moves, 0) {
                    found = Some((m, 1));
                    break;
                }
            } else {
                if let Some(tt_move) = self.probe(root_hash).and_then(|e| unpack(&moves, e.mv))
                    && let Some(i) = root.iter().position(|&(m, _)| m == tt_move)
                {
                    root[..=i].rotate_right(1);
                }
                for entry in root.iter_mut() {
                    let before = self.nodes;
                    let mut child = pos.clone();
                    child.play_unchecked(entry.0);
                    let child_hash = child_hash(pos, root_hash, entry.0, &child);
                    let mates = self.defender(&child, child_hash, k, 1);
                    if self.stopped {
                        break 'deepening;
                    }
                    entry.1 = self.nodes - before;
                    if mates {
                        found = Some((entry.0, k));
                        self.store(root_hash, k, true, entry.0);
                        break 'deepening;
                    }
                }
                self.store(root_hash, k, false, NO_MOVE);
                root.sort_by_key(|&(_, spent)| std::cmp::Reverse(spent));
            }
            result.no_mate_within = k;
        }
        result.stopped = self.stopped;
        if let Some((m, k)) = found {
            result.best = Some(m);
            result.mate_in = Some(k);
            result.no_mate_within = k - 1;
            result.pv = self.principal_variation(pos, m, k);
        }
        result.nodes = self.nodes;
        result
    }
}
