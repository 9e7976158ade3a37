//! `chessgraph analyze` and `chessgraph stats` on a real fixture.

use crate::cgtest;
use crate::util::fixture;

cgtest!(every_position_gets_features_and_edges, |dir| {
    dir.ok(&[
        "import",
        &fixture("positions-2000.csv"),
        &fixture("three-games.pgn"),
    ]);
    let positions = dir.int("SELECT count(*) FROM positions");
    let out = dir.ok(&["analyze", "--chunk-size", "300"]);
    assert!(
        out.contains(&format!("analyzed {positions} positions")),
        "{out}"
    );
    assert_eq!(dir.int("SELECT count(*) FROM features"), positions);
    // Every edge belongs to a stored position; nearly every position has some (bare
    // endgames with no piece touching another have none).
    assert_eq!(
        dir.int("SELECT count(*) FROM edges WHERE position_id NOT IN (SELECT id FROM positions)"),
        0
    );
    let bare =
        dir.int("SELECT count(*) FROM positions WHERE id NOT IN (SELECT position_id FROM edges)");
    assert!(bare * 20 < positions, "{bare} positions without edges");
    assert_eq!(
        dir.int("SELECT sum(attackers + defenders) FROM square_pressure"),
        dir.int("SELECT count(*) FROM edges")
    );
    // Edges agree with the hanging-piece feature: a hanging white piece is a white non-king
    // target with attackers and no defenders.
    let from_edges = dir.int(
        "SELECT count(*) FROM square_pressure WHERE piece IN ('P','N','B','R','Q') AND attackers > 0 AND defenders = 0",
    );
    assert_eq!(
        from_edges,
        dir.int("SELECT sum(hanging_white) FROM features")
    );
    // Incremental: nothing left, nothing done.
    let again = dir.ok(&["analyze"]);
    assert!(again.contains("nothing to analyze"), "{again}");
    // Recompute gives the same numbers.
    let before = dir.int("SELECT sum(mobility * 7 + connectivity + king_safety * 3) FROM features");
    let edges = dir.int("SELECT count(*) FROM edges");
    dir.ok(&["analyze", "--recompute"]);
    assert_eq!(
        dir.int("SELECT sum(mobility * 7 + connectivity + king_safety * 3) FROM features"),
        before
    );
    assert_eq!(dir.int("SELECT count(*) FROM edges"), edges);
});

cgtest!(edge_queries_use_the_attack_index, |dir| {
    dir.ok(&["import", &fixture("positions-2000.csv")]);
    dir.ok(&["analyze"]);
    let conn = dir.sql();
    let plan: String = conn
        .query_row(
            "EXPLAIN QUERY PLAN SELECT DISTINCT position_id FROM edges WHERE attacker = 'P' AND target = 'q' AND kind = 'attack'",
            [],
            |r| r.get(3),
        )
        .unwrap();
    assert!(plan.contains("edges_attacks"), "{plan}");
});

cgtest!(stats_reports_counts_and_sources, |dir| {
    let missing = dir.run(&["stats"]);
    assert!(!missing.status.success());
    dir.ok(&["import", &fixture("positions-2000.csv")]);
    dir.ok(&["analyze"]);
    let out = dir.ok(&["stats"]);
    let positions = dir.int("SELECT count(*) FROM positions");
    assert!(out.contains(&format!("positions     {positions}")), "{out}");
    assert!(
        out.contains(&format!("analyzed      {positions} (0 not yet)")),
        "{out}"
    );
    assert!(out.contains("positions-2000.csv"), "{out}");
    let json = dir.ok(&["stats", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["positions"].as_i64(), Some(positions));
    assert_eq!(v["sources"][0]["rows_read"].as_i64(), Some(2000));
});

cgtest!(analyze_without_db_is_a_clear_error, |dir| {
    let out = dir.run(&["analyze"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("run `chessgraph import FILE` first"));
});

cgtest!(
    analyze_builds_the_attack_index_a_killed_run_dropped,
    |dir| {
        dir.ok(&["import", "-q", &fixture("positions-2000.csv")]);
        // A run killed between dropping the index and building it again leaves it missing.
        dir.ok(&["analyze", "-q"]);
        let index = "SELECT count(*) FROM sqlite_schema WHERE name = 'edges_attacks'";
        dir.sql().execute_batch("DROP INDEX edges_attacks").unwrap();
        dir.ok(&["import", "-q", &fixture("bestmoves-1500.epd")]);
        dir.ok(&["analyze", "-q"]);
        assert_eq!(dir.int(index), 1);
        // Also when nothing is left to analyze.
        dir.sql().execute_batch("DROP INDEX edges_attacks").unwrap();
        let out = dir.ok(&["analyze", "-q"]);
        assert!(out.contains("nothing to analyze"), "{out}");
        assert_eq!(dir.int(index), 1);
    }
);
