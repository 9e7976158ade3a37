//! `chessgraph tournament`: a small round robin of cheap players end to end, resumed,
//! extended, reported and written as PGN.

use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Position};

use crate::cgtest;

const PLAYERS: [&str; 6] = [
    "--player",
    "random:seed=1",
    "--player",
    "random:seed=2",
    "--player",
    "engine",
];

fn tournament(extra: &[&str]) -> Vec<String> {
    let mut args: Vec<&str> = vec!["tournament"];
    args.extend(PLAYERS);
    args.extend(["--nodes", "100", "--max-moves", "20", "--quiet"]);
    args.extend(extra);
    args.into_iter().map(str::to_owned).collect()
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Replays every game of a PGN text with shakmaty: the SAN moves are legal from the `FEN`
/// tag (or the standard start), `PlyCount` is their number and the movetext ends with the
/// `Result`. Returns the games' (White, Black, result).
fn replay_pgn(text: &str) -> Vec<(String, String, String)> {
    let mut games = Vec::new();
    for game in text.split("[Event ").skip(1) {
        let tag = |name: &str| -> String {
            let start = game
                .find(&format!("[{name} \""))
                .unwrap_or_else(|| panic!("{name}: {game}"));
            let rest = &game[start + name.len() + 3..];
            rest[..rest.find('"').unwrap()].to_owned()
        };
        // No `FEN` tag: the standard start.
        let mut pos: Chess = if game.contains("[FEN \"") {
            tag("FEN")
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap()
        } else {
            Chess::default()
        };
        let movetext = game.split("\n\n").nth(1).expect("movetext");
        let mut tokens: Vec<&str> = movetext
            .split_whitespace()
            .filter(|t| !t.ends_with('.'))
            .map(|t| t.rsplit('.').next().unwrap())
            .collect();
        let result = tokens.pop().expect("result");
        assert_eq!(result, tag("Result"), "{game}");
        for san in &tokens {
            let m = san
                .parse::<San>()
                .unwrap_or_else(|e| panic!("{san}: {e}"))
                .to_move(&pos)
                .unwrap_or_else(|e| panic!("{san} illegal: {e}\n{game}"));
            pos.play_unchecked(m);
        }
        assert_eq!(tokens.len().to_string(), tag("PlyCount"), "{game}");
        assert!(tokens.len() <= 40, "max 20 moves: {game}");
        games.push((tag("White"), tag("Black"), result.to_owned()));
    }
    games
}

cgtest!(round_robin_is_stored_resumed_extended_and_reported, |dir| {
    let out = dir.ok(&strs(&tournament(&[
        "--games",
        "2",
        "--concurrency",
        "2",
        "--pgn",
        "games.pgn",
    ])));
    assert!(out.contains("Cross table"), "{out}");
    assert!(out.contains("Ratings (Elo, maximum likelihood"), "{out}");
    for name in ["random:seed=1", "random:seed=2", "engine"] {
        assert!(
            out.lines().filter(|l| l.contains(name)).count() >= 2,
            "{name}: {out}"
        );
    }
    assert!(out.contains("played 6 games in"), "{out}");
    assert!(out.contains("games/s"), "{out}");
    assert_eq!(dir.int("SELECT count(*) FROM tournament_games"), 6);
    assert_eq!(dir.int("SELECT count(*) FROM tournament_players"), 3);
    // Every pair twice, colours swapped, from the same opening.
    assert_eq!(
        dir.int(
            "SELECT count(*) FROM (SELECT player_a, player_b FROM tournament_games \
             GROUP BY player_a, player_b HAVING count(*) = 2 AND count(DISTINCT white) = 2 \
             AND count(DISTINCT start_fen) = 1)"
        ),
        3
    );
    assert_eq!(dir.int("SELECT max(plies) <= 40 FROM tournament_games"), 1);
    // The cross table's points are the stored results.
    let engine_points = dir.int(
        "SELECT sum(CASE WHEN result = '1/2-1/2' THEN 1 \
         WHEN (result = '1-0') = (white = 'engine') THEN 2 ELSE 0 END) \
         FROM tournament_games WHERE 'engine' IN (white, black)",
    );
    let engine_row = out
        .lines()
        .find(|l| l.starts_with("3  engine"))
        .expect(&out);
    let points: f64 = engine_row
        .split_whitespace()
        .rev()
        .nth(3)
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(points * 2.0, engine_points as f64, "{engine_row}");

    let pgn = std::fs::read_to_string(dir.path().join("games.pgn")).unwrap();
    let games = replay_pgn(&pgn);
    assert_eq!(games.len(), 6);
    assert!(
        pgn.contains("[Event \"chessgraph tournament tournament\"]"),
        "{pgn}"
    );

    // The same tournament again plays nothing new.
    let again = dir.ok(&strs(&tournament(&["--games", "2"])));
    assert!(again.contains("played 0 games"), "{again}");
    assert!(
        again.contains("6 of the 6 scheduled were stored before"),
        "{again}"
    );
    assert_eq!(dir.int("SELECT count(*) FROM tournament_games"), 6);

    // More games per pair extend it: one more game per pair.
    let json = dir.ok(&strs(&tournament(&["--games", "3", "--json"])));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["run"]["played"], 3, "{json}");
    assert_eq!(v["games"], 9, "{json}");
    let ranking = v["standings"]["ranking"].as_array().unwrap();
    assert_eq!(ranking.len(), 3);
    let games_sum: u64 = ranking.iter().map(|l| l["games"].as_u64().unwrap()).sum();
    assert_eq!(games_sum, 18);
    assert!(ranking.iter().all(|l| l["status"].is_string()), "{json}");

    // Other settings under the same name are refused; an unknown anchor or gauntlet too.
    let mut args = vec!["tournament"];
    args.extend(PLAYERS);
    args.extend(["--nodes", "100", "--max-moves", "30"]);
    let changed = dir.run(&args);
    assert!(!changed.status.success());
    assert!(String::from_utf8_lossy(&changed.stderr).contains("other settings"));
    let e = dir.run(&strs(&tournament(&["--anchor", "nobody=1500"])));
    assert!(
        String::from_utf8_lossy(&e.stderr).contains("not a player"),
        "{e:?}"
    );
    let e = dir.run(&strs(&tournament(&["--gauntlet", "nobody"])));
    assert!(
        String::from_utf8_lossy(&e.stderr).contains("not one of the players"),
        "{e:?}"
    );

    // The anchor fixes that player's rating.
    let anchored = dir.ok(&strs(&tournament(&[
        "--games",
        "3",
        "--anchor",
        "random:seed=2=1000",
    ])));
    assert!(
        anchored.contains("random:seed=2 fixed at 1000"),
        "{anchored}"
    );

    let md = dir.ok(&["report"]);
    assert!(
        md.contains("## Tournaments") && md.contains("### tournament"),
        "{md}"
    );
    assert!(md.contains("9 games between 3 players"), "{md}");
    assert!(
        md.contains("| # | player | 1 | 2 | 3 | points | games | score |"),
        "{md}"
    );
    assert!(md.contains("| rank | # | player | rating | 95 % |"), "{md}");
});

cgtest!(
    an_engine_that_cannot_start_stops_the_tournament_before_any_game,
    |dir| {
        let out = dir.run(&[
            "tournament",
            "--player",
            "random:seed=1",
            "--engine",
            "broken=/nonexistent/engine",
            "--nodes",
            "10",
        ]);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("player broken") && err.contains("/nonexistent/engine"),
            "{err}"
        );
        assert_eq!(dir.int("SELECT count(*) FROM tournaments"), 0);
    }
);
