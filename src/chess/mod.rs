//! Chess primitives shared by every later module, one home for each rule: FEN text in and
//! out ([`fen`]), and the seeded random numbers the players, the opening generator and
//! the trainer draw ([`rng`]).

pub mod fen;
pub mod rng;
