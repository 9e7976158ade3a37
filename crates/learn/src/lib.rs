//! chessgraph's learning: everything that makes weights or models from the stored
//! positions.
//!
//! - [`stats`]: the statistics every tool here and in the lab reports — R², RMSE,
//!   log-loss, AUC, Kendall's τ-b, Pearson's r, the Texel loss, and Elo ([`stats::elo`]);
//! - [`fit`]: the studies' regressions of evaluations and results on the features, on the
//!   shared train/valid/test split, and the move classifier ([`fit::moves`]);
//! - [`ratings`]: players' ratings from all of a tournament's games at once;
//! - [`tune`]: Texel tuning of the tapered evaluator;
//! - [`train`]: the trainers of the NNUE ([`train::nnue`]) and of the studies'
//!   convolutional networks ([`train::cnn`], [`train::selfplay`]).
//!
//! Inside the crate the modules are in that order, each using only those before it
//! ([`LAYERS`]; a test of the workspace checks it).

#![warn(missing_docs)]

pub mod fit;
pub mod ratings;
pub mod stats;
pub mod train;
pub mod tune;

/// The modules in pipeline order: each may use only those before it in this list.
pub const LAYERS: &[&str] = &["stats", "fit", "ratings", "tune", "train"];
