//! `chessgraph report` on a real fixture: the numbers it prints are the database's.

use crate::cgtest;
use crate::util::fixture;

cgtest!(report_shows_data_and_fits_from_the_database, |dir| {
    let missing = dir.run(&["report"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no database"));

    dir.ok(&["import", &fixture("positions-2000.csv")]);
    dir.ok(&["analyze"]);
    let md = dir.ok(&["report"]);
    let positions = dir.int("SELECT count(*) FROM positions");
    let group = |n: i64| {
        let s = n.to_string();
        if s.len() > 3 {
            format!("{},{}", &s[..s.len() - 3], &s[s.len() - 3..])
        } else {
            s
        }
    };
    assert!(
        md.contains(&format!("{} positions", group(positions))),
        "{md}"
    );
    assert!(!md.contains("## Fits"), "no fit stored yet:\n{md}");

    // A stored fit appears with its coefficients, as stored.
    dir.ok(&["fit", "linear", "--where", "1", "--material"]);
    let estimate: String = dir
        .sql()
        .query_row("SELECT coefficients FROM fits", [], |r| r.get(0))
        .unwrap();
    let coefs: serde_json::Value = serde_json::from_str(&estimate).unwrap();
    let out = dir.path().join("report.md");
    dir.ok(&["report", "--out", out.to_str().unwrap(), "--heatmaps", "hm"]);
    let md = std::fs::read_to_string(&out).unwrap();
    assert!(
        md.contains("## Fits") && md.contains("linear on `eval_cp`"),
        "{md}"
    );
    for c in coefs.as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        assert!(
            md.contains(&format!("| {name} | ")),
            "{name} missing:\n{md}"
        );
    }
    assert!(md.contains("![heatmaps](hm/grid.png)"), "{md}");
});

cgtest!(report_shows_solve_and_bench_runs, |dir| {
    // Measuring commands record into an existing database only.
    dir.ok(&["solve", "--input", &fixture("puzzles-games.pgn")]);
    assert!(!dir.db().exists());
    dir.sql()
        .execute_batch("CREATE TABLE scratch (x); DROP TABLE scratch;")
        .unwrap();
    dir.ok(&["solve", "--input", &fixture("puzzles-games.pgn")]);
    dir.ok(&["bench", "--depth", "3", "--evaluator", "seed003"]);
    let md = dir.ok(&["report"]);
    // A compact table of file names: no absolute paths, no column per summary key.
    assert!(
        md.contains("## Puzzles") && md.contains("| puzzles-games.pgn | engine"),
        "{md}"
    );
    let puzzles = md.split("## Puzzles").nth(1).unwrap();
    let header = puzzles.lines().find(|l| l.starts_with('|')).unwrap();
    assert_eq!(header.matches('|').count(), 8, "{header}");
    let root = chessgraph_testkit::repo_root().display().to_string();
    assert!(!puzzles.contains(&root), "{md}");
    // report --out says what it wrote.
    let said = dir.ok(&["report", "--out", "r.md"]);
    assert!(said.starts_with("wrote r.md ("), "{said}");
    assert!(
        md.contains("## Engine benchmark") && md.contains("evaluator seed003"),
        "{md}"
    );
    assert_eq!(dir.int("SELECT count(*) FROM runs"), 2);
});

cgtest!(reading_commands_leave_no_wal_side_files, |dir| {
    dir.ok(&["import", &fixture("positions-2000.csv")]);
    let side = |ext: &str| dir.path().join(format!("test.db-{ext}"));
    assert!(!side("wal").exists() && !side("shm").exists());
    // `report` ends scripts/run-sample.sh; `stats` and `heatmap` read the same way.
    for args in [&["report"][..], &["stats"]] {
        dir.ok(args);
        assert!(!side("wal").exists(), "{args:?} left test.db-wal");
        assert!(!side("shm").exists(), "{args:?} left test.db-shm");
    }
});
