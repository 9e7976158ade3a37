//! Goodness-of-fit measures: R² and RMSE for regressions; log-loss, accuracy and AUC for
//! probabilities of a binary outcome.

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
}
