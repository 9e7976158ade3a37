//! Search: the engine's alpha-beta search and the exact mate search.

pub mod mate;
