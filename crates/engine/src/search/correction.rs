//! Correction history: what the evaluator tends to get wrong, learnt per pawn structure
//! and side to move from the search's own results, and added to the static evaluation
//! the main search prunes by. The transposition table keeps the raw evaluation.
//!
//! Each entry is a moving average of `search score − raw static evaluation` in 1/256 cp,
//! weighted by the node's depth (deep results move it more), at most ±128 cp.

use shakmaty::{Chess, Position};

use chessgraph_core::chess::hash;

/// Entries per side to move (a power of two).
const SIZE: usize = 1 << 14;
/// Fixed-point scale of an entry (1/256 cp).
const GRAIN: i32 = 256;
/// Largest correction, centipawns.
const LIMIT: i32 = 128;
/// The weight of one update is `min(depth + 1, WEIGHT_MAX)` out of `WEIGHT_SCALE`.
const WEIGHT_MAX: i32 = 16;
const WEIGHT_SCALE: i32 = 256;

/// The table of one searcher (each Lazy SMP thread has its own).
pub(super) struct CorrectionHistory {
    entries: Vec<i32>,
}

impl CorrectionHistory {
    pub(super) fn new() -> CorrectionHistory {
        CorrectionHistory {
            entries: vec![0; 2 * SIZE],
        }
    }

    /// Forgets everything (new game).
    pub(super) fn clear(&mut self) {
        self.entries.fill(0);
    }

    #[inline]
    fn index(pos: &Chess) -> usize {
        let structure = (hash::pawn_key(pos) >> (64 - SIZE.trailing_zeros())) as usize;
        pos.turn() as usize * SIZE + structure
    }

    /// The correction for `pos`, centipawns (side to move's point of view).
    #[inline]
    pub(super) fn get(&self, pos: &Chess) -> i32 {
        self.entries[Self::index(pos)] / GRAIN
    }

    /// Learns from a node of `depth` whose search returned `score` where the raw static
    /// evaluation said `raw_eval` (both from the side to move's point of view).
    pub(super) fn update(&mut self, pos: &Chess, depth: i32, score: i32, raw_eval: i32) {
        let target = (score - raw_eval).clamp(-LIMIT, LIMIT) * GRAIN;
        let weight = (depth + 1).min(WEIGHT_MAX);
        let e = &mut self.entries[Self::index(pos)];
        *e = (*e * (WEIGHT_SCALE - weight) + target * weight) / WEIGHT_SCALE;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_core::chess::fen::parse_position;

    #[test]
    fn learns_towards_the_error_within_its_limit() {
        let mut ch = CorrectionHistory::new();
        let pos = parse_position("4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1").unwrap();
        let other_side = parse_position("4k3/pp6/8/8/8/8/PP6/4K3 b - - 0 1").unwrap();
        assert_eq!(ch.get(&pos), 0);
        for _ in 0..200 {
            ch.update(&pos, 10, 70, 20);
        }
        // Converges to the 50 cp error from below.
        assert!((45..=50).contains(&ch.get(&pos)), "{}", ch.get(&pos));
        assert_eq!(ch.get(&other_side), 0);
        for _ in 0..200 {
            ch.update(&pos, 10, -900, 0);
        }
        assert!(
            (-LIMIT..=-LIMIT + 2).contains(&ch.get(&pos)),
            "{}",
            ch.get(&pos)
        );
        ch.clear();
        assert_eq!(ch.get(&pos), 0);
    }
}
