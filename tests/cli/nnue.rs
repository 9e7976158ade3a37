//! The neural evaluator's loop end to end on tiny inputs: `datagen` plays a few games,
//! `label` labels them with a fake UCI engine (a shell script, so CI needs no Stockfish),
//! `train` overfits a tiny net, and `eval`/`engine` use the network file — plus the errors
//! a user meets: a missing, crashing or babbling engine, no labels, a damaged net.

use std::os::unix::fs::PermissionsExt;

use crate::cgtest;
use crate::util::{Dir, fixture};

/// A fake labeller: answers every `go` with `on_go` (shell), after remembering the last
/// `position fen` in `$fen`.
pub(crate) fn labeller(dir: &Dir, name: &str, on_go: &str) -> String {
    let script = format!(
        "#!/bin/sh\nwhile read -r line; do\n  case \"$line\" in\n    uci) echo 'id name {name}'; echo uciok ;;\n    isready) echo readyok ;;\n    'position fen '*) fen=\"${{line#position fen }}\" ;;\n    go*) {on_go} ;;\n    quit) exit 0 ;;\n  esac\ndone\n"
    );
    let path = dir.create(name, script);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

/// Scores a position by the length of its FEN (so labels differ between positions), with
/// a bound line first that must not be taken.
pub(crate) const SCORE_BY_LENGTH: &str = "echo \"info depth 1 score cp 999 lowerbound nodes 5\"; echo \"info depth 2 score cp ${#fen} nodes 10 pv e2e4\"; echo 'bestmove e2e4'";

cgtest!(datagen_label_train_eval_end_to_end, |dir| {
    let out = dir.ok(&[
        "datagen",
        "--games",
        "4",
        "--nodes",
        "300",
        "--threads",
        "2",
        "--evaluator",
        "material",
        "--max-plies",
        "60",
    ]);
    assert!(out.contains("new source"), "{out}");
    assert!(out.contains("4 games in"), "{out}");
    let games = dir.int("SELECT count(*) FROM games");
    assert_eq!(games, 4);
    let positions = dir.int("SELECT count(*) FROM positions WHERE eval_cp IS NOT NULL");
    assert!(positions > 20, "{positions}");
    // Every kept position has its game's result, and none is in check (filtered).
    assert_eq!(
        dir.int("SELECT count(*) FROM positions WHERE result IS NULL"),
        0
    );

    // The same command again resumes: nothing left to play.
    let again = dir.ok(&[
        "datagen",
        "--games",
        "4",
        "--nodes",
        "300",
        "--threads",
        "2",
        "--evaluator",
        "material",
        "--max-plies",
        "60",
    ]);
    assert!(
        again.contains("resuming") && again.contains("0 to play"),
        "{again}"
    );
    assert_eq!(dir.int("SELECT count(*) FROM games"), 4);

    let engine = labeller(&dir, "fake.sh", SCORE_BY_LENGTH);
    let out = dir.ok(&[
        "label", "--engine", &engine, "--name", "fake", "--jobs", "2",
    ]);
    assert!(
        out.contains(&format!("labelled {positions} positions as fake")),
        "{out}"
    );
    // Centipawns from White's view: Black to move flips the engine's side-to-move score
    // (the fake scores the length of the six-field FEN it was sent, datagen's fen_input).
    let wrong = dir.int(
        "SELECT count(*) FROM labels l JOIN positions p ON p.id = l.position_id \
         WHERE l.eval_cp != (CASE WHEN p.fen LIKE '% w %' THEN 1 ELSE -1 END) * length(p.fen_input)",
    );
    assert_eq!(wrong, 0);
    // The engine's best move is stored with its label.
    assert_eq!(
        dir.int("SELECT count(*) FROM labels WHERE best_move = 'e2e4'"),
        positions
    );
    let bounds = dir.int("SELECT count(*) FROM labels WHERE abs(eval_cp) = 999");
    assert_eq!(bounds, 0, "a bound was taken as the score");
    // Nothing pending: a second run labels nothing.
    let out = dir.ok(&["label", "--engine", &engine, "--name", "fake"]);
    assert!(out.contains("labelling 0 of 0"), "{out}");

    // A tiny net on the fake labels; the network file works wherever an evaluator does.
    let out = dir.ok(&[
        "train",
        "--labels",
        "fake",
        "--hidden",
        "8",
        "--epochs",
        "3",
        "--batch",
        "64",
        "--out",
        "tiny.nnue",
        "--threads",
        "1",
    ]);
    assert!(out.contains("wrote tiny.nnue"), "{out}");
    assert!(out.contains("epoch   3"), "{out}");
    assert!(
        out.contains("2304 → 8 → 1"),
        "threat inputs by default: {out}"
    );

    // Fine-tuning: start from the net, on one source's positions only.
    let tune = |extra: &[&str]| {
        let mut args = vec![
            "train",
            "--labels",
            "fake",
            "--hidden",
            "8",
            "--epochs",
            "1",
            "--batch",
            "64",
            "--threads",
            "1",
            "--out",
            "tuned.nnue",
        ];
        args.extend_from_slice(extra);
        dir.run(&args)
    };
    let out = tune(&["--init", "tiny.nnue", "--source", "datagen"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let labelled = dir.int("SELECT count(*) FROM labels WHERE labeller = 'fake'");
    assert!(
        text.contains(&format!("{labelled} labelled positions")),
        "{text}"
    );
    let out = tune(&["--init", "tiny.nnue", "--source", "no-such-source"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no-such-source"), "{err}");
    let out = tune(&["--init", "tiny.nnue", "--features", "pieces"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2304 inputs") && err.contains("768"), "{err}");
    let out = tune(&["--init", "tiny.nnue", "--buckets", "4"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("1 output bucket,") && err.contains("and 4"),
        "{err}"
    );
    let net = dir.path().join("tiny.nnue");
    let out = dir.ok(&[
        "rate",
        "evaluator",
        "--input",
        &fixture("positions-2000.csv"),
        "--evaluator",
        net.to_str().unwrap(),
    ]);
    assert!(out.contains("tiny"), "{out}");
});

/// Runs a `label` that gives up on every position: it exits 1 with one error saying so;
/// returns its standard output (the counts).
fn labelled_none(dir: &Dir, args: &[&str]) -> String {
    let out = dir.run(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(
        err.contains("chessgraph: error:") && err.contains("labelled none of the"),
        "{err}"
    );
    String::from_utf8(out.stdout).unwrap()
}

cgtest!(label_errors_are_clear, |dir| {
    dir.ok(&["import", &fixture("three-games.pgn")]);
    // A program that does not exist: one error naming it, nothing recorded as failed.
    let out = dir.run(&["label", "--engine", "/nonexistent/engine", "--name", "x"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/engine"), "{err}");
    assert_eq!(dir.int("SELECT count(*) FROM label_failures"), 0);

    // An engine that dies on `go`: every position is tried twice and given up, counted,
    // and a run that labelled nothing fails.
    let crash = labeller(&dir, "crash.sh", "echo 'dying' >&2; exit 3");
    let out = labelled_none(
        &dir,
        &[
            "label", "--engine", &crash, "--name", "crash", "--jobs", "1",
        ],
    );
    let n = dir.int("SELECT count(*) FROM positions");
    assert!(
        out.contains(&format!("gave up on {n} ({n} crashes")),
        "{out}"
    );
    let reason: String = dir
        .sql()
        .query_row("SELECT reason FROM label_failures LIMIT 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert!(
        reason.contains("dying"),
        "the engine's stderr is kept: {reason}"
    );

    // Garbage: a bestmove without any score.
    let babble = labeller(&dir, "babble.sh", "echo 'bestmove e2e4'");
    let out = labelled_none(
        &dir,
        &[
            "label", "--engine", &babble, "--name", "babble", "--limit", "2",
        ],
    );
    assert!(
        out.contains("gave up on 2 (0 crashes, 0 timeouts, 2 garbage"),
        "{out}"
    );

    // A labeller that hangs: the timeout restarts it.
    let sleepy = labeller(&dir, "sleepy.sh", "sleep 5");
    let out = labelled_none(
        &dir,
        &[
            "label",
            "--engine",
            &sleepy,
            "--name",
            "sleepy",
            "--limit",
            "1",
            "--timeout",
            "0.3",
        ],
    );
    assert!(out.contains("1 timeouts"), "{out}");
});

cgtest!(train_and_network_errors, |dir| {
    dir.ok(&["import", &fixture("three-games.pgn")]);
    let out = dir.run(&["train", "--labels", "stockfish", "--out", "x.nnue"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no labels by \"stockfish\"") && err.contains("imported"),
        "{err}"
    );
    assert!(!dir.path().join("x.nnue").exists());
    let out = dir.run(&["train", "--qb", "100", "--out", "x.nnue"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid value '100' for '--qb <QB>': must be one of [64, 128, 256]"),
        "{err}"
    );

    // One labelled position, in the train part: no valid part to choose an epoch on, said
    // once as a warning, and no NaN.
    let one = crate::util::Dir::new();
    one.create(
        "one.csv",
        "FEN,Evaluation\n4k3/8/8/8/8/8/8/3QK3 w - - 0 1,+900\n",
    );
    one.ok(&["import", "one.csv"]);
    assert_eq!(
        one.int("SELECT count(*) FROM splits WHERE part = 'train'"),
        1
    );
    let out = one.run(&["train", "--hidden", "8", "--epochs", "2", "--out", "x.nnue"]);
    assert!(out.status.success());
    let (stdout, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        err.contains("no labelled positions in the valid part"),
        "{err}"
    );
    assert!(
        stdout.contains("valid loss -")
            && stdout.contains("kept epoch 2 (the last: no valid part)"),
        "{stdout}"
    );
    assert!(!stdout.contains("NaN"), "{stdout}");

    // Damaged network files are refused with the file's name and what is wrong.
    dir.ok(&["export", "evaluator", "nnue", "--out", "good.nnue"]);
    let good = std::fs::read(dir.path().join("good.nnue")).unwrap();
    dir.create("cut.nnue", &good[..good.len() / 2]);
    let mut other = good.clone();
    other[8] = 9; // format version 9
    dir.create("v9.nnue", &other);
    for (file, what) in [("cut.nnue", "incomplete"), ("v9.nnue", "version 9")] {
        let out = dir.run(&[
            "rate",
            "evaluator",
            "--input",
            &fixture("positions-2000.csv"),
            "--evaluator",
            file,
        ]);
        assert!(!out.status.success(), "{file}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(file) && err.contains(what), "{file}: {err}");
    }
});

cgtest!(linear_only_commands_refuse_a_network, |dir| {
    dir.ok(&["import", &fixture("three-games.pgn")]);
    let out = dir.run(&["tune", "--start", "nnue", "--max-steps", "1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("network evaluator has no terms"), "{err}");
    // Everything that only evaluates takes it like any evaluator.
    let out = dir.ok(&[
        "rate",
        "evaluator",
        "--evaluator",
        "nnue,material",
        "--part",
        "all",
    ]);
    assert!(out.contains("nnue") && out.contains("material"), "{out}");
});

cgtest!(eval_names_rows_as_typed_and_uses_one_k, |dir| {
    dir.ok(&["import", &fixture("three-games.pgn")]);
    // Two copies of one evaluator under different file names: told apart, and the loss of
    // each does not depend on which other evaluators are listed.
    dir.ok(&["export", "evaluator", "seed003", "--out", "a.json"]);
    dir.ok(&["export", "evaluator", "seed003", "--out", "b.json"]);
    let json = |evals: &str| -> serde_json::Value {
        serde_json::from_str(&dir.ok(&[
            "rate",
            "evaluator",
            "--evaluator",
            evals,
            "--part",
            "all",
            "--json",
        ]))
        .unwrap()
    };
    let both = json("a.json,b.json");
    assert_eq!(both[0]["evaluator"], "a.json");
    assert_eq!(both[1]["evaluator"], "b.json");
    let alone = json("b.json");
    let with_material = json("material,b.json");
    assert_eq!(alone[0]["k"], with_material[1]["k"]);
    assert_eq!(
        alone[0]["static_eval"]["texel_loss"],
        with_material[1]["static_eval"]["texel_loss"]
    );
});

cgtest!(stats_lists_what_is_stored, |dir| {
    dir.ok(&["import", &fixture("three-games.pgn")]);
    let engine = labeller(&dir, "fake.sh", SCORE_BY_LENGTH);
    dir.ok(&[
        "label", "--engine", &engine, "--name", "fakefish", "--limit", "5",
    ]);
    dir.ok(&[
        "rate",
        "evaluator",
        "--evaluator",
        "material",
        "--part",
        "all",
    ]);
    let out = dir.ok(&["stats"]);
    assert!(out.contains("labels (for --labels"), "{out}");
    assert!(out.contains("        5  fakefish"), "{out}");
    assert!(
        out.contains("runs (for the report)") && out.contains("eval (newest"),
        "{out}"
    );
});

cgtest!(every_learning_tool_reads_engine_labels, |dir| {
    dir.ok(&["import", &fixture("positions-2000.csv")]);
    dir.ok(&["analyze"]);
    let engine = labeller(&dir, "fake.sh", SCORE_BY_LENGTH);
    dir.ok(&[
        "label", "--engine", &engine, "--name", "fake", "--jobs", "2",
    ]);
    let tau = |labels: &str| -> f64 {
        let out = dir.ok(&[
            "rate",
            "evaluator",
            "--evaluator",
            "material",
            "--labels",
            labels,
            "--json",
        ]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v[0]["static_eval"]["tau"].as_f64().unwrap()
    };
    // Material tracks Stockfish's labels, not a FEN's length.
    assert!(tau("imported") > tau("fake") + 0.2);
    let out = dir.ok(&["fit", "linear", "--labels", "fake", "--where", "1"]);
    assert!(out.contains("R²"), "{out}");
    let out = dir.ok(&[
        "fit", "linear", "--labels", "fake", "--where", "1", "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("fit --json is JSON");
    assert_eq!(v["kind"], "linear", "{v}");
    let out = dir.ok(&[
        "tune",
        "--labels",
        "fake",
        "--max-steps",
        "1",
        "--no-leaves",
        "--json",
        "--name",
        "t",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("tune --json is JSON");
    assert_eq!(v["name"], "t", "{v}");
    assert!(v["test"]["n"].as_u64().unwrap() > 0, "{v}");
    let out = dir.run(&["fit", "linear", "--labels", "nope"]);
    assert!(!out.status.success());
});

cgtest!(datagen_positions_export_as_bullet_records, |dir| {
    dir.ok(&[
        "datagen",
        "--games",
        "3",
        "--nodes",
        "200",
        "--threads",
        "2",
        "--evaluator",
        "material",
        "--max-plies",
        "50",
        "--quiet",
    ]);
    // A position kept in two games is one row: the count is of rows.
    let positions = dir.int("SELECT count(*) FROM positions WHERE result IS NOT NULL") as usize;
    assert!(positions > 20, "{positions}");
    let read = |name: &str| -> Vec<[u8; 32]> {
        let bytes = std::fs::read(dir.path().join(name)).unwrap();
        assert_eq!(bytes.len() % 32, 0);
        bytes.chunks(32).map(|c| c.try_into().unwrap()).collect()
    };
    let run = dir.run(&["export", "bullet", "--out", "all.bin", "--seed", "1"]);
    assert!(run.status.success());
    let summary = String::from_utf8_lossy(&run.stderr);
    assert!(
        summary.contains(&format!("{positions} records")) && summary.contains("positions/s"),
        "{summary}"
    );
    let all = read("all.bin");
    assert_eq!(all.len(), positions);
    for r in &all {
        // A king each, a result of 0, 1 or 2, the padding zero.
        let occupied = u64::from_le_bytes(r[..8].try_into().unwrap());
        assert!(occupied.count_ones() >= 2 && r[26] <= 2 && r[29..] == [0, 0, 0]);
    }
    // Another seed: the same records in another order.
    dir.ok(&["export", "bullet", "--out", "other.bin", "--seed", "2"]);
    let other = read("other.bin");
    assert_ne!(all, other);
    let (mut a, mut b) = (all.clone(), other);
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b);
    // The parts of the split add up to the whole.
    let mut parts = 0;
    for part in ["train", "valid", "test"] {
        let file = format!("{part}.bin");
        dir.ok(&["export", "bullet", "--out", &file, "--part", part]);
        parts += read(&file).len();
    }
    assert_eq!(parts, positions);
});

cgtest!(datagen_processes_share_one_new_database, |dir| {
    // Two processes start on the same new file at once, each its own seed: neither sees a
    // half-made schema, and every game of both is stored.
    let args = |seed: &'static str| {
        [
            "datagen",
            "--games",
            "5",
            "--nodes",
            "200",
            "--threads",
            "1",
            "--seed",
            seed,
            "--evaluator",
            "material",
            "--max-plies",
            "40",
            "--quiet",
        ]
    };
    let other = dir
        .command(&args("2"))
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    dir.ok(&args("1"));
    let status = other.wait_with_output().unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    assert_eq!(dir.int("SELECT count(*) FROM games"), 10);
    assert_eq!(dir.int("SELECT count(*) FROM sources"), 2);
});
