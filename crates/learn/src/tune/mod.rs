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

use chessgraph_engine::eval::{Evaluator, Provenance, TERM_COUNT, Weights};
use chessgraph_store::Error;
use solve::{Descent, Fit, FreeParams, Rows, Targets};

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
    let (k, k_positions) = check_grid_and_k(set, opts)?;
    let targets = Targets::new(set, k, opts.target);
    let rows = Rows::new(set, &targets, opts.target)?;
    let params = FreeParams::new(opts)?;
    let fit = Fit {
        set,
        targets: &targets,
        k,
        target: opts.target,
        rows: &rows,
    };
    let descent = fit.descend(&params, opts, progress)?;

    // Round to the integer weights the evaluator file holds.
    let weights = round_weights(&descent.w);
    let provisional = Evaluator::new(opts.name.clone(), Provenance::default(), weights.clone());
    let part_metrics = |rows: &[usize]| fit.part_metrics(rows, &provisional, &opts.start);
    let (m_train, m_valid, m_test) = (
        part_metrics(&rows.train),
        part_metrics(&rows.valid),
        part_metrics(&rows.test),
    );
    let provenance = provenance(opts, k, &descent, &rows, &m_valid, &m_test);
    Ok(Tuned {
        evaluator: Evaluator::new(opts.name.clone(), provenance, weights),
        k,
        k_positions,
        fitted_weights: params.d,
        alpha: descent.alpha,
        lambda: descent.lambda,
        steps: descent.steps,
        train: m_train,
        valid: m_valid,
        test: m_test,
        elapsed: started.elapsed(),
    })
}

/// Checks the α and λ grids and the user's K, and returns K with the number of positions
/// it was fitted on (fitting it on `set` unless the user gave one).
fn check_grid_and_k(set: &TuneSet, opts: &Options) -> std::result::Result<(f64, usize), TuneError> {
    if opts.alphas.is_empty() || opts.lambdas.is_empty() {
        return Err(TuneError::EmptyGrid);
    }
    if let Some(l) = opts.lambdas.iter().find(|l| !(0.0..=1.0).contains(*l)) {
        return Err(TuneError::Lambda(*l));
    }
    match opts.k {
        Some(k) if k > 0.0 && k.is_finite() => Ok((k, 0)),
        Some(k) => Err(TuneError::K(k)),
        None => Ok(fit_k(set)),
    }
}

/// The rounded integer weights of the fitted weights `w` (middlegame, then endgame).
fn round_weights(w: &[f64]) -> Weights {
    let mut weights = Weights::zero();
    for t in 0..TERM_COUNT {
        weights.mg[t] = round_weight(w[t]);
        weights.eg[t] = round_weight(w[TERM_COUNT + t]);
    }
    weights
}

/// The tuned evaluator's provenance: the database, the method and its chosen settings,
/// the part sizes and the validation and test fit losses.
fn provenance(
    opts: &Options,
    k: f64,
    descent: &Descent,
    rows: &Rows,
    valid: &PartMetrics,
    test: &PartMetrics,
) -> Provenance {
    Provenance {
        db: Some(opts.db.clone()),
        positions: Some(rows.train.len() as u64),
        loss: Some(round6(valid.fit_loss)),
        date: Some(today()),
        extra: [
            ("method", serde_json::json!("texel-gauss-newton-ridge")),
            ("target", serde_json::json!(opts.target.as_str())),
            ("start", serde_json::json!(opts.start.name())),
            ("k", serde_json::json!(round6(k))),
            ("alpha", serde_json::json!(descent.alpha)),
            ("lambda", serde_json::json!(descent.lambda)),
            ("steps", serde_json::json!(descent.steps.len())),
            ("valid_positions", serde_json::json!(rows.valid.len())),
            ("test_positions", serde_json::json!(rows.test.len())),
            ("test_fit_loss", serde_json::json!(round6(test.fit_loss))),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect(),
    }
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
