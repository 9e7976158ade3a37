//! The studies' networks from the command line: `train cnn` trains a tiny model on a
//! fixture in seconds, and the model file works wherever an evaluator is taken (`eval`,
//! the engine's `Evaluator` option, `minimax:evaluator=`); damaged and foreign model files
//! are clear errors.

use crate::cgtest;
use crate::engine::Uci;
use crate::util::{Dir, fixture};

/// Trains a tiny `arch` model on the database into `out`; returns the output.
fn train_tiny(dir: &Dir, arch: &str, out: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "train",
        "cnn",
        "--arch",
        arch,
        "--channels",
        "4",
        "--blocks",
        "2",
        "--epochs",
        "3",
        "--batch",
        "128",
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    dir.ok(&args)
}

cgtest!(cnn_trains_and_evaluates, |dir| {
    dir.ok(&["import", &fixture("positions-2000.csv")]);
    let out = train_tiny(&dir, "cnn-study", "tiny.safetensors", &[]);
    assert!(
        out.contains("training cnn-study (4 channels × 2 conv layers)"),
        "{out}"
    );
    assert!(out.contains("epoch   1: train loss"), "{out}");
    assert!(out.contains("wrote tiny.safetensors"), "{out}");
    assert!(out.contains("test part: loss"), "{out}");
    // The valid loss of the kept epoch falls from the first.
    let valid: Vec<f64> = out
        .lines()
        .filter_map(|l| l.split("valid loss ").nth(1))
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert!(valid.len() >= 2, "{out}");
    assert!(valid.iter().skip(1).any(|&v| v < valid[0]), "{valid:?}");

    // `eval` measures it beside a built-in.
    let table = dir.ok(&[
        "rate",
        "evaluator",
        "--evaluator",
        "material,tiny.safetensors",
        "--quiet",
    ]);
    let row = table
        .lines()
        .find(|l| l.starts_with("tiny.safetensors"))
        .unwrap();
    let tau: f64 = row.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(tau.is_finite() && tau > -1.0 && tau <= 1.0, "{row}");

    // The engine searches with it and reports nodes per second.
    let uci = dir.run_stdin(
        &["engine"],
        b"uci\nsetoption name Evaluator value tiny.safetensors\nposition startpos\ngo depth 2\nquit\n",
    );
    let text = String::from_utf8_lossy(&uci.stdout);
    assert!(text.contains("info string evaluator tiny"), "{text}");
    assert!(text.contains(" nps "), "{text}");
    assert!(text.contains("bestmove "), "{text}");

    // The players study's Minimax+CNN.
    let uci = dir.run_stdin(
        &[
            "engine",
            "--player",
            "minimax:depth=2,evaluator=tiny.safetensors",
        ],
        b"uci\nposition startpos moves e2e4\ngo\nquit\n",
    );
    let text = String::from_utf8_lossy(&uci.stdout);
    assert!(text.contains("bestmove "), "{text}");

    // The players study's "CNN": one ply on the network's value.
    let uci = dir.run_stdin(
        &["engine", "--player", "cnn:model=tiny.safetensors"],
        b"uci\nposition startpos\ngo\nquit\n",
    );
    let text = String::from_utf8_lossy(&uci.stdout);
    assert!(
        text.contains("info depth 1") && text.contains("bestmove "),
        "{text}"
    );
    // It takes a mate in one whatever the network thinks.
    let uci = dir.run_stdin(
        &["engine", "--player", "cnn:model=tiny.safetensors"],
        b"uci\nposition fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1\ngo\nquit\n",
    );
    let text = String::from_utf8_lossy(&uci.stdout);
    assert!(text.contains("bestmove a1a8"), "{text}");
    // A value net has no policy to play.
    let out = dir.run(&["engine", "--player", "policy:model=tiny.safetensors"]);
    assert!(!out.status.success());
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(
        msg.contains("a cnn-study network has no policy head"),
        "{msg}"
    );

    // Resuming from the model: same architecture and size only.
    let out = train_tiny(
        &dir,
        "cnn-study",
        "again.safetensors",
        &[
            "--init",
            "tiny.safetensors",
            "--train-positions",
            "300",
            "--valid-positions",
            "40",
        ],
    );
    assert!(out.contains("wrote again.safetensors"), "{out}");
    // Fewer positions, spread over the parts; the test part stays whole.
    assert!(out.contains("(300 train, 40 valid,"), "{out}");
    assert!(out.contains("trained on 300 positions"), "{out}");
    let err = dir.run(&[
        "train",
        "cnn",
        "--arch",
        "cnn-eval",
        "--out",
        "x.safetensors",
        "--init",
        "tiny.safetensors",
    ]);
    assert!(!err.status.success());
    let msg = String::from_utf8_lossy(&err.stderr);
    assert!(msg.contains("the starting network is cnn-study"), "{msg}");
});

cgtest!(bad_model_files_are_clear_errors, |dir| {
    dir.ok(&["import", &fixture("positions-2000.csv")]);
    train_tiny(&dir, "cnn-eval", "good.safetensors", &[]);
    let good = std::fs::read(dir.path().join("good.safetensors")).unwrap();
    dir.create("cut.safetensors", &good[..good.len() / 2]);
    dir.create(
        "nnue.safetensors",
        b"CGNNUE\x01 not a safetensors file at all",
    );
    for (file, expect) in [
        ("cut.safetensors", "truncated"),
        ("nnue.safetensors", "not a safetensors file"),
    ] {
        let out = dir.run(&["rate", "evaluator", "--evaluator", file, "--quiet"]);
        assert_eq!(out.status.code(), Some(1), "{file}");
        let msg = String::from_utf8_lossy(&out.stderr);
        assert!(msg.contains(file) && msg.contains(expect), "{file}: {msg}");
        assert!(!msg.contains("panicked"), "{msg}");
    }
});

cgtest!(policy_nets_learn_best_moves_and_play, |dir| {
    let out = dir.ok(&["import", &fixture("bestmoves-1500.epd")]);
    assert!(out.contains("0 rejected"), "{out}");
    // Every row's `bm` is stored in UCI.
    assert_eq!(
        dir.int("SELECT count(*) FROM positions WHERE best_move IS NULL"),
        0
    );
    assert_eq!(
        dir.int("SELECT count(*) FROM positions WHERE length(best_move) NOT IN (4, 5)"),
        0
    );
    let out = train_tiny(&dir, "resnet-policy", "policy.safetensors", &[]);
    assert!(out.contains("top-1"), "{out}");
    assert!(out.contains("wrote policy.safetensors"), "{out}");
    let out = train_tiny(&dir, "policy-value", "pv.safetensors", &[]);
    assert!(out.contains("τ ") && out.contains("top-3"), "{out}");

    // The ResNet player plays a legal move; a policy-only net is no evaluator.
    let uci = dir.run_stdin(
        &["engine", "--player", "policy:model=policy.safetensors"],
        b"uci\nposition startpos moves e2e4\ngo\nquit\n",
    );
    let text = String::from_utf8_lossy(&uci.stdout);
    assert!(text.contains("bestmove "), "{text}");
    let out = dir.run(&[
        "rate",
        "evaluator",
        "--evaluator",
        "policy.safetensors",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(
        msg.contains("no value head") && msg.contains("policy:model=FILE"),
        "{msg}"
    );
    // PUCT on the two-headed net, the study's 10 simulations and more; nodes are
    // simulations.
    for (spec, go, nodes) in [
        ("mcts:net=pv.safetensors", "go", 10),
        ("mcts:net=pv.safetensors,simulations=50", "go", 50),
        ("mcts:net=pv.safetensors,simulations=500", "go nodes 7", 7),
    ] {
        let mut u = Uci::start(&dir, &["--player", spec]);
        u.send("position startpos");
        u.send(go);
        let line = u.expect("info depth 1");
        assert!(line.contains(&format!(" nodes {nodes} ")), "{spec}: {line}");
        u.expect("bestmove ");
    }
    let out = dir.run(&["engine", "--player", "mcts:net=policy.safetensors"]);
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && msg.contains("needs a policy and a value head"),
        "{msg}"
    );
    let out = dir.run(&["engine", "--player", "mcts:net=pv.safetensors,rollout=3"]);
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && msg.contains("rollout"), "{msg}");
    // The policies measured: agreement with the stored best move, and the study's τ
    // with a fake engine that scores a position by the length of its FEN.
    let table = dir.ok(&[
        "rate",
        "policy",
        "--model",
        "policy.safetensors,pv.safetensors",
        "--sample",
        "100",
        "--quiet",
    ]);
    let row = table
        .lines()
        .find(|l| l.starts_with("policy.safetensors"))
        .unwrap();
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert!(cols[1].parse::<u32>().unwrap() > 0, "{table}");
    assert!(
        cols[2].trim_end_matches('%').parse::<f64>().is_ok(),
        "{table}"
    );
    let engine = dir.create(
        "fake.sh",
        "#!/bin/sh\nwhile read -r line; do\n  case \"$line\" in\n    uci) echo 'id name fake'; echo uciok ;;\n    isready) echo readyok ;;\n    'position fen '*) fen=\"${line#position fen }\" ;;\n    go*) echo \"info depth 1 score cp ${#fen} nodes 1\"; echo 'bestmove 0000' ;;\n    quit) exit 0 ;;\n  esac\ndone\n",
    );
    std::fs::set_permissions(&engine, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let table = dir.ok(&[
        "rate",
        "policy",
        "--model",
        "pv.safetensors",
        "--sample",
        "50",
        "--engine",
        engine.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(table.contains("τ after bm"), "{table}");
    let row = table
        .lines()
        .find(|l| l.starts_with("pv.safetensors"))
        .unwrap();
    let tau: f64 = row.split_whitespace().nth(4).unwrap().parse().unwrap();
    assert!((-1.0..=1.0).contains(&tau), "{row}");
    let out = dir.run(&["rate", "policy", "--model", "cnn.safetensors"]);
    assert!(!out.status.success());

    // Self-play from the two-headed net: two generations, then the same command resumes
    // and a third is added.
    let run = |generations: &str| {
        dir.ok(&[
            "train",
            "selfplay",
            "--init",
            "pv.safetensors",
            "--out-dir",
            "sp",
            "--generations",
            generations,
            "--games",
            "4",
            "--simulations",
            "6",
            "--max-plies",
            "30",
            "--epochs",
            "1",
            "--batch",
            "32",
            "--quiet",
        ])
    };
    let out = run("2");
    assert!(out.contains("generation 1: 4 games"), "{out}");
    assert!(out.contains("generation 2: trained on"), "{out}");
    for f in [
        "gen-0.safetensors",
        "gen-1.pgn",
        "gen-1.jsonl",
        "gen-2.safetensors",
    ] {
        assert!(dir.path().join("sp").join(f).exists(), "{f}");
    }
    let pgn = std::fs::read_to_string(dir.path().join("sp/gen-1.pgn")).unwrap();
    assert_eq!(
        pgn.matches("[Event \"chessgraph self-play, generation 1\"]")
            .count(),
        4
    );
    let out = run("3");
    assert!(out.contains("generation 2: done before, resumed"), "{out}");
    assert!(out.contains("generation 3: trained on"), "{out}");
    let mut u = Uci::start(&dir, &["--player", "mcts:net=sp/gen-3.safetensors"]);
    u.send("position startpos");
    u.send("go");
    u.expect("bestmove ");
    let out = dir.run(&[
        "train",
        "selfplay",
        "--init",
        "policy.safetensors",
        "--out-dir",
        "x",
    ]);
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && msg.contains("needs a policy-value network"),
        "{msg}"
    );

    // The two-headed net evaluates too.
    let table = dir.ok(&[
        "rate",
        "evaluator",
        "--evaluator",
        "pv.safetensors",
        "--quiet",
    ]);
    assert!(
        table.lines().any(|l| l.starts_with("pv.safetensors")),
        "{table}"
    );
});
