//! Other engines over UCI: their command lines as the user gives them ([`command`]),
//! start one as a child process and talk to it ([`client`]), and read what it says while
//! it searches ([`info`]). Used by `label`, `eval-policy`, `match` and `tournament`;
//! chessgraph's own UCI engine loop is the `uci` module.

pub mod client;
pub mod command;
pub mod info;
