//! The statistics every learning tool and the lab report, in one place: goodness of fit
//! (R² and RMSE for regressions; log-loss, accuracy and AUC for probabilities of a binary
//! outcome), Kendall's τ-b, Pearson's r and the Texel loss for comparing an evaluator with
//! reference evaluations, and the Elo scale ([`elo`]) of matches, SPRT and ratings.

pub mod elo;

/// Coefficient of determination, `1 - RSS/TSS` (TSS around the mean of `y`); NaN when `y`
/// is empty or constant.
pub fn r2(y: &[f64], pred: &[f64]) -> f64 {
    assert_eq!(y.len(), pred.len());
    if y.is_empty() {
        return f64::NAN;
    }
    let mean = y.iter().sum::<f64>() / y.len() as f64;
    let tss: f64 = y.iter().map(|v| (v - mean).powi(2)).sum();
    let rss: f64 = y.iter().zip(pred).map(|(v, p)| (v - p).powi(2)).sum();
    if tss == 0.0 {
        f64::NAN
    } else {
        1.0 - rss / tss
    }
}

/// Root mean squared error; NaN when empty.
pub fn rmse(y: &[f64], pred: &[f64]) -> f64 {
    assert_eq!(y.len(), pred.len());
    if y.is_empty() {
        return f64::NAN;
    }
    let rss: f64 = y.iter().zip(pred).map(|(v, p)| (v - p).powi(2)).sum();
    (rss / y.len() as f64).sqrt()
}

/// Probabilities are clipped to `[EPS, 1 - EPS]` so a confident miss costs ~34.5 nats, not ∞.
const EPS: f64 = 1e-15;

/// Mean negative log-likelihood (natural log) of outcomes `y` under probabilities `p`.
pub fn log_loss(y: &[bool], p: &[f64]) -> f64 {
    assert_eq!(y.len(), p.len());
    if y.is_empty() {
        return f64::NAN;
    }
    let total: f64 = y
        .iter()
        .zip(p)
        .map(|(&yi, &pi)| {
            let pi = pi.clamp(EPS, 1.0 - EPS);
            if yi { -pi.ln() } else { -(1.0 - pi).ln() }
        })
        .sum();
    total / y.len() as f64
}

/// Share of outcomes predicted right with the threshold 0.5 (`p >= 0.5` predicts true).
pub fn accuracy(y: &[bool], p: &[f64]) -> f64 {
    assert_eq!(y.len(), p.len());
    if y.is_empty() {
        return f64::NAN;
    }
    let right = y
        .iter()
        .zip(p)
        .filter(|&(&yi, &pi)| yi == (pi >= 0.5))
        .count();
    right as f64 / y.len() as f64
}

/// Area under the ROC curve: the probability that a random positive gets a higher score than
/// a random negative, ties counting half (Mann–Whitney U with average ranks). NaN when one
/// class is absent.
pub fn auc(y: &[bool], p: &[f64]) -> f64 {
    assert_eq!(y.len(), p.len());
    let n_pos = y.iter().filter(|&&v| v).count();
    let n_neg = y.len() - n_pos;
    if n_pos == 0 || n_neg == 0 {
        return f64::NAN;
    }
    let mut order: Vec<usize> = (0..y.len()).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    // Sum of the (1-based, tie-averaged) ranks of the positives.
    let mut rank_sum = 0.0;
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && p[order[j + 1]] == p[order[i]] {
            j += 1;
        }
        let avg_rank = (i + j) as f64 / 2.0 + 1.0;
        let positives = order[i..=j].iter().filter(|&&k| y[k]).count();
        rank_sum += avg_rank * positives as f64;
        i = j + 1;
    }
    let u = rank_sum - (n_pos * (n_pos + 1)) as f64 / 2.0;
    u / (n_pos as f64 * n_neg as f64)
}

/// Kendall's rank correlation τ-b of `x` and `y` (ties corrected, as scipy's `kendalltau`),
/// in O(n log n) by Knight's algorithm; NaN when fewer than two pairs or either side is
/// constant.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> f64 {
    assert_eq!(x.len(), y.len());
    let n = x.len();
    if n < 2 {
        return f64::NAN;
    }
    let pairs = |t: u64| t * (t.saturating_sub(1)) / 2;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]).then(y[a].total_cmp(&y[b])));
    // Ties in x, and joint ties in (x, y), from the sort by (x, y).
    let (mut tied_x, mut tied_xy) = (0u64, 0u64);
    let (mut run_x, mut run_xy) = (1u64, 1u64);
    for w in order.windows(2) {
        let (a, b) = (w[0], w[1]);
        if x[a] == x[b] {
            run_x += 1;
            if y[a] == y[b] {
                run_xy += 1;
            } else {
                tied_xy += pairs(run_xy);
                run_xy = 1;
            }
        } else {
            tied_x += pairs(run_x);
            tied_xy += pairs(run_xy);
            run_x = 1;
            run_xy = 1;
        }
    }
    tied_x += pairs(run_x);
    tied_xy += pairs(run_xy);
    // Discordant pairs are the exchanges a stable merge sort by y makes.
    let mut ys: Vec<f64> = order.iter().map(|&i| y[i]).collect();
    let mut buf = ys.clone();
    let swaps = merge_count(&mut ys, &mut buf);
    let mut tied_y = 0u64;
    let mut run_y = 1u64;
    for w in ys.windows(2) {
        if w[0] == w[1] {
            run_y += 1;
        } else {
            tied_y += pairs(run_y);
            run_y = 1;
        }
    }
    tied_y += pairs(run_y);
    let n0 = pairs(n as u64);
    let numerator = n0 as f64 - tied_x as f64 - tied_y as f64 + tied_xy as f64 - 2.0 * swaps as f64;
    let denominator = ((n0 - tied_x) as f64 * (n0 - tied_y) as f64).sqrt();
    if denominator == 0.0 {
        f64::NAN
    } else {
        numerator / denominator
    }
}

/// Sorts `v` ascending (stable merge sort) and returns how many pairs were out of order.
fn merge_count(v: &mut [f64], buf: &mut [f64]) -> u64 {
    let n = v.len();
    if n < 2 {
        return 0;
    }
    let mid = n / 2;
    let mut swaps = {
        let (lv, rv) = v.split_at_mut(mid);
        let (lb, rb) = buf.split_at_mut(mid);
        merge_count(lv, lb) + merge_count(rv, rb)
    };
    let (mut i, mut j, mut k) = (0, mid, 0);
    while i < mid && j < n {
        if v[j] < v[i] {
            buf[k] = v[j];
            swaps += (mid - i) as u64;
            j += 1;
        } else {
            buf[k] = v[i];
            i += 1;
        }
        k += 1;
    }
    buf[k..k + mid - i].copy_from_slice(&v[i..mid]);
    k += mid - i;
    buf[k..k + n - j].copy_from_slice(&v[j..n]);
    v.copy_from_slice(&buf[..n]);
    swaps
}

/// Pearson's correlation coefficient; NaN when fewer than two values or either side is
/// constant.
pub fn pearson(x: &[f64], y: &[f64]) -> f64 {
    assert_eq!(x.len(), y.len());
    let n = x.len() as f64;
    if x.len() < 2 {
        return f64::NAN;
    }
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx).powi(2);
        syy += (b - my).powi(2);
    }
    if sxx == 0.0 || syy == 0.0 {
        f64::NAN
    } else {
        sxy / (sxx * syy).sqrt()
    }
}

/// The logistic function `1 / (1 + e^-x)`.
#[inline]
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Texel's loss: the mean of `(σ(K·eval) − σ(K·label))²`, both in centipawns.
pub fn texel_loss(k: f64, eval: &[f64], label: &[f64]) -> f64 {
    assert_eq!(eval.len(), label.len());
    if eval.is_empty() {
        return f64::NAN;
    }
    let total: f64 = eval
        .iter()
        .zip(label)
        .map(|(&e, &l)| (sigmoid(k * e) - sigmoid(k * l)).powi(2))
        .sum();
    total / eval.len() as f64
}

/// Mate labels count as this many centipawns (signed); centipawn labels are clamped to it.
pub const MATE_LABEL_CP: f64 = 2500.0;

/// A stored label `(eval_cp, mate)` in White-view centipawns for σ(K·label): mates to
/// ±[`MATE_LABEL_CP`], centipawns clamped to that range; no label, `None`.
pub fn label_cp(eval_cp: Option<i64>, mate: Option<i64>) -> Option<f64> {
    match (eval_cp, mate) {
        (Some(cp), _) => Some((cp as f64).clamp(-MATE_LABEL_CP, MATE_LABEL_CP)),
        (None, Some(m)) => Some(if m > 0 { MATE_LABEL_CP } else { -MATE_LABEL_CP }),
        (None, None) => None,
    }
}

/// K when too few positions have both a label and a game result: ln(10)/400, the Elo
/// scale (400 centipawns = 10 : 1 odds).
pub const DEFAULT_K: f64 = std::f64::consts::LN_10 / 400.0;

/// Fewest `(label, result)` pairs for K to be fitted rather than defaulted. Positions of
/// one game share its result, so a few hundred positions are only a handful of games'
/// worth of evidence; a thousand is some fifteen games or more.
pub const MIN_K_POSITIONS: usize = 1000;

/// The K policy of the tuner, the trainer and `rate evaluator`: K fitted on `pairs` ([`fit_k`]) when
/// there are at least [`MIN_K_POSITIONS`], else [`DEFAULT_K`]. Returns K and the number
/// of pairs it was fitted on (0 for the default).
pub fn k_or_default(pairs: &[(f64, f64)]) -> (f64, usize) {
    if pairs.len() >= MIN_K_POSITIONS {
        (fit_k(pairs), pairs.len())
    } else {
        (DEFAULT_K, 0)
    }
}

/// Fits K so that `σ(K·label)` predicts the results of `(label_cp, result)` pairs best
/// (least squares; golden-section search on log K between 1e-5 and 0.1 per centipawn).
pub fn fit_k(pairs: &[(f64, f64)]) -> f64 {
    let loss = |log_k: f64| {
        let k = log_k.exp();
        pairs
            .iter()
            .map(|&(l, r)| (sigmoid(k * l) - r).powi(2))
            .sum::<f64>()
    };
    let (mut a, mut b) = (1e-5f64.ln(), 0.1f64.ln());
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
    let (mut fc, mut fd) = (loss(c), loss(d));
    for _ in 0..80 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = loss(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = loss(d);
        }
    }
    ((a + b) / 2.0).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn r2_and_rmse_by_hand() {
        // y = 1 2 3 4, mean 2.5, TSS = 5; pred misses by 0.5, -0.5, 0, 1: RSS = 1.5.
        let y = [1.0, 2.0, 3.0, 4.0];
        let pred = [0.5, 2.5, 3.0, 3.0];
        assert!(close(r2(&y, &pred), 1.0 - 1.5 / 5.0));
        assert!(close(rmse(&y, &pred), (1.5f64 / 4.0).sqrt()));
        assert!(close(r2(&y, &y), 1.0));
        // Predicting the mean gives 0; worse than the mean is negative.
        assert!(close(r2(&y, &[2.5; 4]), 0.0));
        assert!(r2(&y, &[10.0; 4]) < 0.0);
        assert!(r2(&[3.0, 3.0], &[3.0, 3.0]).is_nan());
        assert!(rmse(&[], &[]).is_nan());
    }

    #[test]
    fn log_loss_and_accuracy_by_hand() {
        let y = [true, false, true, false];
        let p = [0.8, 0.4, 0.3, 0.5];
        // -(ln .8 + ln .6 + ln .3 + ln .5) / 4
        let want = -(0.8f64.ln() + 0.6f64.ln() + 0.3f64.ln() + 0.5f64.ln()) / 4.0;
        assert!(close(log_loss(&y, &p), want));
        // 0.8 right, 0.4 right, 0.3 wrong, 0.5 predicts true: wrong.
        assert!(close(accuracy(&y, &p), 0.5));
        // A certain miss is clipped, not infinite.
        let l = log_loss(&[true], &[0.0]);
        assert!(
            l.is_finite() && (l - 34.538776394910684).abs() < 1e-9,
            "{l}"
        );
        assert!(close(log_loss(&[true, false], &[0.5, 0.5]), 2f64.ln()));
    }

    #[test]
    fn auc_by_hand_with_ties() {
        // Positives scored .9 .5 .3, negatives .5 .2: pairs (3×2 = 6):
        // .9>.5 .9>.2 .5=.5(½) .5>.2 .3<.5 .3>.2 → 4.5 / 6.
        let y = [true, true, true, false, false];
        let p = [0.9, 0.5, 0.3, 0.5, 0.2];
        assert!(close(auc(&y, &p), 4.5 / 6.0));
        // Perfect and reversed rankings.
        assert!(close(auc(&[true, false], &[0.7, 0.1]), 1.0));
        assert!(close(auc(&[true, false], &[0.1, 0.7]), 0.0));
        // All scores equal: 0.5.
        assert!(close(auc(&[true, false, true], &[0.3, 0.3, 0.3]), 0.5));
        assert!(auc(&[true, true], &[0.1, 0.2]).is_nan());
    }

    /// Kendall's τ-b by its definition, over all pairs.
    fn tau_b_brute(x: &[f64], y: &[f64]) -> f64 {
        let (mut c, mut d, mut tx, mut ty) = (0i64, 0i64, 0i64, 0i64);
        for i in 0..x.len() {
            for j in i + 1..x.len() {
                let (dx, dy) = (x[i] - x[j], y[i] - y[j]);
                if dx == 0.0 && dy == 0.0 {
                } else if dx == 0.0 {
                    tx += 1;
                } else if dy == 0.0 {
                    ty += 1;
                } else if (dx > 0.0) == (dy > 0.0) {
                    c += 1;
                } else {
                    d += 1;
                }
            }
        }
        (c - d) as f64 / (((c + d + tx) * (c + d + ty)) as f64).sqrt()
    }

    #[test]
    fn kendall_by_hand() {
        // x = 1 2 3 4, y = 1 3 2 4: 5 concordant, 1 discordant, no ties: (5 - 1) / 6.
        assert!(close(
            kendall_tau_b(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 2.0, 4.0]),
            4.0 / 6.0
        ));
        // With ties (scipy.stats.kendalltau([1,1,2,3],[1,2,2,3]) = 0.8).
        assert!(close(
            kendall_tau_b(&[1.0, 1.0, 2.0, 3.0], &[1.0, 2.0, 2.0, 3.0]),
            0.8
        ));
        assert!(close(
            kendall_tau_b(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]),
            -1.0
        ));
        assert!(kendall_tau_b(&[1.0, 1.0], &[1.0, 2.0]).is_nan());
        assert!(kendall_tau_b(&[1.0], &[1.0]).is_nan());
    }

    #[test]
    fn kendall_matches_brute_force_with_many_ties() {
        let mut s = 7u64;
        let mut next = |m: u64| {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            ((s >> 33) % m) as f64
        };
        for n in [2, 3, 10, 57, 300] {
            let x: Vec<f64> = (0..n).map(|_| next(7)).collect();
            let y: Vec<f64> = x.iter().map(|v| v + next(5)).collect();
            let (fast, slow) = (kendall_tau_b(&x, &y), tau_b_brute(&x, &y));
            assert!(
                (fast - slow).abs() < 1e-12 || (fast.is_nan() && slow.is_nan()),
                "n {n}: {fast} vs {slow}"
            );
        }
    }

    #[test]
    fn pearson_and_texel_by_hand() {
        // x = 1 2 3, y = 2 4 7: sxy = 5, sxx = 2, syy = 12.6667: r = 5 / sqrt(25.3333).
        let r = pearson(&[1.0, 2.0, 3.0], &[2.0, 4.0, 7.0]);
        assert!(close(r, 5.0 / (2.0f64 * 38.0 / 3.0).sqrt()), "{r}");
        assert!(pearson(&[1.0, 1.0], &[1.0, 2.0]).is_nan());
        // σ(0) = .5 and σ(K·100) with K = ln(3)/100 is .75: loss (.25² + 0) / 2.
        let k = 3f64.ln() / 100.0;
        assert!(close(
            texel_loss(k, &[0.0, 50.0], &[100.0, 50.0]),
            0.0625 / 2.0
        ));
    }

    #[test]
    fn k_is_fitted_from_the_minimum_size_and_defaulted_below() {
        let pairs = |n: usize| -> Vec<(f64, f64)> {
            (0..n)
                .map(|i| {
                    let label = i as f64 - n as f64 / 2.0;
                    (label, sigmoid(0.006 * label))
                })
                .collect()
        };
        assert_eq!(k_or_default(&pairs(MIN_K_POSITIONS - 1)), (DEFAULT_K, 0));
        let (k, n) = k_or_default(&pairs(MIN_K_POSITIONS));
        assert_eq!(n, MIN_K_POSITIONS);
        assert!((k - 0.006).abs() < 1e-4, "{k}");
        assert_eq!(label_cp(Some(-9000), None), Some(-MATE_LABEL_CP));
        assert_eq!(label_cp(None, Some(2)), Some(MATE_LABEL_CP));
        assert_eq!(label_cp(None, None), None);
    }
}
