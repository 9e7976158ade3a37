//! Engines against each other: a refereed match between two UCI engines — legal moves,
//! clocks, draws by rule, adjudication ([`mod@matches`]) — tournaments stored game by game
//! ([`tournament`]), and the sequential probability ratio test that stops a match when
//! the answer is known ([`sprt`]).

pub mod matches;
pub mod sprt;
pub mod tournament;
