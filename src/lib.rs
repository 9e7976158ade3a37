//! chessgraph: study chess positions with data.
//!
//! The library follows the pipeline: [`data`] reads input formats, [`db`] stores
//! positions in SQLite, [`graph`] computes the attack/defense graph and features.

pub mod bench;
pub mod data;
pub mod datagen;
pub mod db;
pub mod error;
pub mod eval;
pub mod fit;
pub mod graph;
pub mod heatmap;
pub mod label;
pub mod nnue;
pub mod report;
pub mod search;
pub mod tune;
pub mod uci;

pub use error::{Error, Result};
