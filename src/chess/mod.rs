//! Chess primitives shared by every later module, one home for each rule: FEN text in and
//! out ([`fen`]), Zobrist keys ([`hash`]), how a game ends ([`game`]), and the seeded
//! random numbers the players, the opening generator and the trainer draw ([`rng`]).

pub mod fen;
pub mod game;
pub mod hash;
pub mod pgn;
pub mod rng;
