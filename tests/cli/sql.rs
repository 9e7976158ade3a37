//! `chessgraph sql`: the views read with the functions registered, in each format, the
//! query from standard input, and writes refused unless asked for.

use crate::cgtest;
use crate::util::fixture;

cgtest!(sql_reads_every_view_in_each_format, |dir| {
    dir.ok(&["import", "-q", &fixture("positions-2000.csv")]);
    dir.ok(&["analyze", "-q"]);
    // The same rows as a direct read with the functions (the test's own connection).
    let query = "SELECT p.id, p.fen, p.eval_cp, f.white_attacks, s.part FROM positions p \
                 JOIN features f ON f.position_id = p.id JOIN splits s ON s.position_id = p.id \
                 ORDER BY p.id LIMIT 5";
    let conn = dir.sql();
    let expected: Vec<String> = conn
        .prepare(query)
        .unwrap()
        .query_map([], |r| {
            Ok(format!(
                "{},{},{},{},{}",
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, String>(4)?
            ))
        })
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let csv = dir.ok(&["sql", "--format", "csv", query]);
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("id,fen,eval_cp,white_attacks,part"));
    let got: Vec<String> = lines.map(str::to_owned).collect();
    assert_eq!(got, expected);
    let json = dir.ok(&["sql", "--format", "json", query]);
    let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(parsed.as_array().unwrap().len(), 5);
    assert!(parsed[0]["fen"].as_str().unwrap().contains('/'), "{json}");
    assert!(parsed[0]["white_attacks"].is_i64(), "{json}");
    let table = dir.ok(&["sql", "SELECT count(*) AS n FROM positions"]);
    let n = dir.int("SELECT count(*) FROM position_rows");
    assert_eq!(table, format!("   n\n----\n{n}\n"));
    let lines = dir.run_stdin(
        &["sql", "--format", "jsonl", "-"],
        b"SELECT fen FROM positions ORDER BY id LIMIT 3;\nSELECT 1 AS one;",
    );
    assert!(lines.status.success());
    assert_eq!(String::from_utf8_lossy(&lines.stdout).lines().count(), 4);
});

cgtest!(sql_writes_only_when_asked_and_names_the_statement, |dir| {
    dir.ok(&["import", "-q", &fixture("positions-2000.csv")]);
    let out = dir.run(&["sql", "DELETE FROM position_rows WHERE id > 10"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("statement 1") && err.contains("--write"),
        "{err}"
    );
    let stored = dir.int("SELECT count(*) FROM position_rows");
    assert!(stored > 1000, "{stored}");
    let out = dir.run(&["sql", "DELETE FROM position_rows WHERE id > 10"]);
    assert!(!out.status.success());
    assert_eq!(dir.int("SELECT count(*) FROM position_rows"), stored);
    let out = dir.ok(&["sql", "--write", "DELETE FROM position_rows WHERE id > 10"]);
    assert_eq!(out, "");
    assert_eq!(dir.int("SELECT count(*) FROM position_rows"), 10);
    let out = dir.run(&["sql", "SELECT 1; SELECT nope FROM positions"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success()
            && err.contains("statement 2")
            && err.contains("no such column: nope"),
        "{err}"
    );
    // No database: said, and none is created.
    let empty = crate::util::Dir::new();
    let out = empty.run(&["sql", "SELECT 1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("no database"),
        "{err}"
    );
    assert!(!empty.db().exists());
});
