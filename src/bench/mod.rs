//! Benchmarks: puzzle solving (`chessgraph solve`) and evaluator comparisons
//! (`chessgraph eval`).

pub mod evaluate;
pub mod puzzles;
