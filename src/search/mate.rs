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

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::ordering::{MAX_MOVES, pick_best};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Bitboard, Chess, Color, EnPassantMode, Move, MoveList, Position, Role, attacks};

/// The longest mate the search accepts (bounds stored in the table are `u8`).
pub const MAX_MATE_MOVES: u32 = 100;

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
    let key_hash = hash(&child);
    let n = n.min(MAX_MATE_MOVES);
    searcher.ensure_plies(n);
    let mates = searcher.defender(&child, key_hash, n, 1);
    (!searcher.stopped).then_some(mates)
}

/// A mate searcher that keeps its transposition table between searches (its entries are
/// facts about positions, so they stay true for any later search).
pub struct MateSearcher {
    tt: Vec<TtEntry>,
    /// Off only in tests that check the table changes nothing but speed.
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
        let root_hash = hash(pos);
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

    fn start(&mut self, limits: &MateLimits) {
        self.nodes = 0;
        self.stopped = false;
        self.stop = limits.stop.clone();
        self.deadline = limits.deadline;
        self.max_nodes = limits.nodes.unwrap_or(u64::MAX);
    }

    fn ensure_plies(&mut self, n: u32) {
        let plies = 2 * n as usize + 2;
        if self.killers.len() < plies {
            self.killers.resize(plies, [0; 2]);
        }
    }

    /// Counts a node; true if the search must stop now.
    #[inline]
    fn count_node(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            self.poll_now();
        }
        self.stopped
    }

    fn poll_now(&mut self) -> bool {
        if self.nodes >= self.max_nodes
            || self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.stopped = true;
        }
        self.stopped
    }

    fn probe(&self, hash: u64) -> Option<TtEntry> {
        if !self.use_tt {
            return None;
        }
        let e = self.tt[hash as usize & (self.tt.len() - 1)];
        (e.key == hash).then_some(e)
    }

    /// Records "mates in ≤ k" (`proven`) or "no mate in ≤ k" for the node `hash`.
    fn store(&mut self, hash: u64, k: u32, proven: bool, mv: Move) {
        if !self.use_tt {
            return;
        }
        let k = k as u8;
        let index = hash as usize & (self.tt.len() - 1);
        let slot = &mut self.tt[index];
        if slot.key != hash {
            *slot = TtEntry {
                key: hash,
                ..TtEntry::default()
            };
        }
        if proven {
            if slot.mate_le == 0 || k < slot.mate_le {
                slot.mate_le = k;
            }
        } else {
            slot.no_mate_le = slot.no_mate_le.max(k);
        }
        let packed = pack(mv);
        if packed != 0 {
            slot.mv = packed;
        }
    }

    /// A checking move that mates at once, if any (`moves` are the legal moves of `pos`).
    fn mate_in_1(&mut self, pos: &Chess, moves: &MoveList, ply: usize) -> Option<Move> {
        let info = CheckInfo::new(pos);
        let killers = self.killers[ply];
        // Killer mates first: the same mating move often works after different defences.
        for killer in killers {
            if killer == 0 {
                continue;
            }
            if let Some(m) = unpack(moves, killer)
                && info.gives_check(pos, m)
                && self.is_mate_after(pos, m)
            {
                return Some(m);
            }
            if self.stopped {
                return None;
            }
        }
        for &m in moves {
            let packed = pack(m);
            if packed == killers[0] || packed == killers[1] || !info.gives_check(pos, m) {
                continue;
            }
            if self.is_mate_after(pos, m) {
                self.add_killer(ply, m);
                return Some(m);
            }
            if self.stopped {
                return None;
            }
        }
        None
    }

    fn is_mate_after(&mut self, pos: &Chess, m: Move) -> bool {
        if self.count_node() {
            return false;
        }
        let mut child = pos.clone();
        child.play_unchecked(m);
        // `m` gives check, so only evasions are generated.
        child.legal_moves().is_empty()
    }

    /// Attacker to move: is there a mate in ≤ k?
    fn attacker(&mut self, pos: &Chess, hash: u64, k: u32, ply: usize) -> bool {
        let moves = pos.legal_moves();
        if k == 1 {
            return self.mate_in_1(pos, &moves, ply).is_some();
        }
        if self.count_node() {
            return false;
        }
        let entry = self.probe(hash);
        if let Some(e) = entry {
            if e.mate_le != 0 && u32::from(e.mate_le) <= k {
                return true;
            }
            if u32::from(e.no_mate_le) >= k {
                return false;
            }
        }
        if moves.is_empty() {
            self.store(hash, MAX_MATE_MOVES, false, NO_MOVE);
            return false;
        }
        if entry.is_none_or(|e| e.no_mate_le == 0) {
            if let Some(m) = self.mate_in_1(pos, &moves, ply) {
                self.store(hash, 1, true, m);
                return true;
            }
            if self.stopped {
                return false;
            }
            self.store(hash, 1, false, NO_MOVE);
        }
        let mut moves = moves;
        let mut scores = self.order(pos, &moves, entry, ply, ATTACKER);
        for i in 0..moves.len() {
            let m = pick_best(&mut moves, &mut scores, i);
            let mut child = pos.clone();
            child.play_unchecked(m);
            let ch = child_hash(pos, hash, m, &child);
            if self.defender(&child, ch, k, ply + 1) {
                self.store(hash, k, true, m);
                self.add_killer(ply, m);
                self.add_history(ATTACKER, m, k);
                return true;
            }
            if self.stopped {
                return false;
            }
        }
        self.store(hash, k, false, NO_MOVE);
        false
    }

    /// Defender to move, after an attacker move that was to mate within k: is the
    /// defender mated within the attacker's remaining k - 1 moves against every defence?
    fn defender(&mut self, pos: &Chess, hash: u64, k: u32, ply: usize) -> bool {
        if self.count_node() {
            return false;
        }
        let replies = pos.legal_moves();
        if replies.is_empty() {
            return pos.is_check();
        }
        if k == 1 {
            return false;
        }
        let dhash = hash ^ DEFENDER_SALT;
        let entry = self.probe(dhash);
        if let Some(e) = entry {
            if e.mate_le != 0 && u32::from(e.mate_le) <= k {
                return true;
            }
            if u32::from(e.no_mate_le) >= k {
                return false;
            }
        }
        let mut replies = replies;
        let mut scores = self.order(pos, &replies, entry, ply, DEFENDER);
        for i in 0..replies.len() {
            let r = pick_best(&mut replies, &mut scores, i);
            let mut child = pos.clone();
            child.play_unchecked(r);
            // The mate-in-1 test at k - 1 == 1 needs no hash.
            let ch = if k > 2 {
                child_hash(pos, hash, r, &child)
            } else {
                0
            };
            let mated = self.attacker(&child, ch, k - 1, ply + 1);
            if self.stopped {
                return false;
            }
            if !mated {
                self.store(dhash, k, false, r);
                self.add_killer(ply, r);
                self.add_history(DEFENDER, r, k);
                return false;
            }
        }
        self.store(dhash, k, true, NO_MOVE);
        true
    }

    /// The mating line after the key `key` (mate in `k`): each defence is the one that
    /// postpones mate longest, each attacker move a fastest mate.
    fn principal_variation(&mut self, pos: &Chess, key: Move, k: u32) -> Vec<Move> {
        let mut line = vec![key];
        let mut pos = pos.clone();
        pos.play_unchecked(key);
        let mut left = k - 1;
        while left > 0 && !self.stopped {
            // Longest defence: the reply after which the fastest mate is slowest.
            let mut best_reply: Option<(Move, u32)> = None;
            for r in pos.legal_moves() {
                let mut child = pos.clone();
                child.play_unchecked(r);
                let h = hash(&child);
                let Some(j) = (1..=left).find(|&j| self.attacker(&child, h, j, 0)) else {
                    // Cannot happen after a proven mate unless the search was stopped.
                    return line;
                };
                if self.stopped {
                    return line;
                }
                if best_reply.is_none_or(|(_, bj)| j > bj) {
                    best_reply = Some((r, j));
                }
            }
            let Some((reply, j)) = best_reply else {
                break;
            };
            line.push(reply);
            pos.play_unchecked(reply);
            // A fastest mating move: mate in j.
            let mut next = None;
            for m in pos.legal_moves() {
                let mut child = pos.clone();
                child.play_unchecked(m);
                let h = hash(&child);
                if self.defender(&child, h, j, 1) {
                    next = Some(m);
                    break;
                }
                if self.stopped {
                    return line;
                }
            }
            let Some(m) = next else {
                return line;
            };
            line.push(m);
            pos.play_unchecked(m);
            left = j - 1;
        }
        line
    }

    fn add_killer(&mut self, ply: usize, m: Move) {
        let packed = pack(m);
        let slot = &mut self.killers[ply];
        if slot[0] != packed {
            slot[1] = slot[0];
            slot[0] = packed;
        }
    }

    fn history_index(side: usize, m: Move) -> usize {
        let from = m.from().map_or(0, usize::from);
        side * 4096 + from * 64 + usize::from(m.to())
    }

    fn add_history(&mut self, side: usize, m: Move, k: u32) {
        let h = &mut self.history[Self::history_index(side, m)];
        *h = (*h + k * k).min(HISTORY_MAX);
    }

    /// Move-ordering scores for `side`'s moves: hash move, killers, then the side's
    /// static heuristic plus history.
    fn order(
        &self,
        pos: &Chess,
        moves: &MoveList,
        entry: Option<TtEntry>,
        ply: usize,
        side: usize,
    ) -> [u32; MAX_MOVES] {
        let info = CheckInfo::new(pos);
        let tt_move = entry.map_or(0, |e| e.mv);
        let killers = self.killers[ply];
        let heuristic = if side == ATTACKER {
            attacker_score
        } else {
            defender_score
        };
        let mut scores = [0u32; MAX_MOVES];
        for (slot, &m) in scores.iter_mut().zip(moves.iter()) {
            let packed = pack(m);
            *slot = if packed == tt_move {
                TT_SCORE
            } else if packed == killers[0] {
                KILLER_SCORE
            } else if packed == killers[1] {
                KILLER_SCORE - 1
            } else {
                heuristic(pos, &info, m) + self.history_score(side, m)
            };
        }
        scores
    }

    fn history_score(&self, side: usize, m: Move) -> u32 {
        self.history[Self::history_index(side, m)]
    }
}

const TT_SCORE: u32 = 1 << 30;
const KILLER_SCORE: u32 = 1 << 29;
const CHECK_SCORE: u32 = 1 << 27;
const CAPTURE_SCORE: u32 = 1 << 26;
const KING_MOVE_SCORE: u32 = 1 << 25;
const HISTORY_MAX: u32 = (1 << 24) - 1;

/// A placeholder for "no move" in [`MateSearcher::store`]; packs to 0.
const NO_MOVE: Move = Move::Put {
    role: Role::Pawn,
    to: shakmaty::Square::A1,
};

fn value(role: Role) -> u32 {
    match role {
        Role::Pawn => 1,
        Role::Knight | Role::Bishop => 3,
        Role::Rook => 5,
        Role::Queen => 9,
        Role::King => 0,
    }
}

/// Attacker ordering: checks, then captures and promotions (most valuable victim
/// first), then quiet moves (by history).
fn attacker_score(pos: &Chess, info: &CheckInfo, m: Move) -> u32 {
    let gain = m.capture().map_or(0, value) + m.promotion().map_or(0, value);
    if info.gives_check(pos, m) {
        CHECK_SCORE + gain * 16
    } else if gain > 0 {
        CAPTURE_SCORE + gain * 16 - value(m.role())
    } else {
        0
    }
}

/// Defender ordering (looking for a refutation): checks against the attacker's king,
/// captures of attacking pieces, king moves (flight squares), then the rest by history.
fn defender_score(pos: &Chess, info: &CheckInfo, m: Move) -> u32 {
    let gain = m.capture().map_or(0, value) + m.promotion().map_or(0, value);
    if info.gives_check(pos, m) {
        CHECK_SCORE + gain * 16
    } else if gain > 0 {
        CAPTURE_SCORE + gain * 16
    } else if m.role() == Role::King {
        KING_MOVE_SCORE
    } else {
        0
    }
}

/// Root ordering before the first iteration: as [`attacker_score`].
fn static_order_key(pos: &Chess, info: &CheckInfo, m: Move) -> u64 {
    u64::from(attacker_score(pos, info, m))
}

/// Zobrist hash of a position (en passant square only when a capture is legal).
fn hash(pos: &Chess) -> u64 {
    let h: Zobrist64 = pos.zobrist_hash(EnPassantMode::Legal);
    h.0
}

/// Hash of `child` = `parent` after `m`, incrementally when shakmaty can.
fn child_hash(parent: &Chess, parent_hash: u64, m: Move, child: &Chess) -> u64 {
    match parent.update_zobrist_hash(Zobrist64(parent_hash), m, EnPassantMode::Legal) {
        Some(h) => h.0,
        None => hash(child),
    }
}

/// Packs a move into 16 bits (from, to, promotion or castling marker); 0 for drops.
fn pack(m: Move) -> u16 {
    match m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => {
            u16::from(from) | u16::from(to) << 6 | u16::from(promotion.map_or(0, |r| r as u8)) << 12
        }
        Move::EnPassant { from, to } => u16::from(from) | u16::from(to) << 6,
        Move::Castle { king, rook } => u16::from(king) | u16::from(rook) << 6 | 7 << 12,
        Move::Put { .. } => 0,
    }
}

/// The legal move of `moves` that packs to `packed`.
fn unpack(moves: &MoveList, packed: u16) -> Option<Move> {
    if packed == 0 {
        return None;
    }
    moves.iter().copied().find(|&m| pack(m) == packed)
}

/// What it takes to tell whether a move of the side to move gives check, without
/// playing it: the enemy king, our pieces whose moving off a line discovers a check.
struct CheckInfo {
    us: Color,
    king: Option<shakmaty::Square>,
    occupied: Bitboard,
    discoverers: Bitboard,
}

impl CheckInfo {
    fn new(pos: &Chess) -> CheckInfo {
        let board = pos.board();
        let us = pos.turn();
        let ours = board.by_color(us);
        let occupied = board.occupied();
        let king = board.king_of(!us);
        let mut discoverers = Bitboard::EMPTY;
        if let Some(ksq) = king {
            let snipers = ((attacks::rook_attacks(ksq, Bitboard::EMPTY)
                & board.rooks_and_queens())
                | (attacks::bishop_attacks(ksq, Bitboard::EMPTY) & board.bishops_and_queens()))
                & ours;
            for sniper in snipers {
                let between = attacks::between(ksq, sniper) & occupied;
                if between.any() && !between.more_than_one() && between.is_subset(ours) {
                    discoverers |= between;
                }
            }
        }
        CheckInfo {
            us,
            king,
            occupied,
            discoverers,
        }
    }

    /// Whether the legal move `m` gives check.
    fn gives_check(&self, pos: &Chess, m: Move) -> bool {
        let Some(ksq) = self.king else {
            return false;
        };
        match m {
            Move::Normal {
                role,
                from,
                to,
                promotion,
                ..
            } => {
                if self.discoverers.contains(from) && !attacks::aligned(from, to, ksq) {
                    return true;
                }
                let occupied = self.occupied.without(from).with(to);
                attacks::attacks(to, promotion.unwrap_or(role).of(self.us), occupied).contains(ksq)
            }
            // Rare: en passant (two pieces leave) and castling (the rook checks).
            _ => {
                let mut child = pos.clone();
                child.play_unchecked(m);
                child.is_check()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;
    use shakmaty::san::San;

    fn pos(fen: &str) -> Chess {
        Fen::from_ascii(fen.as_bytes())
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    fn san(p: &Chess, m: Move) -> String {
        San::from_move(p, m).to_string()
    }

    /// Independent brute force (no table, no ordering, no check filter): does the side
    /// to move mate in at most `n`?
    fn bf_mates(p: &Chess, n: u32) -> bool {
        p.legal_moves().into_iter().any(|m| {
            let mut c = p.clone();
            c.play_unchecked(m);
            bf_mated(&c, n)
        })
    }

    /// Brute force: is the side to move mated within `n` moves of the opponent (the
    /// opponent's move that led here counts as the first)?
    fn bf_mated(p: &Chess, n: u32) -> bool {
        if p.is_checkmate() {
            return true;
        }
        if n == 1 || p.is_stalemate() {
            return false;
        }
        p.legal_moves().into_iter().all(|r| {
            let mut c = p.clone();
            c.play_unchecked(r);
            bf_mates(&c, n - 1)
        })
    }

    /// Checks a result against the brute force: the key mates in k, nothing mates in
    /// k - 1, and with no mate found, nothing mates in n.
    fn check_exact(p: &Chess, n: u32, r: &MateResult) {
        let fen = Fen::from_position(p, EnPassantMode::Legal);
        assert!(!r.stopped);
        match (r.best, r.mate_in) {
            (Some(key), Some(k)) => {
                let mut c = p.clone();
                c.play_unchecked(key);
                assert!(
                    bf_mated(&c, k),
                    "{fen}: key {} does not mate in {k}",
                    san(p, key)
                );
                assert!(
                    k == 1 || !bf_mates(p, k - 1),
                    "{fen}: a mate shorter than {k} exists"
                );
                assert_eq!(r.no_mate_within, k - 1);
                assert_eq!(r.pv.len() as u32, 2 * k - 1, "{fen}: pv {:?}", r.pv);
                let mut end = p.clone();
                for &m in &r.pv {
                    end = end.play(m).expect("pv move is legal");
                }
                assert!(end.is_checkmate(), "{fen}: pv does not end in mate");
            }
            (None, None) => {
                assert!(!bf_mates(p, n), "{fen}: missed a mate in {n}");
                assert_eq!(r.no_mate_within, n);
            }
            other => panic!("{fen}: inconsistent result {other:?}"),
        }
    }

    #[test]
    fn mate_in_1_back_rank() {
        let p = pos("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1");
        let r = mate_search(&p, 1, &MateLimits::none());
        assert_eq!(r.best.map(|m| san(&p, m)).as_deref(), Some("Ra8"));
        assert_eq!(r.mate_in, Some(1));
        check_exact(&p, 1, &r);
    }

    #[test]
    fn mate_in_2_with_quiet_key() {
        // baird-0: 1. Nd6! (no check, no capture) and mate next move.
        let p = pos("3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - 0 1");
        let r = mate_search(&p, 2, &MateLimits::none());
        assert_eq!(r.best.map(|m| san(&p, m)).as_deref(), Some("Nd6"));
        assert_eq!(r.mate_in, Some(2));
        check_exact(&p, 2, &r);
        // Not a mate in 1.
        let r1 = mate_search(&p, 1, &MateLimits::none());
        assert_eq!((r1.best, r1.no_mate_within), (None, 1));
    }

    #[test]
    fn mate_in_3_with_quiet_key() {
        // dawson-31: 1. Rh2! (quiet).
        let p = pos("k7/P1R1K3/4P3/8/p3p3/1p1pPp1p/1R6/8 w - - 0 1");
        let r = mate_search(&p, 3, &MateLimits::none());
        assert_eq!(r.mate_in, Some(3));
        let key = r.best.unwrap();
        assert!(!key.is_capture());
        let mut c = p.clone();
        c.play_unchecked(key);
        assert!(!c.is_check());
        assert_eq!(verify_mate(&p, key, 3, &MateLimits::none()), Some(true));
        check_exact(&p, 3, &r);
    }

    #[test]
    fn stalemate_is_not_mate() {
        // 8 of White's 13 moves stalemate the caged king; there is no mate in 2, only in 3.
        let p = pos("7k/5K2/6P1/8/8/8/8/3B4 w - - 0 1");
        let r2 = mate_search(&p, 2, &MateLimits::none());
        assert_eq!((r2.best, r2.mate_in, r2.no_mate_within), (None, None, 2));
        check_exact(&p, 2, &r2);
        let r3 = mate_search(&p, 3, &MateLimits::none());
        assert_eq!(r3.mate_in, Some(3));
        check_exact(&p, 3, &r3);
    }

    #[test]
    fn no_mate_returns_none() {
        let r = mate_search(&Chess::default(), 2, &MateLimits::none());
        assert_eq!((r.best, r.mate_in, r.no_mate_within), (None, None, 2));
        assert!(!r.stopped);
        // King and rook against king, far from a mate in 3.
        let p = pos("8/8/3k4/8/8/8/8/R3K3 w - - 0 1");
        let r = mate_search(&p, 3, &MateLimits::none());
        assert_eq!(r.mate_in, None);
        check_exact(&p, 3, &r);
        // Checkmated and stalemated sides have nothing.
        let mated = pos("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1");
        assert_eq!(mate_search(&mated, 3, &MateLimits::none()).mate_in, None);
    }

    #[test]
    fn finds_the_shortest_mate() {
        // Mate in 1 exists (Qg7#), so n = 4 must report 1.
        let p = pos("7k/5K2/8/6Q1/8/8/8/8 w - - 0 1");
        let r = mate_search(&p, 4, &MateLimits::none());
        assert_eq!(r.mate_in, Some(1));
        check_exact(&p, 4, &r);
    }

    #[test]
    fn black_to_move_and_special_moves() {
        // Black mates: castling gives the mate (O-O-O with the rook checking on d1... here
        // d8 for Black) is among the candidates; en passant is legal in the position.
        let p = pos("r3k3/8/8/8/4pP2/8/8/3K4 b q f3 0 1");
        let r = mate_search(&p, 2, &MateLimits::none());
        check_exact(&p, 2, &r);
    }

    /// Random positions near composed problems and game puzzles: the search agrees with
    /// the brute force for n = 1 and 2.
    #[test]
    fn agrees_with_brute_force() {
        let seeds = [
            "3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - 0 1",
            "7B/8/1K6/4bPp1/3k1NpQ/4p3/1P1N1P1p/3R4 w - - 0 1",
            "4RQ1N/2p1r1p1/2P2b2/1P2k1PR/1P6/3P2P1/B6N/3K4 w - - 0 1",
            "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1",
            "1rb4r/pkPp3p/1b1P3n/1Q6/N3Pp2/8/P1P3PP/7K w - - 1 1",
            "4kb1r/p2n1ppp/4q3/4p1B1/4P3/1Q6/PPP2PPP/2KR4 w k - 1 1",
            "7k/5K2/6P1/8/8/8/8/3B4 w - - 0 1",
            "k7/P1R1K3/4P3/8/p3p3/1p1pPp1p/1R6/8 w - - 0 1",
        ];
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut searcher = MateSearcher::new(1);
        let mut mates = 0;
        for fen in seeds {
            for _ in 0..6 {
                let mut p = pos(fen);
                // 0..3 random plies, ending with the original side to move half the time.
                for _ in 0..(next() % 4) {
                    let moves = p.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    p.play_unchecked(moves[(next() % moves.len() as u64) as usize]);
                }
                for n in 1..=2 {
                    let r = searcher.search(&p, n, &MateLimits::none());
                    check_exact(&p, n, &r);
                    mates += usize::from(r.is_mate());
                }
                // The fresh-table search agrees with the one that reuses its table.
                let fresh = mate_search(&p, 2, &MateLimits::none());
                assert_eq!(
                    fresh.mate_in,
                    searcher.search(&p, 2, &MateLimits::none()).mate_in
                );
            }
        }
        assert!(
            mates > 10,
            "too few mates among the samples ({mates}) to test much"
        );
    }

    /// Sparse endings where a brute force to n = 3 is affordable.
    #[test]
    fn agrees_with_brute_force_to_3() {
        let fens = [
            "7k/5K2/6P1/8/8/8/8/3B4 w - - 0 1",
            "7k/5K2/6P1/8/8/8/8/N7 w - - 0 1",
            "8/8/8/8/8/2k5/4q3/K7 b - - 0 1",
            "8/8/8/8/4k3/8/8/2K2R2 w - - 0 1",
            "6k1/8/5K2/8/8/8/8/7R w - - 0 1",
            "k7/8/1K6/8/8/8/8/6B1 w - - 0 1",
            "8/8/8/5k2/8/5K2/4Q3/8 w - - 0 1",
        ];
        let mut searcher = MateSearcher::new(1);
        for fen in fens {
            let p = pos(fen);
            for n in 1..=3 {
                check_exact(&p, n, &searcher.search(&p, n, &MateLimits::none()));
            }
        }
    }

    /// The table changes speed, never answers: the same searches with and without it
    /// (one table shared by all positions and depths) agree on every mate length.
    #[test]
    fn table_changes_nothing_but_speed() {
        let fens = [
            "7k/5K2/6P1/8/8/8/8/N7 w - - 0 1",
            "6k1/8/5K2/8/8/8/8/7R w - - 0 1",
            "k7/P1R1K3/4P3/8/p3p3/1p1pPp1p/1R6/8 w - - 0 1",
            // #4 problems (dm 4 in the composed set).
            "k3K3/P1P5/8/8/P7/P7/8/8 w - - 0 1",
            "4K3/5R1N/6k1/5N2/8/8/8/8 w - - 0 1",
            "7R/8/2b5/8/8/K1N4p/7P/k7 w - - 0 1",
        ];
        let mut with = MateSearcher::new(1);
        for fen in fens {
            let p = pos(fen);
            for n in 1..=4 {
                let mut without = MateSearcher::new(1);
                without.use_tt = false;
                let a = with.search(&p, n, &MateLimits::none());
                let b = without.search(&p, n, &MateLimits::none());
                assert_eq!(
                    (a.mate_in, a.no_mate_within),
                    (b.mate_in, b.no_mate_within),
                    "{fen} n={n}"
                );
            }
        }
    }

    #[test]
    fn gives_check_matches_playing_the_move() {
        let fens = [
            "3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - 0 1",
            "r3k2r/pPp2ppp/8/3Pp3/8/8/PPP2PPP/R3K2R w KQkq e6 0 1",
            "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
            "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
            "4k3/1P6/8/3pP3/8/8/8/4K2B w - d6 0 1",
            "1k6/8/8/8/1N6/8/8/1Q2K2R w K - 0 1",
            "1k6/8/8/8/8/8/8/RN2K3 w - - 0 1",
            "2r1k3/8/8/8/2N5/8/2B5/2K5 w - - 0 1",
            "8/8/8/K1pP3k/8/8/8/8 w - c6 0 1",
        ];
        for fen in fens {
            let p = pos(fen);
            for q in [p.clone(), p.clone().swap_turn().unwrap_or(p.clone())] {
                let info = CheckInfo::new(&q);
                for m in q.legal_moves() {
                    let mut c = q.clone();
                    c.play_unchecked(m);
                    assert_eq!(
                        info.gives_check(&q, m),
                        c.is_check(),
                        "{fen}: {}",
                        san(&q, m)
                    );
                }
            }
        }
    }

    #[test]
    fn stops_on_flag_and_node_limit() {
        // King and rook against king: no mate in 6, so proving that takes many nodes.
        let p = pos("1k6/8/8/8/8/8/8/1K5R w - - 0 1");
        let stop = Arc::new(AtomicBool::new(true));
        let r = mate_search(
            &p,
            6,
            &MateLimits {
                stop: Some(stop),
                ..MateLimits::default()
            },
        );
        assert!(r.stopped);
        assert_eq!(r.mate_in, None);
        let r = mate_search(
            &p,
            6,
            &MateLimits {
                nodes: Some(5000),
                ..MateLimits::default()
            },
        );
        assert!(r.stopped, "{r:?}");
        assert!(r.nodes <= 5000 + 1024, "{}", r.nodes);
        assert_eq!(r.mate_in, None);
    }

    #[test]
    fn move_packing_round_trips() {
        let p = pos("r3k2r/pPp2ppp/8/3Pp3/8/8/PPP2PPP/R3K2R w KQkq e6 0 1");
        let moves = p.legal_moves();
        for &m in &moves {
            assert_eq!(unpack(&moves, pack(m)), Some(m));
        }
        assert_eq!(pack(NO_MOVE), 0);
    }
}
