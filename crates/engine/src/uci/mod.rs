//! The UCI protocol: command parsing ([`parse`]) and the engine loop ([`run`]).
//!
//! Architecture (after Rustic): the thread calling [`run`] reads standard input and keeps
//! the current position; a search thread owns the [`Searcher`](crate::search::Searcher) and receives jobs over a
//! channel. `stop`, `ponderhit` and `quit` act through atomic flags shared with the search,
//! so they work at any time, also during `go infinite`. `isready` is answered at once while
//! searching, otherwise after the jobs queued before it (such as a Hash resize). Both
//! threads write whole lines to the shared output and flush after each.
//!
//! A `go` sent while a bounded search runs is queued behind it; the reader never waits on
//! the search, so `stop` (which ends the running search and every queued one) and `quit`
//! are always read. `quit` stops the search at once; at the end of input a bounded search
//! (depth, nodes, time) is allowed to finish, so that scripts can pipe commands in.
//!
//! Malformed or unknown input is answered with `info string error: ...`; the engine keeps
//! running. The best move is always legal (`bestmove 0000` when there is none).
//!
//! Files: [`command`] (parsing, typed errors, `position`/`go` to a game and limits),
//! `engine` (the reader loop and options), `worker` (the search thread), [`output`], [`book`]
//! (Polyglot opening books). Talking to *other* engines is [`crate::engines`].

pub mod book;
pub mod command;
mod engine;
pub mod output;
#[cfg(test)]
mod tests;
mod worker;

pub use command::{Command, Game, Go, UciError, limits, parse};
pub use engine::{Resolver, run};
pub use output::{Output, info_line};

/// Engine name reported to `uci`.
pub const ENGINE_NAME: &str = concat!("chessgraph ", env!("CARGO_PKG_VERSION"));
