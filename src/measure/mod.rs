//! Benchmarks: puzzle solving and best-move suites (`chessgraph solve`), evaluator
//! comparisons (`chessgraph eval`), engine matches (`chessgraph match`) and tournaments
//! (`chessgraph tournament`).

pub mod evaluate;
pub mod matches;
pub mod puzzles;
pub mod solve_run;
pub mod suites;
pub mod tournament;
