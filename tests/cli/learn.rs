//! Learning from the data: `fit`, `tune`, `eval`, `export evaluator` and `heatmap` on real
//! fixtures, with bad options and empty databases.

use shakmaty::{Chess, Color, Piece, Position, Role, Square};

use crate::cgtest;
use crate::util::{Dir, fixture};

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `args`, asserts failure, returns stderr.
fn fails(dir: &Dir, args: &[&str]) -> String {
    let out = dir.run(args);
    assert!(
        !out.status.success(),
        "{args:?} succeeded:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    stderr(&out)
}

fn loaded(dir: &Dir) {
    dir.ok(&["import", "-q", &fixture("positions-2000.csv")]);
    dir.ok(&["analyze", "-q"]);
}

cgtest!(learning_commands_need_a_database, |dir| {
    for args in [
        &["fit", "linear"][..],
        &["tune"],
        &["heatmap", "--out-dir", "hm"],
        &["rate", "evaluator"],
        &["export", "evaluator", "--fit", "1", "--out", "x.json"],
    ] {
        let e = fails(&dir, args);
        assert!(e.contains("no database"), "{args:?}: {e}");
    }
    // An empty database file: chessgraph gives it the schema, and finds no positions.
    dir.sql()
        .execute_batch("CREATE TABLE scratch (x); DROP TABLE scratch;")
        .unwrap();
    let e = fails(&dir, &["tune"]);
    assert!(e.contains("no positions"), "{e}");
    let e = fails(&dir, &["rate", "evaluator"]);
    assert!(e.contains("no positions"), "{e}");
});

cgtest!(fit_linear_prints_the_table_and_refuses_bad_options, |dir| {
    loaded(&dir);
    let out = dir.ok(&["fit", "linear"]);
    for word in [
        "intercept",
        "mobility",
        "center_control",
        "king_safety",
        "connectivity",
        "R²",
    ] {
        assert!(out.contains(word), "{word}:\n{out}");
    }
    assert_eq!(dir.int("SELECT count(*) FROM fits"), 1);
    let e = fails(&dir, &["fit", "linear", "--features", "mobility,nonsense"]);
    assert!(e.contains("nonsense"), "{e}");
    let e = fails(&dir, &["fit", "linear", "--where", "no_such_column > 1"]);
    assert!(e.contains("no_such_column"), "{e}");
    let out = dir.ok(&["fit", "logistic", "--target", "sign", "--where", "1"]);
    assert!(out.contains("AUC"), "{out}");
});

cgtest!(tune_exports_an_evaluator_that_eval_reads_back, |dir| {
    loaded(&dir);
    let out = dir.ok(&["tune", "--out", "tuned.json", "--name", "mine"]);
    assert!(out.contains("stored as evaluator #1 \"mine\""), "{out}");
    assert!(out.contains("chosen on the validation part"), "{out}");
    assert!(dir.path().join("tuned.json").exists());
    // The stored evaluator and the file are the same evaluator.
    let file = dir.ok(&["rate", "evaluator", "--evaluator", "tuned.json", "--json"]);
    let stored = dir.ok(&["rate", "evaluator", "--evaluator", "mine", "--json"]);
    let mut v: serde_json::Value = serde_json::from_str(&file).unwrap();
    let mut w: serde_json::Value = serde_json::from_str(&stored).unwrap();
    // Rows are named as typed; everything else is the same.
    assert_eq!(v[0]["evaluator"], "tuned.json");
    assert_eq!(w[0]["evaluator"], "mine");
    v[0]["evaluator"] = serde_json::Value::Null;
    w[0]["evaluator"] = serde_json::Value::Null;
    assert_eq!(v, w);
    assert!(v[0]["labelled"].as_u64().unwrap() > 100, "{v}");
    // Export of the stored evaluator writes the same bytes.
    dir.ok(&["export", "evaluator", "mine", "--out", "again.json"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("tuned.json")).unwrap(),
        std::fs::read_to_string(dir.path().join("again.json")).unwrap()
    );
    // The engine's tools find the stored evaluator by name.
    let bench = dir.ok(&["bench", "--depth", "2", "--evaluator", "mine"]);
    assert!(bench.contains("Nodes searched"), "{bench}");
    // So does the engine's Evaluator option.
    let uci = dir.run_stdin(
        &["engine"],
        b"uci\nsetoption name Evaluator value mine\nisready\nquit\n",
    );
    let text = String::from_utf8_lossy(&uci.stdout);
    assert!(text.contains("info string evaluator mine"), "{text}");
    // The report shows the stored evaluator and the recorded comparisons.
    let md = dir.ok(&["report"]);
    assert!(
        md.contains("## Tuned evaluators") && md.contains("| mine |"),
        "{md}"
    );
    assert!(
        md.contains("Evaluators against the labels") && md.contains("tau_qs"),
        "{md}"
    );
    // One definition of each figure: the τ and Texel loss that `tune` prints and stores
    // for the test part are `eval`'s, and the report's table shows the same numbers.
    let tuned = dir.ok(&["tune", "--json", "--name", "again", "--max-steps", "2"]);
    let tuned: serde_json::Value = serde_json::from_str(&tuned).unwrap();
    let eval = dir.ok(&["rate", "evaluator", "--evaluator", "again", "--json"]);
    let eval: serde_json::Value = serde_json::from_str(&eval).unwrap();
    for key in ["static_eval", "qsearch", "labelled", "k"] {
        assert_eq!(tuned["test_eval"][key], eval[0][key], "{key}");
    }
    let tau = eval[0]["static_eval"]["tau"].as_f64().unwrap();
    let tau_qs = eval[0]["qsearch"]["tau"].as_f64().unwrap();
    assert!(tau > 0.2 && tau != tau_qs, "{tau} {tau_qs}");
    let md = dir.ok(&["report"]);
    let row = md
        .lines()
        .find(|l| l.starts_with("| again |"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(
        row.contains(&format!("| {tau:.4} | {tau_qs:.4} |")),
        "{row}"
    );
    // A taken name is refused unless --replace says so.
    let e = fails(&dir, &["tune", "--name", "again", "--max-steps", "1"]);
    assert!(
        e.contains("already holds an evaluator named \"again\"") && e.contains("--replace"),
        "{e}"
    );
    let out = dir.ok(&["tune", "--name", "again", "--replace", "--max-steps", "1"]);
    assert!(out.contains("stored as evaluator #2 \"again\""), "{out}");
    // Bad options.
    let e = fails(&dir, &["tune", "--lambdas", "1.5"]);
    assert!(e.contains("1.5"), "{e}");
    let e = fails(&dir, &["tune", "--start", "no-such"]);
    assert!(e.contains("no-such"), "{e}");
    let e = fails(&dir, &["tune", "--target", "result"]);
    assert!(e.contains("game result"), "{e}");
});

cgtest!(tune_on_few_positions_warns, |dir| {
    // 60 positions for 832 weights: the tuner still works (the ridge holds the weights
    // near their start values) but says the data decide little.
    let csv = std::fs::read_to_string(fixture("positions-2000.csv")).unwrap();
    let head: Vec<&str> = csv.lines().take(61).collect();
    dir.create("few.csv", head.join("\n") + "\n");
    dir.ok(&["import", "-q", "few.csv"]);
    dir.ok(&["analyze", "-q"]);
    // One α, one λ, one step: the debug build's dense solves are slow.
    let out = dir.run(&[
        "tune",
        "--alphas",
        "1e-2",
        "--lambdas",
        "0",
        "--max-steps",
        "1",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("warning: only") && err.contains("832 weights"),
        "{err}"
    );
    // Undefined metrics print as `-`, never NaN.
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("NaN"), "{text}");
});

cgtest!(eval_without_centipawn_labels_prints_dashes, |dir| {
    // Only a mate label: τ, r, RMSE and loss are undefined, shown as `-`.
    dir.create(
        "m.csv",
        "FEN,Evaluation\n4k3/8/8/8/8/8/8/4K2Q w - - 0 1,#+9\n",
    );
    let out = dir.ok(&[
        "rate",
        "evaluator",
        "--evaluator",
        "material",
        "--input",
        "m.csv",
    ]);
    let row = out
        .lines()
        .find(|l| l.starts_with("material"))
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(row.split_whitespace().skip(1).collect::<Vec<_>>(), ["-"; 8]);
});

cgtest!(eval_depth_adds_a_searched_score, |dir| {
    // Ra8# is quiet: only the 2-ply search sees the mate.
    dir.create(
        "d.csv",
        "FEN,Evaluation\n\
         6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1,+2000\n\
         4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1,+150\n\
         4k3/8/8/8/8/8/8/4K2R w - - 0 1,+500\n",
    );
    let out = dir.ok(&[
        "rate",
        "evaluator",
        "--evaluator",
        "material",
        "--input",
        "d.csv",
        "--depth",
        "2",
        "--output",
        "o.csv",
    ]);
    assert!(
        out.contains("τ d2") && out.contains("after a 2-ply search"),
        "{out}"
    );
    let csv = std::fs::read_to_string(dir.path().join("o.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "fen,static,qsearch,search,label");
    assert_eq!(
        lines[1],
        "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1,200,200,20000,2000"
    );
    let e = fails(
        &dir,
        &["rate", "evaluator", "--input", "d.csv", "--depth", "0"],
    );
    assert!(e.contains("--depth"), "{e}");
});

cgtest!(eval_writes_static_and_qsearch_numbers, |dir| {
    // White to move wins the undefended queen: material is −800 statically, +100 after
    // the capture. Black to move: Black's queen takes the pawn, −1000 after it.
    dir.create(
        "p.csv",
        "FEN,Evaluation\n\
         4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1,+150\n\
         4k3/8/8/3q4/4P3/8/8/4K3 b - - 0 1,-1200\n\
         not a fen,+3\n\
         4k3/8/8/8/8/8/8/4K2Q w - - 0 1,#+9\n",
    );
    let out = dir.run(&[
        "rate",
        "evaluator",
        "--evaluator",
        "material",
        "--input",
        "p.csv",
        "--output",
        "o.csv",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("p.csv:4:"), "{}", stderr(&out));
    let csv = std::fs::read_to_string(dir.path().join("o.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines,
        [
            "fen,static,qsearch,label",
            "4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1,-800,100,150",
            "4k3/8/8/3q4/4P3/8/8/4K3 b - - 0 1,-800,-900,-1200",
            "4k3/8/8/8/8/8/8/4K2Q w - - 0 1,900,900,#9",
        ]
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("2 with a centipawn label") && stdout.contains("1 mate labels"),
        "{stdout}"
    );
    let e = fails(
        &dir,
        &[
            "rate",
            "evaluator",
            "--evaluator",
            "material,seed003",
            "--input",
            "p.csv",
            "--output",
            "x.csv",
        ],
    );
    assert!(e.contains("single --evaluator"), "{e}");
    let e = fails(
        &dir,
        &[
            "rate",
            "evaluator",
            "--evaluator",
            "nope",
            "--input",
            "p.csv",
        ],
    );
    assert!(e.contains("seed003"), "{e}");
    let e = fails(&dir, &["rate", "evaluator", "--input", "p.txt"]);
    assert!(e.contains("--format"), "{e}");
});

cgtest!(export_fit_maps_the_study_weights, |dir| {
    loaded(&dir);
    dir.ok(&["fit", "linear"]);
    let e = fails(
        &dir,
        &["export", "evaluator", "--fit", "1", "--out", "f.json"],
    );
    assert!(
        e.contains("center_control") && e.contains("--drop-unmapped"),
        "{e}"
    );
    dir.ok(&[
        "export",
        "evaluator",
        "--fit",
        "1",
        "--drop-unmapped",
        "--out",
        "f.json",
    ]);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("f.json")).unwrap()).unwrap();
    let coefs: serde_json::Value = serde_json::from_str(
        &dir.sql()
            .query_row("SELECT coefficients FROM fits WHERE id = 1", [], |r| {
                r.get::<_, String>(0)
            })
            .unwrap(),
    )
    .unwrap();
    let mobility = coefs
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "mobility")
        .unwrap()["estimate"]
        .as_f64()
        .unwrap();
    assert_eq!(
        json["terms"]["study_mobility"]["mg"].as_f64().unwrap(),
        mobility.round()
    );
    let e = fails(
        &dir,
        &["export", "evaluator", "--fit", "7", "--out", "g.json"],
    );
    assert!(e.contains("no fit #7"), "{e}");
});

cgtest!(heatmap_means_match_the_database, |dir| {
    loaded(&dir);
    let out = dir.ok(&[
        "heatmap",
        "--out-dir",
        "hm",
        "--where",
        "1",
        "--min-samples",
        "5",
    ]);
    assert!(out.contains("wrote 14 files"), "{out}");
    for f in ["white_king.png", "black_pawn.png", "grid.png"] {
        let bytes = std::fs::read(dir.path().join("hm").join(f)).unwrap();
        assert!(bytes.starts_with(b"\x89PNG"), "{f}");
    }
    // The mean evaluation with a white king on g1, recomputed here from the stored rows.
    let conn = dir.sql();
    let mut stmt = conn
        .prepare("SELECT fen, eval_cp FROM positions WHERE eval_cp IS NOT NULL")
        .unwrap();
    let (mut n, mut sum) = (0u64, 0i64);
    let rows = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
        .unwrap();
    for row in rows {
        let (fen, cp) = row.unwrap();
        let pos: Chess =
            chessgraph_core::chess::fen::parse(&fen, chessgraph_core::chess::fen::Leniency::Strict)
                .unwrap();
        if pos.board().piece_at(Square::G1)
            == Some(Piece {
                color: Color::White,
                role: Role::King,
            })
        {
            n += 1;
            sum += cp;
        }
    }
    assert!(n >= 5);
    let csv = std::fs::read_to_string(dir.path().join("hm/heatmap.csv")).unwrap();
    let line = csv.lines().find(|l| l.starts_with("K,g1,")).unwrap();
    let fields: Vec<&str> = line.split(',').collect();
    assert_eq!(fields[2].parse::<u64>().unwrap(), n);
    let mean: f64 = fields[3].parse().unwrap();
    assert!(
        (mean - sum as f64 / n as f64).abs() < 0.01,
        "{line} vs {}",
        sum as f64 / n as f64
    );
    let e = fails(
        &dir,
        &["heatmap", "--out-dir", "hm", "--where", "bogus_column = 1"],
    );
    assert!(e.contains("bogus_column"), "{e}");
});

cgtest!(eval_sample_stays_when_unlabelled_positions_come, |dir| {
    dir.ok(&["import", "-q", &fixture("positions-2000.csv")]);
    let measure = || -> serde_json::Value {
        let args = [
            "rate",
            "evaluator",
            "--evaluator",
            "material",
            "--sample",
            "60",
            "--json",
        ];
        let report: serde_json::Value = serde_json::from_str(&dir.ok(&args)).unwrap();
        report[0].clone()
    };
    let before = measure();
    // 300 positions without an evaluation, some of them in the test part and hashing
    // among the lowest: they are not what the sample measures.
    dir.ok(&["import", "-q", &fixture("wac.epd")]);
    assert!(
        dir.int(
            "SELECT count(*) FROM positions p JOIN splits s ON s.position_id = p.id \
             WHERE s.part = 'test' AND p.eval_cp IS NULL AND p.mate IS NULL"
        ) > 10
    );
    assert_eq!(measure(), before);
    assert_eq!(before["positions"], 60);
});
