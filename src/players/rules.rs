//! The draw rules the players apply inside their trees, as the engine's search does
//! (`src/search/alphabeta.rs`): the fifty-move rule, insufficient material, and a
//! repetition of any earlier position with the same side to move since the last
//! irreversible move (one repetition is enough: the side that allowed it can repeat again,
//! so a line that repeats is worth a draw).

use shakmaty::{Chess, Position};

/// Whether the position with key `key` and halfmove clock `halfmoves` repeats one of
/// `keys`, the keys of the positions before it (oldest first; the last is its parent).
/// Only positions with the same side to move inside the halfmove window count.
pub fn repeats(keys: &[u64], key: u64, halfmoves: u32) -> bool {
    let n = keys.len();
    let window = (halfmoves as usize).min(n);
    (2..=window).step_by(2).any(|i| keys[n - i] == key)
}

/// Whether `pos` (key `key`, preceded by the positions `keys`) is drawn by rule: fifty
/// moves, insufficient material or a repetition. A checkmate takes precedence over the
/// fifty-move rule, so callers look for mate first.
pub fn drawn(pos: &Chess, keys: &[u64], key: u64) -> bool {
    pos.halfmoves() >= 100 || pos.is_insufficient_material() || repeats(keys, key, pos.halfmoves())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repetition_window_and_parity() {
        // Positions ... A B A' B' with A' = A: the current position (key A) repeats A
        // two plies back, not the parent (odd distance) and not beyond the window.
        let keys = [7, 1, 2, 3, 4];
        assert!(repeats(&keys, 3, 10));
        assert!(
            !repeats(&keys, 4, 10),
            "the parent has the other side to move"
        );
        assert!(repeats(&keys, 1, 10));
        assert!(!repeats(&keys, 1, 3), "beyond the last irreversible move");
        assert!(!repeats(&keys, 7, 10), "odd distance");
        assert!(!repeats(&[], 7, 10));
    }
}
