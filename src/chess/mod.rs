//! Chess primitives shared by every later module, one home for each rule: FEN text in and
//! out ([`fen`]), UCI move text ([`moves`]), Zobrist keys ([`hash`]), how a game ends
//! ([`game`]), PGN output ([`pgn`]), and the seeded random numbers the players, the
//! opening generator and the trainer draw ([`rng`]).

pub mod fen;
pub mod game;
pub mod hash;
pub mod moves;
pub mod pgn;
pub mod rng;
