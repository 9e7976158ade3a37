//! One file per subcommand: each parses its arguments and calls the library.

pub mod analyze;
pub mod bench;
pub mod engine;
pub mod eval;
pub mod export;
pub mod fit;
pub mod heatmap;
pub mod import;
pub mod report;
pub mod solve;
pub mod stats;
pub mod tune;
