//! Engine command lines (`label --engine`, `match --engine1/2`, `tournament --engine`):
//! shell quoting, and `chessgraph` as this program on the command's own database.

use std::process::{Command, Output};

use crate::cgtest;
use crate::nnue::{SCORE_BY_LENGTH, labeller};
use crate::util::Dir;

/// Runs `chessgraph --db DB ARGS` in `dir` (a database other than the harness's).
fn run_on(dir: &Dir, db: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chessgraph"))
        .current_dir(dir.path())
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .expect("run chessgraph")
}

fn assert_ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "failed:\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

cgtest!(label_runs_chessgraph_on_the_commands_db, |dir| {
    dir.create(
        "p.csv",
        "fen,eval\n\
         rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1,30\n\
         rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2,20\n",
    );
    assert_ok(&run_on(&dir, "other.db", &["import", "p.csv"]));
    assert_ok(&run_on(
        &dir,
        "other.db",
        &["export-evaluator", "material", "--out", "m.json"],
    ));
    // `mine` is stored in other.db only: an engine on ./chessgraph.db (the default) or any
    // other `chessgraph` on PATH cannot load it.
    let json = std::fs::read_to_string(dir.path().join("m.json")).unwrap();
    rusqlite::Connection::open(dir.path().join("other.db"))
        .unwrap()
        .execute(
            "INSERT INTO evaluators (name, json, created_at) VALUES ('mine', ?1, 'now')",
            [&json],
        )
        .unwrap();
    let out = assert_ok(&run_on(
        &dir,
        "other.db",
        &[
            "label",
            "--engine",
            "chessgraph engine --evaluator mine",
            "--name",
            "mine-d1",
            "--depth",
            "1",
            "--jobs",
            "1",
            "--quiet",
        ],
    ));
    assert!(out.contains("labelled 2 positions as mine-d1"), "{out}");
    assert!(!dir.path().join("chessgraph.db").exists());
});

cgtest!(an_engine_path_with_a_space_is_quoted, |dir| {
    dir.ok(&["import", &crate::util::fixture("three-games.pgn")]);
    std::fs::create_dir(dir.path().join("my engines")).unwrap();
    let engine = labeller(&dir, "my engines/fake.sh", SCORE_BY_LENGTH);
    let quoted = format!("\"{engine}\"");
    let out = dir.ok(&[
        "label", "--engine", &quoted, "--limit", "3", "--jobs", "1", "--quiet",
    ]);
    // Named by the program's file name, as without quotes.
    assert!(out.contains("labelled 3 positions as fake.sh"), "{out}");
});

cgtest!(an_unclosed_quote_names_the_flag, |dir| {
    dir.ok(&["import", &crate::util::fixture("three-games.pgn")]);
    let cases: [&[&str]; 3] = [
        &["label", "--engine", "\"/my engines/sf"],
        &["match", "--engine2", "'/my engines/sf"],
        &[
            "tournament",
            "--engine",
            "sf=\"/my engines/sf",
            "--engine",
            "b=sf",
        ],
    ];
    for args in cases {
        let out = dir.run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(args[1]), "{args:?}: {err}");
        assert!(err.contains("a quote is not closed"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
});
