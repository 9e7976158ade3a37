//! Messages that say what is wrong, once, in the user's words; help that shows what matters.

use crate::cgtest;
use crate::util::{Dir, fixture};

/// A FEN of nine ranks: shakmaty reads the ninth as a crazyhouse pocket.
const NINE_RANKS: &str = "4k3/8/8/8/8/8/8/8/4K3 w - - 0 1";

/// Runs a command that must fail with exit code 1; returns its stderr.
fn fails(dir: &Dir, args: &[&str]) -> String {
    let out = dir.run(args);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    err
}

fn help(dir: &Dir, args: &[&str]) -> String {
    String::from_utf8(dir.run(args).stdout).unwrap()
}

cgtest!(
    a_bad_fen_board_says_what_is_wrong_in_import_and_uci,
    |dir| {
        let rows = [
            "fen,eval".to_owned(),
            format!("{NINE_RANKS},0"),
            "4k3/8/8/8/8/8/8/4K3Q w - - 0 1,0".to_owned(),
            "4k3/8/8/8/8/8/8/4K2X w - - 0 1,0".to_owned(),
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1,0".to_owned(),
        ];
        dir.create("bad.csv", rows.join("\n") + "\n");
        let out = dir.ok(&["import", "bad.csv"]);
        assert!(
            out.contains("bad.csv:2: invalid FEN: the board has 9 ranks, not 8"),
            "{out}"
        );
        assert!(
            out.contains("bad.csv:3: invalid FEN: rank 1 \"4K3Q\" has 9 squares, not 8"),
            "{out}"
        );
        assert!(
            out.contains("bad.csv:4: invalid FEN: rank 1 \"4K2X\": 'X' is not a piece letter"),
            "{out}"
        );
        assert!(!out.contains("pocket") && !out.contains("in fen"), "{out}");

        let out = dir.run_stdin(
            &["engine"],
            format!("uci\nposition fen {NINE_RANKS}\nisready\nquit\n").as_bytes(),
        );
        let said = String::from_utf8(out.stdout).unwrap();
        assert!(said.contains("the board has 9 ranks, not 8"), "{said}");
        assert!(!said.contains("pocket"), "{said}");
    }
);

cgtest!(
    an_unknown_tournament_player_is_one_error_before_any_game,
    |dir| {
        let err = fails(
            &dir,
            &["tournament", "--player", "bogus", "--player", "random"],
        );
        assert_eq!(
            err.trim_end(),
            format!(
                "chessgraph: error: --player bogus\n  caused by: unknown player \"bogus\" (players: {})",
                chessgraph_engine::players::PLAYER_NAMES.join(", ")
            ),
            "{err}"
        );
        let err = fails(
            &dir,
            &[
                "tournament",
                "--player",
                "r=random:sed=1",
                "--player",
                "random",
            ],
        );
        assert!(
            err.starts_with("chessgraph: error: --player r=random:sed=1\n"),
            "{err}"
        );
        assert!(err.contains("unknown key \"sed\""), "{err}");
        assert_eq!(err.lines().count(), 2, "{err}");
    }
);

cgtest!(
    help_lists_the_players_and_fit_moves_and_keeps_db_short,
    |dir| {
        let engine = help(&dir, &["engine", "--help"]);
        assert!(!engine.contains("README"), "{engine}");
        for spec in [
            "random[:seed=S]",
            "minimax[:depth=D",
            "logistic:model=FILE",
            "docs/engine.md",
        ] {
            assert!(engine.contains(spec), "{spec}: {engine}");
        }
        let top = help(&dir, &["--help"]);
        assert!(top.contains("train moves"), "{top}");
        assert!(top.contains("create it when missing"), "{top}");
        for command in ["import", "stats", "engine", "tournament"] {
            let text = help(&dir, &[command, "--help"]);
            let db = text
                .lines()
                .find(|l| l.trim_start().starts_with("--db"))
                .unwrap();
            assert!(db.len() < 120, "{command}: {db}");
            assert!(
                !text.contains("create it when missing"),
                "{command}: {text}"
            );
        }
    }
);

cgtest!(import_says_one_summary_line_per_file, |dir| {
    let out = dir
        .command(&["import", &fixture("positions-2000.csv")])
        .env("CHESSGRAPH_PROGRESS_SECS", "1000")
        .output()
        .unwrap();
    assert!(out.status.success());
    let said = String::from_utf8(out.stdout).unwrap();
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(said.contains("rows read"), "{said}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.is_empty(), "{err}");
});

cgtest!(a_directory_to_import_is_named_a_directory, |dir| {
    std::fs::create_dir(dir.path().join("games")).unwrap();
    let err = fails(&dir, &["import", "games"]);
    assert_eq!(
        err.trim_end(),
        "chessgraph: error: games is a directory: give the files in it (e.g. games/*.pgn)"
    );
    assert!(!dir.db().exists());
});

cgtest!(an_empty_db_file_says_it_is_empty, |dir| {
    dir.create("test.db", "");
    let err = fails(&dir, &["stats"]);
    assert!(err.starts_with("chessgraph: error: "), "{err}");
    assert!(
        err.trim_end()
            .ends_with("test.db is empty (run `chessgraph import FILE` first)"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
});

#[cfg(feature = "serve")]
cgtest!(serve_says_what_is_wrong_with_a_fen_board, |dir| {
    use crate::http::{enc, get};
    use crate::serve::{error, fixture_db, serve};
    fixture_db(&dir);
    let s = serve(&dir, &[]);
    let message = error(
        &get(s.addr, &format!("/api/position?fen={}", enc(NINE_RANKS))),
        400,
    );
    assert!(
        message.contains("the board has 9 ranks, not 8"),
        "{message}"
    );
    assert!(!message.contains("pocket"), "{message}");
});
