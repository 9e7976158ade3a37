//! AdamW (Loshchilov & Hutter): Adam with weight decay applied to the weights directly,
//! not through the gradient, and a cosine learning-rate schedule.

use super::model::Params;

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
    /// Fresh state for a model with `hidden` units.
    pub fn new(hidden: usize, weight_decay: f32) -> AdamW {
        AdamW {
            m: Params::zeros(hidden),
            v: Params::zeros(hidden),
            step: 0,
            weight_decay,
            beta1: 0.9,
            beta2: 0.999,
        }
    }

    /// One update of `params` with gradient `grad` (already averaged over the batch).
    pub fn step(&mut self, params: &mut Params, grad: &Params, lr: f32) {
        self.step_scaled(params, grad, 1.0, lr, f32::INFINITY);
    }

    /// One update with the gradient `grad · scale`, then every parameter clipped to
    /// ±`clip`. Element-wise, so it runs on all cores in blocks and gives the same numbers
    /// whatever the split.
    pub fn step_scaled(
        &mut self,
        params: &mut Params,
        grad: &Params,
        scale: f32,
        lr: f32,
        clip: f32,
    ) {
        use rayon::prelude::*;
        const BLOCK: usize = 8192;
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
            let decay = if index % 2 == 0 {
                1.0 - lr * self.weight_decay
            } else {
                1.0
            };
            p.par_chunks_mut(BLOCK)
                .zip(g.par_chunks(BLOCK))
                .zip(m.par_chunks_mut(BLOCK))
                .zip(v.par_chunks_mut(BLOCK))
                .for_each(|(((p, g), m), v)| {
                    for i in 0..p.len() {
                        let g = g[i] * scale;
                        m[i] = b1 * m[i] + (1.0 - b1) * g;
                        v[i] = b2 * v[i] + (1.0 - b2) * g * g;
                        let update = (m[i] / c1) / ((v[i] / c2).sqrt() + 1e-8);
                        p[i] = (p[i] * decay - lr * update).clamp(-clip, clip);
                    }
                });
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

    #[test]
    fn adamw_minimizes_a_quadratic() {
        let mut p = Params::zeros(1);
        p.out_b[0] = 3.0;
        let mut opt = AdamW::new(1, 0.0);
        for _ in 0..2000 {
            let mut g = Params::zeros(1);
            g.out_b[0] = 2.0 * (p.out_b[0] - 1.0);
            opt.step(&mut p, &g, 0.01);
        }
        assert!((p.out_b[0] - 1.0).abs() < 1e-2, "{}", p.out_b[0]);
    }

    #[test]
    fn schedule_ends_where_it_should() {
        assert_eq!(cosine_lr(1.0, 0.1, 0, 100), 1.0);
        assert!((cosine_lr(1.0, 0.1, 100, 100) - 0.1).abs() < 1e-6);
        assert!((cosine_lr(1.0, 0.1, 50, 100) - 0.55).abs() < 1e-6);
    }
}
