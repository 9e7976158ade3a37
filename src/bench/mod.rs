//! Benchmarks: puzzle solving (`chessgraph solve`).

pub mod puzzles;
