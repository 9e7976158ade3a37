//! The small dense algebra the fits need beyond the solvers: the inverse of a (k+1)×(k+1)
//! symmetric positive definite matrix such as XᵀX, for standard errors, and the Cholesky
//! factorization that solves the tuner's normal equations.

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

/// The Cholesky factor `L` (row-major, lower triangle) of a symmetric positive definite
/// `n × n` matrix given by its lower triangle (row-major; the upper triangle is not read).
/// `None` when a pivot is not positive (the matrix is not positive definite).
pub fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
    assert_eq!(a.len(), n * n);
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let (ri, rj) = (&l[i * n..i * n + j], &l[j * n..j * n + j]);
            let dot: f64 = ri.iter().zip(rj).map(|(x, y)| x * y).sum();
            let v = a[i * n + j] - dot;
            if i == j {
                if v.is_nan() || v <= 0.0 {
                    return None;
                }
                l[i * n + i] = v.sqrt();
            } else {
                l[i * n + j] = v / l[j * n + j];
            }
        }
    }
    Some(l)
}

/// Solves `L Lᵀ x = b` for the factor of [`cholesky`].
pub fn cholesky_solve(l: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    assert_eq!(b.len(), n);
    // L y = b.
    let mut y = vec![0.0; n];
    for i in 0..n {
        let dot: f64 = l[i * n..i * n + i].iter().zip(&y).map(|(a, b)| a * b).sum();
        y[i] = (b[i] - dot) / l[i * n + i];
    }
    // Lᵀ x = y.
    let mut x = y;
    for i in (0..n).rev() {
        x[i] /= l[i * n + i];
        let xi = x[i];
        for k in 0..i {
            x[k] -= l[i * n + k] * xi;
        }
    }
    x
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

    #[test]
    fn cholesky_solves_by_hand() {
        // [[4, 2], [2, 3]] x = [2, 1]: x = [0.5, 0].
        let a = [4.0, 0.0, 2.0, 3.0]; // lower triangle; the upper entry is not read
        let l = cholesky(&a, 2).unwrap();
        assert_eq!(l, vec![2.0, 0.0, 1.0, 2f64.sqrt()]);
        let x = cholesky_solve(&l, 2, &[2.0, 1.0]);
        assert!((x[0] - 0.5).abs() < 1e-12 && x[1].abs() < 1e-12, "{x:?}");
        // A 3 × 3 system checked by multiplying back.
        let a = [6.0, 0.0, 0.0, 2.0, 5.0, 0.0, 1.0, -1.0, 4.0];
        let full = |i: usize, j: usize| if j <= i { a[i * 3 + j] } else { a[j * 3 + i] };
        let l = cholesky(&a, 3).unwrap();
        let b = [1.0, -2.0, 3.0];
        let x = cholesky_solve(&l, 3, &b);
        for (i, bi) in b.iter().enumerate() {
            let got: f64 = x.iter().enumerate().map(|(j, xj)| full(i, j) * xj).sum();
            assert!((got - bi).abs() < 1e-12);
        }
        assert!(cholesky(&[1.0, 0.0, 2.0, 1.0], 2).is_none());
    }
}
