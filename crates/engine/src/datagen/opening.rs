//! Where datagen games start: positions from an openings file, or a few random plies from
//! the start position; either way each start is used once per run (deduplicated by its
//! normalized FEN), so the games spread over many openings instead of replaying a few.

use std::collections::HashSet;
use std::sync::Mutex;

use shakmaty::{Chess, Position};

use chessgraph_core::chess::fen::normalized_fen;
use chessgraph_core::chess::rng::SplitMix;

/// How games start.
#[derive(Clone, Debug)]
pub enum Openings {
    /// This many uniformly random legal plies from the start position.
    Random(u32),
    /// Positions read from a file (EPD/FEN lines), taken in a seeded random order.
    List(Vec<Chess>),
}

/// Hands out distinct start positions to the worker threads.
#[derive(Debug)]
pub struct OpeningBook {
    openings: Openings,
    seed: u64,
    used: Mutex<HashSet<String>>,
}

/// Attempts to draw an unused random opening before giving up on a game index.
const MAX_DRAWS: u32 = 64;

impl OpeningBook {
    /// A book over `openings`, with `seed`, treating the start positions of `used` as taken.
    pub fn new(openings: Openings, seed: u64, used: impl IntoIterator<Item = String>) -> Self {
        OpeningBook {
            openings,
            seed,
            used: Mutex::new(used.into_iter().collect()),
        }
    }

    /// The start position of game `index` (a pure function of seed and index, except that
    /// a position another game already uses is skipped); `None` when no unused opening is
    /// found (a short list, or too few random plies to give new positions).
    pub fn start(&self, index: u64) -> Option<Chess> {
        for attempt in 0..MAX_DRAWS {
            let mut rng =
                SplitMix(self.seed ^ index.wrapping_mul(0x9e37_79b9) ^ u64::from(attempt) << 48);
            let pos = match &self.openings {
                Openings::Random(plies) => random_walk(*plies, &mut rng)?,
                Openings::List(list) if list.is_empty() => return None,
                Openings::List(list) => {
                    // Walk the list from a per-index offset: every entry is tried.
                    let i = (index as usize + attempt as usize * 7919) % list.len();
                    list[i].clone()
                }
            };
            if pos.legal_moves().is_empty() {
                continue;
            }
            let key = normalized_fen(&pos);
            let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
            if used.insert(key) {
                return Some(pos);
            }
        }
        None
    }
}

/// `plies` random legal moves from the start position, retrying on a dead end.
fn random_walk(plies: u32, rng: &mut SplitMix) -> Option<Chess> {
    'walk: for _ in 0..16 {
        let mut pos = Chess::default();
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                continue 'walk;
            }
            let m = moves[rng.below(moves.len())];
            pos.play_unchecked(m);
        }
        return Some(pos);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_openings_are_distinct_and_reproducible() {
        let book = OpeningBook::new(Openings::Random(8), 3, []);
        let starts: Vec<String> = (0..50)
            .map(|i| normalized_fen(&book.start(i).unwrap()))
            .collect();
        let distinct: HashSet<&String> = starts.iter().collect();
        assert_eq!(distinct.len(), 50);
        let again = OpeningBook::new(Openings::Random(8), 3, []);
        assert_eq!(normalized_fen(&again.start(7).unwrap()), starts[7]);
    }

    #[test]
    fn a_short_list_runs_out_instead_of_repeating() {
        let list = vec![Chess::default()];
        let book = OpeningBook::new(Openings::List(list), 1, []);
        assert!(book.start(0).is_some());
        assert!(book.start(1).is_none());
        // Zero random plies can only give the start position once.
        let book = OpeningBook::new(Openings::Random(0), 1, []);
        assert!(book.start(0).is_some());
        assert!(book.start(1).is_none());
    }
}
