//! `random`: a uniformly random legal move — the PUC-Rio study's naive player, and the
//! floor of every ladder. Seeded, so a game against it can be replayed.

use std::time::Instant;

use shakmaty::Chess;

use super::{Player, plain_result};
use crate::search::{Control, Info, Limits, SearchResult, root_moves};
use chessgraph_core::chess::rng::SplitMix;

/// Plays a uniformly random legal move.
pub struct RandomPlayer {
    seed: u64,
    rng: SplitMix,
    control: Control,
}

impl RandomPlayer {
    /// A random player; the same seed gives the same moves in the same positions sequence.
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            seed,
            rng: SplitMix(seed),
            control: Control::default(),
        }
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> String {
        format!("random:seed={}", self.seed)
    }

    fn control(&self) -> Control {
        self.control.clone()
    }

    fn new_game(&mut self) {
        // Each game replays from the seed: a tournament's games do not depend on order.
        self.rng = SplitMix(self.seed);
    }

    fn choose(
        &mut self,
        pos: &Chess,
        _history: &[u64],
        limits: &Limits,
        _info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        let start = Instant::now();
        match root_moves(pos, limits) {
            Ok(moves) => plain_result(Some(moves[self.rng.below(moves.len())]), start.elapsed()),
            Err(none) => none.result(start.elapsed()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Position;

    fn play(seed: u64, plies: usize) -> Vec<shakmaty::Move> {
        let mut p = RandomPlayer::new(seed);
        let mut pos = Chess::default();
        let mut line = Vec::new();
        for _ in 0..plies {
            let Some(m) = p.choose(&pos, &[], &Limits::default(), &mut |_| {}).best else {
                break;
            };
            assert!(pos.is_legal(m));
            pos.play_unchecked(m);
            line.push(m);
        }
        line
    }

    #[test]
    fn same_seed_same_game_other_seed_other_game() {
        assert_eq!(play(3, 40), play(3, 40));
        assert_ne!(play(3, 40), play(4, 40));
    }

    #[test]
    fn uniform_over_the_moves() {
        // 20 moves from the start: each should come up about 1/20 of 20,000 draws.
        let mut p = RandomPlayer::new(9);
        let pos = Chess::default();
        let mut counts = std::collections::HashMap::new();
        for _ in 0..20_000 {
            let m = p
                .choose(&pos, &[], &Limits::default(), &mut |_| {})
                .best
                .unwrap();
            *counts.entry(m).or_insert(0u32) += 1;
        }
        assert_eq!(counts.len(), 20);
        assert!(
            counts.values().all(|&c| (850..1150).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn no_move_when_mated() {
        let pos: Chess = chessgraph_core::chess::fen::parse(
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            chessgraph_core::chess::fen::Leniency::Strict,
        )
        .unwrap();
        let mut p = RandomPlayer::new(1);
        assert_eq!(
            p.choose(&pos, &[], &Limits::default(), &mut |_| {}).best,
            None
        );
    }
}
