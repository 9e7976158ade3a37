//! Benchmarks: puzzle solving, best-move suites and Lichess puzzles (`chessgraph solve`), evaluator
//! comparisons (`chessgraph eval`), engine matches (`chessgraph match`) and tournaments
//! (`chessgraph tournament`).

pub mod evaluate;
pub mod lichess;
pub mod lichess_stats;
pub mod matches;
#[cfg(feature = "nets")]
pub mod policy;
pub mod puzzles;
pub mod solve_run;
pub mod sprt;
pub mod suites;
pub mod tournament;
