//! The sequential probability ratio test of engine testing (fishtest, cutechess-ob,
//! fastchess): H0 "the first engine is `elo0` logistic Elo stronger" against H1 "it is
//! `elo1` stronger", decided as games come in.
//!
//! Games are counted in pairs — one opening played twice with colours swapped — so each
//! pair scores 0, ½, 1, 1½ or 2 for the first engine (the pentanomial model: LL, LD,
//! DD or WL, WD, WW). The log-likelihood ratio is the generalized SPRT's of Michel Van
//! den Bergh as fishtest computes it (`LLR_logistic`): with p the observed frequencies
//! of a pair's score per game (0, ¼, ½, ¾, 1; an empty class counts 0.001, so that every
//! p_i > 0) and s0, s1 the expected scores of `elo0` and `elo1`,
//! L(x) = 1 / (1 + 10^(−x/400)),
//!
//! LLR = N · Σ p_i ln(q1_i / q0_i)
//!
//! where N is the number of pairs and q0, q1 the maximum-likelihood distributions on
//! the five scores with expectations s0 and s1. Its Brownian approximation
//! N · (s1 − s0) · (2 s − s0 − s1) / (2 σ²) ([`llr_approx`], from the mean s and
//! variance σ²) agrees after a few hundred pairs but not after a few. The test stops at
//! LLR ≤ ln(β / (1 − α)) (H0 accepted, "failed") or LLR ≥ ln((1 − β) / α) (H1 accepted,
//! "passed").

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use chessgraph_learn::stats::elo::{expected_score, half_width_95, score_to_elo};

/// What is wrong with an `--sprt` string.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SprtError {
    /// Nothing given.
    #[error("--sprt is empty: expected elo0=A,elo1=B[,alpha=0.05,beta=0.05]")]
    Empty,
    /// A part without `=`.
    #[error("--sprt: {0:?} is not KEY=VALUE (keys: elo0, elo1, alpha, beta)")]
    NotKeyValue(String),
    /// A key other than elo0, elo1, alpha, beta.
    #[error("--sprt: unknown key {0:?} (keys: elo0, elo1, alpha, beta)")]
    UnknownKey(String),
    /// A key given twice.
    #[error("--sprt: {0} is given twice")]
    Duplicate(&'static str),
    /// A value that is not a finite number.
    #[error("--sprt: {key}={value:?} is not a number")]
    NotANumber {
        /// The key.
        key: &'static str,
        /// The value given.
        value: String,
    },
    /// elo0 or elo1 not given.
    #[error("--sprt: {0} is missing (e.g. elo0=0,elo1=5)")]
    Missing(&'static str),
    /// An Elo bound too far from 0 to mean anything.
    #[error("--sprt: {key}={value} is outside -1000..1000 Elo")]
    EloRange {
        /// The key.
        key: &'static str,
        /// The value given.
        value: f64,
    },
    /// elo1 not above elo0.
    #[error("--sprt: elo1 ({elo1}) must be greater than elo0 ({elo0})")]
    Order {
        /// The lower hypothesis.
        elo0: f64,
        /// The upper hypothesis.
        elo1: f64,
    },
    /// alpha or beta outside (0, 0.5).
    #[error("--sprt: {key}={value} must be above 0 and below 0.5")]
    Probability {
        /// The key.
        key: &'static str,
        /// The value given.
        value: f64,
    },
}

/// The test's hypotheses and error rates.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SprtParams {
    /// H0: the first engine is this many logistic Elo stronger.
    pub elo0: f64,
    /// H1: the first engine is this many logistic Elo stronger.
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    pub beta: f64,
}

impl FromStr for SprtParams {
    type Err = SprtError;

    /// Parses `elo0=0,elo1=5[,alpha=0.05,beta=0.05]` (any order).
    fn from_str(s: &str) -> Result<Self, SprtError> {
        if s.trim().is_empty() {
            return Err(SprtError::Empty);
        }
        let mut values: [Option<f64>; 4] = [None; 4];
        const KEYS: [&str; 4] = ["elo0", "elo1", "alpha", "beta"];
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| SprtError::NotKeyValue(part.to_owned()))?;
            let k = k.trim().to_ascii_lowercase();
            let i = KEYS
                .iter()
                .position(|&key| key == k)
                .ok_or_else(|| SprtError::UnknownKey(k.clone()))?;
            let key = KEYS[i];
            let value = v
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| SprtError::NotANumber {
                    key,
                    value: v.trim().to_owned(),
                })?;
            if values[i].replace(value).is_some() {
                return Err(SprtError::Duplicate(key));
            }
        }
        let elo0 = values[0].ok_or(SprtError::Missing("elo0"))?;
        let elo1 = values[1].ok_or(SprtError::Missing("elo1"))?;
        for (key, value) in [("elo0", elo0), ("elo1", elo1)] {
            if value.abs() > 1000.0 {
                return Err(SprtError::EloRange { key, value });
            }
        }
        if elo1 <= elo0 {
            return Err(SprtError::Order { elo0, elo1 });
        }
        let alpha = values[2].unwrap_or(0.05);
        let beta = values[3].unwrap_or(0.05);
        for (key, value) in [("alpha", alpha), ("beta", beta)] {
            if !(value > 0.0 && value < 0.5) {
                return Err(SprtError::Probability { key, value });
            }
        }
        Ok(SprtParams {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }
}

impl SprtParams {
    /// The LLR's stopping bounds: (ln(β/(1−α)), ln((1−β)/α)).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// What the LLR says: H1 at or above the upper bound, H0 at or below the lower one.
    pub fn decide(&self, llr: f64) -> Option<Verdict> {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Some(Verdict::Passed)
        } else if llr <= lower {
            Some(Verdict::Failed)
        } else {
            None
        }
    }
}

impl fmt::Display for SprtParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "elo0={},elo1={},alpha={},beta={}",
            self.elo0, self.elo1, self.alpha, self.beta
        )
    }
}

/// How a test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// H1 accepted: the LLR reached the upper bound.
    Passed,
    /// H0 accepted: the LLR reached the lower bound.
    Failed,
    /// The game cap came first.
    Inconclusive,
}

impl Verdict {
    /// `H1 accepted (passed)`, `H0 accepted (failed)` or `inconclusive`.
    pub fn describe(self) -> &'static str {
        match self {
            Verdict::Passed => "H1 accepted (passed)",
            Verdict::Failed => "H0 accepted (failed)",
            Verdict::Inconclusive => "inconclusive (game cap reached)",
        }
    }
}

/// Mean and variance of a pair's score per game (0, ¼, ½, ¾, 1) over pentanomial counts
/// (LL, LD, DD+WL, WD, WW), each count at least `floor`; and their total.
fn pair_stats(counts: &[u64; 5], floor: f64) -> (f64, f64, f64) {
    let r = counts.map(|c| (c as f64).max(floor));
    let n: f64 = r.iter().sum();
    let mean = r
        .iter()
        .enumerate()
        .map(|(i, c)| c * i as f64 / 4.0)
        .sum::<f64>()
        / n;
    let var = r
        .iter()
        .enumerate()
        .map(|(i, c)| c * (i as f64 / 4.0 - mean).powi(2))
        .sum::<f64>()
        / n;
    (n, mean, var)
}

/// The generalized SPRT's log-likelihood ratio of pentanomial `counts` (LL, LD, DD+WL,
/// WD, WW) for H1 `elo1` against H0 `elo0` (logistic Elo), as fishtest's `LLR_logistic`:
/// N times the mean log ratio, over the observed pairs, of the maximum-likelihood
/// distributions on the five scores whose expectations are s1 and s0. 0 before the
/// first pair.
pub fn llr(counts: &[u64; 5], elo0: f64, elo1: f64) -> f64 {
    if counts.iter().all(|&c| c == 0) {
        return 0.0;
    }
    let r = counts.map(|c| (c as f64).max(REGULARIZATION));
    let n: f64 = r.iter().sum();
    let p = r.map(|c| c / n);
    let w0 = mle_weights(&p, expected_score(elo0));
    let w1 = mle_weights(&p, expected_score(elo1));
    n * (0..5).map(|i| p[i] * (w1[i] / w0[i]).ln()).sum::<f64>()
}

/// The GSPRT approximated by a Brownian motion (Van den Bergh, fishtest's `LLR_alt2`):
/// N · (s1 − s0) · (2 s − s0 − s1) / (2 σ²). Close to [`llr`] after a few hundred
/// pairs, but far off for a handful (one pair WD alone crosses 2.94 for [0, 10]), so the
/// test decides on [`llr`].
pub fn llr_approx(counts: &[u64; 5], elo0: f64, elo1: f64) -> f64 {
    if counts.iter().all(|&c| c == 0) {
        return 0.0;
    }
    let (n, s, var) = pair_stats(counts, REGULARIZATION);
    let (s0, s1) = (expected_score(elo0), expected_score(elo1));
    n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)
}

/// What an empty pentanomial class counts (fishtest's regularization).
const REGULARIZATION: f64 = 1e-3;

/// For frequencies `p` of the scores i/4, the factors 1 / (1 + x (a_i − s)) that turn
/// `p` into the closest distribution (in likelihood) with expectation `s` (Van den
/// Bergh, "support_MLE_multinomial", Proposition 1.1): x solves
/// Σ p_i (a_i − s) / (1 + x (a_i − s)) = 0, found by bisection (the sum decreases in x).
/// Every p_i > 0 and 0 < s < 1, so a root lies strictly inside (−1/(1 − s), 1/s).
fn mle_weights(p: &[f64; 5], s: f64) -> [f64; 5] {
    let a: [f64; 5] = std::array::from_fn(|i| i as f64 / 4.0 - s);
    let f = |x: f64| (0..5).map(|i| p[i] * a[i] / (1.0 + x * a[i])).sum::<f64>();
    let (mut lo, mut hi) = (-1.0 / a[4], -1.0 / a[0]);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let x = 0.5 * (lo + hi);
    a.map(|ai| 1.0 / (1.0 + x * ai))
}

/// Elo difference and the half-width of its 95 % interval from pentanomial counts: the
/// mean score per game with the standard error of the pairs' mean (NaN when undefined).
pub fn pentanomial_elo(counts: &[u64; 5]) -> (f64, f64) {
    let pairs: u64 = counts.iter().sum();
    if pairs == 0 {
        return (f64::NAN, f64::NAN);
    }
    let (n, s, var) = pair_stats(counts, 0.0);
    let se = (var / n).sqrt();
    (score_to_elo(s), half_width_95(s, se))
}

/// A running test: games come in with the key of their pair (the opening), a pair
/// counts once both its games are in, and the state freezes at the first decision.
#[derive(Debug, Clone)]
pub struct Sprt {
    params: SprtParams,
    counts: [u64; 5],
    wdl: [u64; 3],
    open: HashMap<u64, f64>,
    llr: f64,
    verdict: Option<Verdict>,
}

/// A test's state, for output and JSON.
#[derive(Debug, Clone, Serialize)]
pub struct SprtReport {
    /// The hypotheses and error rates.
    #[serde(flatten)]
    pub params: SprtParams,
    /// The log-likelihood ratio.
    pub llr: f64,
    /// Its lower (H0) bound.
    pub lower: f64,
    /// Its upper (H1) bound.
    pub upper: f64,
    /// `passed`, `failed`, `inconclusive`, or none while running.
    pub verdict: Option<Verdict>,
    /// Games counted (those of complete pairs).
    pub games: u64,
    /// Wins, draws and losses of the first engine in those games.
    pub wdl: [u64; 3],
    /// Pairs scoring 0, ½, 1, 1½, 2 (LL, LD, DD+WL, WD, WW).
    pub pentanomial: [u64; 5],
    /// Elo difference from the pairs.
    pub elo: f64,
    /// Half-width of its 95 % interval.
    pub elo_95: f64,
}

impl Sprt {
    /// A test with no games yet.
    pub fn new(params: SprtParams) -> Sprt {
        Sprt {
            params,
            counts: [0; 5],
            wdl: [0; 3],
            open: HashMap::new(),
            llr: 0.0,
            verdict: None,
        }
    }

    /// Adds a game the first engine scored `score` (0, 0.5, 1) in, from the pair `pair`;
    /// returns the verdict once there is one. Games after it are not counted.
    pub fn add_game(&mut self, pair: u64, score: f64) -> Option<Verdict> {
        if self.verdict.is_some() {
            return self.verdict;
        }
        let Some(first) = self.open.remove(&pair) else {
            self.open.insert(pair, score);
            return None;
        };
        for s in [first, score] {
            let k = if s > 0.75 {
                0
            } else if s < 0.25 {
                2
            } else {
                1
            };
            self.wdl[k] += 1;
        }
        let half_points = ((first + score) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.counts[half_points] += 1;
        self.llr = llr(&self.counts, self.params.elo0, self.params.elo1);
        self.verdict = self.params.decide(self.llr);
        self.verdict
    }

    /// Ends the test at the game cap: inconclusive unless decided.
    pub fn finish(&mut self) -> Verdict {
        *self.verdict.get_or_insert(Verdict::Inconclusive)
    }

    /// The verdict so far.
    pub fn verdict(&self) -> Option<Verdict> {
        self.verdict
    }

    /// The state as numbers.
    pub fn report(&self) -> SprtReport {
        let (lower, upper) = self.params.bounds();
        let (elo, elo_95) = pentanomial_elo(&self.counts);
        SprtReport {
            params: self.params,
            llr: self.llr,
            lower,
            upper,
            verdict: self.verdict,
            games: 2 * self.counts.iter().sum::<u64>(),
            wdl: self.wdl,
            pentanomial: self.counts,
            elo,
            elo_95,
        }
    }
}

impl SprtReport {
    /// `LLR 1.23 (-2.94, 2.94) [0, 5]`.
    pub fn llr_text(&self) -> String {
        format!(
            "LLR {:.2} ({:.2}, {:.2}) [{}, {}]",
            self.llr, self.lower, self.upper, self.params.elo0, self.params.elo1
        )
    }

    /// `Elo +12.3 ± 8.1 (95 %)`, or why there is none.
    pub fn elo_text(&self) -> String {
        if self.elo.is_finite() && self.elo_95.is_finite() {
            // `+ 0.0` turns -0 into 0.
            format!("Elo {:+.1} ± {:.1} (95 %)", self.elo + 0.0, self.elo_95)
        } else if self.elo.is_finite() {
            format!("Elo {:+.1} (95 % interval unbounded)", self.elo + 0.0)
        } else {
            if self.games == 0 {
                "Elo not estimable yet".to_owned()
            } else {
                "Elo not estimable (score 0 % or 100 %)".to_owned()
            }
        }
    }

    /// One line: LLR, games, W/D/L, pentanomial counts, Elo.
    pub fn status_line(&self) -> String {
        let p = self.pentanomial;
        format!(
            "{}, {} games, W/D/L {}/{}/{}, pentanomial {} {} {} {} {}, {}",
            self.llr_text(),
            self.games,
            self.wdl[0],
            self.wdl[1],
            self.wdl[2],
            p[0],
            p[1],
            p[2],
            p[3],
            p[4],
            self.elo_text()
        )
    }

    /// The verdict line: `SPRT: H1 accepted (passed), LLR 2.95 (-2.94, 2.94) [0, 5] after
    /// 212 games`.
    pub fn verdict_line(&self) -> String {
        let verdict = self.verdict.map_or("running", Verdict::describe);
        format!(
            "SPRT: {verdict}, {} after {} games",
            self.llr_text(),
            self.games
        )
    }
}

#[cfg(test)]
mod tests;
