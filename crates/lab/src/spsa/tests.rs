//! The schedule against OpenBench's definition, and the whole method on a synthetic match
//! whose best values are known.

use super::*;

fn param(name: &str, start: f64, min: f64, max: f64, c_end: f64, r_end: f64) -> Param {
    Param {
        name: name.into(),
        float: false,
        start,
        min,
        max,
        c_end,
        r_end,
    }
}

#[test]
fn the_schedule_ends_at_c_end_and_r_end() {
    let s = Schedule::new(1000);
    let p = param("x", 50.0, 0.0, 100.0, 4.0, 0.002);
    assert!((s.c(&p, 1000) - 4.0).abs() < 1e-12);
    assert!((s.r(&p, 1000) - 0.002).abs() < 1e-12);
    // c starts at c_end · N^γ and falls; r·c² = a / (A + k)^α falls too.
    assert!((s.c(&p, 1) - 4.0 * 1000f64.powf(0.101)).abs() < 1e-9);
    assert!(s.c(&p, 10) > s.c(&p, 100));
    let rc2 = |k| s.r(&p, k) * s.c(&p, k).powi(2);
    assert!(rc2(1) > rc2(500));
    // An integer option's c never falls below 0.5.
    let small = param("y", 5.0, 0.0, 10.0, 0.1, 0.002);
    assert_eq!(s.c(&small, 1000), 0.5);
}

#[test]
fn perturbations_are_symmetric_clipped_and_reproducible() {
    let params = [
        param("a", 50.0, 0.0, 100.0, 5.0, 0.002),
        param("b", 1.0, 0.0, 100.0, 5.0, 0.002),
    ];
    let s = Schedule::new(100);
    let p = perturb(&params, &[50.0, 1.0], &s, 100, 7);
    assert_eq!(p, perturb(&params, &[50.0, 1.0], &s, 100, 7));
    // Opposite sides of the value by the flip; the integer sides 2c apart, give or take
    // one from the rounding.
    assert!(
        ((p.plus[0] - p.minus[0]) * p.flips[0] - 10.0).abs() <= 1.0,
        "{p:?}"
    );
    assert!(p.plus[1] >= 0.0 && p.minus[1] >= 0.0);
    let flips: Vec<f64> = (1..=200)
        .map(|k| perturb(&params, &[50.0, 1.0], &s, k, 7).flips[0])
        .collect();
    let plus = flips.iter().filter(|f| **f > 0.0).count();
    assert!((70..=130).contains(&plus), "{plus} of 200");
}

/// A synthetic engine's strength: the chance of winning a decisive game from its
/// opening, highest (0.9) at the known best values and falling away from them.
fn strength(values: &[f64], best: &[f64]) -> f64 {
    let d2: f64 = values
        .iter()
        .zip(best)
        .map(|(v, b)| ((v - b) / 60.0).powi(2))
        .sum();
    0.9 * (-d2).exp()
}

#[test]
fn finds_known_best_values_on_a_synthetic_match() {
    let params = vec![
        param("a", 40.0, 0.0, 200.0, 8.0, 0.05),
        param("b", 120.0, 0.0, 200.0, 8.0, 0.05),
        Param {
            float: true,
            ..param("c", 0.0, -100.0, 100.0, 8.0, 0.05)
        },
    ];
    let best = [90.0, 60.0, 40.0];
    let schedule = Schedule::new(3000);
    let mut values: Vec<f64> = params.iter().map(|p| p.start).collect();
    let mut games = chessgraph_core::chess::rng::SplitMix(99);
    let mut u = || (games.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    for k in 1..=schedule.iterations {
        let pert = perturb(&params, &values, &schedule, k, 5);
        // A pair: each side has the first move once and wins it with its strength,
        // else loses it.
        let (sp, sm) = (strength(&pert.plus, &best), strength(&pert.minus, &best));
        let mut result = 0.0;
        result += if u() < sp { 1.0 } else { -1.0 };
        result += if u() < sm { -1.0 } else { 1.0 };
        update(&params, &mut values, &pert, result);
    }
    for ((v, b), p) in values.iter().zip(best).zip(&params) {
        assert!(
            (v - b).abs() < 12.0,
            "{}: {v:.1}, best {b} (all: {values:?})",
            p.name
        );
    }
}

#[test]
fn a_plot_panel_is_scaled_to_the_path_within_the_range() {
    use history::{Row, panel_range};
    let margin = param("margin", 90.0, 30.0, 200.0, 8.0, 0.002);
    let depth = param("depth", 3.0, 3.0, 10.0, 0.5, 0.002);
    let rows: Vec<Row> = [(90.0, 3.0), (91.0, 3.1), (87.5, 3.2)]
        .iter()
        .enumerate()
        .map(|(k, &(m, d))| Row {
            iteration: k as u64,
            wdl: [0, 0, 0],
            values: vec![m, d],
        })
        .collect();
    // The path spans 3.5 < 4 · c_end = 32: 32 around its middle, padded by a tenth.
    let r = panel_range(&margin, &rows, 0);
    assert!((r.start - (89.25 - 17.6)).abs() < 1e-9, "{r:?}");
    assert!((r.end - (89.25 + 17.6)).abs() < 1e-9, "{r:?}");
    // At least one unit wide, and never below the option's minimum.
    let r = panel_range(&depth, &rows, 1);
    assert_eq!(r.start, 3.0);
    assert!((r.end - (3.1 + 1.1)).abs() < 1e-9, "{r:?}");
}
