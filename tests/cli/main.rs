//! The one integration-test binary: runs the real `chessgraph` executable on temporary
//! databases. One module per subcommand; `util` has the `cgtest!` harness.

mod http;
mod util;

mod analyze;
mod bulk;
mod engine;
mod engine_commands;
#[cfg(feature = "parquet")]
mod export_data;
mod face;
mod grammar;
mod import;
mod learn;
mod lichess;
mod matches;
mod messages;
mod migrate;
mod moves;
#[cfg(feature = "cnn")]
mod nets;
mod nnue;
mod pipes;
mod players;
mod report;
#[cfg(feature = "serve")]
mod serve;
#[cfg(feature = "serve")]
mod serve_browser;
#[cfg(feature = "serve")]
mod serve_safe;
mod solve;
mod sprt;
mod spsa;
mod sql;
mod sqlite_clients;
mod tournament;
