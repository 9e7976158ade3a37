//! Correction history: the evaluator's error, learnt during the search for each pawn
//! structure and side to move, added to the static evaluation that pruning decisions use.
//!
//! After a node's search, when its score says something about the static evaluation (not
//! in check, the best move no capture or promotion, a score that is not a mate, and the
//! bound pointing the right way: a fail-high above the evaluation, a fail-low below it, or
//! an exact score), the difference `score − static evaluation` moves the pawn structure's
//! entry, a moving average weighted by the depth. The transposition table keeps the raw
//! evaluation; the correction is added each time it is read.

use shakmaty::{Chess, Position};

use super::tt::Bound;
use crate::chess::hash;

/// Entries per side to move (a power of two).
const ENTRIES: usize = 16_384;
/// Fixed-point scale of an entry: centipawns × `GRAIN`.
const GRAIN: i32 = 256;
/// The weights of the moving average are out of this.
const WEIGHT_SCALE: i32 = 256;
/// The largest correction, centipawns.
const MAX_CORRECTION: i32 = 128;

/// The table of corrections, by side to move and pawn key.
#[derive(Clone, Debug)]
pub(super) struct CorrectionHistory {
    table: Vec<i32>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        CorrectionHistory {
            table: vec![0; 2 * ENTRIES],
        }
    }
}

impl CorrectionHistory {
    #[inline]
    fn index(pos: &Chess) -> usize {
        pos.turn() as usize * ENTRIES + (hash::pawn_key(pos) as usize & (ENTRIES - 1))
    }

    /// `raw` (side to move's view) corrected by what the search learnt for `pos`.
    #[inline]
    pub(super) fn corrected(&self, pos: &Chess, raw: i32) -> i32 {
        raw + self.table[Self::index(pos)] / GRAIN
    }

    /// Learns from a node of `depth` whose search gave `score` with `bound` where the
    /// raw static evaluation was `raw` and the corrected one `eval`. The caller leaves out
    /// nodes in check, mate scores and nodes whose best move was noisy.
    pub(super) fn update(
        &mut self,
        pos: &Chess,
        depth: i32,
        bound: Bound,
        score: i32,
        raw: i32,
        eval: i32,
    ) {
        let informative = match bound {
            Bound::Exact => true,
            Bound::Lower => score > eval,
            Bound::Upper => score < eval,
        };
        if !informative {
            return;
        }
        let weight = (depth + 1).min(16);
        let target = (score - raw).clamp(-MAX_CORRECTION, MAX_CORRECTION) * GRAIN;
        let entry = &mut self.table[Self::index(pos)];
        *entry = (*entry * (WEIGHT_SCALE - weight) + target * weight) / WEIGHT_SCALE;
    }

    /// Forgets everything (a new game).
    pub(super) fn clear(&mut self) {
        self.table.fill(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_position;

    #[test]
    fn a_pawn_structure_learns_its_error_and_others_do_not() {
        let mut c = CorrectionHistory::default();
        let pos = parse_position("4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1").unwrap();
        // The same pawns, other pieces: the same entry.
        let twin = parse_position("4k3/pp6/8/8/8/3N4/PP6/4K3 w - - 0 1").unwrap();
        let other = parse_position("4k3/p7/8/8/8/8/PP6/4K3 w - - 0 1").unwrap();
        let black = parse_position("4k3/pp6/8/8/8/8/PP6/4K3 b - - 0 1").unwrap();
        for _ in 0..200 {
            c.update(&pos, 12, Bound::Exact, 60, 10, c.corrected(&pos, 10));
        }
        assert!(
            (c.corrected(&pos, 10) - 60).abs() <= 2,
            "{}",
            c.corrected(&pos, 10)
        );
        assert_eq!(c.corrected(&twin, 0), c.corrected(&pos, 0));
        assert_eq!(c.corrected(&other, 10), 10);
        assert_eq!(c.corrected(&black, 10), 10);
        // A fail-high below the corrected evaluation says nothing.
        let before = c.corrected(&pos, 0);
        c.update(&pos, 12, Bound::Lower, -300, 0, before);
        assert_eq!(c.corrected(&pos, 0), before);
        // Corrections stay within the limit.
        for _ in 0..500 {
            c.update(&pos, 20, Bound::Upper, -5000, 10, c.corrected(&pos, 10));
        }
        assert!(c.corrected(&pos, 0) >= -MAX_CORRECTION);
        c.clear();
        assert_eq!(c.corrected(&pos, 7), 7);
    }
}
