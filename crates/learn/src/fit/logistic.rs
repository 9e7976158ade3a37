//! Logistic regression (linfa-logistic) of a binary outcome — White won the game, or the
//! evaluation favors White — on features, with Wald standard errors.
//!
//! The solver (L-BFGS) runs on standardized features, which it needs to converge in a few
//! dozen iterations whatever the scale of the columns; the coefficients are reported on the
//! raw scale. linfa's L2 penalty (`alpha`, on the summed log-loss) is kept at 1 on the
//! standardized coefficients: negligible for thousands of rows, but it keeps a separable toy
//! set finite.

use linfa::Dataset;
use linfa::traits::Fit;
use linfa_logistic::LogisticRegression;
use ndarray::{Array1, Array2, ArrayView2, Axis};
use rusqlite::Connection;
use serde::Serialize;

use super::linear::{check_design, normal_matrix};
use super::{Coefficient, FitError, FitRecord, Selection, Target, linalg};
use crate::stats;
use chessgraph_store::Result;

/// L2 penalty on the standardized coefficients.
const ALPHA: f64 = 1.0;

/// A fitted logistic model: `P(y) = σ(intercept + Σ coef_j x_j)`.
#[derive(Clone, Debug)]
pub struct LogisticModel {
    /// Intercept first, then one per feature (log-odds per unit of the feature).
    pub coefficients: Vec<Coefficient>,
}

impl LogisticModel {
    /// The log-odds of each row of `x`.
    pub fn logits(&self, x: ArrayView2<f64>) -> Vec<f64> {
        let w: Array1<f64> = self.coefficients[1..].iter().map(|c| c.estimate).collect();
        let b = self.coefficients[0].estimate;
        x.dot(&w).iter().map(|v| v + b).collect()
    }

    /// The probability of the outcome for each row of `x`.
    pub fn predict(&self, x: ArrayView2<f64>) -> Vec<f64> {
        self.logits(x).into_iter().map(stats::sigmoid).collect()
    }
}

/// Log-loss, accuracy and AUC of a model on some rows.
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct ClassMetrics {
    /// Rows.
    pub n: usize,
    /// Share of rows with the outcome.
    pub positive_rate: f64,
    /// Mean negative log-likelihood (nats).
    pub log_loss: f64,
    /// Log-loss of always predicting the train rows' positive rate: what the features add
    /// is the difference.
    pub baseline_log_loss: f64,
    /// Share predicted right at threshold 0.5.
    pub accuracy: f64,
    /// Area under the ROC curve.
    pub auc: f64,
}

impl ClassMetrics {
    /// Measures `model` on rows `x` with outcomes `y`; `base_rate` is the train positive rate.
    pub fn of(model: &LogisticModel, x: ArrayView2<f64>, y: &[bool], base_rate: f64) -> Self {
        let p = model.predict(x);
        ClassMetrics {
            n: y.len(),
            positive_rate: y.iter().filter(|&&v| v).count() as f64 / y.len() as f64,
            log_loss: stats::log_loss(y, &p),
            baseline_log_loss: stats::log_loss(y, &vec![base_rate; y.len()]),
            accuracy: stats::accuracy(y, &p),
            auc: stats::auc(y, &p),
        }
    }
}

/// Fits `P(y) = σ(intercept + x·w)` by penalized maximum likelihood.
pub fn fit(x: &Array2<f64>, y: &[bool], names: &[String]) -> Result<LogisticModel> {
    assert_eq!(x.ncols(), names.len());
    assert_eq!(x.nrows(), y.len());
    check_design(x, names)?;
    let positives = y.iter().filter(|&&v| v).count();
    if positives == 0 || positives == y.len() {
        return Err(FitError::OneOutcome {
            rows: y.len(),
            outcome: u8::from(positives != 0),
        }
        .into());
    }
    let n = x.nrows() as f64;
    let mean = x.mean_axis(Axis(0)).expect("rows");
    let sd = x.std_axis(Axis(0), 0.0);
    let z = (x - &mean) / &sd;
    let dataset = Dataset::new(z, Array1::from(y.to_vec()));
    let fitted = LogisticRegression::default()
        .alpha(ALPHA)
        .max_iterations(300)
        .gradient_tolerance(1e-6 * n)
        .fit(&dataset)
        .map_err(|e| FitError::Linfa(Box::new(e)))?;
    // linfa models the probability of its "positive" class, the more frequent one.
    let sign = if fitted.labels().pos.class { 1.0 } else { -1.0 };
    let ws: Vec<f64> = fitted.params().iter().map(|w| sign * w).collect();
    let b = sign * fitted.intercept();
    // Back to raw units: w_j z_j = (w_j / sd_j) x_j − w_j mean_j / sd_j.
    let raw: Vec<f64> = ws.iter().zip(&sd).map(|(w, s)| w / s).collect();
    let intercept = b - raw.iter().zip(&mean).map(|(w, m)| w * m).sum::<f64>();
    let estimates: Vec<f64> = std::iter::once(intercept).chain(raw).collect();
    if estimates.iter().any(|v| !v.is_finite()) {
        return Err(FitError::NonFinite("logistic regression").into());
    }
    let mut model = LogisticModel {
        coefficients: std::iter::once("intercept".to_string())
            .chain(names.iter().cloned())
            .zip(estimates)
            .map(|(name, estimate)| Coefficient::estimate(name, estimate))
            .collect(),
    };
    // Wald: the inverse of the penalized observed information [1 x]ᵀ W [1 x] + P, with
    // W = p(1 − p) and P the penalty's curvature in raw units (alpha / sd_j²).
    let weights: Vec<f64> = model
        .predict(x.view())
        .iter()
        .map(|p| p * (1.0 - p))
        .collect();
    let mut info = normal_matrix(x, Some(&weights));
    for (j, s) in sd.iter().enumerate() {
        info[[j + 1, j + 1]] += ALPHA / (s * s);
    }
    // None: near-certain predictions everywhere (separable data), no finite information.
    if let Some(cov) = linalg::spd_inverse(&info) {
        for (j, c) in model.coefficients.iter_mut().enumerate() {
            c.std_error = cov[[j, j]].sqrt();
            c.statistic = c.estimate / c.std_error;
        }
    }
    Ok(model)
}

/// A logistic fit with its train and held-out measures.
#[derive(Clone, Debug)]
pub struct LogisticFit {
    /// What is stored in `fits`.
    pub record: FitRecord,
    /// On the train rows.
    pub train: ClassMetrics,
    /// On the held-out rows (`None` when there are none).
    pub test: Option<ClassMetrics>,
}

/// Loads the rows `sel` chooses, fits `target` on the train part, measures both parts and
/// stores the fit. `target` must be [`Target::WhiteWon`] or [`Target::Sign`].
pub fn run(conn: &Connection, sel: &Selection, target: Target) -> Result<LogisticFit> {
    assert_ne!(target, Target::EvalCp, "eval_cp is not a binary outcome");
    let data = super::load(conn, sel, target)?;
    let y_train: Vec<bool> = data.y_train.iter().map(|&v| v > 0.5).collect();
    let y_test: Vec<bool> = data.y_test.iter().map(|&v| v > 0.5).collect();
    let model = fit(&data.x_train, &y_train, &sel.features)?;
    let base_rate = y_train.iter().filter(|&&v| v).count() as f64 / y_train.len() as f64;
    let train = ClassMetrics::of(&model, data.x_train.view(), &y_train, base_rate);
    let test = (!y_test.is_empty())
        .then(|| ClassMetrics::of(&model, data.x_test.view(), &y_test, base_rate));
    let mut record = FitRecord {
        id: 0,
        kind: "logistic",
        target,
        features: sel.features.clone(),
        filter: sel.filter.clone(),
        seed: data.seed,
        n_train: y_train.len(),
        n_test: y_test.len(),
        without_target: data.without_target,
        coefficients: model.coefficients.clone(),
        metrics: serde_json::json!({ "train": train, "test": test }),
    };
    record.id = super::store(conn, &record)?;
    Ok(LogisticFit {
        record,
        train,
        test,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic pseudo-random stream in [0, 1).
    fn uniform(state: &mut u64) -> f64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*state >> 11) as f64 / (1u64 << 53) as f64
    }

    #[test]
    fn recovers_known_coefficients() {
        // Outcomes drawn from σ(−0.5 + 0.08 a − 1.5 b) with features on different scales
        // and the minority class positive (exercises the label flip).
        let mut s = 7u64;
        let n = 20_000;
        let mut xs = Vec::with_capacity(2 * n);
        let mut y = Vec::with_capacity(n);
        for _ in 0..n {
            let a = uniform(&mut s) * 60.0 - 30.0;
            let b = uniform(&mut s) * 2.0 - 1.0;
            xs.extend([a, b]);
            y.push(uniform(&mut s) < stats::sigmoid(-0.5 + 0.08 * a - 1.5 * b));
        }
        let x = Array2::from_shape_vec((n, 2), xs).unwrap();
        let names = vec!["a".to_string(), "b".to_string()];
        let m = fit(&x, &y, &names).unwrap();
        let c = &m.coefficients;
        for (got, want) in c.iter().zip([-0.5, 0.08, -1.5]) {
            // Within 4 standard errors of the truth, and the errors are sane.
            assert!(
                (got.estimate - want).abs() < 4.0 * got.std_error,
                "{}: {} ± {} vs {want}",
                got.name,
                got.estimate,
                got.std_error
            );
            assert!(got.std_error > 0.0 && got.std_error < 0.2 * want.abs().max(0.1));
        }
        // Flipping the outcome flips every coefficient.
        let flipped: Vec<bool> = y.iter().map(|v| !v).collect();
        let f = fit(&x, &flipped, &names).unwrap();
        for (a, b) in c.iter().zip(&f.coefficients) {
            assert!(
                (a.estimate + b.estimate).abs() < 1e-3,
                "{} {}",
                a.estimate,
                b.estimate
            );
        }
    }

    #[test]
    fn one_outcome_is_refused() {
        let x = Array2::from_shape_vec((4, 1), vec![1.0, 2.0, 3.0, 4.0]).unwrap();
        let err = fit(&x, &[true; 4], &["a".to_string()]).unwrap_err();
        assert!(
            chessgraph_core::error::error_chain(&err).contains("same outcome"),
            "{err}"
        );
    }
}
