//! chessgraph's engine: everything that evaluates positions and plays moves, with no
//! SQLite.
//!
//! - [`engines`]: other UCI engines as child processes — their command lines, the client,
//!   their `info` lines;
//! - [`nnue`]: the network's inference and its accumulators (AVX2 where the CPU has it);
//! - [`eval`]: the evaluator — linear terms with tapered weights, an NNUE or a
//!   convolutional network — its file format and built-ins;
//! - [`search`]: alpha-beta with its pruning, quiescence, Lazy SMP, the mate search,
//!   Syzygy probes and `bench`;
//! - [`players`]: the studies' players (random, greedy, minimax, logistic, MCTS, PUCT,
//!   networks) and the engine behind one interface;
//! - [`uci`]: the UCI engine loop;
//! - [`datagen`]: self-play games at fixed nodes, the engine's own training data.
//!
//! Inside the crate the modules are in that order, each using only those before it
//! ([`LAYERS`]; a test of the workspace checks it).

#![warn(missing_docs)]

pub mod datagen;
pub mod engines;
pub mod eval;
pub mod nnue;
pub mod players;
pub mod search;
pub mod uci;

/// The modules in pipeline order: each may use only those before it in this list.
pub const LAYERS: &[&str] = &[
    "engines", "nnue", "eval", "search", "players", "uci", "datagen",
];
