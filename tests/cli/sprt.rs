//! `match --sprt` and `tournament --sprt`: the test stops on its own with engines of known
//! strength — a real engine against a fake one that answers every `go` with an illegal
//! move (it loses every game), and two such fakes (each loses exactly the games it has
//! White in: every pair is a win and a loss).

use crate::cgtest;
use crate::matches::fake_engine;

/// The number in `after N games` of the verdict line, the output's last.
fn verdict_games(out: &str) -> u64 {
    let last = out.lines().last().unwrap();
    assert!(last.starts_with("SPRT: "), "{out}");
    let words: Vec<&str> = last.split_whitespace().collect();
    let i = words.iter().position(|w| *w == "after").unwrap();
    words[i + 1].parse().unwrap()
}

cgtest!(
    match_sprt_passes_against_a_losing_engine_before_the_cap,
    |dir| {
        let loser = fake_engine(&dir, "loser.sh", "echo 'bestmove a1a1'");
        let out = dir.ok(&[
            "match",
            "--engine2",
            &loser,
            "--depth",
            "1",
            "--games",
            "1000",
            "--sprt",
            "elo0=0,elo1=10",
        ]);
        assert!(out.contains("SPRT: H1 accepted (passed), LLR 2.9"), "{out}");
        // Every pair WW: the exact GSPRT needs 104 of them (scripts/golden/sprt.py).
        assert_eq!(verdict_games(&out), 208, "{out}");
        assert_eq!(out.matches("\ngame ").count(), 208, "stopped, not capped");
        assert!(out.contains("pentanomial 0 0 0 0 104"), "{out}");
        assert!(out.contains("(-2.94, 2.94) [0, 10]"), "{out}");
        // A status line after every pair, none after a pair's first game.
        assert_eq!(out.matches("\n  LLR ").count(), 104, "{out}");

        // JSON: the test's state with the summary.
        let out = dir.ok(&[
            "match",
            "--engine2",
            &loser,
            "--depth",
            "1",
            "--games",
            "1000",
            "--sprt",
            "elo0=0,elo1=10,alpha=0.1,beta=0.1",
            "--json",
        ]);
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        let sprt = &json["sprt"];
        assert_eq!(sprt["verdict"], "passed", "{out}");
        assert_eq!(json["games"], sprt["games"]);
        let games = sprt["games"].as_u64().unwrap();
        // Wider error rates, nearer bounds: fewer games.
        assert!(games < 208 && games.is_multiple_of(2), "{games}");
        assert!(sprt["llr"].as_f64().unwrap() >= sprt["upper"].as_f64().unwrap());
    }
);

cgtest!(
    match_sprt_fails_or_stays_open_between_equal_engines,
    |dir| {
        let a = fake_engine(&dir, "a.sh", "echo 'bestmove a1a1'");
        let b = fake_engine(&dir, "b.sh", "echo 'bestmove h8h8'");
        let args = |games: &'static str| {
            vec![
                "match".to_owned(),
                "--engine1".into(),
                a.clone(),
                "--engine2".into(),
                b.clone(),
                "--movetime".into(),
                "50".into(),
                "--games".into(),
                games.into(),
                "--sprt".into(),
                "elo0=0,elo1=10".into(),
            ]
        };
        let run = |games| {
            let v = args(games);
            dir.ok(&v.iter().map(String::as_str).collect::<Vec<_>>())
        };
        // 40 games: neither bound, the cap ends it.
        let out = run("40");
        assert!(out.contains("SPRT: inconclusive"), "{out}");
        assert_eq!(verdict_games(&out), 40, "{out}");
        assert!(out.contains("pentanomial 0 0 20 0 0"), "{out}");
        assert!(!out.contains("H1 accepted"), "{out}");
        // Uncapped: H0 after 102 pairs of one win and one loss.
        let out = run("2000");
        assert!(out.contains("SPRT: H0 accepted (failed)"), "{out}");
        assert_eq!(verdict_games(&out), 204, "{out}");
        assert!(out.contains("Elo +0.0 ± 0.0"), "{out}");
    }
);

cgtest!(tournament_sprt_for_two_players_only, |dir| {
    let loser = fake_engine(&dir, "loser.sh", "echo 'bestmove a1a1'");
    let engine = format!("loser={loser}");
    let base = [
        "tournament",
        "--player",
        "engine",
        "--engine",
        &engine,
        "--depth",
        "1",
    ];
    let mut args = base.to_vec();
    args.extend([
        "--concurrency",
        "2",
        "--games",
        "1000",
        "--sprt",
        "elo0=0,elo1=10",
    ]);
    let out = dir.ok(&args);
    assert!(out.contains("SPRT: H1 accepted (passed)"), "{out}");
    assert_eq!(verdict_games(&out), 208, "{out}");
    assert!(out.contains("engine vs loser: LLR 2.9"), "{out}");
    // Stopped: the games under way when it decided finish, no more start.
    let stored = dir.int("SELECT count(*) FROM tournament_games");
    // (pairs finish out of order: a later game may be in before the deciding one)
    assert!((208..=212).contains(&stored), "{stored}");
    // Again: the stored games decide it, nothing is played.
    let out = dir.ok(&args);
    assert!(
        out.contains("already decide the SPRT: none played"),
        "{out}"
    );
    assert_eq!(dir.int("SELECT count(*) FROM tournament_games"), stored);

    // Three players, or a gauntlet of three: refused, naming them.
    for extra in [&[][..], &["--gauntlet", "engine"][..]] {
        let mut args = base.to_vec();
        args.extend([
            "--player",
            "random:seed=1",
            "--name",
            "three",
            "--sprt",
            "elo0=0,elo1=5",
        ]);
        args.extend(extra);
        let out = dir.run(&args);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("3 players (engine, random:seed=1, loser)"),
            "{err}"
        );
    }
});

cgtest!(bad_sprt_options_say_what_is_wrong, |dir| {
    let fails = |args: &[&str]| {
        let out = dir.run(args);
        assert!(!out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let m = ["match", "--engine2", "chessgraph engine", "--sprt"];
    let with = |s: &'static str| [&m[..], &[s]].concat();
    let e = fails(&with("elo0=0"));
    assert!(e.contains("elo1 is missing"), "{e}");
    let e = fails(&with("elo0=5,elo1=0"));
    assert!(e.contains("elo1 (0) must be greater than elo0 (5)"), "{e}");
    let e = fails(&with("elo0=0,elo1=5,alpa=0.1"));
    assert!(e.contains("unknown key \"alpa\""), "{e}");
    let e = fails(&with("elo0=0,elo1=five"));
    assert!(e.contains("elo1=\"five\" is not a number"), "{e}");
    let e = fails(&[&with("elo0=0,elo1=5")[..], &["--games", "7"]].concat());
    assert!(e.contains("--games must be even, not 7"), "{e}");
});
