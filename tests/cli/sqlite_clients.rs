//! The database file is SQLite's, for any client: the distribution's `sqlite3` shell,
//! without chessgraph's functions, checks, vacuums, reindexes and deletes from the
//! tables of a database the CLI made (no index, trigger, CHECK or default calls a
//! chessgraph function), and chessgraph reads the result.

use std::path::Path;

use crate::cgtest;
use crate::util::fixture;

/// Runs `sql` in the `sqlite3` shell on `db`, with `args` before the file (`-csv`, a
/// `-cmd '.load …'`); its standard output, or a failure with both streams.
fn shell_with(sqlite3: &Path, args: &[String], db: &Path, sql: &str) -> String {
    let out = std::process::Command::new(sqlite3)
        .arg("-bail")
        .args(args)
        .arg(db)
        .arg(sql)
        .output()
        .expect("run sqlite3");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "sqlite3 {sql:?} failed: {}{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// [`shell_with`] without options: the plain shell, no extension.
fn shell(sqlite3: &Path, db: &Path, sql: &str) -> String {
    shell_with(sqlite3, &[], db, sql)
}

/// The test database with every kind of input imported and analyzed.
fn analyzed(dir: &crate::util::Dir) {
    for input in [
        "three-games.pgn",
        "positions-2000.csv",
        "lichess-evals.jsonl",
    ] {
        dir.run(&["import", "-q", &fixture(input)]);
    }
    dir.ok(&["analyze", "-q"]);
}

cgtest!(
    the_sqlite3_shell_maintains_a_database_without_the_functions,
    |dir| {
        let Some(sqlite3) = chessgraph_testkit::sqlite3() else {
            return;
        };
        analyzed(&dir);
        let db = dir.db();
        let before = dir.int("SELECT count(*) FROM position_rows");
        let tenths = dir.int("SELECT count(*) FROM position_rows WHERE id % 10 = 0");
        assert!(before > 2000, "{before}");

        assert_eq!(shell(&sqlite3, &db, "PRAGMA integrity_check").trim(), "ok");
        shell(&sqlite3, &db, "VACUUM");
        shell(&sqlite3, &db, "REINDEX");
        // The tables read, keys included, with no function.
        let first = shell(
            &sqlite3,
            &db,
            "SELECT count(*), sum(length(board) BETWEEN 9 AND 25), \
         sum(key BETWEEN 0 AND (1 << 47) - 1) FROM position_rows",
        );
        assert_eq!(
            first.trim(),
            format!("{before}|{before}|{before}"),
            "{first}"
        );
        let deleted = shell(
            &sqlite3,
            &db,
            "DELETE FROM position_rows WHERE id % 10 = 0; SELECT changes()",
        );
        let deleted: i64 = deleted.trim().parse().unwrap();
        assert_eq!(deleted, tenths);
        assert_eq!(shell(&sqlite3, &db, "PRAGMA integrity_check").trim(), "ok");

        // The views need the functions, and say so; chessgraph reads what the shell left.
        let out = std::process::Command::new(&sqlite3)
            .arg(&db)
            .arg("SELECT fen FROM positions LIMIT 1")
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("board_fen"),
            "{out:?}"
        );
        let stats = dir.ok(&["stats"]);
        assert!(
            stats.contains(&format!("positions     {}", before - deleted)),
            "{stats}"
        );
        // A position the shell deleted is imported again as a new one, found by its key.
        let out = dir.ok(&["import", &fixture("positions-2000.csv"), "--force"]);
        assert!(out.contains("2000 rows read"), "{out}");
        assert_eq!(
            dir.int(
                "SELECT count(*) FROM (SELECT board FROM position_rows GROUP BY board \
             HAVING count(*) > 1)"
            ),
            0
        );
    }
);

/// Parses CSV with a header into its records.
fn records(text: &str) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(str::to_owned).collect())
        .collect()
}

cgtest!(
    the_sqlite3_shell_with_the_extension_reads_every_view,
    |dir| {
        let (Some(sqlite3), Some(extension)) = (
            chessgraph_testkit::sqlite3(),
            chessgraph_testkit::sqlite_extension(),
        ) else {
            return;
        };
        analyzed(&dir);
        let db = dir.db();
        let views = [
            ("positions", "id"),
            ("features", "position_id"),
            ("labels", "labeller, position_id"),
            ("splits", "position_id"),
            ("square_pressure", "position_id, sq"),
        ];
        for (view, order) in views {
            let query = format!("SELECT * FROM {view} ORDER BY {order}");
            let ours = records(&dir.ok(&["sql", "--format", "csv", &query]));
            let load = format!(".load {}", extension.display());
            let args = ["-csv".into(), "-header".into(), "-cmd".into(), load];
            let theirs = records(&shell_with(&sqlite3, &args, &db, &query));
            assert!(ours.len() > 1, "{view}: no rows");
            assert_eq!(ours.len(), theirs.len(), "{view}: row count");
            for (a, b) in ours.iter().zip(&theirs) {
                assert_eq!(a, b, "{view}");
            }
        }
        // Writing through the view works there too: the trigger stores the key as chessgraph.
        shell_with(
            &sqlite3,
            &["-cmd".into(), format!(".load {}", extension.display())],
            &db,
            "INSERT INTO positions (fen, eval_cp, source_id, line) \
             VALUES ('8/8/8/8/8/8/8/K6k w - -', 0, 1, 0)",
        );
        assert_eq!(
            dir.int("SELECT count(*) FROM positions WHERE fen = '8/8/8/8/8/8/8/K6k w - -'"),
            1
        );
        assert_eq!(
            dir.int("SELECT count(*) FROM position_rows WHERE key IS NOT board_key(board)"),
            0
        );
    }
);
