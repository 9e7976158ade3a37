//! Benchmarks: puzzle solving (`chessgraph solve`), evaluator comparisons
//! (`chessgraph eval`) and engine matches (`chessgraph match`).

pub mod evaluate;
pub mod matches;
pub mod puzzles;
