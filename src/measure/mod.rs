//! Benchmarks: puzzle solving (`chessgraph solve`), evaluator comparisons
//! (`chessgraph eval`), engine matches (`chessgraph match`) and tournaments
//! (`chessgraph tournament`).

pub mod evaluate;
pub mod matches;
pub mod puzzles;
pub mod tournament;
