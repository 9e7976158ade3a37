//! Exit codes when the reader goes away: every subcommand that writes to standard output,
//! with that output a pipe closed before it writes (`chessgraph stats --json | head -0`),
//! ends quietly with status 0 — a closed pipe is not a failure.

use std::io::Read;
use std::process::Stdio;

use crate::cgtest;
use crate::util::{Dir, fixture};

/// Runs `args` with standard output a pipe whose reading end is already closed; asserts
/// status 0 and nothing on standard error.
fn closed_pipe(dir: &Dir, args: &[&str]) {
    let mut child = dir
        .command(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn chessgraph");
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(
        status.success() && stderr.is_empty(),
        "{args:?} into a closed pipe: {status}\n{stderr}"
    );
}

cgtest!(a_closed_pipe_ends_every_command_quietly, |dir| {
    let positions = fixture("positions-2000.csv");
    let puzzles = fixture("puzzles-composed.epd");
    dir.ok(&["import", "-q", &positions]);
    dir.ok(&["analyze", "-q"]);
    dir.ok(&["tune", "-q", "--name", "mine", "--max-steps", "1"]);
    let table: &[&[&str]] = &[
        &["--help"],
        &["--version"],
        &["help", "import"],
        &["import", "-q", &positions],
        &["analyze", "-q"],
        &["stats"],
        &["stats", "--json"],
        &["fit", "linear"],
        &["fit", "linear", "--json"],
        &["fit", "logistic", "--target", "sign", "--where", "1"],
        &["tune", "-q", "--name", "t1", "--max-steps", "1"],
        &["tune", "-q", "--name", "t2", "--max-steps", "1", "--json"],
        &[
            "rate",
            "evaluator",
            "-q",
            "--evaluator",
            "material,mine",
            "--sample",
            "200",
        ],
        &[
            "rate",
            "evaluator",
            "-q",
            "--evaluator",
            "mine",
            "--sample",
            "200",
            "--json",
        ],
        &[
            "rate",
            "evaluator",
            "-q",
            "--evaluator",
            "mine",
            "--input",
            &positions,
            "--output",
            "-",
        ],
        &["export", "evaluator", "seed003", "--out", "-"],
        &["heatmap", "--out-dir", "maps"],
        &["report"],
        &["report", "--out", "-"],
        &["bench", "--depth", "2"],
        &["solve", "-q", "--input", &puzzles, "--depth", "3"],
        &["solve", "-q", "--input", &puzzles, "--depth", "3", "--json"],
        &[
            "tournament",
            "-q",
            "--player",
            "random:seed=1",
            "--player",
            "greedy",
            "--games",
            "2",
            "--movetime",
            "5",
        ],
        &["datagen", "-q", "--games", "1", "--nodes", "200"],
    ];
    for args in table {
        closed_pipe(&dir, args);
    }
});

cgtest!(dash_is_standard_output_or_refused, |dir| {
    dir.ok(&["import", "-q", &fixture("positions-2000.csv")]);
    dir.ok(&["analyze", "-q"]);
    let report = dir.ok(&["report"]);
    let dashed = dir.ok(&["report", "--out", "-"]);
    let strip = |s: &str| {
        s.lines()
            .filter(|l| !l.starts_with("Generated "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&report), strip(&dashed));
    let json = dir.ok(&["export", "evaluator", "seed003", "--out", "-"]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("an evaluator file");
    assert_eq!(v["format"], "chessgraph-evaluator", "{json}");
    let csv = dir.ok(&[
        "rate",
        "evaluator",
        "-q",
        "--evaluator",
        "material",
        "--input",
        &fixture("positions-2000.csv"),
        "--output",
        "-",
    ]);
    assert!(csv.starts_with("fen,static,qsearch,label\n"), "{csv}");
    assert_eq!(csv.lines().count(), 2001, "one row per position, no table");
    // Where standard output carries the command's own results, `-` is refused.
    for args in [
        &["tune", "--out", "-"][..],
        &["train", "moves", "--out", "-"],
        &[
            "tournament",
            "--player",
            "random",
            "--player",
            "greedy",
            "--pgn",
            "-",
        ],
    ] {
        let out = dir.run(args);
        assert!(!out.status.success(), "{args:?}");
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(e.contains("-: standard output carries"), "{args:?}: {e}");
    }
    assert!(!dir.path().join("-").exists(), "a file named - was written");
});
