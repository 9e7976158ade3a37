//! The command grammar: `train nnue|cnn|selfplay|moves`, `rate evaluator|policy`,
//! `export data|evaluator`, `eval FEN`; the former names still run, unlisted.

use crate::cgtest;
use crate::util::{Dir, fixture};

/// A knight up for White, nothing else unbalanced but the pawns' and kings' squares.
const KNIGHT_UP: &str = "4k3/pppp4/8/8/8/5N2/PPPP4/4K3 w - - 0 1";

fn run_ok(dir: &Dir, args: &[&str]) -> String {
    let out = dir.run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

cgtest!(the_top_level_help_lists_the_new_grammar_only, |dir| {
    let help = run_ok(&dir, &["--help"]);
    for listed in [
        "  train ",
        "  eval ",
        "  rate ",
        "  export ",
        "train nnue|cnn|selfplay|moves",
    ] {
        assert!(help.contains(listed), "{listed:?} missing:\n{help}");
    }
    for former in [
        "train-net",
        "selfplay-train",
        "eval-policy",
        "export-evaluator",
        "export-data",
        "fit moves",
    ] {
        assert!(!help.contains(former), "{former} listed:\n{help}");
    }
    let fit = run_ok(&dir, &["fit", "--help"]);
    assert!(!fit.contains("moves"), "{fit}");
    let mut expected = vec![
        ("train", "nnue"),
        ("train", "moves"),
        ("rate", "evaluator"),
        ("export", "evaluator"),
    ];
    if cfg!(feature = "cnn") {
        expected.extend([("train", "cnn"), ("train", "selfplay"), ("rate", "policy")]);
    }
    if cfg!(feature = "parquet") {
        expected.push(("export", "data"));
    }
    for (verb, noun) in expected {
        let help = run_ok(&dir, &[verb, "--help"]);
        assert!(
            help.contains(&format!("  {noun} ")),
            "{verb} {noun}:\n{help}"
        );
    }
});

cgtest!(the_former_names_still_run, |dir| {
    let mut former = vec![
        &["fit", "moves", "--help"][..],
        &["export-evaluator", "--help"],
    ];
    if cfg!(feature = "cnn") {
        former.extend([
            &["train-net", "--help"][..],
            &["selfplay-train", "--help"],
            &["eval-policy", "--help"],
        ]);
    }
    if cfg!(feature = "parquet") {
        former.push(&["export-data", "--help"]);
    }
    for args in former {
        let help = run_ok(&dir, args);
        assert!(help.contains("Former name of `"), "{args:?}: {help}");
    }
    // The same file from the former name and the new one.
    run_ok(
        &dir,
        &["export-evaluator", "simplified", "--out", "old.json"],
    );
    run_ok(
        &dir,
        &["export", "evaluator", "simplified", "--out", "new.json"],
    );
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    assert_eq!(read("old.json"), read("new.json"));
    // export-data writes the tables, as `export data` does.
    if !cfg!(feature = "parquet") {
        return;
    }
    run_ok(&dir, &["import", "-q", &fixture("positions-2000.csv")]);
    run_ok(&dir, &["export-data", "--out", "old", "--quiet"]);
    run_ok(&dir, &["export", "data", "--out", "new", "--quiet"]);
    assert!(dir.path().join("old").read_dir().unwrap().count() > 0);
    assert_eq!(
        dir.path().join("old").read_dir().unwrap().count(),
        dir.path().join("new").read_dir().unwrap().count()
    );
});

cgtest!(eval_fen_prints_each_term_and_a_network_its_total, |dir| {
    let out = run_ok(&dir, &["eval", KNIGHT_UP, "--evaluator", "material,nnue"]);
    assert!(out.starts_with(KNIGHT_UP), "{out}");
    let knight = out.lines().find(|l| l.contains("material.knight")).unwrap();
    let cells: Vec<&str> = knight.split_whitespace().collect();
    assert_eq!(
        cells,
        ["material.knight", "1", "300", "300", "+300.00"],
        "{out}"
    );
    assert!(
        out.contains("material: final evaluation +300 cp (White's side)"),
        "{out}"
    );
    assert!(
        out.contains("nnue: a network evaluator, which has no terms"),
        "{out}"
    );
    assert!(out.contains("nnue: final evaluation "), "{out}");
    // The FEN's fields as separate words read the same; `startpos` is balanced.
    let words: Vec<&str> = KNIGHT_UP.split(' ').collect();
    let args = [&["eval"][..], &words, &["--evaluator", "material,nnue"]].concat();
    assert_eq!(run_ok(&dir, &args), out);
    let start = run_ok(&dir, &["eval", "startpos", "--evaluator", "material"]);
    assert!(start.contains("final evaluation +0 cp"), "{start}");
    // JSON: the terms of a linear evaluator add up to its total; a network has none.
    let json = run_ok(
        &dir,
        &[
            "eval",
            KNIGHT_UP,
            "--evaluator",
            "simplified,nnue",
            "--json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let sum: f64 = v[0]["terms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["cp"].as_f64().unwrap())
        .sum();
    assert!(
        (sum - v[0]["total"].as_f64().unwrap()).abs() < 1.0,
        "{json}"
    );
    assert_eq!(v[1]["kind"], "network");
    assert!(v[1]["terms"].is_null());
    // A bad FEN says what is wrong; the rating's options are refused with a FEN.
    let bad = dir.run(&["eval", "4k3/8/8/8/8/8/8/8/4K3 w - - 0 1"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("FEN"));
    let mixed = dir.run(&["eval", "startpos", "--sample", "4"]);
    assert_eq!(mixed.status.code(), Some(2));
});

cgtest!(eval_without_a_fen_is_rate_evaluator, |dir| {
    // Without a database, `eval` alone points to both of its uses.
    let alone = dir.run(&["eval"]);
    assert_eq!(alone.status.code(), Some(1));
    let err = String::from_utf8_lossy(&alone.stderr);
    assert!(
        err.contains("no database") && err.contains("`chessgraph eval FEN`"),
        "{err}"
    );
    run_ok(&dir, &["import", "-q", &fixture("positions-2000.csv")]);
    let rating = [
        "--evaluator",
        "material,simplified",
        "--sample",
        "50",
        "--json",
        "--quiet",
    ];
    let new = run_ok(&dir, &[&["rate", "evaluator"][..], &rating].concat());
    let old = run_ok(&dir, &[&["eval"][..], &rating].concat());
    assert_eq!(old, new);
    let v: serde_json::Value = serde_json::from_str(&new).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 2, "{new}");
    // From a file too, and the hidden options stay out of `eval --help`.
    let file = dir.create("p.csv", format!("fen,eval\n{KNIGHT_UP},310\n"));
    let table = run_ok(
        &dir,
        &[
            "eval",
            "--evaluator",
            "material",
            "--input",
            file.to_str().unwrap(),
        ],
    );
    assert!(table.contains("1 positions from"), "{table}");
    let help = run_ok(&dir, &["eval", "--help"]);
    assert!(
        !help.contains("--input") && help.contains("rate evaluator"),
        "{help}"
    );
});

cgtest!(train_without_a_subcommand_is_train_nnue, |dir| {
    run_ok(&dir, &["import", "-q", &fixture("positions-2000.csv")]);
    let opts = ["--hidden", "4", "--epochs", "1", "--quiet", "--seed", "1"];
    let plain = run_ok(
        &dir,
        &[&["train", "--out", "plain.nnue"][..], &opts].concat(),
    );
    let nnue = run_ok(
        &dir,
        &[&["train", "nnue", "--out", "nnue.nnue"][..], &opts].concat(),
    );
    let settings = |out: &str| {
        out.lines()
            .find(|l| l.starts_with("training "))
            .map(str::to_owned)
    };
    assert!(settings(&plain).is_some(), "{plain}");
    assert_eq!(settings(&plain), settings(&nnue));
    // Both files are networks an evaluator flag takes.
    run_ok(
        &dir,
        &["eval", "startpos", "--evaluator", "plain.nnue,nnue.nnue"],
    );
    // Without a subcommand, --out is what is missing.
    let none = dir.run(&["train"]);
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("--out"));
});
