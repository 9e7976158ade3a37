//! The attack/defense graph and the position features.
