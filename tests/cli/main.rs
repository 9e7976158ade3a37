//! The one integration-test binary: runs the real `chessgraph` executable on temporary
//! databases. One module per subcommand; `util` has the `cgtest!` harness.

mod http;
mod util;

mod analyze;
mod engine;
mod export_data;
mod import;
mod learn;
mod lichess;
mod matches;
mod moves;
mod nnue;
mod players;
mod report;
mod serve;
mod serve_browser;
mod serve_safe;
mod solve;
mod sprt;
mod tournament;
