//! The float network's parameters (or a gradient of the same shape): the first layer,
//! its biases and the output layer per bucket, with their shapes and initialisation.

use chessgraph_core::chess::rng::SplitMix;
use chessgraph_engine::nnue::{FeatureSet, Network, QA};

/// The parameters (or their gradients) of a float network with `hidden` units.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// The inputs.
    pub features: FeatureSet,
    /// Hidden size H.
    pub hidden: usize,
    /// First layer, `inputs × H`, feature-major.
    pub ft_w: Vec<f32>,
    /// First-layer biases, `H`.
    pub ft_b: Vec<f32>,
    /// Output weights, `B × 2H`: per output bucket, side to move, then the other side.
    pub out_w: Vec<f32>,
    /// Output biases, one per output bucket (B).
    pub out_b: Vec<f32>,
}

impl Params {
    /// All zeros (a gradient buffer), with `buckets` output buckets.
    pub fn zeros(features: FeatureSet, hidden: usize, buckets: usize) -> Params {
        Params {
            features,
            hidden,
            ft_w: vec![0.0; features.inputs() * hidden],
            ft_b: vec![0.0; hidden],
            out_w: vec![0.0; buckets * 2 * hidden],
            out_b: vec![0.0; buckets],
        }
    }

    /// All zeros in the shape of `self`.
    pub fn zeros_like(&self) -> Params {
        Params::zeros(self.features, self.hidden, self.buckets())
    }

    /// Number of output buckets B.
    pub fn buckets(&self) -> usize {
        self.out_b.len()
    }

    /// Random initial weights from `seed` (uniform, scaled by fan-in), zero biases.
    pub fn init(features: FeatureSet, hidden: usize, buckets: usize, seed: u64) -> Params {
        let mut p = Params::zeros(features, hidden, buckets);
        let mut rng = SplitMix(seed);
        // ~30 active inputs per position: keep the initial accumulators O(1).
        let ft_scale = 1.0 / 32f32.sqrt();
        for w in &mut p.ft_w {
            *w = rng.uniform() * ft_scale;
        }
        let out_scale = 1.0 / (2.0 * hidden as f32).sqrt();
        for w in &mut p.out_w {
            *w = rng.uniform() * out_scale;
        }
        p
    }

    /// The float weights a quantized network stands for (to go on training it).
    pub fn from_network(net: &Network) -> Params {
        let qa = QA as f32;
        let qb = net.qb() as f32;
        Params {
            features: net.features(),
            hidden: net.hidden(),
            ft_w: net
                .ft_weights()
                .iter()
                .map(|&w| f32::from(w) / qa)
                .collect(),
            ft_b: net.ft_bias().iter().map(|&w| f32::from(w) / qa).collect(),
            out_w: net
                .out_weights()
                .iter()
                .map(|&w| f32::from(w) / qb)
                .collect(),
            out_b: net
                .out_bias()
                .iter()
                .map(|&b| b as f32 / (qa * qb))
                .collect(),
        }
    }

    /// The parameter slices in a fixed order (for the optimizer).
    pub fn slices_mut(&mut self) -> [&mut [f32]; 4] {
        [
            &mut self.ft_w,
            &mut self.ft_b,
            &mut self.out_w,
            &mut self.out_b,
        ]
    }

    /// The parameter slices in the same order as [`Params::slices_mut`].
    pub fn slices(&self) -> [&[f32]; 4] {
        [&self.ft_w, &self.ft_b, &self.out_w, &self.out_b]
    }

    /// Adds every one of `others` into `self`, element by element in the order given (the
    /// same sums as adding them one after the other), in parallel blocks.
    pub fn add_all(&mut self, others: &[&Params]) {
        use rayon::prelude::*;
        const BLOCK: usize = 8192;
        for (k, dst) in self.slices_mut().into_iter().enumerate() {
            dst.par_chunks_mut(BLOCK).enumerate().for_each(|(b, d)| {
                let (at, len) = (b * BLOCK, d.len());
                for o in others {
                    for (x, &y) in d.iter_mut().zip(&o.slices()[k][at..at + len]) {
                        *x += y;
                    }
                }
            });
        }
    }
}
