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
