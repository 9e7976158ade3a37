//! The one integration-test binary: runs the real `chessgraph` executable on temporary
//! databases. One module per subcommand; `util` has the `cgtest!` harness.

mod util;

mod analyze;
mod engine;
mod import;
mod learn;
mod matches;
mod moves;
mod nnue;
mod report;
mod solve;
