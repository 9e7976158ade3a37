//! Texel tuning of the tapered evaluator ([`chessgraph_engine::eval`]) on the stored positions.
//!
//! The evaluator is linear in its weights: with `c_i` the coefficient of term `i` in a
//! position and `p` its phase (0..=24),
//!
//! ```text
//! eval = Σ_i c_i · (mg_i · p + eg_i · (24 − p)) / 24
//! ```
//!
//! The loss is Texel's: the mean over positions of `(σ(K·eval) − t)²`, where the target
//! `t = λ·result + (1 − λ)·σ(K·label)` blends the game result (1, ½, 0 for White; where
//! the position came from a game) and the Stockfish label in centipawns. `K` turns
//! centipawns into an expected score: it is fitted once, before tuning, so that
//! `σ(K·label)` predicts the game results of the training positions best (least squares),
//! and printed. Mate labels count as ±[`MATE_LABEL_CP`] and centipawn labels are clamped
//! to that range; beyond it σ is within 0.1 % of 0 or 1 at the usual K, so a +4000 position
//! pulls no harder than a +2000 one.
//!
//! Because the model is linear in the weights, the minimum is found by Gauss–Newton
//! steps, each an exact ridge-regularised normal-equations solve
//! (`(JᵀJ/n + αI) δ = −(Jᵀr/n + α(w − w₀))`, Cholesky), instead of thousands of gradient
//! epochs; a handful of steps converge. The ridge pulls toward the starting weights `w₀`
//! (the Simplified Evaluation Function), so squares a piece never stands on keep their
//! textbook values. The ridge strength α (relative to the mean diagonal of JᵀJ/n) and the
//! blend λ are chosen on the validation part: every step is solved for every (α, λ) on the
//! grid and the step with the lowest validation loss is taken — the loss against the
//! labels (`--target eval`) or against the results (`--target result`). Iterations stop
//! when the validation loss improves by less than a relative 1e-6.
//!
//! The reported losses are computed with the rounded (integer) weights through
//! [`Evaluator::evaluate_terms`], the very function the engine's evaluation equals, so the
//! numbers describe the exported evaluator exactly. They are the *fit loss*, measured
//! where the tuner fits (the quiescence leaves of the start evaluator); how well the tuned
//! evaluator agrees with the labels as the engine uses it (τ, r, RMSE, Texel loss of the
//! static evaluation and after quiescence) is `chessgraph rate evaluator`'s measure, which `tune`
//! also prints for the test part.

mod data;
mod solve;
#[cfg(test)]
mod tests;

pub use data::{TuneSet, fit_k, load};

use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::fit::linalg::{cholesky, cholesky_solve};
use crate::fit::split::Part;
use crate::stats::sigmoid;
use chessgraph_engine::eval::layout::{STUDY_KING_SAFETY, STUDY_MOBILITY};
use chessgraph_engine::eval::{Evaluator, Provenance, TERM_COUNT, Weights};
use chessgraph_store::Error;
use solve::{Targets, normal_equations};

pub use crate::stats::{DEFAULT_K, MATE_LABEL_CP, label_cp};

/// Number of weights: a middlegame and an endgame weight per term.
const PARAMS: usize = 2 * TERM_COUNT;

/// What the tuner fits.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TuneTarget {
    /// The Stockfish labels (`eval_cp`, mates mapped); validation loss against them.
    Eval,
    /// The game results; validation loss against them (positions with a result only).
    Result,
}

impl TuneTarget {
    /// Name used in output and provenance.
    pub fn as_str(self) -> &'static str {
        match self {
            TuneTarget::Eval => "eval",
            TuneTarget::Result => "result",
        }
    }
}

/// Tuning options.
#[derive(Clone, Debug)]
pub struct Options {
    /// What the validation loss measures (and which positions take part).
    pub target: TuneTarget,
    /// Starting weights, also the ridge's centre.
    pub start: Evaluator,
    /// Also tune the study's mobility and king-safety terms (legal-move counting: slow in
    /// the engine); otherwise they keep their starting weights.
    pub study_terms: bool,
    /// Ridge strengths to try, relative to the mean diagonal of JᵀJ/n.
    pub alphas: Vec<f64>,
    /// Weights of the game result in the target to try (0 = labels only, 1 = results only).
    pub lambdas: Vec<f64>,
    /// Most Gauss–Newton steps.
    pub max_steps: usize,
    /// K to use instead of fitting it.
    pub k: Option<f64>,
    /// Name of the tuned evaluator.
    pub name: String,
    /// Database path, for the provenance.
    pub db: String,
}

impl Options {
    /// The defaults: start from `simplified`, target `eval`, the standard grids.
    pub fn new(name: impl Into<String>, db: impl Into<String>) -> Options {
        Options {
            target: TuneTarget::Eval,
            start: Evaluator::builtin("simplified").expect("built-in"),
            study_terms: false,
            alphas: vec![1e-5, 1e-4, 1e-3, 1e-2, 1e-1],
            lambdas: vec![0.0, 0.25, 0.5, 0.75, 1.0],
            max_steps: 10,
            k: None,
            name: name.into(),
            db: db.into(),
        }
    }
}

/// One Gauss–Newton step's record.
#[derive(Clone, Debug)]
pub struct Step {
    /// 1-based step number.
    pub step: usize,
    /// Training loss (with its λ) after the step.
    pub train_loss: f64,
    /// Validation loss (the selection measure) after the step.
    pub valid_loss: f64,
    /// Relative ridge strength chosen for the step.
    pub alpha: f64,
    /// Result weight chosen for the step.
    pub lambda: f64,
    /// Training positions processed per second in the step (all grid solves included).
    pub positions_per_sec: f64,
}

/// The tuner's objective for the tuned (rounded) evaluator on one part: the fit loss.
/// It is measured where the tuner fits (at the quiescence leaves, unless `--no-leaves`),
/// so it is not `eval`'s Texel loss; `chessgraph rate evaluator` measures the evaluator as used.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct PartMetrics {
    /// Positions in the part that take part in the target.
    pub n: usize,
    /// Fit loss: mean (σ(K·eval) − target)² against the target (`σ(K·label)` or the
    /// result), K the tuner's.
    pub fit_loss: f64,
    /// The same loss for the starting evaluator.
    pub start_fit_loss: f64,
}

/// What `tune` produced.
#[derive(Clone, Debug)]
pub struct Tuned {
    /// The tuned evaluator (integer weights), provenance filled in.
    pub evaluator: Evaluator,
    /// K used.
    pub k: f64,
    /// Positions K was fitted on (0: the default or the user's K).
    pub k_positions: usize,
    /// Number of weights fitted (middlegame and endgame values of the free terms).
    pub fitted_weights: usize,
    /// The relative ridge strength of the final step.
    pub alpha: f64,
    /// The result weight of the final step.
    pub lambda: f64,
    /// The steps taken.
    pub steps: Vec<Step>,
    /// Training, validation and test metrics.
    pub train: PartMetrics,
    /// Validation metrics.
    pub valid: PartMetrics,
    /// Test metrics.
    pub test: PartMetrics,
    /// Wall time of the whole tuning (terms loading excluded).
    pub elapsed: Duration,
}

/// Why the tuner cannot run (its settings or its data), or the database's error.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// No α or no λ to try.
    #[error("tune: empty α or λ grid")]
    EmptyGrid,
    /// A result weight outside 0..1.
    #[error("tune: λ {0} is not within 0..1")]
    Lambda(f64),
    /// A K that is not a positive number.
    #[error("tune: K must be positive, got {0}")]
    K(f64),
    /// No training position has the target.
    #[error("tune: no training positions with {} (import labelled positions{} first)",
        if *.0 == TuneTarget::Eval { "an evaluation" } else { "a game result" },
        if *.0 == TuneTarget::Eval { "" } else { " from PGN games" })]
    NoTraining(TuneTarget),
    /// The validation part is empty.
    #[error("tune: the validation part is empty (too few positions to choose α and λ)")]
    NoValidation,
    /// No grid point gave a solvable step.
    #[error("tune: the normal equations are not positive definite for any α")]
    NotPositiveDefinite,
    /// The start evaluator, or reading the database.
    #[error(transparent)]
    Other(#[from] Error),
}

/// Tunes the evaluator's weights on `set`; `progress` receives each step.
pub fn tune(
    set: &TuneSet,
    opts: &Options,
    progress: &mut dyn FnMut(&Step),
) -> std::result::Result<Tuned, TuneError> {
    let started = Instant::now();
    if opts.alphas.is_empty() || opts.lambdas.is_empty() {
        return Err(TuneError::EmptyGrid);
    }
    if let Some(l) = opts.lambdas.iter().find(|l| !(0.0..=1.0).contains(*l)) {
        return Err(TuneError::Lambda(*l));
    }
    let (k, k_positions) = match opts.k {
        Some(k) if k > 0.0 && k.is_finite() => (k, 0),
        Some(k) => return Err(TuneError::K(k)),
        None => fit_k(set),
    };
    let targets = Targets::new(set, k, opts.target);
    let idx = |part: Part| -> Vec<usize> {
        (0..set.len())
            .filter(|&i| set.part[i] == part && targets.used[i])
            .collect()
    };
    let (train, valid, test) = (idx(Part::Train), idx(Part::Valid), idx(Part::Test));
    if train.is_empty() {
        return Err(TuneError::NoTraining(opts.target));
    }
    if valid.is_empty() {
        return Err(TuneError::NoValidation);
    }

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
    // Free parameter number of each weight (usize::MAX: frozen).
    let mut col = vec![usize::MAX; PARAMS];
    let mut d = 0;
    for j in 0..PARAMS {
        if free[j] {
            col[j] = d;
            d += 1;
        }
    }

    let mut w = w0.clone();
    let mut lambda = opts.lambdas[0];
    let mut alpha = opts.alphas[0];
    let valid_loss = |w: &[f64]| -> f64 {
        let s: f64 = valid
            .par_iter()
            .map(|&i| (sigmoid(k * set.predict(w, i)) - targets.measure(i, opts.target)).powi(2))
            .sum();
        s / valid.len() as f64
    };
    let train_loss = |w: &[f64], lambda: f64| -> f64 {
        let s: f64 = train
            .par_iter()
            .map(|&i| (sigmoid(k * set.predict(w, i)) - targets.blend(i, lambda)).powi(2))
            .sum();
        s / train.len() as f64
    };
    let mut best_valid = valid_loss(&w);
    let mut steps = Vec::new();
    for step in 1..=opts.max_steps {
        let step_start = Instant::now();
        let (h, g_label, g_result) = normal_equations(set, &train, &targets, &w, k, &col, d);
        let mean_diag = (0..d).map(|a| h[a * d + a]).sum::<f64>() / d as f64;
        let scale = if mean_diag > 0.0 { mean_diag } else { 1.0 };
        // Try every (α, λ); keep the candidate with the lowest validation loss.
        let mut best: Option<(f64, f64, f64, Vec<f64>)> = None;
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
                    .filter(|&j| free[j])
                    .map(|j| {
                        let q = col[j];
                        -(g_label[q] - lam * g_result[q] + a * scale * (w[j] - w0[j]))
                    })
                    .collect();
                let delta = cholesky_solve(&l, d, &rhs);
                let mut cand = w.clone();
                for j in 0..PARAMS {
                    if free[j] {
                        cand[j] += delta[col[j]];
                    }
                }
                let v = valid_loss(&cand);
                if best.as_ref().is_none_or(|b| v < b.0) {
                    best = Some((v, a, lam, cand));
                }
            }
        }
        let Some((v, a, lam, cand)) = best else {
            return Err(TuneError::NotPositiveDefinite);
        };
        let improved = v < best_valid;
        let relative = (best_valid - v) / best_valid.max(f64::MIN_POSITIVE);
        if improved {
            w = cand;
            best_valid = v;
            alpha = a;
            lambda = lam;
        }
        let record = Step {
            step,
            train_loss: train_loss(&w, lambda),
            valid_loss: best_valid,
            alpha,
            lambda,
            positions_per_sec: train.len() as f64 / step_start.elapsed().as_secs_f64(),
        };
        progress(&record);
        steps.push(record);
        if !improved || relative < 1e-6 {
            break;
        }
    }

    // Round to the integer weights the evaluator file holds.
    let mut weights = Weights::zero();
    for t in 0..TERM_COUNT {
        weights.mg[t] = round_weight(w[t]);
        weights.eg[t] = round_weight(w[TERM_COUNT + t]);
    }
    let measure = |rows: &[usize], e: &Evaluator| -> f64 {
        if rows.is_empty() {
            return f64::NAN;
        }
        let evals: Vec<f64> = rows
            .iter()
            .map(|&i| f64::from(set.evaluate(e, i)))
            .collect();
        rows.iter()
            .zip(&evals)
            .map(|(&i, &v)| (sigmoid(k * v) - targets.measure(i, opts.target)).powi(2))
            .sum::<f64>()
            / rows.len() as f64
    };
    let provisional = Evaluator::new(opts.name.clone(), Provenance::default(), weights.clone());
    let part_metrics = |rows: &[usize]| PartMetrics {
        n: rows.len(),
        fit_loss: measure(rows, &provisional),
        start_fit_loss: measure(rows, &opts.start),
    };
    let (m_train, m_valid, m_test) = (
        part_metrics(&train),
        part_metrics(&valid),
        part_metrics(&test),
    );
    let provenance = Provenance {
        db: Some(opts.db.clone()),
        positions: Some(train.len() as u64),
        loss: Some(round6(m_valid.fit_loss)),
        date: Some(today()),
        extra: [
            ("method", serde_json::json!("texel-gauss-newton-ridge")),
            ("target", serde_json::json!(opts.target.as_str())),
            ("start", serde_json::json!(opts.start.name())),
            ("k", serde_json::json!(round6(k))),
            ("alpha", serde_json::json!(alpha)),
            ("lambda", serde_json::json!(lambda)),
            ("steps", serde_json::json!(steps.len())),
            ("valid_positions", serde_json::json!(valid.len())),
            ("test_positions", serde_json::json!(test.len())),
            ("test_fit_loss", serde_json::json!(round6(m_test.fit_loss))),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect(),
    };
    Ok(Tuned {
        evaluator: Evaluator::new(opts.name.clone(), provenance, weights),
        k,
        k_positions,
        fitted_weights: d,
        alpha,
        lambda,
        steps,
        train: m_train,
        valid: m_valid,
        test: m_test,
        elapsed: started.elapsed(),
    })
}

fn round_weight(v: f64) -> i32 {
    v.round().clamp(-1e6, 1e6) as i32
}

fn round6(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

/// Today's date (UTC), ISO 8601, from the system clock.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}
