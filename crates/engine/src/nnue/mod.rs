//! NNUE: an efficiently updatable neural evaluation, trained by chessgraph itself.
//!
//! The network is the classic perspective net of today's engines:
//!
//! ```text
//! 768 inputs (colour relative to the perspective × role × square, flipped for Black)
//!   [+ 2 × 768 threat inputs: the same piece when attacked, when en prise]
//!   → H hidden units, one weight matrix shared by both perspectives (the "feature transformer")
//!   → SCReLU (clamp to [0, 1], square) of [side to move's H ‖ other side's H]
//!   → 1 output, scaled by [`SCALE`] to centipawns from the side to move's view
//! ```
//!
//! - [`inputs`]: the piece-square input of one piece from one perspective.
//! - [`features`]: the feature sets and the feature changes a move makes.
//! - [`threats`]: the optional threat inputs (the attack graph's attacked / en prise
//!   facts), recomputed per evaluated node.
//! - [`network`]: the quantized network (int16 first layer, as engines use), its integer
//!   forward pass and the versioned file format.
//! - [`simd`]: the integer kernels (accumulator adds, the output's SCReLU dot product).
//! - [`accumulator`]: the first layer's output kept per ply and updated incrementally on
//!   every move (add/remove the changed features, both perspectives).
//!
//! The trainer is the `train` module, a later stage: inference needs none of it.

pub mod accumulator;
pub mod features;
pub mod inputs;
pub mod network;
pub mod simd;
pub mod threats;

pub use accumulator::{Accumulator, AccumulatorStack};
pub use features::FeatureSet;
pub use network::{Network, NetworkError};

/// Quantization of the first layer (weights, biases, accumulator): 1.0 ↦ `QA`.
pub const QA: i32 = 255;
/// Quantization of the output weights the trainer writes: 1.0 ↦ `QB`. Each network file
/// states its own (any of [`QB_CHOICES`]); the finer scale keeps the output layer's many
/// small weights apart (at 64 the median weight of a 512-unit network is 5 steps, and its
/// rounding alone cost a fifth of the validation loss).
pub const QB: i32 = 128;
/// The output scales a network file may use (64: the networks made before the finer one).
pub const QB_CHOICES: [i32; 3] = [64, 128, 256];
/// The network's raw output times `SCALE` is centipawns.
pub const SCALE: i32 = 400;
/// Largest float magnitude of a first-layer weight or bias (255 · 127 / 64 fits an `i16`
/// with room for the accumulator's sums).
pub const WEIGHT_CLIP: f32 = 127.0 / 64.0;

/// Largest float magnitude of an output weight at output scale `qb`: the quantized weight
/// stays within ±127 so that `clamp(acc) · w` fits an `i16` in the integer forward pass.
pub fn out_weight_clip(qb: i32) -> f32 {
    127.0 / qb as f32
}
