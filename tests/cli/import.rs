//! `chessgraph import`: formats, bad input, duplicates, and a killed import.

use crate::cgtest;
use crate::util::Dir;
use crate::util::fixture;
use crate::util::shared;
use std::io::Write;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
const E4E5: &str = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2";

/// Rejects as (line, reason) pairs, in line order.
fn rejects(dir: &Dir) -> Vec<(i64, String)> {
    let conn = dir.sql();
    let mut stmt = conn
        .prepare("SELECT line, reason FROM import_errors ORDER BY line")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

cgtest!(csv_fixture_accounts_for_every_row, |dir| {
    let out = dir.ok(&["import", &fixture("positions-2000.csv")]);
    assert!(out.contains("2000 rows read"), "{out}");
    let (read, imported, dup, rejected) = {
        let c = dir.sql();
        c.query_row(
            "SELECT rows_read, rows_imported, rows_duplicate, rows_rejected FROM sources",
            [],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(3)?,
                ))
            },
        )
        .unwrap()
    };
    assert_eq!(read, 2000);
    assert_eq!(imported + dup + rejected, read);
    assert_eq!(rejected, 0);
    assert_eq!(dir.int("SELECT count(*) FROM positions"), imported);
    // The first data row: r1bqkbnr/... b KQkq - 0 5,+34
    assert_eq!(
        dir.int("SELECT eval_cp FROM positions WHERE line = 2"),
        34,
        "first row's evaluation"
    );
    assert!(dir.int("SELECT count(*) FROM positions WHERE mate IS NOT NULL") > 0);
});

cgtest!(same_file_twice_adds_nothing, |dir| {
    let f = fixture("positions-2000.csv");
    dir.ok(&["import", &f]);
    let before = dir.int("SELECT count(*) FROM positions");
    let out = dir.ok(&["import", &f]);
    assert!(out.contains("already imported"), "{out}");
    assert_eq!(dir.int("SELECT count(*) FROM positions"), before);
    assert_eq!(dir.int("SELECT count(*) FROM sources"), 1);
    // Forced: read again, everything a duplicate.
    let out = dir.ok(&["import", "--force", &f]);
    assert!(out.contains("0 imported, 2000 duplicates"), "{out}");
    assert_eq!(dir.int("SELECT count(*) FROM positions"), before);
});

cgtest!(normalized_fen_makes_duplicates, |dir| {
    // Same position with other counters and a useless en passant square.
    let text = format!(
        "FEN,Evaluation\n{E4},+30\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 3 9,+31\n"
    );
    let f = dir.create("dups.csv", text);
    let out = dir.ok(&["import", f.to_str().unwrap()]);
    assert!(out.contains("1 imported, 1 duplicates"), "{out}");
    let fen: String = dir
        .sql()
        .query_row("SELECT fen FROM positions", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        fen,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -"
    );
});

cgtest!(bad_input_is_reported_by_line_and_good_rows_kept, |dir| {
    let long = "x".repeat(100_000);
    let lines = [
        "\u{feff}FEN,Evaluation".to_owned(), // 1 header with BOM
        format!("{START},+10"),              // 2 ok
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1,+5".into(), // 3 invalid FEN
        "4k3/8/8/8/8/8/4R3/4K3 w - - 0 1,+500".into(), // 4 side not to move in check
        "4k3/8/8/8/8/8/8/P3K3 w - - 0 1,+100".into(), // 5 pawn on first rank
        "4k3/8/8/8/8/8/8/3KK3 w - - 0 1,0".into(), // 6 two white kings
        format!("{E4},+abc"),                // 7 bad evaluation
        format!("{E4},#"),                   // 8 bad mate
        String::new(),                       // 9 empty line (skipped)
        format!("{E4E5},-20\r"),             // 10 CRLF, ok
        format!("{long},+1"),                // 11 very long line
        format!("{E4},#-2"),                 // 12 ok, mate
    ];
    let f = dir.create("bad.csv", lines.join("\n") + "\n");
    let out = dir.ok(&["import", f.to_str().unwrap()]);
    assert!(
        out.contains("10 rows read, 3 imported, 0 duplicates, 7 rejected"),
        "{out}"
    );
    let got = rejects(&dir);
    let lines_and_starts: Vec<(i64, &str)> = got
        .iter()
        .map(|(l, r)| (*l, r.split(':').next().unwrap()))
        .collect();
    assert_eq!(
        lines_and_starts,
        [
            (3, "invalid FEN"),
            (4, "illegal position"),
            (5, "illegal position"),
            (6, "illegal position"),
            (
                7,
                "bad evaluation \"+abc\" (expected centipawns like +56, or a mate score like #-2)"
            ),
            (
                8,
                "bad evaluation \"#\" (expected centipawns like +56, or a mate score like #-2)"
            ),
            (11, "invalid FEN"),
        ]
    );
    // The very long line's text is cut.
    let text_len = dir.int("SELECT length(text) FROM import_errors WHERE line = 11");
    assert!(text_len <= 201, "{text_len}");
    assert_eq!(dir.int("SELECT mate FROM positions WHERE line = 12"), -2);
    assert_eq!(
        dir.int("SELECT eval_cp FROM positions WHERE line = 10"),
        -20
    );
    // Printed with file and line.
    assert!(out.contains("bad.csv:3: invalid FEN"), "{out}");
});

cgtest!(different_header_is_reported_and_rows_read, |dir| {
    let f = dir.create("h.csv", format!("position;score\n{START},+10\n"));
    let out = dir.ok(&["import", f.to_str().unwrap()]);
    assert!(out.contains("1 imported"), "{out}");
    assert_eq!(rejects(&dir)[0].0, 1);
    assert!(rejects(&dir)[0].1.starts_with("unrecognized header"));
    // Missing header: the first line is data.
    let dir2 = Dir::new();
    let f = dir2.create("n.csv", format!("{START},+10\n{E4},+20\n"));
    let out = dir2.ok(&["import", f.to_str().unwrap()]);
    assert!(out.contains("2 rows read, 2 imported"), "{out}");
});

cgtest!(a_truncated_file_is_an_error_and_resumable, |dir| {
    let source = std::fs::read_to_string(fixture("positions-2000.csv")).unwrap();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(source.as_bytes()).unwrap();
    let gz = enc.finish().unwrap();
    let f = dir.create("p.csv.gz", &gz[..gz.len() * 2 / 3]);
    let out = dir.run(&["import", "--batch-size", "100", f.to_str().unwrap()]);
    // A corrupt archive is not a good import with one bad row: the file fails.
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("breaks at line") && err.contains("p.csv.gz"),
        "{err}"
    );
    // The rows read before the break are kept; the source stays unfinished.
    let kept = dir.int("SELECT count(*) FROM positions");
    assert!(kept > 0 && kept < 2000, "{kept} rows kept");
    assert_eq!(
        dir.int("SELECT count(*) FROM sources WHERE finished_at IS NULL"),
        1
    );
    // The complete file, put in its place, completes the data without duplicating rows.
    std::fs::write(&f, &gz).unwrap();
    dir.ok(&["import", f.to_str().unwrap()]);
    let rows =
        dir.int("SELECT rows_imported + rows_duplicate FROM sources ORDER BY id DESC LIMIT 1");
    assert_eq!(rows, 2000);
    let distinct = dir.int("SELECT count(DISTINCT fen) FROM positions");
    assert_eq!(distinct, dir.int("SELECT count(*) FROM positions"));
});

/// The counters of the only source, and what the positions and rejects tables hold.
fn import_state(dir: &Dir) -> Vec<i64> {
    [
        "SELECT count(*) FROM sources",
        "SELECT count(*) FROM sources WHERE finished_at IS NULL",
        "SELECT sum(rows_read) FROM sources",
        "SELECT sum(rows_imported) FROM sources",
        "SELECT sum(rows_duplicate) FROM sources",
        "SELECT sum(rows_rejected) FROM sources",
        "SELECT count(*) FROM positions",
        "SELECT coalesce(sum(line), 0) + coalesce(sum(eval_cp), 0) + coalesce(sum(mate), 0) FROM positions",
        "SELECT count(*) FROM import_errors",
    ]
    .iter()
    .map(|q| dir.int(q))
    .collect()
}

cgtest!(
    a_truncated_zst_keeps_every_row_read_and_the_complete_file_resumes,
    |dir| {
        let Some(data) = shared("positions-200k.csv.zst") else {
            return;
        };
        // The first 120,000 lines: more than two 50,000-row batches.
        let text = zstd::decode_all(std::fs::File::open(data).unwrap()).unwrap();
        let end = text
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .nth(119_999)
            .map(|(i, _)| i + 1)
            .unwrap();
        let z = zstd::encode_all(&text[..end], 3).unwrap();
        let f = dir.create("p.csv.zst", &z[..z.len() * 3 / 4]);
        let name = f.to_str().unwrap();

        let out = dir.run(&["import", name]);
        assert!(!out.status.success(), "a truncated file imported");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("p.csv.zst"), "{err}");
        let line: i64 = err
            .split("breaks at line ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no line in: {err}"));
        // Every row read before the break is kept, not only the committed batches: rows on
        // lines 2 (after the header) up to the break, each counted once.
        let state = import_state(&dir);
        let read = state[2];
        assert!(read > 60_000, "{read} rows kept of a break at line {line}");
        assert_eq!(state[3] + state[4] + state[5], read);
        assert_eq!(state[6], state[3], "positions stored against imported");
        assert_eq!(
            dir.int("SELECT max(line) FROM positions"),
            line - 1,
            "the last row before the break at line {line}"
        );
        assert_eq!(state[1], 1, "the source stays unfinished");

        // The complete file in its place resumes that source and finishes it, with what a
        // clean import of it stores.
        std::fs::write(&f, &z).unwrap();
        let out = dir.ok(&["import", name]);
        assert!(out.contains("[resumed an unfinished import]"), "{out}");
        let clean = Dir::new();
        let g = clean.create("p.csv.zst", &z);
        clean.ok(&["import", g.to_str().unwrap()]);
        let want = import_state(&clean);
        assert_eq!(want[0..3], [1, 0, 119_999]);
        assert_eq!(import_state(&dir), want);
    }
);

cgtest!(files_that_yield_nothing_fail_and_leave_no_games, |dir| {
    let empty = dir.create("empty.csv", "");
    let out = dir.run(&["import", empty.to_str().unwrap()]);
    assert!(!out.status.success(), "an empty file imported");
    let out = dir.run(&["import", "--format", "pgn", "/bin/ls"]);
    assert!(!out.status.success(), "a binary imported as PGN");
    assert_eq!(dir.int("SELECT count(*) FROM games"), 0, "a phantom game");
    // Mate in 0 is only true of a checkmated side to move.
    let m = dir.create(
        "m.csv",
        "FEN,Evaluation\n4k3/8/8/8/8/8/8/4K2R w K - 0 1,#0\n\
         4k3/8/8/8/8/8/8/4K2R w K - 0 1,#-0\n\
         R3k3/8/4K3/8/8/8/8/8 b - - 0 1,#-0\n",
    );
    let out = dir.ok(&["import", m.to_str().unwrap()]);
    assert!(
        out.contains("1 imported") && out.contains("2 rejected"),
        "{out}"
    );
    assert!(
        out.contains("mate in 0 but the side to move is not checkmated"),
        "{out}"
    );
});

cgtest!(zstd_and_stdin, |dir| {
    let source = std::fs::read(fixture("positions-2000.csv")).unwrap();
    let z = zstd::encode_all(source.as_slice(), 3).unwrap();
    let f = dir.create("p.csv.zst", z);
    dir.ok(&["import", f.to_str().unwrap()]);
    let n = dir.int("SELECT count(*) FROM positions");
    let other = Dir::new();
    let out = other.run_stdin(&["import", "--format", "csv", "-"], &source);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(other.int("SELECT count(*) FROM positions"), n);
    assert_eq!(other.int("SELECT compression = 'none' FROM sources"), 1);
    assert_eq!(dir.int("SELECT compression = 'zstd' FROM sources"), 1);
});

cgtest!(pgn_rows_have_game_ply_and_result, |dir| {
    let out = dir.ok(&["import", &fixture("three-games.pgn")]);
    assert!(out.contains("3 games"), "{out}");
    assert_eq!(dir.int("SELECT count(*) FROM games"), 3);
    assert_eq!(dir.int("SELECT rows_read FROM sources"), 210);
    assert_eq!(
        dir.int("SELECT count(*) FROM positions WHERE game_id IS NULL OR ply IS NULL"),
        0
    );
    // Results come from the tags: one game of each kind.
    for r in ["1-0", "0-1", "1/2-1/2"] {
        let n = dir.int(&format!(
            "SELECT count(DISTINCT game_id) FROM positions WHERE result = '{r}'"
        ));
        assert_eq!(n, 1, "{r}");
    }
    // The first game starts from a set-up FEN: ply 1 is the position after 7. h3.
    let fen: String = dir
        .sql()
        .query_row(
            "SELECT fen FROM positions WHERE ply = 1 ORDER BY id LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        fen,
        "r1bq1rk1/pppnbppp/4pn2/3p2B1/2PP4/2N1PN1P/PP3PP1/R2QKB1R b KQ -"
    );
    assert_eq!(
        dir.int("SELECT eval_cp FROM positions WHERE ply = 1 ORDER BY id LIMIT 1"),
        32
    );
});

cgtest!(pgn_after_csv_fills_in_results, |dir| {
    let csv = format!("FEN,Evaluation\n{E4},+30\n");
    let f = dir.create("a.csv", csv);
    dir.ok(&["import", f.to_str().unwrap()]);
    let pgn =
        "[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 { [%eval 0.3] } 1... e5 { [%eval 0.2] } 1-0\n";
    let g = dir.create("b.pgn", pgn);
    let out = dir.ok(&["import", g.to_str().unwrap()]);
    assert!(
        out.contains("2 rows read, 1 imported, 1 duplicates"),
        "{out}"
    );
    assert_eq!(
        dir.int("SELECT count(*) FROM positions WHERE result = '1-0'"),
        2
    );
    // The label stays the first one.
    assert_eq!(
        dir.int("SELECT eval_cp FROM positions WHERE line = 2 AND source_id = 1"),
        30
    );
});

cgtest!(epd_with_ce_dm_and_result, |dir| {
    let epd = "4k3/8/8/8/8/8/4P3/4K3 b - - ce -150; c9 \"1-0\";\n\
               4k3/8/8/8/8/8/4P3/4K3 w - - dm 12; id \"kpk\";\n\
               4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 ce 20;\n\
               garbage line\n";
    let f = dir.create("p.epd", epd);
    let out = dir.ok(&["import", f.to_str().unwrap()]);
    assert!(
        out.contains("4 rows read, 2 imported, 1 duplicates, 1 rejected"),
        "{out}"
    );
    assert_eq!(dir.int("SELECT eval_cp FROM positions WHERE line = 1"), 150);
    assert_eq!(
        dir.int("SELECT result = '1-0' FROM positions WHERE line = 1"),
        1
    );
    assert_eq!(dir.int("SELECT mate FROM positions WHERE line = 2"), 12);
    assert_eq!(rejects(&dir)[0].0, 4);
});

cgtest!(nothing_readable_fails, |dir| {
    let f = dir.create("junk.csv", "hello\nworld\n");
    let out = dir.run(&["import", f.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nothing could be read from"), "{err}");
    let missing = dir.run(&["import", "does-not-exist.csv"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("does-not-exist.csv"));
    let unknown = dir.run(&["import", f.with_extension("txt").to_str().unwrap()]);
    assert!(!unknown.status.success());
});

cgtest!(unwritable_database_fails, |dir| {
    std::fs::create_dir(dir.path().join("adir")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_chessgraph"))
        .args([
            "--db",
            dir.path().join("adir").to_str().unwrap(),
            "import",
            &fixture("positions-2000.csv"),
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("adir is a directory"));
});

/// Positions, games, rejects and source counters: what "the same DB" means here.
fn dump(dir: &Dir) -> Vec<String> {
    let mut out = Vec::new();
    for sql in [
        "SELECT id, fen, fen_input, eval_cp, mate, source_id, line, game_id, ply, result FROM positions ORDER BY id",
        "SELECT source_id, line, text, reason FROM import_errors ORDER BY source_id, line",
        "SELECT id, rows_read, rows_imported, rows_duplicate, rows_rejected, finished_at IS NOT NULL FROM sources ORDER BY id",
    ] {
        out.extend(dir.rows(sql));
    }
    out
}

cgtest!(killed_import_resumes_to_the_same_db, |dir| {
    // The fixture plus bad rows and duplicates, so every counter is exercised.
    let mut text = std::fs::read_to_string(fixture("positions-2000.csv")).unwrap();
    text.push_str("not a fen,+1\n");
    text.push_str(&format!("{START},+3\n{START},+4\n"));
    let f = dir.create("big.csv", &text);
    let f = f.to_str().unwrap();

    // Stopped right after its third batch of 100 rows is committed, then SIGKILLed.
    let mut child = dir.spawn_paused_after_batch(&["import", "--batch-size", "100", f], 3);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(
        dir.int("SELECT count(*) FROM sources WHERE finished_at IS NULL"),
        1
    );
    assert_eq!(dir.int("SELECT rows_read FROM sources"), 300);
    // What the first 300 rows hold once their duplicates are dropped: the same each run.
    assert_eq!(dir.int("SELECT count(*) FROM positions"), 295);

    let out = dir.ok(&["import", "--batch-size", "100", f]);
    assert!(out.contains("resumed"), "{out}");

    let reference = Dir::new();
    reference.ok(&["import", f]);
    assert_eq!(dump(&dir), dump(&reference));
});

/// Runs `chessgraph ARGS` with both stdout and stderr closed at once by the reader: the
/// command must end without a panic (exit 101), whatever it was printing.
fn run_with_closed_pipes(dir: &Dir, args: &[&str]) -> std::process::ExitStatus {
    let mut child = dir
        .command(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn chessgraph");
    drop(child.stdout.take());
    drop(child.stderr.take());
    child.wait().expect("wait chessgraph")
}

cgtest!(closed_pipes_never_panic, |dir| {
    dir.ok(&["import", &fixture("three-games.pgn")]);
    let bad = dir.create("bad.csv", "FEN,Evaluation\nnot a fen,1\n".repeat(200));
    for args in [
        vec!["stats"],
        vec!["import", bad.to_str().unwrap()],
        vec!["solve", "--input", "/bin/ls"],
        vec![
            "rate",
            "evaluator",
            "--evaluator",
            "material",
            "--part",
            "all",
        ],
        vec!["bench", "--depth", "2"],
    ] {
        let status = run_with_closed_pipes(&dir, &args);
        assert_ne!(status.code(), Some(101), "chessgraph {args:?} panicked");
    }
});

cgtest!(someone_elses_sqlite_file_is_refused_untouched, |dir| {
    let path = dir.path().join("other.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE foo (x); INSERT INTO foo VALUES (1);")
            .unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    for args in [vec!["stats"], vec!["import", &fixture("three-games.pgn")]] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_chessgraph"))
            .current_dir(dir.path())
            .args(["--db", path.to_str().unwrap()])
            .args(&args)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("not chessgraph's") && err.contains("foo"),
            "{err}"
        );
        assert!(err.lines().count() <= 3, "a short message: {err}");
    }
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the file was changed"
    );
});

cgtest!(reading_commands_do_not_write_the_database, |dir| {
    dir.ok(&["import", &fixture("three-games.pgn")]);
    dir.ok(&["analyze"]);
    // Checkpoint the WAL so that the main file holds everything, then compare it after
    // commands that only read.
    dir.sql()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
    let before = std::fs::read(dir.db()).unwrap();
    dir.ok(&["stats"]);
    dir.ok(&["report", "--out", "r.md"]);
    dir.ok(&["export", "evaluator", "material", "--out", "m.json"]);
    dir.ok(&["heatmap", "--out-dir", "h", "--min-samples", "1"]);
    dir.sql()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
    assert_eq!(
        std::fs::read(dir.db()).unwrap(),
        before,
        "a reading command wrote"
    );
    // `eval` only adds its run for the report.
    dir.ok(&[
        "rate",
        "evaluator",
        "--evaluator",
        "material",
        "--part",
        "all",
    ]);
    assert_eq!(dir.int("SELECT count(*) FROM runs"), 1);
    assert_eq!(dir.int("SELECT count(*) FROM runs WHERE kind = 'eval'"), 1);
});

/// Whether this test process runs as root (judged by the owner of a directory it made):
/// root ignores permission bits, so a read-only database must then be read as someone else.
fn is_root(dir: &Dir) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(dir.path()).unwrap().uid() == 0
}

const SETPRIV: &str = "/usr/bin/setpriv";

/// `chessgraph ARGS` under permission bits that bind: as this user, or, as root, as the
/// unprivileged user `nobody` through `setpriv`.
fn run_unprivileged(dir: &Dir, root: bool, args: &[&str]) -> std::process::Output {
    if !root {
        return dir.run(args);
    }
    std::process::Command::new(SETPRIV)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_chessgraph"))
        .arg("--db")
        .arg(dir.db())
        .args(args)
        .current_dir(dir.path())
        .output()
        .expect("run setpriv")
}

cgtest!(a_read_only_database_can_be_read, |dir| {
    if !chessgraph_testkit::can_drop_root() {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let root = is_root(&dir);
    dir.ok(&["import", &fixture("three-games.pgn")]);
    dir.sql()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
    dir.create("more.csv", format!("FEN,Evaluation\n{E4},+30\n"));
    let set = |path: &std::path::Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    set(&dir.db(), 0o444);
    // A read-only file in a read-only directory, then in a writable one (writable by
    // `nobody` too when run through setpriv).
    let writable = if root { 0o777 } else { 0o755 };
    for dir_mode in [0o555, writable] {
        set(dir.path(), dir_mode);
        for args in [
            vec!["stats"],
            vec![
                "rate",
                "evaluator",
                "--evaluator",
                "material",
                "--part",
                "all",
                "--quiet",
            ],
            vec!["report"],
        ] {
            let out = run_unprivileged(&dir, root, &args);
            assert!(
                out.status.success(),
                "{args:?} on a 0444 database in a {dir_mode:o} directory: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        // The permissions bind: a writing command is refused.
        let out = run_unprivileged(&dir, root, &["import", "more.csv"]);
        assert!(
            !out.status.success(),
            "import into a 0444 database in a {dir_mode:o} directory succeeded: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    set(dir.path(), 0o700);
    set(&dir.db(), 0o644);
    assert_eq!(
        dir.int("SELECT count(*) FROM sources"),
        1,
        "the refused import left a source"
    );
});

cgtest!(csv_then_pgn_of_the_same_positions_keeps_the_games, |dir| {
    // The PGN's positions are already stored by the CSV: they take the game's result and
    // id, so the game has positions (of another source) and must stay.
    dir.create(
        "p.csv",
        "FEN,Evaluation\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1,+30\n",
    );
    dir.create(
        "g.pgn",
        "[Result \"1-0\"]\n\n1. e4 { [%eval 0.3] } e5 { [%eval 0.2] } 1-0\n\n",
    );
    dir.ok(&["import", "p.csv"]);
    dir.ok(&["import", "g.pgn"]);
    assert_eq!(dir.int("SELECT count(*) FROM games"), 1);
    assert_eq!(
        dir.int("SELECT count(*) FROM positions WHERE game_id IS NOT NULL"),
        2
    );
});

cgtest!(a_pgn_reject_names_the_line_of_its_move, |dir| {
    let pgn = dir.create(
        "badmove.pgn",
        "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 { [%eval 0.2] } e5 { [%eval 0.3] }\n\
         2. Nf3 { [%eval 0.3] } Nc6\n3. Qxh8 { [%eval 9] } 1-0\n",
    );
    let out = dir.ok(&["import", "-q", pgn.to_str().unwrap()]);
    assert!(out.contains("badmove.pgn:6: illegal move 3.Qxh8"), "{out}");
    assert_eq!(dir.int("SELECT count(*) FROM positions"), 3);
});

cgtest!(centipawns_beyond_any_engine_are_rejected, |dir| {
    dir.create(
        "big.csv",
        "FEN,Evaluation\n4k3/8/8/8/8/8/8/3QK3 w - - 0 1,+40000\n4k3/8/8/8/8/8/8/3RK3 w - - 0 1,+500\n",
    );
    dir.ok(&["import", "big.csv"]);
    assert_eq!(
        dir.int("SELECT sum(eval_cp) * count(*) FROM positions"),
        500
    );
    let why: String = dir
        .sql()
        .query_row(
            "SELECT line || ': ' || reason FROM import_errors",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        why.starts_with("2: evaluation 40000 cp is beyond ±20000 cp"),
        "{why}"
    );
});
