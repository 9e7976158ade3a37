//! AdamW (Loshchilov & Hutter): Adam with weight decay applied to the weights directly,
//! not through the gradient, and a cosine learning-rate schedule.

use super::grad::Gradient;
use super::params::Params;
use chessgraph_engine::nnue::simd::avx2_dispatch;

/// AdamW's state and settings.
#[derive(Clone, Debug)]
pub struct AdamW {
    m: Params,
    v: Params,
    step: u32,
    /// Decoupled weight decay (per unit of learning rate), applied to weights, not biases.
    pub weight_decay: f32,
    /// First-moment decay.
    pub beta1: f32,
    /// Second-moment decay.
    pub beta2: f32,
}

impl AdamW {
    /// Fresh state for a model of `model`'s shape.
    pub fn new(model: &Params, weight_decay: f32) -> AdamW {
        AdamW {
            m: model.zeros_like(),
            v: model.zeros_like(),
            step: 0,
            weight_decay,
            beta1: 0.9,
            beta2: 0.999,
        }
    }

    /// One update with the gradient `Σ grads · scale` (the threads' gradients summed in
    /// the order given), then every parameter clipped to ±`clip` (the output weights to
    /// ±`out_clip`). A first-layer row that
    /// no thread touched has a zero gradient and is not read; it still gets the full
    /// update (its moments decay and its weight moves and decays), so the result is bit
    /// for bit that of [`AdamW::step_dense`] on the summed gradient. Runs on all cores in
    /// blocks of rows; the numbers do not depend on the split.
    pub fn step(
        &mut self,
        params: &mut Params,
        grads: &[Gradient],
        scale: f32,
        lr: f32,
        clip: f32,
        out_clip: f32,
    ) {
        use rayon::prelude::*;
        self.step += 1;
        let rule = self.rule(scale, lr, clip);
        let h = params.hidden;
        let rows_per_task = (8192 / h).max(1);
        let [pw, pb, po, pob] = params.slices_mut();
        let [mw, mb, mo, mob] = self.m.slices_mut();
        let [vw, vb, vo, vob] = self.v.slices_mut();
        // The first layer, row by row: only the touched rows' gradients are read.
        pw.par_chunks_mut(rows_per_task * h)
            .zip(mw.par_chunks_mut(rows_per_task * h))
            .zip(vw.par_chunks_mut(rows_per_task * h))
            .enumerate()
            .for_each(|(task, ((p, m), v))| {
                let rows = p.chunks_mut(h).zip(m.chunks_mut(h)).zip(v.chunks_mut(h));
                for (i, ((p, m), v)) in rows.enumerate() {
                    let row = task * rows_per_task + i;
                    let at = row * h;
                    let touched = grads.iter().any(|g| g.is_touched(row));
                    let grads = if touched { grads } else { &[] };
                    update_span(p, m, v, grads, 0, at, rule.weights());
                }
            });
        // Biases and the output layer, dense (small).
        for (k, p, m, v, decayed) in [
            (1, pb, mb, vb, false),
            (2, po, mo, vo, true),
            (3, pob, mob, vob, false),
        ] {
            let r = if decayed {
                Rule {
                    clip: out_clip,
                    ..rule.weights()
                }
            } else {
                rule
            };
            update_span(p, m, v, grads, k, 0, r);
        }
    }

    fn rule(&self, scale: f32, lr: f32, clip: f32) -> Rule {
        let (b1, b2) = (self.beta1, self.beta2);
        Rule {
            scale,
            b1,
            b2,
            c1: 1.0 - b1.powi(self.step as i32),
            c2: 1.0 - b2.powi(self.step as i32),
            lr,
            decay: 1.0,
            weight_decay: 1.0 - lr * self.weight_decay,
            clip,
        }
    }

    /// One update with the gradient `grad · scale`, then every parameter clipped to
    /// ±`clip` (the output weights to ±`out_clip`), over every parameter: the reference
    /// [`AdamW::step`] must equal.
    pub fn step_dense(
        &mut self,
        params: &mut Params,
        grad: &Params,
        scale: f32,
        lr: f32,
        clip: f32,
        out_clip: f32,
    ) {
        self.step += 1;
        let (b1, b2) = (self.beta1, self.beta2);
        let c1 = 1.0 - b1.powi(self.step as i32);
        let c2 = 1.0 - b2.powi(self.step as i32);
        let slices = params
            .slices_mut()
            .into_iter()
            .zip(grad.slices())
            .zip(self.m.slices_mut())
            .zip(self.v.slices_mut());
        for (index, (((p, g), m), v)) in slices.enumerate() {
            // Slices 0 and 2 are weights (decayed); 1 and 3 biases.
            let clip = if index == 2 { out_clip } else { clip };
            let decay = if index % 2 == 0 {
                1.0 - lr * self.weight_decay
            } else {
                1.0
            };
            for i in 0..p.len() {
                let g = g[i] * scale;
                m[i] = b1 * m[i] + (1.0 - b1) * g;
                v[i] = b2 * v[i] + (1.0 - b2) * g * g;
                let update = (m[i] / c1) / ((v[i] / c2).sqrt() + 1e-8);
                p[i] = (p[i] * decay - lr * update).clamp(-clip, clip);
            }
        }
    }
}

/// The constants of one AdamW step.
#[derive(Copy, Clone, Debug)]
struct Rule {
    scale: f32,
    b1: f32,
    b2: f32,
    /// Bias corrections 1 − β₁ᵗ and 1 − β₂ᵗ.
    c1: f32,
    c2: f32,
    lr: f32,
    /// The factor applied to the parameter before the step (1 for biases).
    decay: f32,
    /// The factor for weights, 1 − lr·weight decay.
    weight_decay: f32,
    clip: f32,
}

impl Rule {
    /// The same rule with the weight decay on.
    fn weights(self) -> Rule {
        Rule {
            decay: self.weight_decay,
            ..self
        }
    }

    /// AdamW on one parameter (the operations of [`AdamW::step_dense`], in its order).
    #[inline(always)]
    fn apply(&self, p: &mut f32, m: &mut f32, v: &mut f32, g: f32) {
        let g = g * self.scale;
        *m = self.b1 * *m + (1.0 - self.b1) * g;
        *v = self.b2 * *v + (1.0 - self.b2) * g * g;
        let update = (*m / self.c1) / ((*v / self.c2).sqrt() + 1e-8);
        *p = (*p * self.decay - self.lr * update).clamp(-self.clip, self.clip);
    }
}

avx2_dispatch! {
    /// Updates `p[i]` (with moments `m[i]`, `v[i]`) by the gradient
    /// `Σ grads[t].params.slices()[slice][at + i]`, zero when `grads` is empty; 8-wide
    /// with AVX2.
    fn update_span / update_span_avx2 = update_span_generic(p: &mut [f32], m: &mut [f32], v: &mut [f32], grads: &[Gradient], slice: usize, at: usize, rule: Rule)
}

#[inline(always)]
fn update_span_generic(
    p: &mut [f32],
    m: &mut [f32],
    v: &mut [f32],
    grads: &[Gradient],
    slice: usize,
    at: usize,
    rule: Rule,
) {
    const B: usize = 64;
    let mut sum = [0.0f32; B];
    let spans = p.chunks_mut(B).zip(m.chunks_mut(B)).zip(v.chunks_mut(B));
    for (j, ((p, m), v)) in spans.enumerate() {
        let (lo, n) = (at + j * B, p.len());
        let g = &mut sum[..n];
        // The same additions as summing whole buffers into the first one, in order.
        match grads.split_first() {
            Some((first, rest)) => {
                g.copy_from_slice(&first.params.slices()[slice][lo..lo + n]);
                for o in rest {
                    for (g, &x) in g.iter_mut().zip(&o.params.slices()[slice][lo..lo + n]) {
                        *g += x;
                    }
                }
            }
            None => g.fill(0.0),
        }
        for (((p, m), v), &g) in p.iter_mut().zip(m).zip(v).zip(g.iter()) {
            rule.apply(p, m, v, g);
        }
    }
}

/// Cosine decay from `lr` to `lr · final_fraction` over `total` steps.
pub fn cosine_lr(lr: f32, final_fraction: f32, step: usize, total: usize) -> f32 {
    let t = step as f32 / total.max(1) as f32;
    let lo = lr * final_fraction;
    lo + 0.5 * (lr - lo) * (1.0 + (std::f32::consts::PI * t.min(1.0)).cos())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_engine::nnue::FeatureSet;

    #[test]
    fn adamw_minimizes_a_quadratic() {
        let mut p = Params::zeros(FeatureSet::Pieces, 1, 1);
        p.out_b[0] = 3.0;
        let mut opt = AdamW::new(&p, 0.0);
        for _ in 0..2000 {
            let mut g = Params::zeros(FeatureSet::Pieces, 1, 1);
            g.out_b[0] = 2.0 * (p.out_b[0] - 1.0);
            opt.step_dense(&mut p, &g, 1.0, 0.01, f32::INFINITY, f32::INFINITY);
        }
        assert!((p.out_b[0] - 1.0).abs() < 1e-2, "{}", p.out_b[0]);
    }

    /// The sparse step (per-thread gradients, only touched rows read) gives bit for bit
    /// the dense step on the summed gradient, over batches that touch different rows.
    #[test]
    fn sparse_step_equals_dense_step() {
        use crate::train::nnue::data::Sample;
        use crate::train::nnue::model::Scratch;
        use chessgraph_core::chess::fen::parse_position;
        let set: Vec<Sample> = [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
            "4k3/8/8/8/8/8/8/3qK3 w - - 0 1",
            "8/8/4k3/8/8/3K4/8/8 w - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "4k3/8/8/8/8/8/8/3RK3 b - - 0 1",
        ]
        .iter()
        .zip([30.0, 900.0, -800.0, 0.0, -150.0, 500.0])
        .map(|(f, l)| Sample::new(&parse_position(f).unwrap(), FeatureSet::Pieces, l, f32::NAN))
        .collect();
        // H = 72: a full block of 64 units and a partial one.
        let h = 72;
        let mut dense = Params::init(FeatureSet::Pieces, h, 2, 3);
        let mut sparse = dense.clone();
        let (mut adam_d, mut adam_s) = (AdamW::new(&dense, 0.01), AdamW::new(&dense, 0.01));
        let mut grads = vec![Gradient::new(&dense), Gradient::new(&dense)];
        let mut scratch = Scratch::new(FeatureSet::Pieces, h);
        // Batches of 3, 1 and 2 positions (split over two "threads" where possible),
        // visited twice so that rows go untouched for a while and come back.
        let batches: [&[Sample]; 6] = [
            &set[0..3],
            &set[3..4],
            &set[4..6],
            &set[1..2],
            &set[0..3],
            &set[5..6],
        ];
        for (step, batch) in batches.into_iter().enumerate() {
            let chunk = batch.len().div_ceil(2);
            let used = batch.len().div_ceil(chunk);
            for (c, g) in batch.chunks(chunk).zip(&mut grads) {
                g.clear();
                sparse.backward(c, 0.006, 0.0, g, &mut scratch);
            }
            let mut sum = grads[0].params.clone();
            let others: Vec<&Params> = grads[1..used].iter().map(|g| &g.params).collect();
            sum.add_all(&others);
            let lr = 0.05 / (step + 1) as f32;
            let scale = 1.0 / batch.len() as f32;
            adam_d.step_dense(&mut dense, &sum, scale, lr, 1.5, 0.7);
            adam_s.step(&mut sparse, &grads[..used], scale, lr, 1.5, 0.7);
            assert!(grads[0].touched_rows() < FeatureSet::Pieces.inputs() / 4);
            assert_eq!(sparse, dense, "parameters after step {step}");
            assert_eq!(adam_s.m, adam_d.m, "first moments after step {step}");
            assert_eq!(adam_s.v, adam_d.v, "second moments after step {step}");
        }
        // The rows no batch touched moved too: weight decay and momentum.
        assert_ne!(sparse, Params::init(FeatureSet::Pieces, h, 2, 3));
    }

    #[test]
    fn schedule_ends_where_it_should() {
        assert_eq!(cosine_lr(1.0, 0.1, 0, 100), 1.0);
        assert!((cosine_lr(1.0, 0.1, 100, 100) - 0.1).abs() < 1e-6);
        assert!((cosine_lr(1.0, 0.1, 50, 100) - 0.55).abs() < 1e-6);
    }
}
