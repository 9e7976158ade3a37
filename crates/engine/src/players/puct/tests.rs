use std::collections::HashMap;

use super::*;
use chessgraph_core::chess::fen::{normalized_fen, parse_position};

/// Priors by UCI move (1 when not listed) and values by normalized FEN (0 when not
/// listed), side to move's view.
#[derive(Default)]
struct Table {
    priors: HashMap<&'static str, f32>,
    values: HashMap<String, f32>,
    calls: std::sync::atomic::AtomicU32,
}

impl Oracle for Table {
    fn evaluate(&self, pos: &Chess, moves: &[Move]) -> (Vec<f32>, f32) {
        self.calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let priors = moves
            .iter()
            .map(|m| *self.priors.get(uci(m).as_str()).unwrap_or(&1.0))
            .collect();
        (
            priors,
            *self.values.get(&normalized_fen(pos)).unwrap_or(&0.0),
        )
    }
}

fn after(fen: &str, m: &str) -> String {
    let mut pos = parse_position(fen).unwrap();
    let m = chessgraph_core::chess::moves::parse_uci(&pos, m).unwrap();
    pos.play_unchecked(m);
    normalized_fen(&pos)
}

const ROOT: &str = "7k/8/8/8/8/8/P7/K7 w - - 0 1";

fn table() -> Table {
    let mut t = Table {
        priors: HashMap::from([("a2a3", 0.5), ("a2a4", 0.3), ("a1b1", 0.1), ("a1b2", 0.1)]),
        ..Table::default()
    };
    t.values.insert(after(ROOT, "a2a3"), 0.2);
    t.values.insert(after(ROOT, "a2a4"), -0.6);
    t
}

fn run(oracle: &dyn Oracle, fen: &str, simulations: u32) -> PuctResult {
    let pos = parse_position(fen).unwrap();
    let settings = PuctSettings {
        simulations,
        ..PuctSettings::default()
    };
    search(&pos, &[], oracle, &settings, &mut SplitMix(1), &mut |_| {
        false
    })
}

fn counts(r: &PuctResult) -> Vec<(String, u32)> {
    r.visits.iter().map(|(m, n)| (uci(m), *n)).collect()
}

/// Visit counts worked out by hand with E = c·p·N_parent / (1 + N_edge), c = 1:
/// 1: the root is expanded. 2: a3 (E 0.5) → its value −0.2 for White. 3: a4 (0.6 against
/// a3's −0.2 + 0.5) → +0.6. 4: a4 again (0.6 + 0.45 against a3's 0.55), whose child gets
/// expanded (Black's first move in UCI order, value 0): a4's Q 0.3. 5: a3 (−0.2 + 1.0
/// against a4's 0.3 + 0.4).
#[test]
fn visit_counts_match_the_hand_computed_tree() {
    let t = table();
    let expected = [
        [0, 0, 0, 0],
        [0, 0, 1, 0],
        [0, 0, 1, 1],
        [0, 0, 1, 2],
        [0, 0, 2, 2],
    ];
    for (i, want) in expected.iter().enumerate() {
        let r = run(&t, ROOT, i as u32 + 1);
        let names: Vec<String> = counts(&r).into_iter().map(|(m, _)| m).collect();
        assert_eq!(names, ["a1b1", "a1b2", "a2a3", "a2a4"]);
        let got: Vec<u32> = r.visits.iter().map(|v| v.1).collect();
        assert_eq!(got, want, "after {} simulations", i + 1);
        assert_eq!(r.simulations, i as u32 + 1);
    }
    // After 5: a3 and a4 both twice; the tie goes to the higher prior, a3. Root Q is the
    // mean over its edges: (−0.2 + 0 + 0.6 + 0) / 4.
    let r = run(&t, ROOT, 5);
    assert_eq!(uci(&r.best.unwrap()), "a2a3");
    assert!((r.value - 0.1).abs() < 1e-6, "{}", r.value);
    // One oracle call per expanded node: 1 + 2 + 3 + 4 + 5 in the loop, 5 here.
    assert_eq!(
        t.calls.load(std::sync::atomic::Ordering::Relaxed),
        5 * 6 / 2 + 5
    );
}

#[test]
fn a_mate_in_one_is_found_through_the_terminal_value() {
    // Ra1-a8 mates; the oracle knows nothing (uniform priors, values 0).
    let t = Table::default();
    let r = run(&t, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 60);
    assert_eq!(uci(&r.best.unwrap()), "a1a8");
}

#[test]
fn a_drawn_leaf_backs_up_zero_whatever_the_oracle_says() {
    // Kxg2 leaves king against king: a draw, though the oracle calls it won for White.
    let fen = "8/8/8/8/5k2/8/6p1/7K w - - 0 1";
    let mut t = Table::default();
    t.values.insert(after(fen, "h1g2"), -0.9);
    t.values.insert(after(fen, "h1g1"), 0.9);
    t.values.insert(after(fen, "h1h2"), 0.9);
    let r = run(&t, fen, 4);
    assert_eq!(
        counts(&r),
        [("h1g1".into(), 1), ("h1g2".into(), 1), ("h1h2".into(), 1)]
    );
    // (−0.9 + 0 − 0.9) / 3; with the oracle's word for Kxg2 it would be −0.3.
    assert!((r.value + 0.6).abs() < 1e-6, "{}", r.value);
}

#[test]
fn root_without_moves_has_no_best_move() {
    let t = Table::default();
    let r = run(&t, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 10);
    assert_eq!(r.best, None);
    assert!(r.visits.is_empty());
}

#[test]
fn dirichlet_noise_is_seeded_and_only_with_a_fraction() {
    let mut a = SplitMix(7);
    let mut b = SplitMix(7);
    let x = dirichlet(20, 0.3, &mut a);
    assert_eq!(x, dirichlet(20, 0.3, &mut b));
    assert!((x.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    assert!(x.iter().all(|&v| v >= 0.0));
    // α 0.3 is spiky: the largest weight takes a good share.
    assert!(x.iter().cloned().fold(0.0, f32::max) > 0.15, "{x:?}");
    // Noise changes the choice counts only when asked for.
    let t = table();
    let pos = parse_position(ROOT).unwrap();
    let plain = PuctSettings {
        simulations: 40,
        ..PuctSettings::default()
    };
    let noisy = PuctSettings {
        dirichlet_fraction: 0.25,
        ..plain
    };
    let r1 = search(&pos, &[], &t, &plain, &mut SplitMix(1), &mut |_| false);
    let r2 = search(&pos, &[], &t, &plain, &mut SplitMix(2), &mut |_| false);
    assert_eq!(r1.visits, r2.visits, "no noise: the seed does not matter");
    let n1 = search(&pos, &[], &t, &noisy, &mut SplitMix(1), &mut |_| false);
    let n1again = search(&pos, &[], &t, &noisy, &mut SplitMix(1), &mut |_| false);
    assert_eq!(n1.visits, n1again.visits, "same seed, same noise");
    let differs = (2..10).any(|s| {
        search(&pos, &[], &t, &noisy, &mut SplitMix(s), &mut |_| false).visits != r1.visits
    });
    assert!(differs);
}

#[test]
fn temperature_samples_in_proportion_to_visits() {
    let t = table();
    let r = run(&t, ROOT, 5);
    let mut rng = SplitMix(3);
    assert_eq!(
        uci(&choose_with_temperature(&r.visits, 0.0, &mut rng)),
        "a2a3"
    );
    let visits = vec![(r.visits[0].0, 1), (r.visits[1].0, 3)];
    let mut second = 0;
    for _ in 0..4000 {
        if choose_with_temperature(&visits, 1.0, &mut rng) == visits[1].0 {
            second += 1;
        }
    }
    // 3 in 4 expected: 3,000 ± a few standard deviations (27).
    assert!((2880..3120).contains(&second), "{second}");
}

#[test]
fn stop_ends_the_search_early() {
    let t = table();
    let pos = parse_position(ROOT).unwrap();
    let settings = PuctSettings {
        simulations: 1000,
        ..PuctSettings::default()
    };
    let r = search(&pos, &[], &t, &settings, &mut SplitMix(1), &mut |done| {
        done >= 7
    });
    assert_eq!(r.simulations, 7);
    assert_eq!(r.visits.iter().map(|v| v.1).sum::<u32>(), 6);
}
