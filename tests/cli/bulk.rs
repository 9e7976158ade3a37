//! `import --bulk`: rows appended and duplicates found at the end give the database a
//! row-by-row import gives, and a killed bulk import goes on where it stopped.

use crate::cgtest;
use crate::util::{Dir, fixture};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The rows a user reads, by FEN (the bulk path leaves the ids of duplicates unused).
fn content(dir: &Dir) -> Vec<String> {
    let mut out = Vec::new();
    for sql in [
        "SELECT fen, fen_input, eval_cp, mate, source_id, line, game_id, ply, result, best_move, \
         next_move FROM positions ORDER BY fen",
        "SELECT p.fen, l.labeller, l.eval_cp, l.mate, l.depth, l.nodes FROM labels l \
         JOIN positions p ON p.id = l.position_id ORDER BY p.fen, l.labeller",
        "SELECT source_id, line, text, reason FROM import_errors ORDER BY source_id, line",
        "SELECT id, rows_read, rows_imported, rows_duplicate, rows_rejected, finished_at IS NOT NULL, \
         bulk_after_id FROM sources ORDER BY id",
        "SELECT p.fen, s.part FROM splits s JOIN positions p ON p.id = s.position_id ORDER BY p.fen",
    ] {
        out.extend(dir.rows(sql));
    }
    out
}

/// A CSV with bad rows and duplicates (within the file and of the other fixtures).
fn messy_csv(dir: &Dir) -> String {
    let mut text = std::fs::read_to_string(fixture("positions-2000.csv")).unwrap();
    text.push_str("not a fen,+1\n");
    text.push_str(&format!("{START},+3\n{START},+4\n"));
    let f = dir.create("big.csv", &text);
    f.to_str().unwrap().to_owned()
}

cgtest!(bulk_and_row_by_row_imports_store_the_same, |dir| {
    let row_by_row = Dir::new();
    let csv = messy_csv(&dir);
    let files = [
        fixture("lichess-evals.jsonl"),
        csv,
        fixture("bestmoves-1500.epd"),
    ];
    for (d, mode) in [(&dir, "always"), (&row_by_row, "never")] {
        for f in &files {
            d.ok(&["import", "--bulk", mode, f]);
        }
    }
    let (bulk, rows) = (content(&dir), content(&row_by_row));
    assert_eq!(bulk.len(), rows.len());
    for (b, r) in bulk.iter().zip(&rows) {
        assert_eq!(b, r);
    }
    // Duplicates were found: within the CSV and of the Lichess file's positions.
    assert!(dir.int("SELECT sum(rows_duplicate) FROM sources") > 180);
    assert_eq!(
        dir.int("SELECT count(*) FROM (SELECT board FROM position_rows GROUP BY board HAVING count(*) > 1)"),
        0
    );
    // The position index is back.
    assert_eq!(
        dir.int("SELECT count(*) FROM sqlite_schema WHERE name = 'position_rows_key'"),
        1
    );
});

/// Starts a bulk import of `csv` in `dir` that is SIGKILLed right after its third batch
/// of 100 rows is committed.
fn killed_bulk_import(dir: &Dir, csv: &str) -> [String; 6] {
    let args = [
        "import".to_owned(),
        "--bulk".to_owned(),
        "always".to_owned(),
        "--batch-size".to_owned(),
        "100".to_owned(),
        csv.to_owned(),
    ];
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut child = dir.spawn_paused_after_batch(&refs, 3);
    child.kill().unwrap();
    child.wait().unwrap();
    // The header is line 1: the batches hold lines 2 to 301.
    assert_eq!(
        dir.int(
            "SELECT rows_read * 1000 + bulk_line FROM sources WHERE id = 2 AND finished_at IS NULL"
        ),
        300 * 1000 + 301
    );
    args
}

cgtest!(killed_bulk_import_goes_on_where_it_stopped, |dir| {
    dir.ok(&["import", "--bulk", "never", &fixture("lichess-evals.jsonl")]);
    let csv = messy_csv(&dir);
    let args = killed_bulk_import(&dir, &csv);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = dir.ok(&refs);
    assert!(out.contains("resumed"), "{out}");
    assert!(out.contains("2003 rows read"), "{out}");

    let reference = Dir::new();
    reference.ok(&["import", "--bulk", "never", &fixture("lichess-evals.jsonl")]);
    reference.ok(&["import", "--bulk", "always", csv.as_str()]);
    assert_eq!(content(&dir), content(&reference));
    // Ids included: the killed and resumed run is the uninterrupted one.
    let ids = |d: &Dir| d.int("SELECT sum(id * line) FROM position_rows");
    assert_eq!(ids(&dir), ids(&reference));
});

cgtest!(
    another_import_first_checks_an_interrupted_bulk_import,
    |dir| {
        dir.ok(&["import", "--bulk", "never", &fixture("lichess-evals.jsonl")]);
        let csv = messy_csv(&dir);
        let args = killed_bulk_import(&dir, &csv);
        // Another file: the interrupted import's 300 rows are checked for duplicates first
        // and the index rebuilt, so the new file's rows are looked up against them.
        dir.ok(&["import", "--bulk", "never", &fixture("bestmoves-1500.epd")]);
        assert_eq!(
            dir.int("SELECT count(*) FROM sources WHERE bulk_after_id IS NOT NULL"),
            0
        );
        assert_eq!(
        dir.int("SELECT count(*) FROM (SELECT board FROM position_rows GROUP BY board HAVING count(*) > 1)"),
        0
    );
        // The interrupted file, run again, is read from the start (row by row now) and ends
        // as it would have.
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = dir.ok(&refs);
        assert!(
            out.contains("resumed") && out.contains("2003 rows read"),
            "{out}"
        );

        let reference = Dir::new();
        reference.ok(&["import", "--bulk", "never", &fixture("lichess-evals.jsonl")]);
        reference.ok(&["import", "--bulk", "never", &fixture("bestmoves-1500.epd")]);
        reference.ok(&["import", "--bulk", "never", csv.as_str()]);
        // The files came in another order here, so which file stored a position first may
        // differ: the set of positions and every file's accounting must not.
        let fens = |d: &Dir| {
            let conn = d.sql();
            let mut stmt = conn
                .prepare("SELECT fen FROM positions ORDER BY fen")
                .unwrap();
            stmt.query_map([], |r| r.get::<_, String>(0))
                .unwrap()
                .map(Result::unwrap)
                .collect::<Vec<_>>()
        };
        assert_eq!(fens(&dir), fens(&reference));
        for d in [&dir, &reference] {
            assert_eq!(
                d.int(
                    "SELECT count(*) FROM sources WHERE finished_at IS NULL \
                   OR rows_read <> rows_imported + rows_duplicate + rows_rejected"
                ),
                0
            );
            assert_eq!(
                d.int("SELECT sum(rows_imported) FROM sources"),
                d.int("SELECT count(*) FROM position_rows")
            );
        }
    }
);

/// Every features row, by FEN.
fn features(dir: &Dir) -> Vec<String> {
    let conn = dir.sql();
    let mut stmt = conn
        .prepare("SELECT p.fen, f.* FROM features f JOIN positions p ON p.id = f.position_id ORDER BY p.fen")
        .unwrap();
    let cols = stmt.column_count();
    stmt.query_map([], |r| {
        Ok((0..cols)
            .filter(|&i| i != 1) // the id
            .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
            .collect::<Vec<_>>()
            .join("|"))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

cgtest!(import_analyze_stores_the_features_analyze_computes, |dir| {
    let csv = messy_csv(&dir);
    let files = [fixture("lichess-evals.jsonl"), csv];
    let reference = Dir::new();
    for f in &files {
        reference.ok(&["import", f]);
    }
    reference.ok(&["analyze", "--edges", "none", "-q"]);
    let want = features(&reference);
    assert!(want.len() > 2000, "{}", want.len());
    for mode in ["always", "never"] {
        let d = Dir::new();
        for f in &files {
            d.ok(&["import", "--analyze", "--bulk", mode, f]);
        }
        assert_eq!(features(&d), want, "--bulk {mode}");
        let again = d.ok(&["analyze", "--edges", "none"]);
        assert!(again.contains("nothing to analyze"), "{again}");
    }
});

/// A CSV whose first 300 rows (the batches [`killed_bulk_import`] commits) hold 150
/// positions twice each, then 100 more.
fn doubled_csv(dir: &Dir) -> String {
    let text = std::fs::read_to_string(fixture("positions-2000.csv")).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).take(250).collect();
    let mut csv = String::from("FEN,Evaluation\n");
    for row in &rows[..150] {
        csv.push_str(&format!("{row}\n{row}\n"));
    }
    for row in &rows[150..] {
        csv.push_str(&format!("{row}\n"));
    }
    dir.create("doubled.csv", csv).to_str().unwrap().to_owned()
}

/// Rows that hang off a position row that no longer exists.
fn orphans(dir: &Dir) -> i64 {
    dir.int(
        "SELECT (SELECT count(*) FROM edges WHERE position_id NOT IN (SELECT id FROM position_rows)) \
         + (SELECT count(*) FROM feature_rows WHERE position_id NOT IN (SELECT id FROM position_rows)) \
         + (SELECT count(*) FROM label_rows WHERE position_id NOT IN (SELECT id FROM position_rows))",
    )
}

/// Positions stored more than once.
fn doubled(dir: &Dir) -> i64 {
    dir.int(
        "SELECT count(*) FROM (SELECT board FROM position_rows GROUP BY board HAVING count(*) > 1)",
    )
}

cgtest!(a_running_bulk_import_is_not_settled_under_it, |dir| {
    dir.ok(&["import", "--bulk", "never", &fixture("lichess-evals.jsonl")]);
    let csv = doubled_csv(&dir);
    let args = [
        "import",
        "--bulk",
        "always",
        "--batch-size",
        "100",
        csv.as_str(),
    ];
    let mut child = dir.spawn_paused_after_batch(&args, 3);
    // Paused, not killed: the import still runs, so nothing may settle its rows.
    let out = dir.run(&["analyze", "-q"]);
    let _ = child.kill();
    child.wait().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("doubled.csv") && err.contains("is running"),
        "{err}"
    );
    assert_eq!(dir.int("SELECT count(*) FROM feature_rows"), 0);
});

cgtest!(
    every_command_that_reads_positions_settles_an_interrupted_bulk_import,
    |_dir| {
        let reference = Dir::new();
        reference.ok(&["import", "--bulk", "never", &fixture("lichess-evals.jsonl")]);
        reference.ok(&["import", "--bulk", "always", &doubled_csv(&reference)]);
        #[allow(unused_mut)]
        let mut commands: Vec<&[&str]> = vec![
            &["analyze", "-q"],
            &["fit", "linear"],
            &["tune", "--max-steps", "1", "-q"],
            &[
                "train", "--epochs", "1", "--hidden", "8", "--out", "n.nnue", "-q",
            ],
            &[
                "rate",
                "evaluator",
                "--evaluator",
                "material",
                "--part",
                "all",
            ],
            &["report", "--out", "r.md"],
            &["heatmap", "--out-dir", "hm"],
            &["stats"],
            &["datagen", "--games", "1", "--nodes", "200", "-q"],
        ];
        #[cfg(feature = "parquet")]
        commands.push(&["export", "data", "--out", "pq", "-q"]);
        #[cfg(feature = "serve")]
        commands.push(&["serve"]);
        for command in commands {
            let d = Dir::new();
            d.ok(&["import", "--bulk", "never", &fixture("lichess-evals.jsonl")]);
            let csv = doubled_csv(&d);
            let args = killed_bulk_import(&d, &csv);
            assert!(
                doubled(&d) > 100,
                "{command:?}: the killed run stored duplicates"
            );
            if command == ["serve"] {
                #[cfg(feature = "serve")]
                drop(crate::serve::serve(&d, &[]));
            } else {
                // It may fail for its own reasons (no features to fit yet), but only after
                // the positions are one row each again.
                let out = d.run(command);
                let err = String::from_utf8_lossy(&out.stderr);
                assert!(
                    err.contains("now checked for duplicates"),
                    "{command:?}: {err}"
                );
            }
            assert_eq!(
                d.int("SELECT count(*) FROM sources WHERE bulk_after_id IS NOT NULL"),
                0,
                "{command:?}"
            );
            assert_eq!(doubled(&d), 0, "{command:?}");
            // Whatever the command wrote for the positions, the resumed import ends as the
            // uninterrupted one, with nothing left pointing at a merged row.
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = d.ok(&refs);
            assert!(out.contains("resumed"), "{command:?}: {out}");
            d.ok(&["analyze", "-q"]);
            assert_eq!(orphans(&d), 0, "{command:?}");
            assert_eq!(doubled(&d), 0, "{command:?}");
            assert_eq!(
                d.int("SELECT count(*) FROM features"),
                d.int("SELECT count(*) FROM positions"),
                "{command:?}"
            );
            let positions = |x: &Dir| {
                x.rows("SELECT fen, eval_cp, mate FROM positions WHERE source_id <= 2 ORDER BY fen")
            };
            assert_eq!(positions(&d), positions(&reference), "{command:?}");
        }
    }
);

cgtest!(a_bulk_merge_removes_what_hangs_off_the_merged_rows, |dir| {
    dir.ok(&["import", "--bulk", "never", &fixture("lichess-evals.jsonl")]);
    let csv = doubled_csv(&dir);
    let args = killed_bulk_import(&dir, &csv);
    // What an analyze and a label before the merge would have written for the doubled
    // rows (commands now settle the import first; other programs may not).
    dir.sql()
        .execute_batch(
            "INSERT INTO edges (position_id, from_sq, to_sq, attacker, target, kind) \
             SELECT id, 0, 1, 'K', 'k', 'attack' FROM position_rows WHERE source_id = 2; \
             INSERT INTO feature_rows SELECT id, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 \
             FROM position_rows WHERE source_id = 2;",
        )
        .unwrap();
    assert!(doubled(&dir) > 100);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    dir.ok(&refs);
    assert_eq!(doubled(&dir), 0);
    assert_eq!(orphans(&dir), 0);
});
