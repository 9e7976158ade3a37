//! The Gauss–Newton descent and its pieces: blended targets per position, the free
//! weights, the normal equations `JᵀJ/n`, `Jᵀr/n` over the training rows, the grid search
//! of each step and the fit loss of an evaluator on a part.

use std::time::Instant;

use rayon::prelude::*;

use super::*;
use crate::fit::linalg::{cholesky, cholesky_solve};
use crate::fit::split::Part;
use crate::stats::sigmoid;
use chessgraph_engine::eval::layout::{STUDY_KING_SAFETY, STUDY_MOBILITY};
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

/// The positions of each part that take part in the target.
pub(super) struct Rows {
    pub(super) train: Vec<usize>,
    pub(super) valid: Vec<usize>,
    pub(super) test: Vec<usize>,
}

impl Rows {
    /// Splits the positions `targets` uses by part; an error when the training or the
    /// validation part has none.
    pub(super) fn new(
        set: &TuneSet,
        targets: &Targets,
        target: TuneTarget,
    ) -> std::result::Result<Rows, TuneError> {
        let idx = |part: Part| -> Vec<usize> {
            (0..set.len())
                .filter(|&i| set.part[i] == part && targets.used[i])
                .collect()
        };
        let (train, valid, test) = (idx(Part::Train), idx(Part::Valid), idx(Part::Test));
        if train.is_empty() {
            return Err(TuneError::NoTraining(target));
        }
        if valid.is_empty() {
            return Err(TuneError::NoValidation);
        }
        Ok(Rows { train, valid, test })
    }
}

/// The weights the descent moves: the start weights `w0` (also the ridge's centre),
/// which of them are free, and the column of each free one in the normal equations.
pub(super) struct FreeParams {
    pub(super) w0: Vec<f64>,
    free: Vec<bool>,
    /// Free parameter number of each weight (usize::MAX: frozen).
    col: Vec<usize>,
    /// Number of free weights.
    pub(super) d: usize,
}

impl FreeParams {
    /// Reads the start evaluator's weights (an error if it has none) and frees every term
    /// but the study's mobility and king safety, which are freed only on request.
    pub(super) fn new(opts: &Options) -> std::result::Result<FreeParams, TuneError> {
        let start_w = opts
            .start
            .linear_weights("to tune (--start)")
            .map_err(Error::from)?;
        let w0: Vec<f64> = start_w
            .mg
            .iter()
            .chain(&start_w.eg)
            .map(|&v| f64::from(v))
            .collect();
        let free: Vec<bool> = (0..PARAMS)
            .map(|j| {
                let t = j % TERM_COUNT;
                opts.study_terms || (t != STUDY_MOBILITY && t != STUDY_KING_SAFETY)
            })
            .collect();
        let mut col = vec![usize::MAX; PARAMS];
        let mut d = 0;
        for j in 0..PARAMS {
            if free[j] {
                col[j] = d;
                d += 1;
            }
        }
        Ok(FreeParams { w0, free, col, d })
    }
}

/// What the fit reads: the positions, their targets, K and the part rows.
pub(super) struct Fit<'a> {
    pub(super) set: &'a TuneSet,
    pub(super) targets: &'a Targets,
    pub(super) k: f64,
    /// What the validation loss and the part metrics measure.
    pub(super) target: TuneTarget,
    pub(super) rows: &'a Rows,
}

/// Where the descent ended: the weights, the (α, λ) of the last step taken, the steps.
pub(super) struct Descent {
    pub(super) w: Vec<f64>,
    pub(super) alpha: f64,
    pub(super) lambda: f64,
    pub(super) steps: Vec<Step>,
}

/// One grid point's solution of a step, with its validation loss.
struct Candidate {
    valid_loss: f64,
    alpha: f64,
    lambda: f64,
    w: Vec<f64>,
}

impl Fit<'_> {
    /// Mean squared error of σ(K·prediction) against the selection measure on the
    /// validation rows.
    fn valid_loss(&self, w: &[f64]) -> f64 {
        let valid = &self.rows.valid;
        let s: f64 = valid
            .par_iter()
            .map(|&i| {
                (sigmoid(self.k * self.set.predict(w, i)) - self.targets.measure(i, self.target))
                    .powi(2)
            })
            .sum();
        s / valid.len() as f64
    }

    /// Mean squared error of σ(K·prediction) against the target blended with `lambda` on
    /// the training rows.
    fn train_loss(&self, w: &[f64], lambda: f64) -> f64 {
        let train = &self.rows.train;
        let s: f64 = train
            .par_iter()
            .map(|&i| {
                (sigmoid(self.k * self.set.predict(w, i)) - self.targets.blend(i, lambda)).powi(2)
            })
            .sum();
        s / train.len() as f64
    }

    /// Takes up to `opts.max_steps` Gauss–Newton steps from the start weights, each the
    /// grid's best candidate, stopping when the validation loss stops improving by a
    /// relative 1e-6; `progress` receives each step.
    pub(super) fn descend(
        &self,
        params: &FreeParams,
        opts: &Options,
        progress: &mut dyn FnMut(&Step),
    ) -> std::result::Result<Descent, TuneError> {
        let mut w = params.w0.clone();
        let mut lambda = opts.lambdas[0];
        let mut alpha = opts.alphas[0];
        let mut best_valid = self.valid_loss(&w);
        let mut steps = Vec::new();
        for step in 1..=opts.max_steps {
            let step_start = Instant::now();
            let Some(best) = self.best_candidate(params, opts, &w) else {
                return Err(TuneError::NotPositiveDefinite);
            };
            let v = best.valid_loss;
            let improved = v < best_valid;
            let relative = (best_valid - v) / best_valid.max(f64::MIN_POSITIVE);
            if improved {
                w = best.w;
                best_valid = v;
                alpha = best.alpha;
                lambda = best.lambda;
            }
            let record = Step {
                step,
                train_loss: self.train_loss(&w, lambda),
                valid_loss: best_valid,
                alpha,
                lambda,
                positions_per_sec: self.rows.train.len() as f64
                    / step_start.elapsed().as_secs_f64(),
            };
            progress(&record);
            steps.push(record);
            if !improved || relative < 1e-6 {
                break;
            }
        }
        Ok(Descent {
            w,
            alpha,
            lambda,
            steps,
        })
    }

    /// Solves the step from `w` for every (α, λ) on the grid and returns the candidate
    /// with the lowest validation loss; `None` when no α gives positive-definite normal
    /// equations.
    fn best_candidate(&self, params: &FreeParams, opts: &Options, w: &[f64]) -> Option<Candidate> {
        let (d, col, w0) = (params.d, &params.col, &params.w0);
        let (h, g_label, g_result) =
            normal_equations(self.set, &self.rows.train, self.targets, w, self.k, col, d);
        let mean_diag = (0..d).map(|a| h[a * d + a]).sum::<f64>() / d as f64;
        let scale = if mean_diag > 0.0 { mean_diag } else { 1.0 };
        // Try every (α, λ); keep the candidate with the lowest validation loss.
        let mut best: Option<Candidate> = None;
        for &a in &opts.alphas {
            let mut m = h.clone();
            for q in 0..d {
                m[q * d + q] += a * scale;
            }
            let Some(l) = cholesky(&m, d) else {
                continue;
            };
            for &lam in &opts.lambdas {
                let rhs: Vec<f64> = (0..PARAMS)
                    .filter(|&j| params.free[j])
                    .map(|j| {
                        let q = col[j];
                        -(g_label[q] - lam * g_result[q] + a * scale * (w[j] - w0[j]))
                    })
                    .collect();
                let delta = cholesky_solve(&l, d, &rhs);
                let mut cand = w.to_vec();
                for j in 0..PARAMS {
                    if params.free[j] {
                        cand[j] += delta[col[j]];
                    }
                }
                let v = self.valid_loss(&cand);
                if best.as_ref().is_none_or(|b| v < b.valid_loss) {
                    best = Some(Candidate {
                        valid_loss: v,
                        alpha: a,
                        lambda: lam,
                        w: cand,
                    });
                }
            }
        }
        best
    }

    /// The fit loss of `e` on `rows` through the engine's own evaluation (NaN when
    /// `rows` is empty).
    fn fit_loss(&self, rows: &[usize], e: &Evaluator) -> f64 {
        if rows.is_empty() {
            return f64::NAN;
        }
        let evals: Vec<f64> = rows
            .iter()
            .map(|&i| f64::from(self.set.evaluate(e, i)))
            .collect();
        rows.iter()
            .zip(&evals)
            .map(|(&i, &v)| (sigmoid(self.k * v) - self.targets.measure(i, self.target)).powi(2))
            .sum::<f64>()
            / rows.len() as f64
    }

    /// The part's size and the fit losses of the tuned and the start evaluator on it.
    pub(super) fn part_metrics(
        &self,
        rows: &[usize],
        tuned: &Evaluator,
        start: &Evaluator,
    ) -> PartMetrics {
        PartMetrics {
            n: rows.len(),
            fit_loss: self.fit_loss(rows, tuned),
            start_fit_loss: self.fit_loss(rows, start),
        }
    }
}
