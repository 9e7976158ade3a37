//! Tests of the rating fit: hand-worked cases, the degenerate ones, and golden values
//! from scipy (`scripts/golden/ratings.py`).

use super::*;

fn elo(r: &Rating) -> f64 {
    match r {
        Rating::Rated { elo, .. } => *elo,
        other => panic!("not rated: {other:?}"),
    }
}

fn ci(r: &Rating) -> f64 {
    match r {
        Rating::Rated { ci95, .. } => *ci95,
        other => panic!("not rated: {other:?}"),
    }
}

#[test]
fn two_players_three_wins_one_loss() {
    let mut res = Results::new(2);
    res.add_record(0, 1, 3, 0, 1);
    let f = fit(&res, None);
    let d = 400.0 * 3f64.log10(); // 190.85: P = 0.75
    assert!((d - 190.849).abs() < 1e-3);
    assert!((elo(&f.ratings[0]) - d / 2.0).abs() < 1e-6, "{f:?}");
    assert!((elo(&f.ratings[1]) + d / 2.0).abs() < 1e-6, "{f:?}");
    // Information of the difference: C² · 4 · 0.75 · 0.25; each rating is ± half of it.
    let sd = (1.0 / (C * C * 4.0 * 0.75 * 0.25)).sqrt();
    assert!((ci(&f.ratings[0]) - 1.96 * sd / 2.0).abs() < 1e-6, "{f:?}");
    assert!(f.notes.is_empty() && f.groups == 1);
}

#[test]
fn three_players_in_a_consistent_chain() {
    // A−B and B−C 3:1 (P = 0.75, 190.85 Elo each); A−C 9:1 (P = 0.9 = the model's
    // value for 2 × 190.85): every pair scores exactly its expectation.
    let mut res = Results::new(3);
    res.add_record(0, 1, 3, 0, 1);
    res.add_record(1, 2, 3, 0, 1);
    res.add_record(0, 2, 9, 0, 1);
    let d = 400.0 * 3f64.log10();
    assert!((crate::stats::elo::expected_score(2.0 * d) - 0.9).abs() < 1e-12);
    let f = fit(&res, None);
    let r: Vec<f64> = f.ratings.iter().map(elo).collect();
    for (got, want) in r.iter().zip([d, 0.0, -d]) {
        assert!((got - want).abs() < 1e-6, "{r:?}");
    }
    let g = gradient(&res, &[0, 1, 2], &[d, 0.0, -d]);
    assert!(g.iter().all(|x| x.abs() < 1e-12), "{g:?}");
    // Away from the answer the gradient is not zero (the check can fail).
    let g = gradient(&res, &[0, 1, 2], &[d + 10.0, 0.0, -d]);
    assert!(g[0] < -1e-4, "{g:?}");
    // A record that is not a consistent chain (B−C 2 wins, 2 draws, 1 loss) has no
    // hand-worked answer, but the gradient is zero at the fit as well.
    let mut res = Results::new(3);
    res.add_record(0, 1, 3, 0, 1);
    res.add_record(1, 2, 2, 2, 1);
    res.add_record(0, 2, 9, 0, 1);
    let f = fit(&res, None);
    let r: Vec<f64> = f.ratings.iter().map(elo).collect();
    assert!(r[0] > r[1] && r[1] > r[2], "{r:?}");
    let g = gradient(&res, &[0, 1, 2], &r);
    assert!(g.iter().all(|x| x.abs() < 1e-9), "{g:?}");
    assert!(r.iter().sum::<f64>().abs() < 1e-9);
}

#[test]
fn all_wins_is_unbounded_with_a_likelihood_ratio_bound() {
    // A beats B and C twice each; B and C share a win and a draw: {B, C} is rated.
    let mut res = Results::new(3);
    res.add_record(0, 1, 2, 0, 0);
    res.add_record(0, 2, 2, 0, 0);
    res.add_record(1, 2, 1, 1, 1);
    let f = fit(&res, None);
    assert_eq!(elo(&f.ratings[1]), 0.0);
    assert_eq!(elo(&f.ratings[2]), 0.0);
    let Rating::Above { lower: Some(lower) } = f.ratings[0] else {
        panic!("{f:?}");
    };
    // 4 wins against players at 0: 4 ln P = −1.92 → P = e^−0.48, r = 400 log10(P/(1−P)).
    let p = (-LR_95 / 4.0).exp();
    let want = 400.0 * (p / (1.0 - p)).log10();
    assert!((lower - want).abs() < 1e-6, "{lower} vs {want}");
    assert!((80.0..90.0).contains(&lower), "{lower}");
    assert!(f.notes.iter().any(|n| n.contains("+inf")), "{:?}", f.notes);
    // The mirror image: all losses are −∞ with the opposite bound.
    let mut res = Results::new(3);
    res.add_record(0, 1, 0, 0, 2);
    res.add_record(0, 2, 0, 0, 2);
    res.add_record(1, 2, 1, 1, 1);
    let f = fit(&res, None);
    let Rating::Below { upper: Some(upper) } = f.ratings[0] else {
        panic!("{f:?}");
    };
    assert!((upper + lower).abs() < 1e-6, "{upper} vs {lower}");
}

#[test]
fn draws_only_pair_is_level() {
    let mut res = Results::new(3);
    res.add_record(0, 1, 0, 4, 0);
    let f = fit(&res, None);
    assert!(elo(&f.ratings[0]).abs() < 1e-9 && elo(&f.ratings[1]).abs() < 1e-9);
    assert!(ci(&f.ratings[0]) > 0.0);
    assert_eq!(f.ratings[2], Rating::NoGames);
    assert_eq!(f.group, [Some(0), Some(0), None]);
    assert!(f.notes.iter().any(|n| n.contains("without games")));
}

#[test]
fn anchor_shifts_every_rating() {
    let mut res = Results::new(3);
    res.add_record(0, 1, 3, 1, 1);
    res.add_record(1, 2, 2, 2, 1);
    res.add_record(0, 2, 4, 0, 1);
    let free = fit(&res, None);
    let anchored = fit(&res, Some((2, 1500.0)));
    assert_eq!(elo(&anchored.ratings[2]), 1500.0);
    assert_eq!(ci(&anchored.ratings[2]), 0.0);
    let shift = 1500.0 - elo(&free.ratings[2]);
    for i in 0..3 {
        assert!((elo(&anchored.ratings[i]) - elo(&free.ratings[i]) - shift).abs() < 1e-9);
    }
    // Relative to the anchor, the others are less certain than relative to the mean.
    assert!(ci(&anchored.ratings[0]) > ci(&free.ratings[0]));
    // An anchor without a finite rating falls back to the mean, with a note.
    let mut res = Results::new(3);
    res.add_record(0, 1, 1, 1, 0);
    let f = fit(&res, Some((2, 1500.0)));
    assert!(
        f.notes.iter().any(|n| n.contains("anchor")),
        "{:?}",
        f.notes
    );
}

#[test]
fn disconnected_groups_and_incomparable_players() {
    let mut res = Results::new(4);
    res.add_record(0, 1, 1, 0, 1);
    res.add_record(2, 3, 2, 0, 0);
    let f = fit(&res, None);
    assert_eq!(f.groups, 2);
    assert_eq!(f.group, [Some(0), Some(0), Some(1), Some(1)]);
    assert!(f.notes.iter().any(|n| n.contains("2 groups")));
    assert_eq!(elo(&f.ratings[0]), 0.0);
    // 2 and 3: both alone; the first is rated at 0, the loser is −∞. Two losses prove
    // little: 2 ln P = −1.92 gives P = 0.38 < ½, so the bound is above 0 (+83).
    assert_eq!(elo(&f.ratings[2]), 0.0);
    let p = (-LR_95 / 2.0).exp();
    let want = -400.0 * (p / (1.0 - p)).log10();
    assert!(
        matches!(f.ratings[3], Rating::Below { upper: Some(u) } if (u - want).abs() < 1e-6 && u > 80.0),
        "{f:?}"
    );

    // X and Y draw (rated), A beats X (+∞), D lost to A only: D is not comparable.
    let mut res = Results::new(4);
    res.add_record(0, 1, 0, 2, 0);
    res.add_record(2, 0, 2, 0, 0);
    res.add_record(2, 3, 2, 0, 0);
    let f = fit(&res, None);
    assert!(matches!(f.ratings[2], Rating::Above { lower: Some(_) }));
    assert_eq!(f.ratings[3], Rating::NotComparable);
    assert!(f.notes.iter().any(|n| n.starts_with('?')));
}

#[test]
fn lopsided_but_finite_records_converge() {
    let mut res = Results::new(3);
    res.add_record(0, 1, 99, 0, 1);
    res.add_record(1, 2, 1, 0, 99);
    res.add_record(0, 2, 50, 0, 50);
    let f = fit(&res, None);
    let r: Vec<f64> = f.ratings.iter().map(elo).collect();
    let g = gradient(&res, &[0, 1, 2], &r);
    assert!(g.iter().all(|x| x.abs() < 1e-9), "{r:?} {g:?}");
    assert!(r.iter().all(|x| x.is_finite()));
}

#[test]
fn matches_scipy_on_a_five_player_record_with_an_unbeaten_sixth() {
    let golden: serde_json::Value = serde_json::from_str(include_str!(
        "../../../../tests/golden/tournament_ratings.json"
    ))
    .unwrap();
    let names: Vec<&str> = golden["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let mut res = Results::new(names.len());
    for rec in golden["records"].as_array().unwrap() {
        let at = |k: usize| {
            names
                .iter()
                .position(|n| *n == rec[k].as_str().unwrap())
                .unwrap()
        };
        let count = |k: usize| rec[k].as_u64().unwrap() as u32;
        res.add_record(at(0), at(1), count(2), count(3), count(4));
    }
    let want = |key: &str, k: usize| golden[key][k].as_f64().unwrap();
    let f = fit(&res, None);
    for k in 0..5 {
        assert!(
            (elo(&f.ratings[k]) - want("ratings", k)).abs() < 1e-3,
            "{k}: {f:?}"
        );
        assert!(
            (ci(&f.ratings[k]) - want("ci95", k)).abs() < 1e-3,
            "{k}: {f:?}"
        );
    }
    let Rating::Above { lower: Some(lower) } = f.ratings[5] else {
        panic!("{f:?}");
    };
    assert!(
        (lower - golden["f_lower"].as_f64().unwrap()).abs() < 1e-3,
        "{lower}"
    );
    let f = fit(&res, Some((4, 1500.0)));
    for k in 0..5 {
        assert!(
            (elo(&f.ratings[k]) - want("anchored_e_1500", k)).abs() < 1e-3,
            "{k}: {f:?}"
        );
        assert!(
            (ci(&f.ratings[k]) - want("anchored_ci95", k)).abs() < 1e-3,
            "{k}: {f:?}"
        );
    }
}
