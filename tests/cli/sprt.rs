//! `tournament --sprt`: the test stops on its own with engines of known strength — a real
//! engine against a fake one that answers every `go` with an illegal move (it loses every
//! game).

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
    let m = [
        "tournament",
        "--player",
        "greedy",
        "--player",
        "random:seed=1",
        "--sprt",
    ];
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
