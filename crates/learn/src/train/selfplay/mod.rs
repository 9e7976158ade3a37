//! Self-play for the policy/value network, in the AlphaZero manner: the network plays
//! itself with PUCT ([`chessgraph_engine::players::puct`]), every position becomes a training sample
//! (the search's visit shares as the policy target, the game's outcome as the value
//! target), and the network is trained on them ([`crate::train::cnn`]) generation after
//! generation.
//!
//! A game starts from the standard position. The root's priors get Dirichlet noise, the
//! first `temperature_plies` moves are drawn in proportion to their visits (temperature
//! 1), later ones are the most visited. A game ends by the rules (mate, stalemate,
//! insufficient material, fifty moves, threefold repetition) or is adjudicated a draw at
//! `max_plies`. Games are played in parallel (rayon), each with its own seeded random
//! numbers, so a seed replays a generation.

use rayon::prelude::*;
use shakmaty::{Chess, Color, Move, Position};

use crate::train::cnn::Sample;
use chessgraph_cnn::{Net, policy_index};
use chessgraph_core::chess::game::{self, GameEnd};
use chessgraph_core::chess::hash;
use chessgraph_core::chess::rng::{SplitMix, mix64};
use chessgraph_engine::players::puct::{self, PuctSettings};

/// How self-play games are played.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelfPlayOptions {
    /// The search per move (self-play wants root noise: `dirichlet_fraction` 0.25).
    pub search: PuctSettings,
    /// Moves drawn in proportion to their visits at the start of a game.
    pub temperature_plies: u32,
    /// Plies after which a game is adjudicated a draw.
    pub max_plies: u32,
    /// Seed of the games' random numbers.
    pub seed: u64,
}

/// One self-play game.
#[derive(Clone, Debug)]
pub struct SelfPlayGame {
    /// The moves, from the standard position.
    pub moves: Vec<Move>,
    /// How it ended; `None` when adjudicated a draw at the ply limit.
    pub end: Option<GameEnd>,
    /// One sample per position the network searched.
    pub samples: Vec<Sample>,
    /// Simulations run in the game, all moves together.
    pub simulations: u64,
}

impl SelfPlayGame {
    /// White's outcome: +1, 0 or −1.
    pub fn outcome(&self) -> f32 {
        match self.end.and_then(|e| e.winner) {
            Some(Color::White) => 1.0,
            Some(Color::Black) => -1.0,
            None => 0.0,
        }
    }

    /// The PGN result: `1-0`, `0-1` or `1/2-1/2`.
    pub fn result(&self) -> &'static str {
        self.end.map_or("1/2-1/2", GameEnd::result)
    }
}

/// Plays game number `index` of a generation.
pub fn play_game(net: &Net, opts: &SelfPlayOptions, index: u64) -> SelfPlayGame {
    let mut rng = SplitMix(mix64(opts.seed ^ mix64(index)));
    let mut pos = Chess::default();
    let mut keys: Vec<u64> = Vec::new();
    let mut moves = Vec::new();
    let mut samples = Vec::new();
    let mut simulations = 0;
    let end = loop {
        if let Some(end) = game::outcome(&pos, &keys) {
            break Some(end);
        }
        if moves.len() as u32 >= opts.max_plies {
            break None;
        }
        let r = puct::search(&pos, &keys, net, &opts.search, &mut rng, &mut |_| false);
        simulations += u64::from(r.simulations);
        let total: u32 = r.visits.iter().map(|v| v.1).sum();
        let best = r.best.expect("a position that is not over has a move");
        samples.push(Sample {
            pos: pos.clone(),
            label_cp: f32::NAN,
            mate: false,
            result: f32::NAN,
            best: Some(policy_index(&best) as u16),
            outcome: None,
            visits: r
                .visits
                .iter()
                .filter(|v| v.1 > 0)
                .map(|&(m, n)| (policy_index(&m) as u16, n as f32 / total.max(1) as f32))
                .collect(),
        });
        let temperature = if (moves.len() as u32) < opts.temperature_plies {
            1.0
        } else {
            0.0
        };
        let m = puct::choose_with_temperature(&r.visits, temperature, &mut rng);
        keys.push(hash::key(&pos));
        pos.play_unchecked(m);
        moves.push(m);
    };
    let mut game = SelfPlayGame {
        moves,
        end,
        samples,
        simulations,
    };
    let z = game.outcome();
    for s in &mut game.samples {
        s.outcome = Some(z);
        s.result = (z + 1.0) / 2.0;
    }
    game
}

/// Plays `games` games (numbered `first..first + games`) in parallel; `done` is called
/// after each.
pub fn play_games(
    net: &Net,
    opts: &SelfPlayOptions,
    first: u64,
    games: u64,
    done: &(dyn Fn(&SelfPlayGame) + Sync),
) -> Vec<SelfPlayGame> {
    (first..first + games)
        .into_par_iter()
        .map(|i| {
            let g = play_game(net, opts, i);
            done(&g);
            g
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_cnn::{Arch, Shape};

    fn tiny() -> Net {
        let shape = Shape {
            channels: 4,
            blocks: 1,
        };
        chessgraph_cnn::test_net(Arch::PolicyValue, shape, 3)
    }

    fn opts() -> SelfPlayOptions {
        SelfPlayOptions {
            search: PuctSettings {
                simulations: 4,
                dirichlet_fraction: 0.25,
                ..PuctSettings::default()
            },
            temperature_plies: 10,
            max_plies: 40,
            seed: 9,
        }
    }

    #[test]
    fn games_are_legal_reproducible_and_labelled_with_their_outcome() {
        let net = tiny();
        let a = play_game(&net, &opts(), 0);
        let b = play_game(&net, &opts(), 0);
        assert_eq!(a.moves, b.moves, "a seed replays a game");
        let c = play_game(&net, &opts(), 1);
        assert_ne!(a.moves, c.moves, "games differ");
        let mut pos = Chess::default();
        for (m, s) in a.moves.iter().zip(&a.samples) {
            assert_eq!(s.pos, pos);
            let sum: f32 = s.visits.iter().map(|v| v.1).sum();
            assert!((sum - 1.0).abs() < 1e-5);
            assert_eq!(s.outcome, Some(a.outcome()));
            assert!(pos.is_legal(*m));
            pos.play_unchecked(*m);
        }
        assert_eq!(a.samples.len(), a.moves.len());
        assert!(a.moves.len() <= 40);
        if a.end.is_none() {
            assert_eq!(a.moves.len(), 40);
            assert_eq!(a.result(), "1/2-1/2");
        }
    }
}
