//! The continuation history's storage: a quiet move's (piece, square) after the move one
//! ply before (the first table) and two plies before (the second), each row the context
//! move's (piece, square).
//!
//! Every search ages the scores (each divided by 8, as the from-to history is). The
//! tables are 2.4 MB, and a datagen search of a few thousand nodes takes a few
//! milliseconds, so one pass over all of them before each search showed in datagen's
//! profile. Instead each row records the search it was last brought up to date in, and a
//! row is aged when a move makes it a context ([`ContinuationHistory::touch`]), by as many
//! divisions as searches went by; rows no move of the search made a context are skipped
//! (what that saves: docs/log/search.md#speed). Integer division truncates toward zero, so
//! `(v / 8) / 8 == v / 64`: the scores are the same as with the eager division, and so
//! are the searches.

/// (piece, square) pairs: 12 pieces on 64 squares.
pub(super) const PIECE_SQUARES: usize = 12 * 64;
/// Entries of one table: a (piece, square) after a (piece, square).
pub(super) const CONT_SIZE: usize = PIECE_SQUARES * PIECE_SQUARES;
/// Rows of both tables.
const ROWS: usize = 2 * PIECE_SQUARES;
/// After this many divisions by 8 every i16 is 0 (8⁶ > 32,768; five leave −32,768 at −1).
const AGES_TO_ZERO: u32 = 6;

/// Both continuation tables, aged lazily by row.
#[derive(Clone, Debug)]
pub(super) struct ContinuationHistory {
    scores: Vec<i16>,
    /// The search each row was last aged to.
    aged_to: Vec<u32>,
    /// The current search: incremented by [`ContinuationHistory::age`].
    search: u32,
}

impl ContinuationHistory {
    /// Both tables, zero.
    pub(super) fn new() -> ContinuationHistory {
        ContinuationHistory {
            scores: vec![0; 2 * CONT_SIZE],
            aged_to: vec![0; ROWS],
            search: 0,
        }
    }

    /// Every score set to 0.
    pub(super) fn clear(&mut self) {
        self.scores.fill(0);
        self.aged_to.fill(self.search);
    }

    /// A new search: every score is divided by 8, row by row as rows are touched.
    pub(super) fn age(&mut self) {
        self.search = self.search.wrapping_add(1);
    }

    /// The rows of context (piece, square) `ps` (0-based) in both tables, brought up to
    /// the current search. Called when the move is made, so that every row the nodes below
    /// read or update is current.
    #[inline]
    pub(super) fn touch(&mut self, ps: usize) {
        for row in [ps, PIECE_SQUARES + ps] {
            let behind = self.search.wrapping_sub(self.aged_to[row]);
            if behind != 0 {
                self.age_row(row, behind);
            }
        }
    }

    #[cold]
    fn age_row(&mut self, row: usize, behind: u32) {
        let scores = &mut self.scores[row * PIECE_SQUARES..(row + 1) * PIECE_SQUARES];
        if behind >= AGES_TO_ZERO {
            scores.fill(0);
        } else {
            for _ in 0..behind {
                for v in scores.iter_mut() {
                    *v /= 8;
                }
            }
        }
        self.aged_to[row] = self.search;
    }

    /// The score at `index` (a row's start from `cont_rows` plus a (piece, square)).
    #[inline]
    pub(super) fn get(&self, index: usize) -> i16 {
        debug_assert_eq!(self.aged_to[index / PIECE_SQUARES], self.search);
        self.scores[index]
    }

    /// The score at `index`, to update.
    #[inline]
    pub(super) fn get_mut(&mut self, index: usize) -> &mut i16 {
        debug_assert_eq!(self.aged_to[index / PIECE_SQUARES], self.search);
        &mut self.scores[index]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The eager ageing the lazy one replaces: every score divided by 8 per search.
    fn eager(scores: &mut [i16], searches: u32) {
        for _ in 0..searches {
            for v in scores.iter_mut() {
                *v /= 8;
            }
        }
    }

    #[test]
    fn lazy_ageing_gives_the_scores_of_eager_ageing() {
        let mut lazy = ContinuationHistory::new();
        let mut reference = vec![0i16; 2 * CONT_SIZE];
        // Rows of both tables touched every 1, 2, 7 and 8 searches: at the final touch the
        // last two are 6 and 5 searches behind, either side of the row zeroed at once.
        let rows = [0usize, 5, 700, PIECE_SQUARES - 1];
        let periods = [1u32, 2, 7, 8];
        let mut rng = 0x9e37_79b9_u32;
        for search in 1..=12u32 {
            lazy.age();
            eager(&mut reference, 1);
            for (k, &ps) in rows.iter().enumerate() {
                if search % periods[k] != 0 {
                    continue;
                }
                lazy.touch(ps);
                for table in 0..2 {
                    let start = table * CONT_SIZE + ps * PIECE_SQUARES;
                    for j in [0, 17, 400, PIECE_SQUARES - 1] {
                        rng ^= rng << 13;
                        rng ^= rng >> 17;
                        rng ^= rng << 5;
                        // The extremes too: −32,768 needs six divisions to reach 0.
                        let v = if j == 0 { i16::MIN } else { rng as i16 };
                        *lazy.get_mut(start + j) = v;
                        reference[start + j] = v;
                    }
                }
            }
        }
        lazy.age();
        eager(&mut reference, 1);
        for ps in 0..PIECE_SQUARES {
            lazy.touch(ps);
        }
        assert_eq!(lazy.scores, reference);
        assert!(reference.iter().any(|&v| v != 0));
        // −32,768 written at search 7 is 0 six divisions later, at search 8 still −1 five
        // divisions later.
        assert_eq!(reference[700 * PIECE_SQUARES], 0);
        assert_eq!(reference[(PIECE_SQUARES - 1) * PIECE_SQUARES], -1);
    }

    #[test]
    fn clear_zeroes_and_keeps_rows_current() {
        let mut h = ContinuationHistory::new();
        h.age();
        h.touch(3);
        *h.get_mut(3 * PIECE_SQUARES + 1) = 1000;
        h.clear();
        assert_eq!(h.get(3 * PIECE_SQUARES + 1), 0);
        h.age();
        h.touch(3);
        assert_eq!(h.get(3 * PIECE_SQUARES + 1), 0);
    }
}
