//! The product as a new user meets it: defaults, messages, exit codes, output wording.

use crate::cgtest;
use crate::util::{Dir, fixture};

/// Runs a command that must fail with exit code 1; returns its stderr.
fn fails(dir: &Dir, args: &[&str]) -> String {
    let out = dir.run(args);
    assert_eq!(
        out.status.code(),
        Some(1),
        "chessgraph {args:?} should exit 1:\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stderr).unwrap()
}

/// A database holding a few positions.
fn small_db(dir: &Dir) {
    dir.create(
        "p.csv",
        "fen,eval\n\
         rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1,30\n\
         rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2,20\n",
    );
    dir.ok(&["import", "p.csv"]);
}

cgtest!(
    the_engine_plays_and_is_measured_with_nnue_by_default,
    |dir| {
        small_db(&dir);
        let out = dir.ok(&["rate", "evaluator", "--input", "p.csv", "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v[0]["evaluator"], "nnue", "{v}");
        dir.ok(&["bench", "--depth", "1", "--json"]);
        let label: String = dir
            .sql()
            .query_row("SELECT label FROM runs WHERE kind = 'bench'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(label, "evaluator nnue");
        for command in ["bench", "datagen", "eval", "solve"] {
            let help = String::from_utf8(dir.run(&["help", command]).stdout).unwrap();
            assert!(help.contains("nnue"), "help {command}:\n{help}");
            assert!(
                !help.contains("[default: seed003]"),
                "help {command}:\n{help}"
            );
        }
        let solve = String::from_utf8(dir.run(&["help", "solve"]).stdout).unwrap();
        assert!(
            solve.contains("seed003, the graph-features study's evaluator"),
            "{solve}"
        );
    }
);

cgtest!(match_passes_its_db_to_chessgraph_engines, |dir| {
    small_db(&dir);
    dir.ok(&["export", "evaluator", "material", "--out", "m.json"]);
    let json = std::fs::read_to_string(dir.path().join("m.json")).unwrap();
    dir.sql()
        .execute(
            "INSERT INTO evaluators (name, json, created_at) VALUES ('mine', ?1, 'now')",
            [&json],
        )
        .unwrap();
    let out = dir.ok(&[
        "match",
        "--engine1",
        "chessgraph engine --evaluator mine",
        "--engine2",
        "chessgraph engine --evaluator material",
        "--games",
        "2",
        "--nodes",
        "100",
        "--max-moves",
        "20",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["failures"], serde_json::json!([0, 0]), "{v}");
});

cgtest!(
    a_solve_that_reads_no_puzzle_fails_and_stores_nothing,
    |dir| {
        small_db(&dir);
        let out = dir.run(&[
            "solve",
            "--input",
            &fixture("lichess-puzzles.csv"),
            "--min-rating",
            "5000",
        ]);
        assert_eq!(out.status.code(), Some(1));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(!stdout.contains("0/0"), "{stdout}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("no puzzle could be read from") && err.contains("outside --min-rating"),
            "{err}"
        );
        assert_eq!(dir.int("SELECT count(*) FROM runs WHERE kind = 'solve'"), 0);
    }
);

cgtest!(
    train_warns_with_fewer_positions_than_weights_and_prints_plain_numbers,
    |dir| {
        dir.ok(&["import", &fixture("positions-2000.csv")]);
        let out = dir.run(&[
            "train", "--hidden", "4", "--epochs", "1", "--out", "t.nnue", "--quiet",
        ]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(
            err.contains("chessgraph: warning: only") && err.contains("9229 weights"),
            "{err}"
        );
        assert!(stdout.contains("1 output bucket)"), "{stdout}");
        assert!(stdout.contains("lr 0.001 → 0.00005 (cosine)"), "{stdout}");
    }
);

cgtest!(datagen_names_endings_in_words, |dir| {
    let out = dir.ok(&[
        "datagen",
        "--games",
        "1",
        "--nodes",
        "50",
        "--threads",
        "1",
        "--evaluator",
        "material",
        "--max-plies",
        "30",
    ]);
    let endings = out
        .lines()
        .find(|l| l.starts_with("game endings: "))
        .expect("endings line");
    assert!(
        endings.chars().skip(14).all(|c| !c.is_uppercase()),
        "{endings}"
    );
    assert!(out.contains("1 game in"), "{out}");
    assert!(out.contains("the source now holds 1 game,"), "{out}");
});

cgtest!(failures_exit_1_and_usage_errors_exit_2, |dir| {
    let out = dir.run(&["stats", "--no-such-flag"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error:") && err.contains("Usage:"), "{err}");
    let err = fails(&dir, &["stats"]);
    assert!(
        err.starts_with("chessgraph: error: no database at"),
        "{err}"
    );
});

cgtest!(messages_say_what_is_wrong_once, |dir| {
    // An illegal position's reason is said once.
    let f = dir.create(
        "ill.csv",
        "fen,eval\n\
         4k3/8/8/8/8/8/8/R3K2R b - - 0 1,3\n\
         4k3/4R3/8/8/8/8/4r3/4K3 w - - 0 1,5\n",
    );
    let out = dir.ok(&["import", f.to_str().unwrap()]);
    assert!(out.contains("illegal position: opposite check"), "{out}");
    assert!(!out.contains("illegal position: illegal position"), "{out}");
    // Standard input without --format: one error, the file named once.
    let out = dir.run_stdin(&["import", "-"], b"garbage\n");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("chessgraph: error: -: cannot tell the format"),
        "{err}"
    );
});

cgtest!(import_of_nothing_creates_no_database, |dir| {
    let err = fails(&dir, &["import", "nosuch.csv"]);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cannot open nosuch.csv"), "{err}");
    assert!(!dir.db().exists(), "an empty database was left behind");
});

cgtest!(a_directory_as_db_is_named_a_directory, |dir| {
    std::fs::create_dir(dir.path().join("somedir")).unwrap();
    for args in [&["stats"][..], &["import", &fixture("positions-2000.csv")]] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_chessgraph"))
            .current_dir(dir.path())
            .arg("--db")
            .arg("somedir")
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("somedir is a directory"), "{args:?}: {err}");
        assert!(!err.contains("disk I/O"), "{err}");
    }
});

cgtest!(a_damaged_network_file_says_so, |dir| {
    dir.create("bad.nnue", "garbage");
    dir.create("cut.nnue", b"CGNNUE\r\nxx");
    dir.create("bad.json", "{\"a\":");
    let input = dir.create("p.csv", "fen,eval\n8/8/8/8/8/8/8/K1k5 w - - 0 1,0\n");
    let input = input.to_str().unwrap();
    for (file, what) in [
        ("bad.nnue", "not a chessgraph network file"),
        ("cut.nnue", "damaged network file: truncated"),
        ("bad.json", "not a chessgraph evaluator file"),
    ] {
        let err = fails(
            &dir,
            &["rate", "evaluator", "--evaluator", file, "--input", input],
        );
        assert!(err.contains(what) && !err.contains("invalid JSON"), "{err}");
        assert_eq!(err.matches(file).count(), 2, "{err}");
    }
});

cgtest!(
    long_commands_end_with_a_summary_line_in_whole_numbers,
    |dir| {
        dir.ok(&["import", &fixture("positions-2000.csv")]);
        let out = dir.run(&["analyze"]);
        assert!(out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        let line = err
            .lines()
            .find(|l| l.starts_with("analyze: "))
            .unwrap_or_else(|| panic!("no summary line: {err}"));
        let rate = line.rsplit_once('(').unwrap().1;
        assert!(
            rate.ends_with(" positions/s)") && !rate.contains('.'),
            "{line}"
        );
        assert!(line.contains("1,821 positions in"), "{line}");
        // --quiet shows nothing.
        let out = dir.run(&["analyze", "--recompute", "--quiet"]);
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
);

cgtest!(
    tournament_prints_periodic_lines_when_stderr_is_not_a_terminal,
    |dir| {
        let out = dir
            .command(&[
                "tournament",
                "--player",
                "engine",
                "--player",
                "random:seed=2",
                "--games",
                "2",
                "--movetime",
                "40",
                "--max-moves",
                "10",
            ])
            .env("CHESSGRAPH_PROGRESS_SECS", "0.2")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        let periodic = err
            .lines()
            .filter(|l| l.starts_with("tournament: ") && l.contains(" s, "))
            .count();
        assert!(periodic >= 2, "{err}");
        assert!(err.contains("tournament: 2 games in"), "{err}");
    }
);

cgtest!(help_is_plain_words_and_says_when_the_db_is_created, |dir| {
    let commands = [
        "import",
        "analyze",
        "stats",
        "fit",
        "tune",
        "datagen",
        "label",
        "train",
        "eval",
        "rate",
        "export",
        "heatmap",
        "engine",
        "bench",
        "solve",
        "match",
        "tournament",
        "report",
    ];
    for command in commands {
        let help = String::from_utf8(dir.run(&[command, "--help"]).stdout).unwrap();
        assert!(
            !help.contains("[`") && !help.contains("super::") && !help.contains("crate::"),
            "{command}: {help}"
        );
        let db = help
            .lines()
            .find(|l| l.trim_start().starts_with("--db"))
            .unwrap();
        assert!(!db.contains("created if missing"), "{command}: {db}");
    }
});

cgtest!(stats_sources_table_stays_aligned, |dir| {
    dir.ok(&["import", &fixture("positions-2000.csv")]);
    dir.ok(&["import", &fixture("lichess-evals.jsonl")]);
    let out = dir.ok(&["stats"]);
    let table: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("id format"))
        .take(3)
        .collect();
    assert_eq!(table.len(), 3, "{out}");
    let path_at = table[0].find("  path").unwrap();
    for row in &table[1..] {
        assert_eq!(
            row.find("  /").or(row.find("  positions")),
            Some(path_at),
            "{out}"
        );
    }
});

cgtest!(match_and_tournament_share_max_moves, |dir| {
    for command in ["match", "tournament"] {
        let help = String::from_utf8(dir.run(&[command, "--help"]).stdout).unwrap();
        let line = help
            .lines()
            .find(|l| l.trim_start().starts_with("--max-moves"))
            .unwrap_or_else(|| panic!("{command}: {help}"));
        assert!(line.contains("moves (of each side)"), "{line}");
        assert!(!help.contains("--max-plies"), "{help}");
    }
});
