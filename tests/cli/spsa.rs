//! `tune spsa`: a synthetic engine whose best option values are known is tuned toward
//! them, the run resumes where it stopped, and bad input is refused by name.

use std::os::unix::fs::PermissionsExt;

use crate::cgtest;
use crate::util::Dir;

/// The opening: White mates at once with Ra8 (a1a8).
const MATE_IN_ONE: &str = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";

/// A synthetic UCI engine with options X (0..200) and Y (−100..100). From [`MATE_IN_ONE`]
/// it mates with probability 0.9·exp(−((X−70)/40)² − ((Y+30)/40)²) and otherwise plays an
/// illegal move (and loses): its best values are X = 70, Y = −30. Its n-th `go` draws
/// the n-th number of a fixed sequence, so a run is the same every time.
fn synthetic_engine(dir: &Dir) -> String {
    let script = r#"#!/bin/sh
x=20; y=20; n=0
while read -r line; do
  case "$line" in
    uci) echo 'id name synthetic'
         echo 'option name X type spin default 20 min 0 max 200'
         echo 'option name Y type spin default 20 min -100 max 100'
         echo uciok ;;
    isready) echo readyok ;;
    "setoption name X value "*) x=${line##* } ;;
    "setoption name Y value "*) y=${line##* } ;;
    go*) n=$((n + 1))
         awk -v x="$x" -v y="$y" -v n="$n" 'BEGIN {
           srand(n * 7919 % 100003); r = rand()
           p = 0.9 * exp(-((x - 70) / 40) ^ 2 - ((y + 30) / 40) ^ 2)
           print (r < p ? "bestmove a1a8" : "bestmove a1a1") }' ;;
    quit) exit 0 ;;
  esac
done
"#;
    let path = dir.create("synthetic.sh", script);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

/// The `tuned` column of the final table, by option name.
fn tuned(out: &str, name: &str) -> f64 {
    let line = out
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no row for {name}:\n{out}"));
    line.split_whitespace().nth(2).unwrap().parse().unwrap()
}

cgtest!(spsa_finds_a_synthetic_engines_best_values, |dir| {
    let engine = synthetic_engine(&dir);
    dir.create("book.epd", format!("{MATE_IN_ONE}\n"));
    dir.create(
        "params.txt",
        "# name, type, start, min, max, c_end, r_end\nX, int, 20, 0, 200, 8, 0.05\nY, int, 20, -100, 100, 8, 0.05\n",
    );
    let args = |iterations: &str| -> Vec<String> {
        [
            "tune",
            "spsa",
            "--engine",
            &engine,
            "--params",
            "params.txt",
            "--out",
            "run",
            "--openings",
            "book.epd",
            "--iterations",
            iterations,
            "--depth",
            "1",
            "--quiet",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let run = |iterations: &str| {
        let a = args(iterations);
        dir.ok(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let out = run("800");
    let (x, y) = (tuned(&out, "X"), tuned(&out, "Y"));
    assert!(
        (x - 70.0).abs() <= 15.0 && (y + 30.0).abs() <= 15.0,
        "X {x}, Y {y}:\n{out}"
    );
    assert!(out.contains("800 iterations, 1600 games"), "{out}");
    assert!(
        out.contains("illegal moves, time losses, engine failures: "),
        "{out}"
    );

    // The record: a row an iteration after the start row, the plot, the values.
    let csv = std::fs::read_to_string(dir.path().join("run/history.csv")).unwrap();
    assert_eq!(csv.lines().count(), 802, "{csv}");
    assert!(csv.starts_with("iteration,wins,draws,losses,X,Y\n0,0,0,0,20.0000,20.0000\n"));
    let png = std::fs::read(dir.path().join("run/history.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let values = std::fs::read_to_string(dir.path().join("run/values.txt")).unwrap();
    assert_eq!(values, format!("X, {x}\nY, {y}\n"));

    // Again with the same settings: nothing left to play, the same values.
    let again = run("800");
    assert!(
        again.contains("resuming") && again.contains("0 iterations, 0 games"),
        "{again}"
    );
    assert_eq!((tuned(&again, "X"), tuned(&again, "Y")), (x, y));
    // Other settings in the same directory: refused.
    let a = args("900");
    let refused = dir.run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && err.contains("schedule differs"),
        "{err}"
    );
});

cgtest!(spsa_refuses_bad_input_by_name, |dir| {
    let engine = synthetic_engine(&dir);
    dir.create(
        "bad.txt",
        "X, int, 20, 0, 200, 8, 0.05\nY, int, 300, -100, 100, 8, 0.05\n",
    );
    dir.create("unknown.txt", "Z, int, 20, 0, 200, 8, 0.05\n");
    let base = [
        "tune", "spsa", "--engine", &engine, "--out", "run", "--depth", "1",
    ];
    for (file, expected) in [
        (
            "bad.txt",
            "--params bad.txt, line 2: Y: value 300 must lie in min..max",
        ),
        (
            "unknown.txt",
            "the engine has no UCI option \"Z\" to tune (its options: X, Y)",
        ),
    ] {
        let mut args = base.to_vec();
        args.extend(["--params", file]);
        let out = dir.run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(expected), "{err}");
    }
});
