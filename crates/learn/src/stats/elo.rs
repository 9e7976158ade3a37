//! Logistic Elo, the one home of its arithmetic: the expected score of a rating
//! difference and back, and the 95 % interval of an Elo difference measured as a mean
//! game score. Used by the ratings fit, match records and the SPRT.

/// Natural-log odds per Elo: a difference `d` gives odds of `exp(LN_ODDS_PER_ELO · d)`,
/// i.e. 10 to the `d / 400`.
pub const LN_ODDS_PER_ELO: f64 = std::f64::consts::LN_10 / 400.0;

/// The normal distribution's two-sided 95 % quantile.
const Z_95: f64 = 1.96;

/// The expected score of a player `elo` stronger than its opponent.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference of an expected score (NaN at 0 and 1 and outside).
pub fn score_to_elo(score: f64) -> f64 {
    if score <= 0.0 || score >= 1.0 {
        f64::NAN
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// Half the width, in Elo, of the 95 % interval of a mean score `score` with standard
/// error `se` (normal approximation), mapped through [`score_to_elo`]; NaN when either
/// end leaves (0, 1).
pub fn half_width_95(score: f64, se: f64) -> f64 {
    let (lo, hi) = (
        score_to_elo(score - Z_95 * se),
        score_to_elo(score + Z_95 * se),
    );
    (hi - lo) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // 75 % is 400·log10(3) = 190.85 Elo; 50 % is even.
        assert!((score_to_elo(0.75) - 190.848_501_887_865).abs() < 1e-9);
        assert_eq!(score_to_elo(0.5), 0.0);
        assert!((score_to_elo(0.25) + 190.848_501_887_865).abs() < 1e-9);
        assert!((expected_score(400.0) - 10.0 / 11.0).abs() < 1e-15);
        assert_eq!(expected_score(0.0), 0.5);
    }

    #[test]
    fn the_two_ways_are_inverse() {
        for elo in [-800.0, -190.85, -1.0, 0.0, 35.0, 190.85, 800.0] {
            assert!(
                (score_to_elo(expected_score(elo)) - elo).abs() < 1e-9,
                "{elo}"
            );
        }
        // And the odds scale agrees: σ(LN_ODDS_PER_ELO · d).
        let d = 123.0;
        let sigmoid = 1.0 / (1.0 + (-LN_ODDS_PER_ELO * d).exp());
        assert!((expected_score(d) - sigmoid).abs() < 1e-15);
    }

    #[test]
    fn no_elo_for_certain_scores() {
        for s in [0.0, 1.0, -0.1, 1.1] {
            assert!(score_to_elo(s).is_nan(), "{s}");
        }
        assert!(half_width_95(0.99, 0.1).is_nan());
    }

    #[test]
    fn interval_by_hand() {
        // 75 % with se 0.03354 (per-game variance 0.1125 over 100 games): the interval's
        // ends 0.68426 and 0.81574 are 134.36 and 258.45 Elo.
        let se = (0.1125f64 / 100.0).sqrt();
        assert!((half_width_95(0.75, se) - 62.046_219_193).abs() < 1e-6);
        assert_eq!(half_width_95(0.5, 0.0), 0.0);
    }
}
