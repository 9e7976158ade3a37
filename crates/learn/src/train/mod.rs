//! The trainers of the networks: the NNUE the engine plays with ([`nnue`]), the studies'
//! convolutional networks on the stored positions ([`cnn`]), and the policy/value
//! network's own self-play ([`selfplay`]). `chessgraph train nnue|cnn|selfplay` runs them.
//! [`bullet`] writes the same data for another trainer, bullet.

pub mod bullet;
#[cfg(feature = "cnn")]
pub mod cnn;
pub mod nnue;
#[cfg(feature = "cnn")]
pub mod selfplay;
