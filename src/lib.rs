//! chessgraph: study chess positions with data.
//!
//! The library is the pipeline, in layers: a module uses only modules of the layers
//! before it ([`LAYERS`]; `tests::layers` checks every `crate::` path against it, and
//! that no files import each other in a circle).
//!
//! 1. Primitives: [`error`]; [`chess`]: FEN text, UCI move text, Zobrist and FNV-1a
//!    hashes, how a game ends, PGN output, seeded random numbers, piece values;
//!    [`engines`]: other UCI engines as child processes, and their `info` lines.
//! 2. Readers: [`data`]: input formats (CSV, PGN with `[%eval]`, EPD, the Lichess
//!    database, puzzles), labels and game results.
//! 3. Positions: [`graph`]: the attack/defense graph and the graph-features study's features.
//! 4. Evaluation: [`nnue`]: the network's inference and its accumulators; [`nets`]: the
//!    studies' convolutional networks (candle); [`eval`]: the
//!    evaluator — linear terms with tapered weights, or a network — its file format and
//!    built-ins.
//! 5. Search: [`search`]: alpha-beta, quiescence, the mate search.
//! 6. Store and stages: [`db`]: the SQLite store — migrations, import, analyze, stats,
//!    labels, stored evaluators and runs.
//! 7. Learning: [`fit`]: the split, the studies' regressions, metrics, ratings; [`tune`]:
//!    Texel tuning; [`train`]: the NNUE trainer; [`nettrain`]: the trainer of the
//!    studies' networks.
//! 8. Play: [`players`]: the studies' players and the engine behind one interface;
//!    [`uci`]: the UCI engine loop.
//! 9. Data making: [`datagen`]: self-play positions; [`selfplay`]: the policy/value
//!    network's self-play with PUCT; [`label`]: labels from any engine.
//! 10. Measuring: [`measure`]: puzzles, suites, evaluator comparisons, matches,
//!     tournaments.
//! 11. Output: [`columnar`] (Parquet), [`heatmap`], [`report`], and [`serve`] (the
//!     browser page).
//!
//! The binary's `cli/` (one file per subcommand) uses any of them.

#![warn(missing_docs)]

pub mod chess;
#[cfg(feature = "parquet")]
pub mod columnar;
pub mod data;
pub mod datagen;
pub mod db;
pub mod engines;
pub mod error;
pub mod eval;
pub mod fit;
pub mod graph;
pub mod heatmap;
pub mod label;
pub mod measure;
#[cfg(feature = "nets")]
pub mod nets;
#[cfg(feature = "nets")]
pub mod nettrain;
pub mod nnue;
pub mod players;
pub mod report;
pub mod search;
#[cfg(feature = "nets")]
pub mod selfplay;
#[cfg(feature = "serve")]
pub mod serve;
pub mod train;
pub mod tune;
pub mod uci;

pub use error::{Error, Result};

/// The modules in pipeline order: each may use only those before it in this list.
pub const LAYERS: &[&str] = &[
    "error", "chess", "engines", "data", "graph", "nnue", "nets", "eval", "search", "db", "fit",
    "tune", "train", "nettrain", "players", "uci", "datagen", "selfplay", "label", "measure",
    "columnar", "heatmap", "report", "serve",
];

#[cfg(test)]
mod layers;
