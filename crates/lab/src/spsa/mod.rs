//! SPSA (simultaneous perturbation stochastic approximation): tuning a UCI engine's spin
//! options by games, as the engines' testing frameworks do it (OpenBench, fishtest).
//!
//! Every iteration perturbs all the options at once: each moves by ±`c` (a random sign
//! per option), one engine plays with `θ + c·δ`, the other with `θ − c·δ`, and they play
//! pairs of games (an opening with both colours). The first side's wins less its losses
//! (`result`) move every option along its own sign: `θ += r · c · result · δ`. The steps
//! shrink over the run as the frameworks schedule them, with OpenBench's parameters: an
//! option's `c` falls from `c_end · N^γ` to `c_end` at the last of `N` iterations (`c_k =
//! c_end · (N / k)^γ`, at least 0.5 for an integer option so that rounding still moves
//! it), and its learning rate `r_k = a / (A + k)^α / c_k²` ends at `r_end` (`A` = the
//! A-ratio · N, `a = r_end · c_end² · (A + N)^α`). Integer options are rounded at random
//! (up with the probability of the fraction), so that the expected value is the real one.
//!
//! Files: this one (the schedule, the perturbation and the update), [`input`] (the
//! options to tune, in OpenBench's input lines), [`history`] (the run's record: a CSV row
//! an iteration, which resumes it, and the plot), [`run`] (the games).

pub mod history;
pub mod input;
pub mod run;

use chessgraph_core::chess::rng::SplitMix;
use serde::{Deserialize, Serialize};

pub use input::{InputError, parse_input};

/// One option to tune.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// The UCI option's name.
    pub name: String,
    /// A real-valued option (sent with its decimals) rather than an integer one.
    pub float: bool,
    /// The value the tune starts from.
    pub start: f64,
    /// Smallest value allowed.
    pub min: f64,
    /// Largest value allowed.
    pub max: f64,
    /// The perturbation at the last iteration.
    pub c_end: f64,
    /// The learning rate at the last iteration.
    pub r_end: f64,
}

impl Param {
    /// `value` as the engine is sent it: rounded for an integer option.
    pub fn uci_value(&self, value: f64) -> String {
        if self.float {
            format!("{value}")
        } else {
            format!("{}", value.round() as i64)
        }
    }
}

/// How the steps shrink over the run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    /// Iterations the run is planned for (`N`).
    pub iterations: u64,
    /// Decay of the learning rate (`α`, 0.602 by default).
    pub alpha: f64,
    /// Decay of the perturbation (`γ`, 0.101 by default).
    pub gamma: f64,
    /// The stability constant as a share of the iterations (`A / N`, 0.1 by default).
    pub a_ratio: f64,
}

impl Schedule {
    /// The frameworks' usual exponents and A-ratio for a run of `iterations`.
    pub fn new(iterations: u64) -> Schedule {
        Schedule {
            iterations,
            alpha: 0.602,
            gamma: 0.101,
            a_ratio: 0.1,
        }
    }

    /// The perturbation of `p` at iteration `k` (from 1).
    pub fn c(&self, p: &Param, k: u64) -> f64 {
        let c = p.c_end * (self.iterations as f64 / k.max(1) as f64).powf(self.gamma);
        if p.float { c } else { c.max(0.5) }
    }

    /// The learning rate of `p` at iteration `k` (from 1).
    pub fn r(&self, p: &Param, k: u64) -> f64 {
        let big_a = self.a_ratio * self.iterations as f64;
        let a = p.r_end * p.c_end * p.c_end * (big_a + self.iterations as f64).powf(self.alpha);
        let c = self.c(p, k);
        a / (big_a + k.max(1) as f64).powf(self.alpha) / (c * c)
    }
}

/// One iteration's two settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Perturbation {
    /// The iteration (from 1).
    pub iteration: u64,
    /// Each option's sign, ±1.
    pub flips: Vec<f64>,
    /// The first engine's values (`θ + c·δ`, rounded and clipped).
    pub plus: Vec<f64>,
    /// The second engine's values (`θ − c·δ`, rounded and clipped).
    pub minus: Vec<f64>,
    /// Each option's perturbation.
    pub c: Vec<f64>,
    /// Each option's learning rate.
    pub r: Vec<f64>,
}

/// The iteration's random numbers: from the run's seed and the iteration alone, so that a
/// resumed run perturbs as the first would have.
fn iteration_rng(seed: u64, k: u64) -> SplitMix {
    let mut mix = SplitMix(seed ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    mix.next_u64();
    mix
}

/// Uniform in [0, 1).
fn unit(rng: &mut SplitMix) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// Iteration `k`'s settings around `values`.
pub fn perturb(
    params: &[Param],
    values: &[f64],
    schedule: &Schedule,
    k: u64,
    seed: u64,
) -> Perturbation {
    let mut rng = iteration_rng(seed, k);
    let mut out = Perturbation {
        iteration: k,
        flips: Vec::with_capacity(params.len()),
        plus: Vec::with_capacity(params.len()),
        minus: Vec::with_capacity(params.len()),
        c: Vec::with_capacity(params.len()),
        r: Vec::with_capacity(params.len()),
    };
    for (p, &v) in params.iter().zip(values) {
        let flip = if rng.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
        let c = schedule.c(p, k);
        let (mut plus, mut minus) = (v + flip * c, v - flip * c);
        if !p.float {
            // One random fraction for both sides: their difference stays 2c on average.
            let u = unit(&mut rng);
            plus = (plus + u).floor();
            minus = (minus + u).floor();
        }
        out.flips.push(flip);
        out.plus.push(plus.clamp(p.min, p.max));
        out.minus.push(minus.clamp(p.min, p.max));
        out.c.push(c);
        out.r.push(schedule.r(p, k));
    }
    out
}

/// Moves `values` by an iteration's outcome: `result` is the first engine's wins less its
/// losses over the iteration's games.
pub fn update(params: &[Param], values: &mut [f64], pert: &Perturbation, result: f64) {
    for (i, (p, v)) in params.iter().zip(values.iter_mut()).enumerate() {
        let step = pert.r[i] * pert.c[i] * result * pert.flips[i];
        *v = (*v + step).clamp(p.min, p.max);
    }
}

#[cfg(test)]
mod tests;
