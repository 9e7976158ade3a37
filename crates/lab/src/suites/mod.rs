//! Puzzles and test suites (`chessgraph solve`): mate problems ([`puzzles`]), best-move
//! suites — EPD `bm`/`am` and STS points ([`bestmove`]) — and Lichess puzzles
//! ([`lichess`], with their rating and theme tallies in [`lichess_stats`]); [`solve`]
//! runs any of them with a player and sums up.

pub mod bestmove;
pub mod lichess;
pub mod lichess_stats;
pub mod puzzles;
pub mod solve;
