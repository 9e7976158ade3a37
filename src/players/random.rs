//! `random`: a uniformly random legal move — the PUC-Rio study's naive player, and the
//! floor of every ladder. Seeded, so a game against it can be replayed.

use std::time::Instant;

use shakmaty::{Chess, Position};

use super::{Player, plain_result};
use crate::search::{Control, Info, Limits, SearchResult};

/// SplitMix64: a small, well-mixed generator; all the players need is a seeded stream.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform index below `n` (`n > 0`), without modulo bias.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A uniform float in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Plays a uniformly random legal move.
pub struct RandomPlayer {
    seed: u64,
    rng: Rng,
    control: Control,
}

impl RandomPlayer {
    /// A random player; the same seed gives the same moves in the same positions sequence.
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            seed,
            rng: Rng::new(seed),
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
        self.rng = Rng::new(self.seed);
    }

    fn choose(
        &mut self,
        pos: &Chess,
        _history: &[u64],
        limits: &Limits,
        _info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        let start = Instant::now();
        let mut moves = pos.legal_moves();
        if !limits.searchmoves.is_empty() {
            moves.retain(|m| limits.searchmoves.contains(m));
        }
        let best = (!moves.is_empty()).then(|| moves[self.rng.below(moves.len())]);
        plain_result(best, start.elapsed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let pos: Chess = crate::chess::fen::parse(
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            crate::chess::fen::Leniency::Strict,
        )
        .unwrap();
        let mut p = RandomPlayer::new(1);
        assert_eq!(
            p.choose(&pos, &[], &Limits::default(), &mut |_| {}).best,
            None
        );
    }
}
