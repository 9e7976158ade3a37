//! The float model the trainer fits, its forward and backward passes, and quantization.
//!
//! Hand-written rather than built on a tensor crate because the first layer is the whole
//! cost and it is *sparse*: each position has ~30–40 active inputs out of 768 (2,304 with threats), so the forward
//! pass adds ~30 rows of the weight matrix and the backward pass adds the same gradient
//! row back into ~30 rows. A dense matrix product (what general-purpose crates offer on
//! the CPU) would do 25× the work. The loops over `H` are in [`super::kernels`] (written
//! so that the compiler vectorizes them); training passes samples through the first layer
//! in groups ([`super::group`]) to keep the rows it reads and writes in cache.

use chessgraph_engine::nnue::features::mirror;
use chessgraph_engine::nnue::network::output_bucket;
use chessgraph_engine::nnue::simd::avx2_dispatch;
use chessgraph_engine::nnue::{FeatureSet, Network, QA, SCALE};

use super::data::{MAX_FEATURES, Sample};
use super::grad::Gradient;
use super::group::{GROUP, Group};
use super::kernels;
use super::params::Params;

impl Params {
    /// The model's evaluation of `s`, centipawns from the side to move's view.
    pub fn predict_stm(&self, s: &Sample, scratch: &mut Scratch) -> f32 {
        forward(self, s, scratch);
        scratch.out * SCALE as f32
    }

    /// The output bucket of `s`.
    #[inline(always)]
    fn bucket(&self, s: &Sample) -> usize {
        output_bucket(u32::from(s.pieces), self.buckets())
    }

    /// Forward and backward over `samples`, adding gradients of the summed loss into
    /// `grad`; returns the summed loss. The target of a sample is
    /// `λ·result + (1 − λ)·σ(K·label)` (the label alone where the result is unknown), the
    /// loss `(σ(K·eval) − target)²`, both from White's view.
    pub fn backward(
        &self,
        samples: &[Sample],
        k: f32,
        lambda: f32,
        grad: &mut Gradient,
        scratch: &mut Scratch,
    ) -> f64 {
        backward_samples(self, samples, k, lambda, grad, scratch)
    }

    /// The quantized network: first layer × QA, output weights × `qb`, output bias × QA·`qb`.
    pub fn quantize(&self, qb: i32, provenance: serde_json::Value) -> Network {
        let q = |w: f32, s: i32| (w * s as f32).round() as i16;
        Network::from_parts(
            self.features,
            self.ft_w.iter().map(|&w| q(w, QA)).collect(),
            self.ft_b.iter().map(|&w| q(w, QA)).collect(),
            self.out_w.iter().map(|&w| q(w, qb)).collect(),
            self.out_b
                .iter()
                .map(|&b| (b * (QA * qb) as f32).round() as i32)
                .collect(),
            qb,
            provenance,
        )
        .expect("clipped weights quantize into range")
    }
}

avx2_dispatch! {
    /// The forward pass of one sample: both perspectives' first layer (rows in the
    /// sample's feature order), then the output, into `scratch`; 8-wide with AVX2.
    fn forward / forward_avx2 = forward_generic(params: &Params, s: &Sample, scratch: &mut Scratch)
}

#[inline(always)]
fn forward_generic(params: &Params, s: &Sample, scratch: &mut Scratch) {
    let h = params.hidden;
    let n = s.white_features().len();
    for (i, &f) in s.white_features().iter().enumerate() {
        scratch.white[i] = f as usize;
        scratch.black[i] = mirror(f as usize);
    }
    let (white, black) = (&scratch.white[..n], &scratch.black[..n]);
    let (us, them) = if s.white_to_move {
        (white, black)
    } else {
        (black, white)
    };
    kernels::accumulate(&params.ft_w, &params.ft_b, us, &mut scratch.us);
    kernels::accumulate(&params.ft_w, &params.ft_b, them, &mut scratch.them);
    let b = params.bucket(s);
    let (w_us, w_them) = params.out_w[2 * h * b..2 * h * (b + 1)].split_at(h);
    scratch.out = kernels::screlu_dot(&scratch.us, w_us)
        + kernels::screlu_dot(&scratch.them, w_them)
        + params.out_b[b];
}

avx2_dispatch! {
    /// [`Params::backward`]: 8-wide with AVX2 for the row adds that are the whole cost
    /// (the build targets baseline x86-64 otherwise).
    fn backward_samples / backward_avx2 = backward_generic(params: &Params, samples: &[Sample], k: f32, lambda: f32, grad: &mut Gradient, scratch: &mut Scratch) -> f64
}

#[inline(always)]
fn backward_generic(
    params: &Params,
    samples: &[Sample],
    k: f32,
    lambda: f32,
    grad: &mut Gradient,
    scratch: &mut Scratch,
) -> f64 {
    let h = params.hidden;
    let mut loss = 0.0f64;
    let group = &mut scratch.group;
    for samples in samples.chunks(GROUP) {
        group.forward(params, samples);
        for (i, s) in samples.iter().enumerate() {
            let (us, them) = group.vectors_mut(i);
            let b = params.bucket(s);
            let out_w = &params.out_w[2 * h * b..2 * h * (b + 1)];
            let (w_us, w_them) = out_w.split_at(h);
            let out =
                kernels::screlu_dot(us, w_us) + kernels::screlu_dot(them, w_them) + params.out_b[b];
            let sign = if s.white_to_move { 1.0 } else { -1.0 };
            let p = sigmoid(k * sign * out * SCALE as f32);
            let t = target(s, k, lambda);
            loss += f64::from((p - t) * (p - t));
            // d loss / d out (the raw output, side to move's view).
            let d = 2.0 * (p - t) * p * (1.0 - p) * k * SCALE as f32 * sign;
            let g = &mut grad.params;
            g.out_b[b] += d;
            let (gw_us, gw_them) = g.out_w[2 * h * b..2 * h * (b + 1)].split_at_mut(h);
            kernels::screlu_backward(us, w_us, d, gw_us);
            kernels::screlu_backward(them, w_them, d, gw_them);
            kernels::add_sum(&mut g.ft_b, us, them);
        }
        group.add_gradients(grad);
    }
    loss
}

/// The blended target of a sample, White's view.
pub fn target(s: &Sample, k: f32, lambda: f32) -> f32 {
    let label = sigmoid(k * s.label_cp);
    if s.result.is_nan() {
        label
    } else {
        lambda * s.result + (1.0 - lambda) * label
    }
}

/// Per-thread buffers of the forward and backward passes.
#[derive(Clone, Debug)]
pub struct Scratch {
    /// The first-layer rows of the sample's features, White's perspective.
    white: [usize; MAX_FEATURES],
    /// The same for Black's perspective (mirrored features).
    black: [usize; MAX_FEATURES],
    us: Vec<f32>,
    them: Vec<f32>,
    /// The first layer of a group of samples.
    group: Group,
    out: f32,
}

impl Scratch {
    /// Buffers for a model of `set` with `hidden` units.
    pub fn new(set: FeatureSet, hidden: usize) -> Scratch {
        Scratch {
            white: [0; MAX_FEATURES],
            black: [0; MAX_FEATURES],
            us: vec![0.0; hidden],
            them: vec![0.0; hidden],
            group: Group::new(set, hidden),
            out: 0.0,
        }
    }
}

/// The logistic function.
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_core::chess::fen::parse_position;
    use chessgraph_core::chess::rng::SplitMix;

    fn samples() -> Vec<Sample> {
        [
            (
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
                30.0,
                0.5,
            ),
            ("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", 900.0, 1.0),
            ("4k3/8/8/8/8/8/8/3qK3 w - - 0 1", -800.0, 0.0),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
                -120.0,
                f32::NAN,
            ),
        ]
        .iter()
        .map(|&(fen, l, r)| Sample::new(&parse_position(fen).unwrap(), FeatureSet::Pieces, l, r))
        .collect()
    }

    /// The analytic gradient agrees with finite differences on every kind of parameter.
    #[test]
    fn gradient_matches_finite_differences() {
        let mut m = Params::init(FeatureSet::Pieces, 8, 4, 5);
        for b in &mut m.ft_b {
            *b = 0.3; // keep units inside (0, 1) where SCReLU is smooth
        }
        let set = samples();
        let (k, lambda) = (0.006, 0.25);
        let mut scratch = Scratch::new(FeatureSet::Pieces, 8);
        let mut grad = Gradient::new(&m);
        m.backward(&set, k, lambda, &mut grad, &mut scratch);
        let grad = grad.params;
        let loss = |m: &Params| {
            let mut g = Gradient::new(m);
            m.backward(
                &set,
                k,
                lambda,
                &mut g,
                &mut Scratch::new(FeatureSet::Pieces, 8),
            ) as f32
        };
        let f = set[1].white_features()[0] as usize;
        // Output buckets 0 (the 3-piece positions) and 3 (the 30–32-piece ones) of 4.
        let checks = [
            (0, f * 8 + 3),
            (1, 2),
            (2, 5),
            (3, 0),
            (2, 3 * 16 + 9),
            (3, 3),
        ];
        for (slice, i) in checks {
            let eps = 1e-3;
            let mut plus = m.clone();
            plus.slices_mut()[slice][i] += eps;
            let mut minus = m.clone();
            minus.slices_mut()[slice][i] -= eps;
            let numeric = (loss(&plus) - loss(&minus)) / (2.0 * eps);
            let analytic = grad.slices()[slice][i];
            assert!(
                (numeric - analytic).abs() <= 2e-3 * analytic.abs().max(1e-2),
                "slice {slice} index {i}: numeric {numeric} analytic {analytic}"
            );
        }
    }

    /// A network read back into floats quantizes to itself: `train --init` starts exactly
    /// where the file is.
    #[test]
    fn from_network_round_trips() {
        let net = chessgraph_engine::nnue::Network::random(FeatureSet::Threats, 16, 1, 2);
        let back = Params::from_network(&net).quantize(net.qb(), net.provenance().clone());
        assert_eq!(back, net);
    }

    /// The quantized network evaluates like the float model, within quantization error.
    #[test]
    fn quantized_network_tracks_the_float_model() {
        let mut m = Params::init(FeatureSet::Threats, 32, 4, 9);
        // Output weights of a trained net's size (quantization steps are 1/128).
        let mut rng = SplitMix(4);
        for w in &mut m.out_w {
            *w = rng.uniform() * 0.9;
        }
        let net = m.quantize(chessgraph_engine::nnue::QB, serde_json::json!({}));
        let mut scratch = Scratch::new(FeatureSet::Threats, 32);
        for fen in [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        ] {
            let pos = parse_position(fen).unwrap();
            let s = Sample::new(&pos, FeatureSet::Threats, 0.0, 0.5);
            let float = m.predict_stm(&s, &mut scratch);
            let int = net.evaluate(&pos) as f32;
            // Output weights are quantized in steps of 1/128: a few percent.
            assert!(
                (float - int).abs() < 3.0 + 0.03 * float.abs(),
                "{fen}: float {float} int {int}"
            );
        }
    }
}
