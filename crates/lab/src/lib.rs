//! chessgraph's lab: measuring players, engines and evaluators, and writing the record.
//!
//! - [`plot`]: what the plots share (embedded fonts);
//! - [`label`]: labels for the stored positions from any UCI engine, several processes
//!   at once, resumable;
//! - [`accuracy`]: evaluators and policy networks rated against the stored labels (τ,
//!   Pearson, RMSE, Texel loss; best-move agreement);
//! - [`suites`]: mate puzzles, best-move suites (EPD `bm`/`am`, STS) and Lichess puzzles;
//! - [`arena`]: refereed engine matches with adjudication, tournaments and the SPRT;
//! - [`spsa`]: tuning an engine's options by SPSA over games;
//! - [`columnar`]: the tables as Parquet files;
//! - [`heatmap`]: average evaluations per piece and square as images;
//! - [`report`]: the database's Markdown report.
//!
//! Inside the crate the modules are in that order, each using only those before it
//! ([`LAYERS`]; a test of the workspace checks it).

#![warn(missing_docs)]

pub mod accuracy;
pub mod arena;
#[cfg(feature = "parquet")]
pub mod columnar;
pub mod heatmap;
pub mod label;
pub mod plot;
pub mod report;
pub mod spsa;
pub mod suites;

/// The modules in pipeline order: each may use only those before it in this list.
pub const LAYERS: &[&str] = &[
    "plot", "label", "accuracy", "suites", "arena", "spsa", "columnar", "heatmap", "report",
];
