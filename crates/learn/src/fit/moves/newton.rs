//! Penalised logistic regression on the move examples by Newton's method, using the
//! examples' structure.
//!
//! Minimises `Σ [log(1 + e^z) − y·z] + α/2 ‖w‖²` with `z = b + w · x` over the examples (the
//! intercept `b` not penalised): the objective of linfa-logistic's `alpha` and of
//! scikit-learn's `C = 1/α`. A row is a position's 64 board codes, shared by all its
//! moves, plus two ones (from and to square), so the gradient and the 193 × 193 Hessian are
//! gathered per position — the board part once per position, not once per move — without
//! ever forming the dense examples × 192 matrix (1.5 kB per example). Each step solves the
//! Newton system by Cholesky and halves the step until the objective falls enough
//! (Armijo); a handful of steps reach the optimum to rounding. The inverse Hessian at the
//! optimum gives Wald standard errors, as `fit logistic` reports them.

use super::Sample;
use crate::fit::linalg;
use crate::stats::sigmoid;
use chessgraph_core::Error as CoreError;
use chessgraph_engine::players::logistic::encoding::COLUMNS;
use chessgraph_store::Error;
use chessgraph_store::Result;

/// Parameters: the intercept, then one weight per column.
const P: usize = COLUMNS + 1;
/// Offsets of the column groups in the parameter vector.
const BOARD: usize = 1;
const FROM: usize = 1 + 64;
const TO: usize = 1 + 128;

/// A fitted parameter vector.
#[derive(Clone, Debug)]
pub struct Solution {
    /// The intercept, then the 192 column weights.
    pub theta: Vec<f64>,
    /// Wald standard error of each (inverse penalised Hessian at the optimum).
    pub std_errors: Vec<f64>,
    /// Newton steps taken.
    pub iterations: usize,
    /// Whether the Newton decrement fell below the tolerance (false: stopped at the limit).
    pub converged: bool,
    /// The penalised objective at the optimum.
    pub objective: f64,
}

/// `log(1 + e^z)` without overflow.
fn softplus(z: f64) -> f64 {
    z.max(0.0) + (-z.abs()).exp().ln_1p()
}

/// Objective, gradient and (with `hessian`) the Hessian's lower triangle (row-major).
struct Pass {
    objective: f64,
    gradient: Vec<f64>,
    hessian: Vec<f64>,
}

fn board_nonzeros(s: &Sample) -> Vec<(usize, f64)> {
    s.board
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c != 0)
        .map(|(j, &c)| (j, f64::from(c)))
        .collect()
}

fn pass(samples: &[&Sample], theta: &[f64], alpha: f64, hessian: bool) -> Pass {
    let mut obj = 0.0;
    let mut g = vec![0.0; P];
    let mut h = if hessian {
        vec![0.0; P * P]
    } else {
        Vec::new()
    };
    // Per-position sums of the weights p(1 − p) by from and to square.
    let (mut h_from, mut h_to) = ([0.0f64; 64], [0.0f64; 64]);
    let (mut seen_from, mut seen_to) = ([false; 64], [false; 64]);
    let (mut froms, mut tos): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
    for s in samples {
        let nz = board_nonzeros(s);
        let base = theta[0] + nz.iter().map(|&(j, c)| c * theta[BOARD + j]).sum::<f64>();
        let (mut r_sum, mut h_sum) = (0.0, 0.0);
        for (m, &(f, t)) in s.squares.iter().enumerate() {
            let (f, t) = (usize::from(f), usize::from(t));
            let z = base + theta[FROM + f] + theta[TO + t];
            let y = m == s.played;
            obj += softplus(z) - if y { z } else { 0.0 };
            let p = sigmoid(z);
            let r = p - if y { 1.0 } else { 0.0 };
            r_sum += r;
            g[FROM + f] += r;
            g[TO + t] += r;
            if hessian {
                let w = p * (1.0 - p);
                h_sum += w;
                h[(FROM + f) * P + FROM + f] += w;
                h[(TO + t) * P + TO + t] += w;
                h[(TO + t) * P + FROM + f] += w;
                if !std::mem::replace(&mut seen_from[f], true) {
                    froms.push(f);
                }
                if !std::mem::replace(&mut seen_to[t], true) {
                    tos.push(t);
                }
                h_from[f] += w;
                h_to[t] += w;
            }
        }
        g[0] += r_sum;
        for &(j, c) in &nz {
            g[BOARD + j] += r_sum * c;
        }
        if !hessian {
            continue;
        }
        h[0] += h_sum;
        for (a, &(j, c)) in nz.iter().enumerate() {
            let row = (BOARD + j) * P;
            h[row] += h_sum * c;
            for &(k, d) in &nz[..=a] {
                h[row + BOARD + k] += h_sum * c * d;
            }
        }
        for (group, sums, seen, used) in [
            (FROM, &mut h_from, &mut seen_from, &mut froms),
            (TO, &mut h_to, &mut seen_to, &mut tos),
        ] {
            for &sq in used.iter() {
                let row = (group + sq) * P;
                h[row] += sums[sq];
                for &(j, c) in &nz {
                    h[row + BOARD + j] += sums[sq] * c;
                }
                sums[sq] = 0.0;
                seen[sq] = false;
            }
            used.clear();
        }
    }
    for i in 1..P {
        obj += 0.5 * alpha * theta[i] * theta[i];
        g[i] += alpha * theta[i];
        if hessian {
            h[i * P + i] += alpha;
        }
    }
    Pass {
        objective: obj,
        gradient: g,
        hessian: h,
    }
}

/// Fits the intercept and the 192 weights on `samples` with the L2 penalty `alpha` (> 0:
/// the from and to one-hot columns each sum to the intercept's column, so without a
/// penalty the optimum is not unique).
pub fn fit(samples: &[&Sample], alpha: f64, max_iterations: usize) -> Result<Solution> {
    if !(alpha.is_finite() && alpha > 0.0) {
        return Err(CoreError::Invalid(format!(
            "alpha must be a number > 0, not {alpha} (the from- and to-square columns each \
             add up to the intercept's column: without a penalty the weights are not unique)"
        ))
        .into());
    }
    let examples: usize = samples.iter().map(|s| s.moves.len()).sum();
    let positives = samples.len();
    // Start at the intercept of the positive rate: the first steps are then short.
    let mut theta = vec![0.0; P];
    theta[0] = (positives as f64 / (examples - positives).max(1) as f64).ln();
    let mut iterations = 0;
    loop {
        let cur = pass(samples, &theta, alpha, true);
        let l = linalg::cholesky(&cur.hessian, P)
            .ok_or_else(|| Error::from(crate::fit::FitError::NotPositiveDefinite))?;
        let step = linalg::cholesky_solve(&l, P, &cur.gradient);
        // gᵀ H⁻¹ g: twice the objective's expected decrease (the Newton decrement²).
        let decrement: f64 = step.iter().zip(&cur.gradient).map(|(a, b)| a * b).sum();
        let converged = decrement / 2.0 <= 1e-12 * (1.0 + cur.objective.abs());
        if converged || iterations >= max_iterations {
            let inverse = (0..P)
                .map(|i| {
                    let mut e = vec![0.0; P];
                    e[i] = 1.0;
                    linalg::cholesky_solve(&l, P, &e)[i].sqrt()
                })
                .collect();
            return Ok(Solution {
                theta,
                std_errors: inverse,
                iterations,
                converged,
                objective: cur.objective,
            });
        }
        let mut t = 1.0;
        loop {
            let next: Vec<f64> = theta.iter().zip(&step).map(|(a, d)| a - t * d).collect();
            let obj = pass(samples, &next, alpha, false).objective;
            if obj <= cur.objective - 1e-4 * t * decrement || t < 1e-10 {
                theta = next;
                break;
            }
            t /= 2.0;
        }
        if theta.iter().any(|v| !v.is_finite()) {
            return Err(crate::fit::FitError::NonFinite("Newton's method").into());
        }
        iterations += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::split::Part;
    use chessgraph_engine::players::logistic::encoding;
    use shakmaty::{Chess, Move, Position};

    /// The first `n` positions of a fixed walk, each with its walk move as the one played.
    fn samples_n(n: usize) -> Vec<Sample> {
        let mut pos = Chess::default();
        let mut out = Vec::new();
        for k in 0..n {
            let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
            let m = moves[(k * 7 + 3) % moves.len()];
            out.push(Sample::new(&pos, m, Part::Train));
            pos.play_unchecked(m);
        }
        out
    }

    fn samples() -> Vec<Sample> {
        samples_n(24)
    }

    /// The dense objective, straight from the definition.
    fn dense_objective(s: &[Sample], theta: &[f64], alpha: f64) -> f64 {
        let mut obj = 0.0;
        for smp in s {
            for (m, &(f, t)) in smp.squares.iter().enumerate() {
                let mut row = [0.0; COLUMNS];
                encoding::write_row(&smp.board, f.into(), t.into(), &mut row);
                let z = theta[0] + row.iter().zip(&theta[1..]).map(|(x, w)| x * w).sum::<f64>();
                let y = if m == smp.played { 1.0 } else { 0.0 };
                obj += (1.0 + z.exp()).ln() - y * z;
            }
        }
        obj + 0.5 * alpha * theta[1..].iter().map(|w| w * w).sum::<f64>()
    }

    #[test]
    fn gradient_and_hessian_match_finite_differences() {
        let s = samples();
        let refs: Vec<&Sample> = s.iter().collect();
        let theta: Vec<f64> = (0..P)
            .map(|i| ((i * 37 % 11) as f64 - 5.0) / 50.0)
            .collect();
        let at = pass(&refs, &theta, 0.7, true);
        assert!((at.objective - dense_objective(&s, &theta, 0.7)).abs() < 1e-9);
        let eps = 1e-5;
        for i in [0, 1, 5, 13, 60, 65 + 12, 65 + 28, 129 + 28, 129 + 36, 192] {
            let mut up = theta.clone();
            up[i] += eps;
            let mut down = theta.clone();
            down[i] -= eps;
            let (pu, pd) = (pass(&refs, &up, 0.7, true), pass(&refs, &down, 0.7, true));
            let numeric = (pu.objective - pd.objective) / (2.0 * eps);
            assert!((numeric - at.gradient[i]).abs() < 1e-5, "g[{i}]");
            for j in 0..P {
                let numeric = (pu.gradient[j] - pd.gradient[j]) / (2.0 * eps);
                let (r, c) = if i >= j { (i, j) } else { (j, i) };
                assert!(
                    (numeric - at.hessian[r * P + c]).abs() < 1e-5,
                    "H[{r}][{c}]: {numeric} vs {}",
                    at.hessian[r * P + c]
                );
            }
        }
    }

    #[test]
    fn agrees_with_linfa_logistic() {
        use linfa::Dataset;
        use linfa::traits::Fit;
        use ndarray::{Array1, Array2};
        // Few examples: linfa's code runs unoptimized in debug builds.
        let s = samples_n(8);
        let refs: Vec<&Sample> = s.iter().collect();
        let sol = fit(&refs, 1.0, 100).unwrap();
        assert!(sol.converged && sol.iterations < 30, "{}", sol.iterations);
        let mut rows = Vec::new();
        let mut y = Vec::new();
        for smp in &s {
            for (m, &(f, t)) in smp.squares.iter().enumerate() {
                let mut row = [0.0; COLUMNS];
                encoding::write_row(&smp.board, f.into(), t.into(), &mut row);
                rows.extend(row);
                y.push(m == smp.played);
            }
        }
        let x = Array2::from_shape_vec((y.len(), COLUMNS), rows).unwrap();
        let fitted = linfa_logistic::LogisticRegression::default()
            .alpha(1.0)
            .max_iterations(2000)
            .gradient_tolerance(1e-8)
            .fit(&Dataset::new(x, Array1::from(y)))
            .unwrap();
        let sign = if fitted.labels().pos.class { 1.0 } else { -1.0 };
        assert!((sign * fitted.intercept() - sol.theta[0]).abs() < 1e-4);
        for (a, b) in fitted.params().iter().zip(&sol.theta[1..]) {
            assert!((sign * a - b).abs() < 1e-4, "{a} vs {b}");
        }
        // The optimum: no step lowers the objective.
        let best = dense_objective(&s, &sol.theta, 1.0);
        assert!((best - sol.objective).abs() < 1e-9);
        for i in [0, 3, 70, 140] {
            let mut t = sol.theta.clone();
            t[i] += 1e-3;
            assert!(dense_objective(&s, &t, 1.0) > best);
        }
    }

    #[test]
    fn refuses_no_penalty() {
        let s = samples();
        let refs: Vec<&Sample> = s.iter().collect();
        assert!(fit(&refs, 0.0, 10).is_err());
        assert!(fit(&refs, f64::NAN, 10).is_err());
    }
}
