//! One file per subcommand: each parses its arguments and calls the library.

pub mod analyze;
pub mod import;
pub mod solve;
pub mod stats;
