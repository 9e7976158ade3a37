//! The proof search: attacker nodes (some move mates in ≤ k) and defender nodes (every
//! defence is mated), the mate-in-1 shortcut, the table of proven bounds, and the
//! principal variation of a proven mate.

use std::sync::atomic::Ordering;
use std::time::Instant;

use shakmaty::{Chess, Move, MoveList, Position};

use super::super::ordering::pick_best;
use super::order::*;
use super::*;

impl MateSearcher {
    pub(super) fn start(&mut self, limits: &MateLimits) {
        self.nodes = 0;
        self.stopped = false;
        self.stop = limits.stop.clone();
        self.deadline = limits.deadline;
        self.max_nodes = limits.nodes.unwrap_or(u64::MAX);
    }

    pub(super) fn ensure_plies(&mut self, n: u32) {
        let plies = 2 * n as usize + 2;
        if self.killers.len() < plies {
            self.killers.resize(plies, [0; 2]);
        }
    }

    /// Counts a node; true if the search must stop now.
    #[inline]
    pub(super) fn count_node(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            self.poll_now();
        }
        self.stopped
    }

    pub(super) fn poll_now(&mut self) -> bool {
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

    pub(super) fn probe(&self, hash: u64) -> Option<TtEntry> {
        #[cfg(test)]
        if !self.use_tt {
            return None;
        }
        let e = self.tt[hash as usize & (self.tt.len() - 1)];
        (e.key == hash).then_some(e)
    }

    /// Records "mates in ≤ k" (`proven`) or "no mate in ≤ k" for the node `hash`.
    pub(super) fn store(&mut self, hash: u64, k: u32, proven: bool, mv: Move) {
        #[cfg(test)]
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
    pub(super) fn mate_in_1(&mut self, pos: &Chess, moves: &MoveList, ply: usize) -> Option<Move> {
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

    pub(super) fn is_mate_after(&mut self, pos: &Chess, m: Move) -> bool {
        if self.count_node() {
            return false;
        }
        let mut child = pos.clone();
        child.play_unchecked(m);
        // `m` gives check, so only evasions are generated.
        child.legal_moves().is_empty()
    }

    /// Attacker to move: is there a mate in ≤ k?
    pub(super) fn attacker(&mut self, pos: &Chess, hash: u64, k: u32, ply: usize) -> bool {
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
    pub(super) fn defender(&mut self, pos: &Chess, hash: u64, k: u32, ply: usize) -> bool {
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
    pub(super) fn principal_variation(&mut self, pos: &Chess, key: Move, k: u32) -> Vec<Move> {
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
                let h = position_hash(&child);
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
                let h = position_hash(&child);
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
}
