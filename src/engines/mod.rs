//! Other engines over UCI: start one as a child process and talk to it ([`client`]), and
//! read what it says while it searches ([`info`]). Used by `label`, `match` and
//! `tournament`; chessgraph's own UCI engine loop is the `uci` module.

pub mod client;
pub mod info;
