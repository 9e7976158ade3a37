//! The Gauss–Newton step's pieces: blended targets per position and the normal
//! equations `JᵀJ/n`, `Jᵀr/n` over the training rows.

use rayon::prelude::*;

use super::*;
use crate::stats::sigmoid;
use chessgraph_engine::eval::{MAX_PHASE, TERM_COUNT};

/// Per-position targets: the label's expected score and the result, each falling back to
/// the other when missing; NaN when the position takes no part.
pub(super) struct Targets {
    pub(super) from_label: Vec<f64>,
    pub(super) from_result: Vec<f64>,
    /// Whether the position takes part in the fit and in the measures.
    pub(super) used: Vec<bool>,
}

impl Targets {
    pub(super) fn new(set: &TuneSet, k: f64, target: TuneTarget) -> Targets {
        let n = set.len();
        let (mut from_label, mut from_result, mut used) =
            (vec![0.0; n], vec![0.0; n], vec![false; n]);
        for i in 0..n {
            let l = set.label[i].is_finite().then(|| sigmoid(k * set.label[i]));
            let r = set.result[i].is_finite().then_some(set.result[i]);
            used[i] = match target {
                TuneTarget::Eval => l.is_some(),
                TuneTarget::Result => r.is_some(),
            };
            if let (Some(l), Some(r)) = (l.or(r), r.or(l)) {
                from_label[i] = l;
                from_result[i] = r;
            }
        }
        Targets {
            from_label,
            from_result,
            used,
        }
    }

    pub(super) fn blend(&self, i: usize, lambda: f64) -> f64 {
        lambda * self.from_result[i] + (1.0 - lambda) * self.from_label[i]
    }

    /// The selection measure's target: the label (eval) or the result.
    pub(super) fn measure(&self, i: usize, target: TuneTarget) -> f64 {
        match target {
            TuneTarget::Eval => self.from_label[i],
            TuneTarget::Result => self.from_result[i],
        }
    }
}

/// `JᵀJ/n` (row-major, lower triangle filled) and the two parts of `Jᵀr/n` — against the
/// label target and the result-minus-label difference — over the `rows` at weights `w`.
pub(super) fn normal_equations(
    set: &TuneSet,
    rows: &[usize],
    targets: &Targets,
    w: &[f64],
    k: f64,
    col: &[usize],
    d: usize,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let zero = || (vec![0.0; d * d], vec![0.0; d], vec![0.0; d]);
    let (mut h, mut gl, mut gr) = rows
        .par_chunks(4096)
        .fold(zero, |(mut h, mut gl, mut gr), chunk| {
            let mut x: Vec<(usize, f64)> = Vec::with_capacity(128);
            for &i in chunk {
                let s = sigmoid(k * set.predict(w, i));
                let slope = k * s * (1.0 - s);
                let p = f64::from(set.phase[i]) / f64::from(MAX_PHASE);
                x.clear();
                for &(t, c) in set.row(i) {
                    let q = col[t as usize];
                    if q != usize::MAX && p > 0.0 {
                        x.push((q, f64::from(c) * p * slope));
                    }
                }
                for &(t, c) in set.row(i) {
                    let q = col[TERM_COUNT + t as usize];
                    if q != usize::MAX && p < 1.0 {
                        x.push((q, f64::from(c) * (1.0 - p) * slope));
                    }
                }
                let r_label = s - targets.from_label[i];
                let r_diff = targets.from_result[i] - targets.from_label[i];
                // x is sorted by parameter: mg columns come before eg columns.
                for (a, &(qa, va)) in x.iter().enumerate() {
                    gl[qa] += va * r_label;
                    gr[qa] += va * r_diff;
                    let row = &mut h[qa * d..qa * d + qa + 1];
                    for &(qb, vb) in &x[..=a] {
                        row[qb] += va * vb;
                    }
                }
            }
            (h, gl, gr)
        })
        .reduce(zero, |mut a, b| {
            a.0.iter_mut().zip(&b.0).for_each(|(x, y)| *x += y);
            a.1.iter_mut().zip(&b.1).for_each(|(x, y)| *x += y);
            a.2.iter_mut().zip(&b.2).for_each(|(x, y)| *x += y);
            a
        });
    let n = rows.len().max(1) as f64;
    h.iter_mut().for_each(|v| *v /= n);
    gl.iter_mut().for_each(|v| *v /= n);
    gr.iter_mut().for_each(|v| *v /= n);
    (h, gl, gr)
}
