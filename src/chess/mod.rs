//! Chess primitives shared by every later module, one home for each rule: FEN text in and
//! out ([`fen`]), the seeded random numbers the players, the opening generator and
//! the trainer draw, with their bit mixer ([`rng`]), the FNV-1a byte hash of stored
//! checksums and fingerprints ([`hash`]), and piece values with the MVV-LVA order
//! ([`values`]).

pub mod fen;
pub mod hash;
pub mod rng;
pub mod values;
