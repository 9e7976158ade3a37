//! The small dense algebra the fits need beyond the solvers: the inverse of a (k+1)×(k+1)
//! symmetric positive definite matrix such as XᵀX, for standard errors.

use ndarray::Array2;

/// Inverts a symmetric positive definite matrix by Cholesky decomposition; `None` when the
/// matrix is singular or nearly so (linearly dependent or constant columns).
///
/// The matrix is first scaled to unit diagonal, so the singularity test (a pivot below
/// `1e-10`) does not depend on the units of the columns.
pub fn spd_inverse(a: &Array2<f64>) -> Option<Array2<f64>> {
    let n = a.nrows();
    assert_eq!(n, a.ncols());
    let d: Vec<f64> = (0..n).map(|i| a[[i, i]]).collect();
    if d.iter().any(|&v| v.is_nan() || v <= 0.0 || !v.is_finite()) {
        return None;
    }
    let s: Vec<f64> = d.iter().map(|v| 1.0 / v.sqrt()).collect();
    // c = S a S, unit diagonal.
    let c = Array2::from_shape_fn((n, n), |(i, j)| a[[i, j]] * s[i] * s[j]);
    // Cholesky: c = L Lᵀ.
    let mut l = Array2::<f64>::zeros((n, n));
    for j in 0..n {
        let mut diag = c[[j, j]];
        for k in 0..j {
            diag -= l[[j, k]] * l[[j, k]];
        }
        if diag.is_nan() || diag <= 1e-10 {
            return None;
        }
        let ljj = diag.sqrt();
        l[[j, j]] = ljj;
        for i in j + 1..n {
            let mut v = c[[i, j]];
            for k in 0..j {
                v -= l[[i, k]] * l[[j, k]];
            }
            l[[i, j]] = v / ljj;
        }
    }
    // L⁻¹ by forward substitution, then c⁻¹ = L⁻ᵀ L⁻¹.
    let mut linv = Array2::<f64>::zeros((n, n));
    for j in 0..n {
        linv[[j, j]] = 1.0 / l[[j, j]];
        for i in j + 1..n {
            let mut v = 0.0;
            for k in j..i {
                v -= l[[i, k]] * linv[[k, j]];
            }
            linv[[i, j]] = v / l[[i, i]];
        }
    }
    let cinv = linv.t().dot(&linv);
    // a⁻¹ = S c⁻¹ S.
    Some(Array2::from_shape_fn((n, n), |(i, j)| {
        cinv[[i, j]] * s[i] * s[j]
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn inverts_spd_matrices_of_mixed_scale() {
        let a = array![[4.0, 2.0, 0.1], [2.0, 2.0e4, 3.0], [0.1, 3.0, 1.0e-2]];
        let inv = spd_inverse(&a).unwrap();
        let id = a.dot(&inv);
        for i in 0..3 {
            for j in 0..3 {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((id[[i, j]] - want).abs() < 1e-9, "{id}");
            }
        }
        // By hand: the inverse of [[2, 1], [1, 2]] is [[2, -1], [-1, 2]] / 3.
        let inv = spd_inverse(&array![[2.0, 1.0], [1.0, 2.0]]).unwrap();
        assert!((inv[[0, 0]] - 2.0 / 3.0).abs() < 1e-12);
        assert!((inv[[0, 1]] + 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn refuses_singular_matrices() {
        // Second column = 2 × first.
        assert!(spd_inverse(&array![[1.0, 2.0], [2.0, 4.0]]).is_none());
        // A zero column (a feature that is always 0).
        assert!(spd_inverse(&array![[3.0, 0.0], [0.0, 0.0]]).is_none());
    }
}
