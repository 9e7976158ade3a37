//! chessgraph's data as Arrow batches, for the columnar export (Parquet), the Python
//! package and whatever else speaks Arrow (DuckDB, Polars, Spark):
//!
//! - [`positions`]: from a column of FENs (or of packed boards), the features of each
//!   position (the `features` table's columns), its packed board, its FEN and key — every
//!   position in parallel, a bad one an error naming its row;
//! - [`edges`]: the attack/defense graph of each position, as the `edges` table's rows;
//! - [`table`]: the tables of a database (`positions`, `features`, `labels`, `splits`,
//!   and the `edges` of every analyzed position) read into batches, each column typed as
//!   SQLite declares it.
//!
//! Modules are ordered ([`LAYERS`]; a test of the workspace checks it).

#![warn(missing_docs)]

pub mod edges;
pub mod positions;
pub mod table;

/// This crate's modules in order: each uses only modules before it.
pub const LAYERS: &[&str] = &["positions", "edges", "table"];
