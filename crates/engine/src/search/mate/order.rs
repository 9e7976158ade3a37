//! Move ordering for the mate search (killers, history, checks first for the attacker,
//! refutation candidates first for the defender).

use shakmaty::{Chess, Move, MoveList, Role};

use super::super::ordering::MAX_MOVES;
use super::super::{decode_in, encode};
use super::{ATTACKER, MateSearcher, TtEntry};
use chessgraph_core::chess::check::CheckInfo;
use chessgraph_core::chess::hash;
use chessgraph_core::chess::values::piece_value;

impl MateSearcher {
    pub(super) fn add_killer(&mut self, ply: usize, m: Move) {
        let packed = pack(m);
        let slot = &mut self.killers[ply];
        if slot[0] != packed {
            slot[1] = slot[0];
            slot[0] = packed;
        }
    }

    pub(super) fn history_index(side: usize, m: Move) -> usize {
        let from = m.from().map_or(0, usize::from);
        side * 4096 + from * 64 + usize::from(m.to())
    }

    pub(super) fn add_history(&mut self, side: usize, m: Move, k: u32) {
        let h = &mut self.history[Self::history_index(side, m)];
        *h = (*h + k * k).min(HISTORY_MAX);
    }

    /// Move-ordering scores for `side`'s moves: hash move, killers, then the side's
    /// static heuristic plus history.
    pub(super) fn order(
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

    pub(super) fn history_score(&self, side: usize, m: Move) -> u32 {
        self.history[Self::history_index(side, m)]
    }
}

pub(super) const TT_SCORE: u32 = 1 << 30;
pub(super) const KILLER_SCORE: u32 = 1 << 29;
pub(super) const CHECK_SCORE: u32 = 1 << 27;
pub(super) const CAPTURE_SCORE: u32 = 1 << 26;
pub(super) const KING_MOVE_SCORE: u32 = 1 << 25;
pub(super) const HISTORY_MAX: u32 = (1 << 24) - 1;

/// A placeholder for "no move" in [`MateSearcher::store`]; packs to 0.
pub(super) const NO_MOVE: Move = Move::Put {
    role: Role::Pawn,
    to: shakmaty::Square::A1,
};

pub(super) fn value(role: Role) -> u32 {
    // The search's piece values in pawns (P 1, N 3, B 3, R 5, Q 9); the king scores 0
    // here: moving it is no gain.
    match role {
        Role::King => 0,
        _ => piece_value(role) as u32 / 100,
    }
}

/// Attacker ordering: checks, then captures and promotions (most valuable victim
/// first), then quiet moves (by history).
pub(super) fn attacker_score(pos: &Chess, info: &CheckInfo, m: Move) -> u32 {
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
pub(super) fn defender_score(pos: &Chess, info: &CheckInfo, m: Move) -> u32 {
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
pub(super) fn static_order_key(pos: &Chess, info: &CheckInfo, m: Move) -> u64 {
    u64::from(attacker_score(pos, info, m))
}

/// The search's Zobrist key (Polyglot numbers, [`hash`]): one convention for the main
/// search, the mate search and the opening book.
#[inline]
pub(super) fn position_hash(pos: &Chess) -> u64 {
    hash::key(pos)
}

/// Key of `child` = `parent` after `m`, updated incrementally.
#[inline]
pub(super) fn child_hash(parent: &Chess, parent_hash: u64, m: Move, child: &Chess) -> u64 {
    hash::key_after(parent, parent_hash, m, child)
}

/// The search's 16-bit move code ([`encode`]); 0 for no move.
#[inline]
pub(super) fn pack(m: Move) -> u16 {
    encode(m)
}

/// The move of `moves` with code `packed` ([`decode_in`]).
#[inline]
pub(super) fn unpack(moves: &MoveList, packed: u16) -> Option<Move> {
    decode_in(moves, packed)
}
