//! `chessgraph match`: real engines, and fake ones that cheat or crash.

use std::os::unix::fs::PermissionsExt;

use crate::cgtest;
use crate::util::Dir;

/// A fake UCI engine as a shell script: handshakes, then answers `go` with `reply`
/// (a shell command line).
pub(crate) fn fake_engine(dir: &Dir, name: &str, reply: &str) -> String {
    let script = format!(
        "#!/bin/sh\nwhile read -r line; do\n  case \"$line\" in\n    uci) echo 'id name {name}'; echo uciok ;;\n    isready) echo readyok ;;\n    go*) {reply} ;;\n    quit) exit 0 ;;\n  esac\ndone\n"
    );
    let path = dir.create(name, script);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

fn summary_counts(out: &str) -> (u32, u32, u32) {
    let line = out
        .lines()
        .find(|l| l.contains(" of ") && l.contains("games"))
        .unwrap();
    let num = |tag: char| -> u32 {
        let i = line.find(&format!(" {tag}")).unwrap() + 2;
        line[i..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    (num('+'), num('='), num('-'))
}

cgtest!(match_between_two_chessgraph_engines, |dir| {
    // A database, so that the match is recorded for the report.
    dir.sql()
        .execute_batch("CREATE TABLE scratch (x); DROP TABLE scratch;")
        .unwrap();
    let out = dir.ok(&[
        "match",
        "--engine2",
        "chessgraph engine --evaluator material",
        "--games",
        "2",
        "--depth",
        "2",
        "--pgn",
        "games.pgn",
    ]);
    let (w, d, l) = summary_counts(&out);
    assert_eq!(w + d + l, 2, "{out}");
    assert!(
        out.contains("illegal moves 0 / 0, time losses 0 / 0, engine failures 0 / 0"),
        "{out}"
    );
    let pgn = std::fs::read_to_string(dir.path().join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[Event \"chessgraph match\"]").count(), 2);
    assert_eq!(pgn.matches("[Result \"").count(), 2);
    assert_eq!(dir.int("SELECT count(*) FROM runs WHERE kind = 'match'"), 1);
});

cgtest!(illegal_moves_and_crashes_lose_the_game, |dir| {
    let cheat = fake_engine(&dir, "cheat.sh", "echo 'bestmove a1a1'");
    let out = dir.ok(&[
        "match",
        "--engine2",
        &cheat,
        "--games",
        "2",
        "--movetime",
        "20",
        "--names",
        "cg,cheat",
    ]);
    assert!(out.contains("illegal move \"a1a1\""), "{out}");
    assert_eq!(summary_counts(&out), (2, 0, 0), "{out}");
    assert!(out.contains("illegal moves 0 / 2"), "{out}");

    // Exits when asked to move: a failure each game, restarted in between.
    let crash = fake_engine(&dir, "crash.sh", "exit 1");
    let out = dir.ok(&[
        "match",
        "--engine2",
        &crash,
        "--games",
        "2",
        "--movetime",
        "20",
    ]);
    assert_eq!(summary_counts(&out), (2, 0, 0), "{out}");
    assert!(out.contains("engine failures 0 / 2"), "{out}");

    // Never answers: loses on time, and the clock is the referee's.
    let sleepy = fake_engine(&dir, "sleepy.sh", "sleep 5");
    let out = dir.ok(&[
        "match",
        "--engine2",
        &sleepy,
        "--games",
        "1",
        "--tc",
        "0.2+0",
    ]);
    assert!(
        out.contains("time forfeit") && out.contains("time losses 0 / 1"),
        "{out}"
    );
});

cgtest!(match_refuses_bad_options, |dir| {
    let fails = |args: &[&str]| {
        let out = dir.run(args);
        assert!(!out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = fails(&["match", "--engine2", "chessgraph engine", "--tc", "fast"]);
    assert!(e.contains("bad time control"), "{e}");
    let e = fails(&[
        "match",
        "--engine2",
        "chessgraph engine",
        "--option2",
        "Hash",
    ]);
    assert!(e.contains("NAME=VALUE"), "{e}");
    dir.create(
        "o.epd",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\nnot a fen at all\n",
    );
    let e = fails(&[
        "match",
        "--engine2",
        "chessgraph engine",
        "--openings",
        "o.epd",
    ]);
    assert!(e.contains("o.epd:2"), "{e}");
    let e = fails(&["match", "--engine2", "/no/such/engine"]);
    assert!(e.contains("/no/such/engine"), "{e}");
});

cgtest!(an_engine_that_cannot_start_says_why, |dir| {
    // Dies at once with a message of its own: the match error quotes it and the command.
    let broken = dir.create(
        "broken.sh",
        "#!/bin/sh\necho 'cannot open net file x.nnue' >&2\nexit 1\n",
    );
    std::fs::set_permissions(&broken, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = dir.run(&[
        "match",
        "--engine2",
        broken.to_str().unwrap(),
        "--games",
        "2",
        "--nodes",
        "100",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot open net file x.nnue"), "{err}");
    assert!(err.contains("broken.sh"), "{err}");
    // A program that does not exist is named.
    let out = dir.run(&["match", "--engine2", "/nonexistent/engine", "--games", "2"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("/nonexistent/engine"),
        "{err}"
    );
});

cgtest!(match_pgn_carries_the_engines_scores_for_import, |dir| {
    dir.ok(&[
        "match",
        "--engine2",
        "chessgraph engine --evaluator material",
        "--games",
        "2",
        "--depth",
        "2",
        "--max-moves",
        "6",
        "--pgn",
        "scored.pgn",
    ]);
    let pgn = std::fs::read_to_string(dir.path().join("scored.pgn")).unwrap();
    // Every move but each game's last is followed by the next search's score.
    assert_eq!(pgn.matches("[%eval ").count(), 2 * 11, "{pgn}");
    // `import` reads them back as labels: one labelled position per comment, less the
    // positions both games share (same opening, colours swapped).
    let out = dir.ok(&["import", "scored.pgn"]);
    assert!(out.contains("0 rejected"), "{out}");
    let labelled =
        dir.int("SELECT count(*) FROM positions WHERE eval_cp IS NOT NULL OR mate IS NOT NULL");
    assert!(
        (11..=22).contains(&labelled),
        "{labelled} labelled positions: {out}"
    );
});

cgtest!(match_draw_rule_ends_level_quiet_games, |dir| {
    // Two rooks, a quiet halfmove clock: any non-mate score counts as level here.
    dir.create("rooks.epd", "1r2k3/8/8/8/8/8/8/R3K3 w - - 10 30\n");
    let out = dir.ok(&[
        "match",
        "--engine2",
        "chessgraph engine --evaluator material",
        "--games",
        "2",
        "--depth",
        "2",
        "--openings",
        "rooks.epd",
        "--draw",
        "movenumber=0,movecount=2,score=10000",
        "--pgn",
        "drawn.pgn",
    ]);
    let (w, d, l) = summary_counts(&out);
    assert_eq!((w, d, l), (0, 2, 0), "{out}");
    let pgn = std::fs::read_to_string(dir.path().join("drawn.pgn")).unwrap();
    assert_eq!(
        pgn.matches("[Termination \"adjudicated draw (draw rule)\"]")
            .count(),
        2,
        "{pgn}"
    );
    // A rule that cannot parse is refused, naming what is expected.
    let out = dir.run(&[
        "match",
        "--engine2",
        "chessgraph engine",
        "--draw",
        "movecount=0",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("movenumber=40"),
        "{err}"
    );
    // Tables that are not there, and a move limit of 0, are refused by name.
    for (flag, value, says) in [
        ("--syzygy", "/nonexistent/tables", "/nonexistent/tables"),
        (
            "--max-moves",
            "0",
            "for '--max-moves <N>': must be at least 1",
        ),
    ] {
        let out = dir.run(&["match", "--engine2", "chessgraph engine", flag, value]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(says), "{flag}: {err}");
    }
});

#[cfg(feature = "syzygy")]
mod tables {
    use crate::cgtest;

    cgtest!(match_tablebase_adjudication_scores_the_winner, |dir| {
        // The rook's side wins: White in the first opening, Black in the second.
        dir.create(
            "krk.epd",
            "8/8/8/3k4/8/8/1R6/K7 b - - 0 1\n8/8/8/3K4/8/8/1r6/k7 w - - 0 1\n",
        );
        let Some(tables) = crate::util::shared("syzygy") else {
            return;
        };
        let out = dir.ok(&[
            "match",
            "--engine2",
            "chessgraph engine --evaluator material",
            "--games",
            "4",
            "--depth",
            "1",
            "--openings",
            "krk.epd",
            "--syzygy",
            tables.to_str().unwrap(),
            "--pgn",
            "tb.pgn",
        ]);
        let pgn = std::fs::read_to_string(dir.path().join("tb.pgn")).unwrap();
        let results: Vec<&str> = pgn
            .lines()
            .filter_map(|l| l.strip_prefix("[Result \""))
            .collect();
        assert_eq!(results, ["1-0\"]", "1-0\"]", "0-1\"]", "0-1\"]"], "{pgn}");
        assert_eq!(
            pgn.matches("[Termination \"adjudicated by tablebase\"]")
                .count(),
            4,
            "{pgn}"
        );
        assert_eq!(pgn.matches("[PlyCount \"0\"]").count(), 4, "{pgn}");
        // Each engine won the two games it had the rook's side in.
        assert_eq!(super::summary_counts(&out), (2, 0, 2), "{out}");
    });
}
