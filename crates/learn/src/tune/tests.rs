//! Tests of the tuner.

use super::*;
use crate::fit::split::Part;
use crate::stats::sigmoid;
use chessgraph_core::chess::fen::parse_position;
use chessgraph_store::labels::LabelChoice;

#[test]
fn labels_map_mates_and_clamp() {
    assert_eq!(label_cp(Some(56), None), Some(56.0));
    assert_eq!(label_cp(Some(-9000), None), Some(-MATE_LABEL_CP));
    assert_eq!(label_cp(None, Some(3)), Some(MATE_LABEL_CP));
    assert_eq!(label_cp(None, Some(-1)), Some(-MATE_LABEL_CP));
    assert_eq!(label_cp(None, None), None);
}

/// The tuner's integer model (what its losses are computed from) and the exported
/// evaluator file, read back and run through the engine's `evaluate`, agree exactly on
/// every position; and tuning lowers the validation loss from the start.
#[test]
fn tuned_model_equals_exported_evaluator() {
    let conn = crate::fit::split::fixture_db();
    let set = load(&conn, None, &LabelChoice::default()).unwrap();
    assert!(set.len() > 1800);
    let mut opts = Options::new("t", ":memory:");
    // A small grid keeps the debug-build test quick; the search itself is the same.
    opts.max_steps = 3;
    opts.alphas = vec![1e-4, 1e-2];
    opts.lambdas = vec![0.0];
    let mut seen = 0;
    let tuned = tune(&set, &opts, &mut |_| seen += 1).unwrap();
    assert!(seen >= 1 && seen == tuned.steps.len());
    // No game results in the fixture: K is the default.
    assert_eq!((tuned.k, tuned.k_positions), (DEFAULT_K, 0));
    assert!(
        tuned.valid.fit_loss < tuned.valid.start_fit_loss,
        "{:?}",
        tuned.valid
    );
    assert_ne!(tuned.evaluator.weights(), opts.start.weights());

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.json");
    tuned.evaluator.save(&path).unwrap();
    let exported = Evaluator::load(&path).unwrap();
    let mut stmt = conn
        .prepare("SELECT fen FROM positions ORDER BY id")
        .unwrap();
    let fens: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(fens.len(), set.len());
    let mut nonzero = 0;
    for (i, fen) in fens.iter().enumerate() {
        let pos = parse_position(fen).unwrap();
        let model = set.evaluate(&tuned.evaluator, i);
        assert_eq!(exported.evaluate(&pos), model, "{fen}");
        nonzero += usize::from(model != 0);
    }
    assert!(nonzero > fens.len() / 2);
}

#[test]
fn fit_k_recovers_the_k_that_made_the_results() {
    // Results drawn as the expected score σ(K·label) rounded to win/draw/loss bands
    // would bias K; use the expected score itself as a fractional "result".
    let k_true = 0.006;
    let mut set = TuneSet {
        offsets: vec![0],
        ..TuneSet::default()
    };
    for i in 0..1000 {
        let label = f64::from(i - 500) * 2.0;
        set.offsets.push(0);
        set.phase.push(0);
        set.label.push(label);
        set.result.push(sigmoid(k_true * label));
        set.part.push(Part::Train);
    }
    let (k, n) = fit_k(&set);
    assert_eq!(n, 1000);
    assert!((k - k_true).abs() < 1e-6, "{k}");
    set.result.iter_mut().for_each(|r| *r = f64::NAN);
    assert_eq!(fit_k(&set), (DEFAULT_K, 0));
}

#[test]
fn today_is_a_date() {
    let t = today();
    assert_eq!(t.len(), 10, "{t}");
    assert!(t.starts_with("20"), "{t}");
}

#[test]
fn a_stored_position_that_no_longer_parses_is_an_error_not_skipped() {
    let conn = chessgraph_store::open_in_memory().unwrap();
    conn.execute_batch(
        "INSERT INTO sources (id, path, format, compression, pov, started_at) \
           VALUES (1, 't', 'csv', 'none', 'white', 'now'); \
         INSERT INTO positions (fen, fen_input, eval_cp, source_id, line) VALUES \
           ('4k3/8/8/8/8/8/8/4K3 w - -', 'x', 0, 1, 1); \
         INSERT INTO position_rows (board, key, eval_cp, source_id, line) VALUES (x'0000', 0, 10, 1, 2);",
    )
    .unwrap();
    let err = load(&conn, None, &LabelChoice::default()).unwrap_err();
    let chain: Vec<String> =
        std::iter::successors(Some(&err as &dyn std::error::Error), |e| e.source())
            .map(|e| e.to_string())
            .collect();
    assert!(
        chain
            .iter()
            .any(|m| m.contains("packed position of 2 bytes")),
        "{chain:?}"
    );
}
