//! Chess primitives shared by every later module, one home for each rule: whether a move
//! gives check ([`check`]), FEN text in and out ([`fen`]), UCI move text ([`moves`]),
//! Zobrist keys ([`hash`]), the quiescence search's captures ([`movegen`]), the FNV-1a
//! byte hash of stored checksums and fingerprints ([`fnv`]), how a game ends ([`game`]),
//! PGN output ([`pgn`]), a position's identity in 9 to 25 bytes ([`packed`]), the seeded
//! random numbers the players, the opening generator and the trainer draw, with their bit
//! mixer ([`rng`]), and piece values with the MVV-LVA order ([`values`]).

pub mod check;
pub mod fen;
pub mod fnv;
pub mod game;
pub mod hash;
pub mod movegen;
pub mod moves;
pub mod packed;
pub mod pgn;
pub mod rng;
pub mod values;
