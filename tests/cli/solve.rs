//! `chessgraph solve`: puzzles from EPD and PGN fixtures cut from the shared sets.

use crate::cgtest;
use crate::util::fixture;

mod lichess;

/// The report line of the puzzle named `id` (ids are the last column).
fn report_line<'a>(out: &'a str, id: &str) -> &'a str {
    out.lines()
        .find(|l| l.ends_with(&format!("  {id}")))
        .unwrap_or_else(|| panic!("no line for {id} in:\n{out}"))
}

cgtest!(solves_composed_problems, |dir| {
    let input = fixture("puzzles-composed.epd");
    let out = dir.ok(&["solve", "--input", &input]);
    assert!(
        out.contains(
            "solved 30/30 (3 with another key); missed 0, timeout 0, no mate 0, unverified 0; \
             unreadable 0"
        ),
        "{out}"
    );
    let rows: Vec<(String, String)> = out
        .lines()
        .skip_while(|l| !l.starts_with("    N  solved/total"))
        .skip(1)
        .take_while(|l| !l.starts_with("solve: "))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].to_owned(), f[1].to_owned())
        })
        .collect();
    let expected = [
        ("2", "11/11"),
        ("3", "14/14"),
        ("4", "3/3"),
        ("5", "2/2"),
        ("all", "30/30"),
    ];
    assert_eq!(
        rows,
        expected.map(|(a, b)| (a.to_owned(), b.to_owned())),
        "{out}"
    );
    // One report line per puzzle, with the key found.
    let baird0 = report_line(&out, "baird-0");
    let f: Vec<&str> = baird0.split_whitespace().collect();
    assert_eq!(
        &f[..6],
        ["3", "2", "solved", "Nd6", "Nd6", "#2"],
        "{baird0}"
    );
    // A cooked problem: the key found differs from the composer's and still mates in 3.
    let cooked = report_line(&out, "baird-567");
    let f: Vec<&str> = cooked.split_whitespace().collect();
    assert_eq!((f[2], f[3], f[5]), ("solved-alt", "Bc7", "#3"), "{cooked}");
    assert_ne!(f[4], "Bc7");
});

cgtest!(solves_pgn_mates_from_games, |dir| {
    let input = fixture("puzzles-games.pgn");
    let out = dir.ok(&["solve", "--input", &input]);
    assert!(out.contains("solved 12/12"), "{out}");
    assert!(out.contains("\n    2         12/12 "), "{out}");
    // Buckle-NN 1840: 1. Nf6+ gxf6 2. Bxf7#.
    let line = report_line(&out, "Henry Buckle-NN 1840");
    let f: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(
        &f[..6],
        ["1", "2", "solved", "Nf6+", "Nf6+", "#2"],
        "{line}"
    );
});

cgtest!(unreadable_puzzles_are_reported_and_skipped, |dir| {
    let input = dir.create(
        "mixed.epd",
        "3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - dm 2; bm Nd6; id \"ok\";\n\
         3N1K2/B7/4P3/1Nrpk1P1 w - - dm 2; id \"short\";\n\
         \n\
         3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - dm 2; bm Nd7; id \"illegal\";\n\
         4k3/8/8/8/8/8/4P3/4K3 w - - bm e4; id \"bm only\";\n",
    );
    let out = dir.run(&["solve", "--input", input.to_str().unwrap(), "--depth", "3"]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stdout.contains("solved 1/1 "), "{stdout}");
    assert!(stdout.contains("; unreadable 2\n"), "{stdout}");
    // The bm-only puzzle is a best-move puzzle now, played by the engine.
    assert!(
        stdout.contains("2 puzzles (1 mate, 1 best-move), 2 unreadable"),
        "{stdout}"
    );
    assert!(stdout.contains("\nall  "), "{stdout}");
    assert!(stderr.contains("mixed.epd:line 2: invalid FEN"), "{stderr}");
    assert!(stderr.contains("mixed.epd:line 4: bm \"Nd7\""), "{stderr}");
});

cgtest!(pgn_detected_by_content_and_bad_games_skipped, |dir| {
    let input = dir.create(
        "puzzles.txt",
        "[Event \"?\"]\n[FEN \"6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1\"]\n\n1. Ra8# *\n\n\
         [Event \"?\"]\n[FEN \"6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1\"]\n\n1. Ra9# *\n",
    );
    let out = dir.run(&["solve", "--input", input.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("solved 1/1 "), "{stdout}");
    assert!(stdout.contains("unreadable 1"), "{stdout}");
    assert!(stdout.contains("\n    1           1/1 "), "{stdout}");
});

cgtest!(unreadable_input_fails, |dir| {
    let out = dir.run(&["solve", "--input", "no-such-file.epd"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("cannot read puzzles from no-such-file.epd"),
        "{stderr}"
    );
    let input = dir.create("p.epd", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - dm 1;\n");
    let out = dir.run(&[
        "solve",
        "--input",
        input.to_str().unwrap(),
        "--movetime",
        "0",
    ]);
    assert!(!out.status.success());
});

cgtest!(full_shared_sets_are_read, |dir| {
    if chessgraph_testkit::shared_data().is_none() {
        return;
    }
    // Reading only (solving the full sets is scripts/bench/solve.sh's job): a time limit
    // of 1 ms keeps this fast; every puzzle must parse.
    for (name, total) in [
        ("puzzles/mate-in-2-games.pgn", 166),
        ("puzzles/composed-problems.epd", 1192),
    ] {
        let path = crate::util::shared(name).unwrap();
        let out = dir.ok(&[
            "solve",
            "--input",
            path.to_str().unwrap(),
            "--movetime",
            "1",
        ]);
        assert!(out.contains(&format!("/{total} (")), "{out}");
        assert!(
            out.contains(&format!(
                ": {total} puzzles ({total} mate, 0 best-move), 0 unreadable"
            )),
            "{out}"
        );
    }
});

cgtest!(solve_bench_and_match_print_json, |dir| {
    let out = dir.ok(&[
        "solve",
        "--input",
        &fixture("puzzles-composed.epd"),
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("solve --json is JSON");
    assert_eq!(v["attempted"], 30, "{v}");
    let out = dir.ok(&["bench", "--depth", "2", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("bench --json is JSON");
    assert!(v["nodes"].as_u64().unwrap() > 0, "{v}");
    let out = dir.ok(&[
        "match",
        "--engine2",
        "chessgraph engine --evaluator material",
        "--games",
        "2",
        "--nodes",
        "200",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("match --json is JSON");
    assert_eq!(v["games"], 2, "{v}");
});

/// A verdict: solved, and the points and the most points when the puzzle has points.
type Verdict = (bool, Option<(u64, u64)>);

/// python-chess's verdicts on moves played in the fixture suite
/// (`scripts/golden/suite.py`), by (id, played move in UCI).
fn golden_verdicts() -> std::collections::HashMap<(String, String), Verdict> {
    let path = chessgraph_testkit::repo_root().join("tests/golden/suite-verdicts.csv");
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|row| {
            let f: Vec<&str> = row.split(',').collect();
            let points = (!f[4].is_empty()).then(|| (f[4].parse().unwrap(), f[5].parse().unwrap()));
            ((f[1].to_owned(), f[2].to_owned()), (f[3] == "true", points))
        })
        .collect()
}

/// `solve --json` on the fixture suite with `args`: its positions as (id, played,
/// solved, points), checked against the golden verdicts where the golden file has the
/// move; returns the positions and how many were checked.
fn suite_run(dir: &crate::util::Dir, args: &[&str]) -> (serde_json::Value, usize) {
    let input = fixture("suite-bestmove.epd");
    let mut all = vec!["solve", "--input", &input, "--json"];
    all.extend_from_slice(args);
    let out = dir.ok(&all);
    let v: serde_json::Value = serde_json::from_str(&out).expect("solve --json is JSON");
    let golden = golden_verdicts();
    let positions = v["files"][0]["positions"].as_array().unwrap();
    assert_eq!(positions.len(), 18, "{v}");
    assert_eq!(
        (v["attempted"].as_u64(), v["unreadable"].as_u64()),
        (Some(18), Some(5))
    );
    let mut checked = 0;
    let (mut solved, mut points, mut max_points) = (0, 0, 0);
    for p in positions {
        let id = p["id"].as_str().unwrap().to_owned();
        let played = p["played"].as_str().unwrap().to_owned();
        let got = (
            p["solved"].as_bool().unwrap(),
            p["points"].as_u64().zip(p["max_points"].as_u64()),
        );
        solved += usize::from(got.0);
        if let Some((a, b)) = got.1 {
            points += a;
            max_points += b;
        }
        if let Some(want) = golden.get(&(id.clone(), played.clone())) {
            assert_eq!(&got, want, "{id} {played}: chessgraph vs python-chess");
            checked += 1;
        }
    }
    // The totals are the positions' sums.
    assert_eq!(v["bm_solved"].as_u64(), Some(solved as u64), "{v}");
    assert_eq!(
        (v["points"].as_u64(), v["max_points"].as_u64()),
        (Some(points), Some(max_points))
    );
    assert_eq!(max_points, 50, "five puzzles with points, ten at most each");
    (v, checked)
}

cgtest!(best_move_suite_verdicts_match_python_chess, |dir| {
    // A database to record into (measuring commands never create one).
    dir.sql()
        .execute_batch("CREATE TABLE scratch (x); DROP TABLE scratch;")
        .unwrap();
    // A random player's moves depend only on the seed and the move generator: all 18 are
    // in the golden file.
    let (random, checked) = suite_run(&dir, &["--player", "random:seed=1"]);
    assert_eq!(checked, 18);
    assert_eq!(random["player"], "random:seed=1");
    let (again, _) = suite_run(&dir, &["--player", "random:seed=1"]);
    assert_eq!(
        random["files"][0]["positions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| &p["played"])
            .collect::<Vec<_>>(),
        again["files"][0]["positions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| &p["played"])
            .collect::<Vec<_>>()
    );
    // The engine at depth 4 played the golden file's other moves when it was made; a
    // changed search may play others (not in the file: not checked), and the depth-4 moves
    // must be the same in two runs.
    let (engine, checked) = suite_run(&dir, &["--depth", "4"]);
    assert!(
        checked > 0,
        "no engine move is in the golden file: rerun scripts/golden/suite.py"
    );
    let (again, _) = suite_run(&dir, &["--depth", "4"]);
    assert_eq!(
        engine["files"][0]["positions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| &p["played"])
            .collect::<Vec<_>>(),
        again["files"][0]["positions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| &p["played"])
            .collect::<Vec<_>>()
    );
    assert!(
        engine["bm_solved"].as_u64() > random["bm_solved"].as_u64(),
        "{engine}\n{random}"
    );
    // Each run is recorded, labelled by file and player.
    assert_eq!(dir.int("SELECT count(*) FROM runs WHERE kind = 'solve'"), 4);
    assert_eq!(
        dir.int("SELECT count(*) FROM runs WHERE label LIKE '%suite-bestmove.epd (random:seed=1)'"),
        2
    );
    assert_eq!(
        dir.int("SELECT count(*) FROM runs WHERE label LIKE '%suite-bestmove.epd'"),
        2
    );
});

cgtest!(best_move_suite_report_and_bad_lines, |dir| {
    let input = fixture("suite-bestmove.epd");
    let out = dir.run(&["solve", "--input", &input, "--depth", "2"]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stdout.contains("18 puzzles (0 mate, 18 best-move), 5 unreadable"),
        "{stdout}"
    );
    assert!(stdout.contains("\nmissed "), "{stdout}");
    // A row per id group, then the suite; points only where the puzzles have them.
    let names: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("suite "))
        .skip(1)
        .take(4)
        .map(|l| l.split("  ").next().unwrap().trim())
        .collect();
    assert_eq!(
        names,
        ["WAC", "STS(v1.0) Undermine", "Fixture Misc", "all"],
        "{stdout}"
    );
    let wac = stdout.lines().find(|l| l.starts_with("WAC ")).unwrap();
    assert!(wac.contains("/10             -"), "{wac}");
    let sts = stdout
        .lines()
        .find(|l| l.starts_with("STS(v1.0) Undermine "))
        .unwrap();
    assert!(sts.contains("/3 ") && sts.contains("/30 "), "{sts}");
    // Every miss line names the line, id, expected move, move played and position.
    for l in stdout
        .lines()
        .skip_while(|l| !l.starts_with(" line  id"))
        .skip(1)
    {
        if l.starts_with("suite ") {
            break;
        }
        let line: u64 = l.split_whitespace().next().unwrap().parse().unwrap();
        assert!((9..=26).contains(&line), "{l}");
        assert!(l.contains(" w ") || l.contains(" b "), "{l}");
    }
    assert!(stdout.contains("solve: "), "{stdout}");
    // Bad lines: file, line and why; the run goes on.
    let file = "suite-bestmove.epd:line";
    for (line, why) in [
        (27, "bm \"Bb6\": illegal move"),
        (28, "bm \"Nd2\": ambiguous"),
        (29, "invalid FEN"),
        (30, "nothing to solve"),
        (31, "c0 points \"Qz9\": not a move"),
    ] {
        let prefix = format!("{file} {line}: ");
        let message = stderr
            .lines()
            .find_map(|l| l.split_once(&prefix))
            .map(|(_, m)| m);
        assert!(message.is_some_and(|m| m.contains(why)), "{line}: {stderr}");
    }
    // Only bad lines: exit 1.
    let bad: String = std::fs::read_to_string(&input)
        .unwrap()
        .lines()
        .skip(26)
        .map(|l| format!("{l}\n"))
        .collect();
    let only_bad = dir.create("bad.epd", bad);
    let out = dir.run(&["solve", "--input", only_bad.to_str().unwrap()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("no puzzle could be read from") && stderr.contains("(5 unreadable)"),
        "{stderr}"
    );
});

cgtest!(
    mate_in_two_with_a_player_refereed_by_the_mate_search,
    |dir| {
        let input = fixture("puzzles-games.pgn");
        let input = input.as_str();
        // The engine: the mate search, 12/12.
        let out = dir.ok(&["solve", "--input", input, "--player", "engine"]);
        assert!(
            out.contains("solved 12/12 (0 with another key); missed 0"),
            "{out}"
        );
        // A random player: each move refereed. The solution's key is solved; any other move is
        // missed unless it also mates in two (solved-alt).
        let out = dir.ok(&["solve", "--input", input, "--player", "random:seed=1"]);
        let lines: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.starts_with(" line   N"))
            .skip(1)
            .take_while(|l| !l.starts_with("solved "))
            .collect();
        assert_eq!(lines.len(), 12, "{out}");
        let (mut solved, mut missed) = (0, 0);
        for l in &lines {
            let f: Vec<&str> = l.split_whitespace().collect();
            let (verdict, expected, found) = (f[2], f[3], f[4]);
            match verdict {
                "solved" => {
                    assert_eq!(expected, found, "{l}");
                    solved += 1;
                }
                "solved-alt" => {
                    assert_ne!(expected, found, "{l}");
                    solved += 1;
                }
                "missed" => {
                    assert_ne!(expected, found, "{l}");
                    missed += 1;
                }
                other => panic!("verdict {other} in {l}"),
            }
        }
        assert!(
            out.contains(&format!("solved {solved}/12 ("))
                && out.contains(&format!("; missed {missed}, timeout 0")),
            "{out}"
        );
        assert!(
            missed > 0,
            "a random player misses some mates in two: {out}"
        );
        // JSON: the same counts.
        let json = dir.ok(&[
            "solve",
            "--input",
            input,
            "--player",
            "random:seed=1",
            "--json",
        ]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            (v["mate_solved"].as_u64(), v["missed"].as_u64()),
            (Some(solved), Some(missed)),
            "{v}"
        );
    }
);

cgtest!(several_files_one_summary_each, |dir| {
    let a = fixture("puzzles-games.pgn");
    let b = fixture("suite-bestmove.epd");
    let out = dir.ok(&["solve", "--input", &a, &b, "--depth", "1"]);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("== ")).count(),
        2,
        "{out}"
    );
    assert!(
        out.contains("puzzles-games.pgn: 12 puzzles (12 mate, 0 best-move)"),
        "{out}"
    );
    assert!(
        out.contains("suite-bestmove.epd: 18 puzzles (0 mate, 18 best-move)"),
        "{out}"
    );
    assert!(out.contains("/30 solved (2 files)"), "{out}");
});
