//! Benchmarks: puzzle solving and best-move suites (`chessgraph solve`), evaluator comparisons
//! (`chessgraph eval`) and engine matches (`chessgraph match`).

pub mod evaluate;
pub mod matches;
pub mod puzzles;
pub mod solve_run;
pub mod suites;
