//! chessgraph: study chess positions with data.
//!
//! The library is the pipeline, module by module, each using only those before it:
//!
//! 1. [`data`]: input formats (CSV, PGN with `[%eval]`, EPD, puzzles), the one FEN entry
//!    point ([`data::fen`]), labels and game results.
//! 2. [`db`]: the SQLite store: migrations, import, analyze, stats, labels per labeller,
//!    stored evaluators and measurement runs.
//! 3. [`graph`]: the attack/defense graph and the study's features.
//! 4. [`fit`]: the train/valid/test split, the study's linear and logistic regressions,
//!    metrics (Kendall τ, Texel loss, K).
//! 5. [`eval`]: the evaluator — linear terms with tapered weights, or an NNUE — its file
//!    format and built-ins; [`nnue`]: the network, its accumulators and its CPU trainer.
//! 6. [`search`]: the engine's alpha-beta search, quiescence, mate search; [`tune`]: Texel
//!    tuning of the linear evaluator on quiescence leaves.
//!    [`players`]: the studies' simple players (random, greedy, minimax, MCTS, ...) and the
//!    engine behind one interface.
//! 7. [`uci`]: the UCI engine loop, and a client for other engines.
//! 8. [`datagen`]: self-play training data; [`label`]: labelling with any UCI engine.
//! 9. [`measure`]: puzzles, evaluator comparisons, matches, tournaments; [`heatmap`] and
//!    [`report`]; [`columnar`]: the tables as Parquet files for DuckDB, Polars, Spark.
//! 10. [`serve`]: the page and JSON endpoints of `chessgraph serve`.

#![warn(missing_docs)]

pub mod chess;
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
pub mod nnue;
pub mod players;
pub mod report;
pub mod search;
pub mod serve;
pub mod train;
pub mod tune;
pub mod uci;

pub use error::{Error, Result};
