//! How well evaluators and policy networks agree with the stored labels: an evaluator's
//! τ, Pearson's r, RMSE and Texel loss ([`evaluator`], `chessgraph rate evaluator`), and a
//! policy network's best-move agreement ([`policy`], `chessgraph rate policy`).

pub mod evaluator;
#[cfg(feature = "cnn")]
pub mod policy;
