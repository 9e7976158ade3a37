//! `chessgraph import` of the Lichess evaluation database format (`.jsonl`): the fixture
//! made from the shared sample by `scripts/fixtures/lichess-evals.py` against its golden
//! answers (python-chess's normalized FENs, the sample's own labels), compression and
//! standard input, a killed import, and labels beside another source's positions.

use std::collections::HashMap;

use crate::cgtest;
use crate::util::{Dir, fixture};

/// One line of `tests/golden/lichess_evals.csv`.
struct Golden {
    line: i64,
    kind: String,
    fen: String,
    cp: Option<i64>,
    mate: Option<i64>,
    depth: Option<i64>,
    nodes: Option<i64>,
}

fn golden() -> Vec<Golden> {
    let path = chessgraph_testkit::repo_root().join("tests/golden/lichess_evals.csv");
    let text = std::fs::read_to_string(path).unwrap();
    let num = |s: &str| (!s.is_empty()).then(|| s.parse::<i64>().unwrap());
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Golden {
                line: f[0].parse().unwrap(),
                kind: f[1].to_owned(),
                fen: f[2].to_owned(),
                cp: num(f[3]),
                mate: num(f[4]),
                depth: num(f[5]),
                nodes: num(f[6]),
            }
        })
        .collect()
}

/// What a reject of each golden kind must say.
fn expected_reason(kind: &str) -> &'static str {
    match kind {
        "bad-json" => "bad JSON at column",
        "missing-depth" => "missing field `depth`",
        "missing-fen" => "missing field `fen`",
        "illegal-fen" => "illegal position",
        "empty-evals" => "no evaluations",
        "mate-0" => "mate in 0",
        "empty-pvs" => "has no lines",
        "no-score" => "neither cp nor mate",
        other => panic!("unknown golden kind {other}"),
    }
}

/// Every stored row that an import decides (positions, labels, rejects, counters).
fn dump(dir: &Dir) -> Vec<String> {
    let mut out = Vec::new();
    for sql in [
        "SELECT id, fen, fen_input, eval_cp, mate, source_id, line FROM positions ORDER BY id",
        "SELECT position_id, labeller, eval_cp, mate, depth, nodes FROM labels ORDER BY position_id",
        "SELECT source_id, line, text, reason FROM import_errors ORDER BY source_id, line",
        "SELECT id, format, rows_read, rows_imported, rows_duplicate, rows_rejected, finished_at IS NOT NULL FROM sources ORDER BY id",
    ] {
        out.extend(dir.rows(sql));
    }
    out
}

/// Checks the database of one import of the fixture against the golden file.
fn check_against_golden(dir: &Dir) {
    let golden = golden();
    let rows: Vec<&Golden> = golden.iter().filter(|g| g.kind == "row").collect();
    let conn = dir.sql();
    assert_eq!(dir.int("SELECT count(*) FROM positions"), rows.len() as i64);
    assert_eq!(
        dir.int("SELECT count(*) FROM labels WHERE labeller = 'lichess'"),
        rows.len() as i64
    );
    let mut stmt = conn
        .prepare(
            "SELECT p.line, p.eval_cp, p.mate, l.eval_cp, l.mate, l.depth, l.nodes FROM positions p \
             JOIN labels l ON l.position_id = p.id AND l.labeller = 'lichess' WHERE p.fen = ?1",
        )
        .unwrap();
    let mut mates = 0;
    for g in &rows {
        type Stored = (
            i64,
            Option<i64>,
            Option<i64>,
            Option<i64>,
            Option<i64>,
            i64,
            i64,
        );
        let got: Stored = stmt
            .query_row([&g.fen], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                ))
            })
            .unwrap_or_else(|e| panic!("line {}: {} not stored: {e}", g.line, g.fen));
        let want: Stored = (
            g.line,
            g.cp,
            g.mate,
            g.cp,
            g.mate,
            g.depth.unwrap(),
            g.nodes.unwrap(),
        );
        assert_eq!(got, want, "line {} ({})", g.line, g.fen);
        mates += g.mate.is_some() as i32;
    }
    assert!(
        mates >= 10,
        "the fixture has mate scores of both signs: {mates}"
    );

    let mut rejects: HashMap<i64, String> = HashMap::new();
    let mut stmt = conn
        .prepare("SELECT line, reason FROM import_errors")
        .unwrap();
    for r in stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap() {
        let (line, reason) = r.unwrap();
        rejects.insert(line, reason);
    }
    let odd: Vec<&Golden> = golden
        .iter()
        .filter(|g| g.kind != "row" && g.kind != "duplicate")
        .collect();
    assert_eq!(rejects.len(), odd.len(), "{rejects:?}");
    for g in odd {
        let reason = rejects
            .get(&g.line)
            .unwrap_or_else(|| panic!("line {} ({}) not rejected", g.line, g.kind));
        assert!(
            reason.contains(expected_reason(&g.kind)),
            "line {} ({}): {reason}",
            g.line,
            g.kind
        );
    }
}

cgtest!(lichess_fixture_matches_the_golden_answers, |dir| {
    let f = fixture("lichess-evals.jsonl");
    let out = dir.ok(&["import", &f]);
    let golden = golden();
    let count = |k: &str| golden.iter().filter(|g| g.kind == k).count();
    let rows = count("row");
    let duplicates = count("duplicate");
    let rejected = golden.len() - rows - duplicates;
    assert!(
        rows >= 300 && rejected >= 9,
        "{rows} rows, {rejected} rejects"
    );
    assert!(
        out.contains(&format!(
            "{} rows read, {rows} imported, {duplicates} duplicates, {rejected} rejected",
            golden.len()
        )),
        "{out}"
    );
    // The first rejects are printed as file:line: reason.
    let first_bad = golden.iter().find(|g| g.kind == "bad-json").unwrap();
    assert!(
        out.contains(&format!(
            "lichess-evals.jsonl:{}: bad JSON at column",
            first_bad.line
        )),
        "{out}"
    );
    assert_eq!(
        dir.int("SELECT count(*) FROM sources WHERE format = 'lichess-evals' AND pov = 'white'"),
        1
    );
    check_against_golden(&dir);
    // The stored labeller can be named wherever labels are chosen.
    let stats = dir.ok(&["stats"]);
    assert!(stats.contains("lichess"), "{stats}");
    // A second import of the same file adds nothing.
    let again = dir.ok(&["import", &f]);
    assert!(again.contains("already imported"), "{again}");
});

cgtest!(lichess_zstd_by_extension_and_stdin_by_format, |dir| {
    let text = std::fs::read(fixture("lichess-evals.jsonl")).unwrap();
    let z = dir.create(
        "lichess_db_eval.jsonl.zst",
        zstd::encode_all(text.as_slice(), 3).unwrap(),
    );
    dir.ok(&["import", z.to_str().unwrap()]);
    assert_eq!(
        dir.int(
            "SELECT count(*) FROM sources WHERE compression = 'zstd' AND format = 'lichess-evals'"
        ),
        1
    );
    check_against_golden(&dir);

    let piped = Dir::new();
    let out = piped.run(&["import", "-"]);
    assert!(!out.status.success(), "stdin needs --format");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("lichess-evals"), "{err}");
    let out = piped.run_stdin(&["import", "--format", "lichess-evals", "-"], &text);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    check_against_golden(&piped);
});

cgtest!(lichess_labels_beside_positions_from_another_source, |dir| {
    // The CSV fixture holds the sample's first rows; the Lichess fixture starts with the
    // same first position. Its imported label stays the CSV's, and the Lichess label,
    // depth and nodes are stored beside it.
    dir.ok(&["import", &fixture("positions-2000.csv")]);
    let out = dir.ok(&["import", &fixture("lichess-evals.jsonl")]);
    let duplicates = dir.int("SELECT rows_duplicate FROM sources WHERE id = 2");
    assert!(duplicates >= 2, "{out}");
    let golden = golden();
    let rows = golden.iter().filter(|g| g.kind == "row").count() as i64;
    assert_eq!(
        dir.int("SELECT count(*) FROM labels WHERE labeller = 'lichess'"),
        rows
    );
    assert_eq!(
        dir.int(
            "SELECT count(*) FROM labels l JOIN positions p ON p.id = l.position_id \
             WHERE l.labeller = 'lichess' AND p.source_id = 1"
        ),
        duplicates - 1, // the fixture's own duplicate line repeats one of its positions
    );
    // Learning tools read them by name: a fit on the Lichess labels uses exactly the
    // positions that have a Lichess centipawn label.
    dir.ok(&["analyze", "--quiet"]);
    let fit = dir.ok(&[
        "fit", "linear", "--labels", "lichess", "--where", "1", "--json",
    ]);
    let fit: serde_json::Value = serde_json::from_str(&fit).unwrap();
    let used = fit["n_train"].as_i64().unwrap() + fit["n_test"].as_i64().unwrap();
    assert_eq!(
        used,
        dir.int("SELECT count(*) FROM labels WHERE labeller = 'lichess' AND eval_cp IS NOT NULL"),
        "{fit}"
    );
});

cgtest!(killed_lichess_import_resumes_to_the_same_db, |dir| {
    let f = fixture("lichess-evals.jsonl");
    // Stopped right after its third batch of 20 rows is committed, then SIGKILLed.
    let mut child = dir.spawn_paused_after_batch(&["import", "--batch-size", "20", &f], 3);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(dir.int("SELECT rows_read FROM sources"), 60);
    // The labels of the first 60 lines: the same each run.
    assert_eq!(dir.int("SELECT count(*) FROM labels"), 55);
    let out = dir.ok(&["import", "--batch-size", "20", &f]);
    assert!(out.contains("resumed"), "{out}");
    let reference = Dir::new();
    reference.ok(&["import", &f]);
    assert_eq!(dump(&dir), dump(&reference));
});
