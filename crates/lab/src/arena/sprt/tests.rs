use super::*;

/// Relative (or, near 0, absolute) difference within 1e-6.
fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-6 * want.abs().max(1e-3)
}

#[test]
fn llr_matches_the_independent_python_values() {
    // scripts/golden/sprt.py: exact rational moments, and the MLE by its own bisection.
    let golden: serde_json::Value =
        serde_json::from_str(include_str!("../../../../../tests/golden/sprt.json")).unwrap();
    let cases = golden["cases"].as_array().unwrap();
    assert!(cases.len() >= 50);
    for c in cases {
        let counts: Vec<u64> = c["counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let counts: [u64; 5] = counts.try_into().unwrap();
        let (e0, e1) = (c["elo0"].as_f64().unwrap(), c["elo1"].as_f64().unwrap());
        let want = c["llr_mle"].as_f64().unwrap();
        let got = llr(&counts, e0, e1);
        assert!(close(got, want), "{counts:?} [{e0}, {e1}]: {got} vs {want}");
        let want = c["llr"].as_f64().unwrap();
        let got = llr_approx(&counts, e0, e1);
        assert!(
            close(got, want),
            "approx {counts:?} [{e0}, {e1}]: {got} vs {want}"
        );
        let (elo, half) = pentanomial_elo(&counts);
        match c["elo"].as_f64() {
            Some(want) => assert!(close(elo, want), "elo {counts:?}: {elo} vs {want}"),
            None => assert!(elo.is_nan()),
        }
        match c["elo_95"].as_f64() {
            Some(want) => assert!(close(half, want), "±{counts:?}: {half} vs {want}"),
            None => assert!(!half.is_finite()),
        }
    }
    for (key, b) in golden["bounds"].as_object().unwrap() {
        let (a, be) = key.split_once(',').unwrap();
        let p: SprtParams = format!("elo0=0,elo1=5,alpha={a},beta={be}")
            .parse()
            .unwrap();
        let (lo, hi) = p.bounds();
        assert!(close(lo, b[0].as_f64().unwrap()) && close(hi, b[1].as_f64().unwrap()));
    }
}

#[test]
fn llr_by_hand() {
    // Symmetric counts around 1/2 with hypotheses symmetric around 0: LLR 0 (both
    // formulas), and the approximation's closed form: s = 1/2, so
    // LLR = N (s1 - s0)(1 - s0 - s1) / (2 var) = 0 since s0 + s1 = 1.
    let sym = [3, 10, 20, 10, 3];
    assert!(llr(&sym, -5.0, 5.0).abs() < 1e-9);
    assert!(llr_approx(&sym, -5.0, 5.0).abs() < 1e-9);
    // Better results raise the LLR; more of the same results scale it.
    let good = [1, 5, 20, 15, 6];
    let a = llr(&good, 0.0, 5.0);
    assert!(a > 0.0 && a > llr(&sym, 0.0, 5.0));
    let doubled = good.map(|c| 2 * c);
    assert!((llr(&doubled, 0.0, 5.0) - 2.0 * a).abs() < 1e-6 * a);
    assert_eq!(llr(&[0; 5], 0.0, 5.0), 0.0);
    // One pair proves little: the exact LLR stays near 0 where the approximation jumps.
    assert!(llr(&[0, 0, 0, 1, 0], 0.0, 10.0) < 0.1);
    assert!(llr_approx(&[0, 0, 0, 1, 0], 0.0, 10.0) > 2.94);
}

#[test]
fn a_test_decides_and_freezes() {
    let params: SprtParams = "elo0=0,elo1=10".parse().unwrap();
    assert_eq!((params.alpha, params.beta), (0.05, 0.05));
    let (lo, hi) = params.bounds();
    assert!((hi - 19f64.ln()).abs() < 1e-12 && (lo + 19f64.ln()).abs() < 1e-12);
    let mut t = Sprt::new(params);
    // Pair keys: games of one opening; the second game of a pair completes it.
    let mut verdict = None;
    let mut pairs = 0;
    while verdict.is_none() {
        assert_eq!(t.add_game(pairs, 1.0), None, "half a pair decides nothing");
        verdict = t.add_game(pairs, 0.5);
        pairs += 1;
        assert!(pairs < 200, "never passed: {:?}", t.report());
    }
    assert_eq!(verdict, Some(Verdict::Passed));
    // A one-class record says little about the spread: 104 pairs (as the Python
    // script's MLE says), each adding about ln(L(10) / L(0)).
    assert_eq!(pairs, 104);
    let r = t.report();
    assert!(r.llr >= hi, "{r:?}");
    assert_eq!(r.games, 2 * pairs);
    assert_eq!(r.wdl, [pairs, pairs, 0]);
    assert_eq!(r.pentanomial, [0, 0, 0, pairs, 0]);
    // Frozen: later games change nothing.
    assert_eq!(t.add_game(1000, 0.0), Some(Verdict::Passed));
    assert_eq!(t.add_game(1000, 0.0), Some(Verdict::Passed));
    assert_eq!(t.report().games, 2 * pairs);
    assert_eq!(t.finish(), Verdict::Passed);
    assert!(
        r.verdict_line()
            .starts_with("SPRT: H1 accepted (passed), LLR ")
    );

    // Losing every pair fails; interleaved pairs are matched by key.
    let mut t = Sprt::new(params);
    t.add_game(1, 0.0);
    t.add_game(2, 0.5);
    t.add_game(1, 0.5);
    t.add_game(2, 0.0);
    assert_eq!(t.report().pentanomial, [0, 2, 0, 0, 0]);
    let mut k = 3;
    while t.verdict().is_none() {
        t.add_game(k, 0.0);
        t.add_game(k, 0.0);
        k += 1;
    }
    assert_eq!(t.verdict(), Some(Verdict::Failed));
    assert!(k < 150, "{k}");
    let mut t = Sprt::new(params);
    t.add_game(0, 1.0);
    assert_eq!(t.finish(), Verdict::Inconclusive);
}

#[test]
fn status_lines() {
    let mut t = Sprt::new("elo0=0,elo1=5".parse().unwrap());
    for (k, (a, b)) in [(1.0, 0.0), (0.5, 0.5), (1.0, 0.5)].into_iter().enumerate() {
        t.add_game(k as u64, a);
        t.add_game(k as u64, b);
    }
    let r = t.report();
    assert!(
        r.llr_text().ends_with("(-2.94, 2.94) [0, 5]"),
        "{}",
        r.llr_text()
    );
    let line = r.status_line();
    assert!(
        line.contains("6 games, W/D/L 2/3/1, pentanomial 0 0 2 1 0, Elo +"),
        "{line}"
    );
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["elo1"], 5.0);
    assert_eq!(json["pentanomial"][2], 2);
}

#[test]
fn bad_sprt_strings_say_what_is_wrong() {
    let err = |s: &str| s.parse::<SprtParams>().unwrap_err();
    assert_eq!(err(""), SprtError::Empty);
    assert_eq!(err("elo0=0,elo1"), SprtError::NotKeyValue("elo1".into()));
    assert_eq!(err("elo0=0,elo2=5"), SprtError::UnknownKey("elo2".into()));
    assert_eq!(err("elo0=0,elo0=1,elo1=5"), SprtError::Duplicate("elo0"));
    assert_eq!(
        err("elo0=x,elo1=5"),
        SprtError::NotANumber {
            key: "elo0",
            value: "x".into()
        }
    );
    assert_eq!(err("elo1=5"), SprtError::Missing("elo0"));
    assert_eq!(err("elo0=0"), SprtError::Missing("elo1"));
    assert!(matches!(err("elo0=5,elo1=0"), SprtError::Order { .. }));
    assert!(matches!(err("elo0=5,elo1=5"), SprtError::Order { .. }));
    assert!(matches!(
        err("elo0=0,elo1=5,alpha=0"),
        SprtError::Probability { key: "alpha", .. }
    ));
    assert!(matches!(
        err("elo0=0,elo1=5,beta=0.7"),
        SprtError::Probability { key: "beta", .. }
    ));
    assert!(matches!(
        err("elo0=0,elo1=5000"),
        SprtError::EloRange { key: "elo1", .. }
    ));
    let msg = err("elo0=0,elo1=5,gamma=1").to_string();
    assert!(msg.contains("gamma") && msg.contains("elo0, elo1"), "{msg}");
    let p: SprtParams = " elo1=5 , elo0=-1.5,beta=0.1 ".parse().unwrap();
    assert_eq!((p.elo0, p.elo1, p.alpha, p.beta), (-1.5, 5.0, 0.05, 0.1));
}
