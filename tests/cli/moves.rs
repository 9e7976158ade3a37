//! `chessgraph train moves` (the PUC-Rio move classifier) against scikit-learn's fit of the
//! same examples, and the `logistic:model=FILE` player over UCI.

use chessgraph_core::chess::moves;
use serde_json::Value;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Move, Position, Square};

use crate::cgtest;
use crate::util::{Dir, fixture};

fn golden() -> Value {
    let path = chessgraph_testkit::repo_root().join("tests/golden/fit_moves.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn close(what: &str, got: &Value, want: &Value, tol: f64) {
    let (g, w) = (got.as_f64().unwrap(), want.as_f64().unwrap());
    assert!((g - w).abs() <= tol, "{what}: {g} vs scikit-learn {w}");
}

fn fitted(dir: &Dir) -> Value {
    dir.ok(&["import", "-q", &fixture("moves-games.pgn")]);
    let out = dir.ok(&["train", "moves", "-q", "--json", "--out", "m.json"]);
    serde_json::from_str(&out).unwrap()
}

cgtest!(fit_moves_matches_scikit_learn, |dir| {
    let fit = fitted(&dir);
    let want = golden();
    // The same examples: every winner's move of the fixture recovered, split by game.
    assert_eq!(fit["n_train"], want["n_train"]);
    assert_eq!(fit["n_test"], want["n_test"]);
    assert_eq!(fit["metrics"]["games"], want["games"]["decisive"]);
    assert_eq!(fit["without_target"], 0, "every winner's move recovered");
    assert_eq!(fit["target"], "winner_move");
    // The same optimum of the same objective (both solvers converge to rounding).
    let coefs = fit["coefficients"].as_array().unwrap();
    assert_eq!(coefs.len(), 193);
    close("intercept", &coefs[0]["estimate"], &want["intercept"], 1e-6);
    for (c, w) in coefs[1..].iter().zip(want["weights"].as_array().unwrap()) {
        close(c["name"].as_str().unwrap(), &c["estimate"], w, 1e-6);
    }
    for (part, golden_part) in [("train", "train"), ("test", "held_out")] {
        let (m, w) = (&fit["metrics"][part], &want[golden_part]);
        for key in ["positions", "examples"] {
            assert_eq!(m[key], w[key], "{part} {key}");
        }
        for key in [
            "positive_rate",
            "log_loss",
            "accuracy",
            "auc",
            "top1",
            "top1_random",
        ] {
            close(&format!("{part} {key}"), &m[key], &w[key], 1e-6);
        }
    }
    assert_eq!(
        dir.int("SELECT count(*) FROM fits WHERE target = 'winner_move'"),
        1
    );
});

/// The model file's from- and to-square weights, by the side to move's square index.
fn from_to(model: &Value) -> (Vec<f64>, Vec<f64>) {
    let group = |name: &str| {
        let rows = model["weights"][name].as_array().unwrap();
        let mut w = vec![0.0; 64];
        for (r, row) in rows.iter().enumerate() {
            for (f, v) in row.as_array().unwrap().iter().enumerate() {
                w[8 * (7 - r) + f] = v.as_f64().unwrap();
            }
        }
        w
    };
    (group("from"), group("to"))
}

cgtest!(engine_plays_the_models_best_move, |dir| {
    fitted(&dir);
    let table = dir.ok(&["train", "moves", "-q"]);
    for word in [
        "held-out",
        "top-1",
        "random",
        "AUC",
        "examples/s",
        "9 decisive",
    ] {
        assert!(table.contains(word), "{word}:\n{table}");
    }
    let model: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("m.json")).unwrap()).unwrap();
    assert_eq!(model["format"], "chessgraph-move-model");
    assert_eq!(model["version"], 1);
    let (from, to) = from_to(&model);
    // After 1. e4, Black to move: squares are mirrored for Black.
    let mut pos = Chess::default();
    let e4 = "e2e4".parse::<UciMove>().unwrap().to_move(&pos).unwrap();
    pos.play_unchecked(e4);
    let side = |sq: Square| match pos.turn() {
        Color::White => usize::from(sq),
        Color::Black => usize::from(sq.flip_vertical()),
    };
    let score = |m: &Move| {
        let UciMove::Normal { from: f, to: t, .. } = m.to_uci(CastlingMode::Standard) else {
            unreachable!()
        };
        from[side(f)] + to[side(t)]
    };
    let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
    let best = legal
        .iter()
        .max_by(|a, b| score(a).total_cmp(&score(b)))
        .unwrap();
    let out = dir.run_stdin(
        &["engine", "--player", "logistic:model=m.json"],
        b"uci\nisready\nposition startpos moves e2e4\ngo movetime 100\nquit\n",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("bestmove "))
        .unwrap_or_else(|| panic!("no bestmove:\n{stdout}"));
    let played = line.split_whitespace().nth(1).unwrap();
    let played = moves::parse_uci(&pos, played).expect("a legal move");
    assert_eq!(
        moves::uci(&played),
        moves::uci(best),
        "the engine plays the move with the highest from + to weight"
    );
});

cgtest!(
    bad_model_files_and_databases_without_games_are_refused,
    |dir| {
        for (spec, name) in [
            ("logistic:model=missing.json", "missing.json"),
            ("logistic:model=bad.json", "bad.json"),
        ] {
            dir.create(
                "bad.json",
                "{\"format\": \"chessgraph-move-model\", \"version\": 1,",
            );
            let out = dir.run_stdin(&["engine", "--player", spec], b"quit\n");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{spec}: {err}");
            assert!(err.contains(name), "{spec}: {err}");
        }
        let out = dir.run(&["train", "moves"]);
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("no database"));
        dir.ok(&["import", "-q", &fixture("positions-2000.csv")]);
        let out = dir.run(&["train", "moves"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("no games"), "{err}");
    }
);
