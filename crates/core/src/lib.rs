//! chessgraph's core: what every other part builds on, and what a program that only reads
//! positions needs — no SQLite, no neural-network library.
//!
//! - [`chess`]: FEN text, UCI move text, Zobrist and FNV-1a hashes, how a game ends, PGN
//!   output, the packed position (a position's identity in 9 to 25 bytes), seeded random
//!   numbers and piece values;
//! - [`graph`]: the attack/defense graph and the graph-features study's features;
//! - [`split`]: the train/valid/test split's definition, a pure function of a position's
//!   key and a seed;
//! - [`data`]: the input formats (CSV, PGN with `[%eval]`, EPD, the Lichess evaluation
//!   database, puzzles), labels and game results;
//! - [`error`]: the typed errors of these and of the engine.
//!
//! Inside the crate the modules are in that order, each using only those before it
//! ([`LAYERS`]; a test of the workspace checks it).

#![warn(missing_docs)]

pub mod chess;
pub mod data;
pub mod error;
pub mod graph;
pub mod split;

pub use error::{Error, Result};

/// The modules in pipeline order: each may use only those before it in this list.
pub const LAYERS: &[&str] = &["error", "chess", "graph", "split", "data"];
