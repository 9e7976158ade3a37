//! Migration of databases written by earlier releases — the last before the compact
//! layout (schema 9) and the last before the stored position key (schema 10),
//! `tests/fixtures/schema-vN.db.zst`, made by `scripts/fixtures/old-schema-db.sh`: the
//! first command that opens one migrates it, and every table reads back row for row as
//! before, through the views where the rows moved.

use crate::cgtest;
use crate::util::{fixture, rows};

/// Every row of the tables a user reads, in key order, as text.
fn dump(conn: &rusqlite::Connection) -> Vec<(String, Vec<String>)> {
    [
        // The columns of schema 9 (version 10 adds two to `sources`).
        (
            "(SELECT id, path, format, compression, fingerprint, pov, rows_read, rows_imported, \
             rows_duplicate, rows_rejected, started_at, finished_at FROM sources)",
            "id",
        ),
        ("games", "id"),
        ("positions", "id"),
        ("features", "position_id"),
        ("edges", "position_id, to_sq, from_sq"),
        ("labels", "labeller, position_id"),
        ("label_failures", "labeller, position_id"),
        ("splits", "position_id"),
        (
            "(SELECT source_id, line, text, reason FROM import_errors)",
            "source_id, line, reason",
        ),
        ("fits", "id"),
    ]
    .iter()
    .map(|(table, order)| {
        let rows = rows(conn, &format!("SELECT * FROM {table} ORDER BY {order}"));
        (table.to_string(), rows)
    })
    .collect()
}

/// Loads the schema-`version` fixture into `dir`'s database, migrates it with the first
/// writing command, and checks every row, the stored keys, and that the migrated
/// positions are found again.
fn migrates_with_every_row_unchanged(dir: &crate::util::Dir, version: i64) {
    let packed = std::fs::read(fixture(&format!("schema-v{version}.db.zst"))).unwrap();
    std::fs::write(dir.db(), zstd::decode_all(packed.as_slice()).unwrap()).unwrap();
    let before = {
        let old = rusqlite::Connection::open(dir.db()).unwrap();
        // Schema 10's views compute their FENs with the functions.
        chessgraph_store::functions::register(&old).unwrap();
        let found: i64 = old
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(found, version);
        dump(&old)
    };
    let empty: Vec<&str> = before
        .iter()
        .filter(|(table, rows)| rows.is_empty() && table != "label_failures")
        .map(|(table, _)| table.as_str())
        .collect();
    assert!(
        empty.is_empty(),
        "tables without rows in the fixture: {empty:?}"
    );

    // A reading command refuses the old schema; the first writing one migrates it.
    assert!(!dir.run(&["stats"]).status.success());
    dir.ok(&["analyze", "-q"]);
    let stats = dir.ok(&["stats"]);
    assert!(stats.contains("positions     929"), "{stats}");
    let conn = dir.sql();
    let after = dump(&conn);
    for ((table, old), (_, new)) in before.iter().zip(&after) {
        assert_eq!(old.len(), new.len(), "{table}: row count");
        for (o, n) in old.iter().zip(new) {
            assert_eq!(o, n, "{table}");
        }
    }
    // The input's FEN text is kept only where it differs from the normalized one.
    let kept = dir.int("SELECT count(*) FROM position_rows WHERE fen_input IS NOT NULL");
    let differ = dir.int("SELECT count(*) FROM positions WHERE fen <> fen_input");
    assert_eq!(kept, differ);
    assert!(kept > 0 && kept < 929, "{kept}");

    // Every row's stored key is its board's.
    assert_eq!(
        dir.int("SELECT count(*) FROM position_rows WHERE key IS NOT board_key(board)"),
        0
    );
    // The migrated positions are found by their key: importing the CSV they came from
    // again stores none of its first 300 rows twice.
    let out = dir.ok(&["import", &fixture("positions-2000.csv")]);
    assert!(out.contains("2000 rows read"), "{out}");
    let dup = dir.int("SELECT rows_duplicate FROM sources ORDER BY id DESC LIMIT 1");
    assert!(dup >= 300, "{dup} duplicates: {out}");
    assert_eq!(
        dir.int("SELECT count(*) FROM (SELECT board FROM position_rows GROUP BY board HAVING count(*) > 1)"),
        0
    );
    // Features and labels of the old rows are still there for the learning tools.
    dir.ok(&["analyze", "-q"]);
    let fit = dir.ok(&["fit", "linear"]);
    assert!(fit.contains("residual standard error"), "{fit}");
    let labelled = dir.int("SELECT count(*) FROM labels WHERE labeller = 'cg'");
    assert_eq!(labelled, 150);
}

cgtest!(
    a_schema_9_database_migrates_with_every_row_unchanged,
    |dir| {
        migrates_with_every_row_unchanged(&dir, 9);
    }
);

cgtest!(
    a_schema_10_database_migrates_with_every_row_unchanged,
    |dir| {
        migrates_with_every_row_unchanged(&dir, 10);
    }
);
