//! Ordinary least squares of the centipawn evaluation on features, by the normal
//! equations: `β = (XᵀX)⁻¹ Xᵀy` with the intercept's column of ones first, solved with the
//! Cholesky inverse that also gives the classical standard errors
//! `sqrt(σ² diag((XᵀX)⁻¹))`, `σ² = RSS / (n − k − 1)`. (The inverse is needed for the
//! errors anyway; a second solver would only copy the data.) `tests/golden/fit_linear.json`
//! holds numpy's `lstsq` answer for the same rows.

use ndarray::{Array1, Array2, ArrayView2, Axis};
use rusqlite::Connection;
use serde::Serialize;

use super::{Coefficient, FitError, FitRecord, Selection, Target, linalg};
use crate::stats;
use chessgraph_store::Result;

/// A fitted linear model: `intercept + Σ coef_j x_j`.
#[derive(Clone, Debug)]
pub struct LinearModel {
    /// Intercept first, then one per feature.
    pub coefficients: Vec<Coefficient>,
    /// Residual standard error on the train rows.
    pub sigma: f64,
}

impl LinearModel {
    /// Predictions for the rows of `x` (one column per feature).
    pub fn predict(&self, x: ArrayView2<f64>) -> Vec<f64> {
        let w: Array1<f64> = self.coefficients[1..].iter().map(|c| c.estimate).collect();
        let b = self.coefficients[0].estimate;
        x.dot(&w).iter().map(|v| v + b).collect()
    }
}

/// R² and RMSE of a model on some rows.
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct RegressionMetrics {
    /// Rows.
    pub n: usize,
    /// Coefficient of determination.
    pub r2: f64,
    /// Root mean squared error, centipawns.
    pub rmse: f64,
}

impl RegressionMetrics {
    /// Measures `model` on rows `x` with targets `y`.
    pub fn of(model: &LinearModel, x: ArrayView2<f64>, y: &[f64]) -> RegressionMetrics {
        let pred = model.predict(x);
        RegressionMetrics {
            n: y.len(),
            r2: stats::r2(y, &pred),
            rmse: stats::rmse(y, &pred),
        }
    }
}

/// Refuses a design matrix OLS cannot identify: too few rows, or a constant feature.
pub(super) fn check_design(x: &Array2<f64>, names: &[String]) -> Result<()> {
    let (n, k) = x.dim();
    if n < k + 2 {
        return Err(FitError::TooFewRows {
            rows: n,
            coefficients: k + 1,
        }
        .into());
    }
    for (j, col) in x.axis_iter(Axis(1)).enumerate() {
        let first = col[0];
        if col.iter().all(|&v| v == first) {
            return Err(FitError::Constant {
                name: names[j].clone(),
                value: first,
            }
            .into());
        }
    }
    Ok(())
}

/// `[1 x]ᵀ[1 x]` for the rows of `x`: the normal matrix with the intercept first.
pub(super) fn normal_matrix(x: &Array2<f64>, weights: Option<&[f64]>) -> Array2<f64> {
    let k = x.ncols();
    let mut a = Array2::<f64>::zeros((k + 1, k + 1));
    let mut row = vec![0.0; k + 1];
    row[0] = 1.0;
    for (i, xi) in x.axis_iter(Axis(0)).enumerate() {
        row[1..].iter_mut().zip(xi).for_each(|(r, v)| *r = *v);
        let w = weights.map_or(1.0, |w| w[i]);
        for p in 0..=k {
            let rp = row[p] * w;
            for q in p..=k {
                a[[p, q]] += rp * row[q];
            }
        }
    }
    for p in 0..=k {
        for q in 0..p {
            a[[p, q]] = a[[q, p]];
        }
    }
    a
}

/// Fits `y ≈ intercept + x·w` by least squares, with classical standard errors.
pub fn ols(x: &Array2<f64>, y: &[f64], names: &[String]) -> Result<LinearModel> {
    assert_eq!(x.ncols(), names.len());
    assert_eq!(x.nrows(), y.len());
    check_design(x, names)?;
    let (n, k) = x.dim();
    let xtx_inv = linalg::spd_inverse(&normal_matrix(x, None))
        .ok_or_else(|| FitError::Dependent(names.join(", ")))?;
    // Xᵀy with the intercept first, then β = (XᵀX)⁻¹ Xᵀy.
    let mut xty = vec![0.0; k + 1];
    for (xi, &yi) in x.axis_iter(Axis(0)).zip(y) {
        xty[0] += yi;
        xty[1..].iter_mut().zip(xi).for_each(|(t, v)| *t += v * yi);
    }
    let beta = xtx_inv.dot(&Array1::from(xty));
    let mut coefficients = Vec::with_capacity(k + 1);
    coefficients.push(("intercept".to_string(), beta[0]));
    coefficients.extend(names.iter().cloned().zip(beta.iter().skip(1).copied()));
    if coefficients.iter().any(|c| !c.1.is_finite()) {
        return Err(FitError::NonFinite("least squares").into());
    }
    let mut model = LinearModel {
        coefficients: coefficients
            .into_iter()
            .map(|(name, estimate)| Coefficient::estimate(name, estimate))
            .collect(),
        sigma: f64::NAN,
    };
    let pred = model.predict(x.view());
    let rss: f64 = y.iter().zip(&pred).map(|(a, b)| (a - b).powi(2)).sum();
    let sigma2 = rss / (n - k - 1) as f64;
    model.sigma = sigma2.sqrt();
    for (j, c) in model.coefficients.iter_mut().enumerate() {
        c.std_error = (sigma2 * xtx_inv[[j, j]]).sqrt();
        c.statistic = c.estimate / c.std_error;
    }
    Ok(model)
}

/// A linear fit with its train and held-out measures.
#[derive(Clone, Debug)]
pub struct LinearFit {
    /// What is stored in `fits`.
    pub record: FitRecord,
    /// On the train rows.
    pub train: RegressionMetrics,
    /// On the held-out rows (`None` when there are none).
    pub test: Option<RegressionMetrics>,
    /// Residual standard error on the train rows.
    pub sigma: f64,
}

/// Loads the rows `sel` chooses, fits `eval_cp` on the train part, measures both parts and
/// stores the fit.
pub fn run(conn: &Connection, sel: &Selection) -> Result<LinearFit> {
    let data = super::load(conn, sel, Target::EvalCp)?;
    let model = ols(&data.x_train, &data.y_train, &sel.features)?;
    let train = RegressionMetrics::of(&model, data.x_train.view(), &data.y_train);
    let test = (!data.y_test.is_empty())
        .then(|| RegressionMetrics::of(&model, data.x_test.view(), &data.y_test));
    let mut record = FitRecord {
        id: 0,
        kind: "linear",
        target: Target::EvalCp,
        features: sel.features.clone(),
        filter: sel.filter.clone(),
        seed: data.seed,
        n_train: data.y_train.len(),
        n_test: data.y_test.len(),
        without_target: data.without_target,
        coefficients: model.coefficients.clone(),
        metrics: serde_json::json!({ "train": train, "test": test, "sigma": model.sigma }),
    };
    record.id = super::store(conn, &record)?;
    Ok(LinearFit {
        record,
        train,
        test,
        sigma: model.sigma,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn exact_line_has_zero_error() {
        // y = 3 + 2a − b exactly.
        let x = array![[1.0, 0.0], [2.0, 1.0], [3.0, 5.0], [4.0, 2.0], [0.0, 3.0]];
        let y: Vec<f64> = x
            .rows()
            .into_iter()
            .map(|r| 3.0 + 2.0 * r[0] - r[1])
            .collect();
        let m = ols(&x, &y, &names(&["a", "b"])).unwrap();
        let est: Vec<f64> = m.coefficients.iter().map(|c| c.estimate).collect();
        for (got, want) in est.iter().zip([3.0, 2.0, -1.0]) {
            assert!((got - want).abs() < 1e-9, "{est:?}");
        }
        assert!(m.sigma < 1e-6);
    }

    #[test]
    fn standard_error_of_a_slope_by_hand() {
        // Simple regression on x = 0..4, y = 1 3 2 5 4: slope = Sxy/Sxx = 8/10 = 0.8,
        // intercept = 3 − 0.8·2 = 1.4; residuals −.4 .8 −1 1.2 −.6: RSS = 3.6, σ² = 1.2;
        // se(slope) = sqrt(σ²/Sxx) = sqrt(0.12), se(intercept) = sqrt(σ²(1/n + x̄²/Sxx)).
        let x = array![[0.0], [1.0], [2.0], [3.0], [4.0]];
        let y = [1.0, 3.0, 2.0, 5.0, 4.0];
        let m = ols(&x, &y, &names(&["x"])).unwrap();
        let c = &m.coefficients;
        assert!((c[1].estimate - 0.8).abs() < 1e-12);
        assert!((c[0].estimate - 1.4).abs() < 1e-12);
        assert!((c[1].std_error - 0.12f64.sqrt()).abs() < 1e-12);
        assert!((c[0].std_error - (1.2f64 * (0.2 + 0.4)).sqrt()).abs() < 1e-12);
        assert!((c[1].statistic - 0.8 / 0.12f64.sqrt()).abs() < 1e-9);
        assert!((m.sigma - 1.2f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn refuses_constant_and_dependent_features() {
        let x = array![[0.0, 1.0], [0.0, 2.0], [0.0, 4.0], [0.0, 3.0]];
        let err = ols(&x, &[1.0, 2.0, 3.0, 4.0], &names(&["material", "m"])).unwrap_err();
        assert!(
            chessgraph_core::error::error_chain(&err).contains("`material` is constant (0)"),
            "{err}"
        );
        let x = array![[1.0, 2.0], [2.0, 4.0], [3.0, 6.0], [5.0, 10.0]];
        let err = ols(&x, &[1.0, 2.0, 3.0, 4.0], &names(&["a", "b"])).unwrap_err();
        assert!(
            chessgraph_core::error::error_chain(&err).contains("linearly dependent"),
            "{err}"
        );
        let x = array![[1.0], [2.0]];
        let err = ols(&x, &[1.0, 2.0], &names(&["a"])).unwrap_err();
        assert!(
            chessgraph_core::error::error_chain(&err).contains("too few"),
            "{err}"
        );
    }

    /// The committed fixture against numpy's lstsq (scripts/golden/fit.py, all rows).
    #[test]
    fn matches_numpy_on_fixture() {
        let root = chessgraph_testkit::repo_root();
        let golden: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root.join("tests/golden/fit_linear.json")).unwrap(),
        )
        .unwrap();
        let mut rdr = csv::Reader::from_path(root.join("tests/fixtures/fit_linear.csv")).unwrap();
        let feats = names(super::super::DEFAULT_FEATURES);
        let headers = rdr.headers().unwrap().clone();
        let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
        let (mut xs, mut y) = (Vec::new(), Vec::new());
        for rec in rdr.records() {
            let rec = rec.unwrap();
            for f in &feats {
                xs.push(rec[col(f)].parse::<f64>().unwrap());
            }
            y.push(rec[col("eval_cp")].parse::<f64>().unwrap());
        }
        let x = Array2::from_shape_vec((y.len(), feats.len()), xs).unwrap();
        let m = ols(&x, &y, &feats).unwrap();
        let all = &golden["all_rows"];
        for (c, g) in m
            .coefficients
            .iter()
            .zip(all["coefficients"].as_array().unwrap())
        {
            assert_eq!(c.name, g["name"].as_str().unwrap());
            let (e, s) = (
                g["estimate"].as_f64().unwrap(),
                g["std_error"].as_f64().unwrap(),
            );
            assert!(
                (c.estimate - e).abs() <= 1e-7 * e.abs().max(1.0),
                "{}: {} vs {e}",
                c.name,
                c.estimate
            );
            assert!(
                (c.std_error - s).abs() <= 1e-7 * s,
                "{}: {} vs {s}",
                c.name,
                c.std_error
            );
        }
        let r = RegressionMetrics::of(&m, x.view(), &y);
        assert!((r.r2 - all["r2"].as_f64().unwrap()).abs() < 1e-9);
        assert!((r.rmse - all["rmse"].as_f64().unwrap()).abs() < 1e-7);
    }
}
