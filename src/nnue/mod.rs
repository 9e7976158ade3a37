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
/// Quantization of the output weights: 1.0 ↦ `QB`.
pub const QB: i32 = 64;
/// The network's raw output times `SCALE` is centipawns.
pub const SCALE: i32 = 400;
/// Largest float magnitude of a quantized weight: the output weights must stay within
/// `i8` range after scaling by [`QB`] (127 / 64), so that `clamp(acc) · w` fits an `i16`
/// in the integer forward pass; the first layer shares the bound.
pub const WEIGHT_CLIP: f32 = 127.0 / QB as f32;
