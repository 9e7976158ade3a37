//! `chessgraph solve` on the Lichess puzzle database format: the fixture
//! `tests/fixtures/lichess-puzzles.csv` and python-chess's verdicts.

use super::fixture;
use crate::cgtest;

/// python-chess's verdicts on move lists played in the Lichess fixture
/// (`scripts/fixtures/lichess-puzzles.py golden`): (id, played moves) -> (solved, right).
fn lichess_golden() -> std::collections::HashMap<(String, String), (bool, u64)> {
    let path = chessgraph_testkit::repo_root().join("tests/golden/lichess-verdicts.csv");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|row| {
            let f: Vec<&str> = row.split(',').collect();
            let key = (f[1].to_owned(), f[2].to_owned());
            (key, (f[3] == "true", f[4].parse().unwrap()))
        })
        .collect()
}

/// `solve --json` on the Lichess fixture with `args`: its record, its puzzles' played
/// moves, and how many verdicts were checked against the golden file.
fn lichess_run(dir: &crate::util::Dir, args: &[&str]) -> (serde_json::Value, Vec<String>, usize) {
    let input = fixture("lichess-puzzles.csv");
    let mut all = vec!["solve", "--input", &input, "--json"];
    all.extend_from_slice(args);
    let v: serde_json::Value = serde_json::from_str(&dir.ok(&all)).expect("solve --json is JSON");
    let golden = lichess_golden();
    let puzzles = v["files"][0]["puzzles"].as_array().unwrap();
    assert_eq!(puzzles.len(), 30, "{v}");
    assert_eq!(
        (v["attempted"].as_u64(), v["unreadable"].as_u64()),
        (Some(30), Some(6))
    );
    let (mut checked, mut solved, mut played) = (0, 0, Vec::new());
    for p in puzzles {
        let moves: Vec<&str> = p["played"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        let key = (p["id"].as_str().unwrap().to_owned(), moves.join(" "));
        let got = (p["solved"].as_bool().unwrap(), p["right"].as_u64().unwrap());
        solved += u64::from(got.0);
        if let Some(want) = golden.get(&key) {
            assert_eq!(&got, want, "{key:?}: chessgraph vs python-chess");
            checked += 1;
        }
        played.push(key.1);
    }
    assert_eq!(v["solved"].as_u64(), Some(solved), "{v}");
    (v, played, checked)
}

cgtest!(lichess_puzzle_verdicts_match_python_chess, |dir| {
    dir.sql()
        .execute_batch("CREATE TABLE scratch (x); DROP TABLE scratch;")
        .unwrap();
    // A random player's moves are all in the golden file.
    let (random, _, checked) = lichess_run(&dir, &["--player", "random:seed=1"]);
    assert_eq!(checked, 30);
    // The engine at a fixed depth plays the same moves twice; those it played when the
    // golden file was made are checked (a changed search may play others).
    let (engine, played, checked) = lichess_run(&dir, &["--depth", "3"]);
    let (_, again, _) = lichess_run(&dir, &["--depth", "3"]);
    assert_eq!(played, again);
    assert!(
        checked > 0,
        "no engine line is in the golden file: rerun the script"
    );
    assert!(engine["solved"].as_u64() > random["solved"].as_u64());
    assert_eq!(engine["format"], "lichess");
    // Every theme and rating band; a puzzle counts in each of its themes.
    let themes: std::collections::HashMap<&str, u64> = engine["themes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["theme"].as_str().unwrap(), t["total"].as_u64().unwrap()))
        .collect();
    let mates: Vec<u64> = (1..=5)
        .map(|n| themes[format!("mateIn{n}").as_str()])
        .collect();
    assert_eq!(mates, [4, 8, 3, 2, 1]);
    assert_eq!(themes["mate"], 18);
    let bands: Vec<u64> = engine["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["total"].as_u64().unwrap())
        .collect();
    assert_eq!(bands, [2, 8, 7, 8, 5]);
    let band_solved: u64 = engine["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["solved"].as_u64().unwrap())
        .sum();
    assert_eq!(Some(band_solved), engine["solved"].as_u64());
    let bad: Vec<u64> = engine["bad_lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["line"].as_u64().unwrap())
        .collect();
    assert_eq!(bad, [12, 13, 14, 25, 26, 27]);
    // Each run is recorded, labelled by file (and player).
    assert_eq!(
        dir.int("SELECT count(*) FROM runs WHERE label LIKE '%lichess-puzzles.csv'"),
        2
    );
    assert_eq!(
        dir.int(
            "SELECT count(*) FROM runs WHERE label LIKE '%lichess-puzzles.csv (random:seed=1)'"
        ),
        1
    );
});

cgtest!(lichess_puzzle_tables_bad_rows_and_limit, |dir| {
    let input = fixture("lichess-puzzles.csv");
    let input = input.as_str();
    let out = dir.run(&["solve", "--input", input, "--depth", "2"]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stdout.contains("lichess-puzzles.csv: Lichess puzzles; player engine"),
        "{stdout}"
    );
    // The theme table: most common first, the mate themes too; then the rating bands.
    let table = |first: &str| -> Vec<(String, String)> {
        stdout
            .lines()
            .skip_while(|l| !l.starts_with(first))
            .skip(1)
            .take_while(|l| !l.starts_with("rating ") && !l.starts_with("solve: "))
            .map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                (
                    f[0].to_owned(),
                    f[1].split('/').nth(1).unwrap_or("").to_owned(),
                )
            })
            .collect()
    };
    let themes = table("theme ");
    assert_eq!(
        themes[0],
        ("endgame".to_owned(), "21".to_owned()),
        "{stdout}"
    );
    assert_eq!(themes[1], ("mate".to_owned(), "18".to_owned()), "{stdout}");
    assert!(
        themes.contains(&("mateIn5".to_owned(), "1".to_owned())),
        "{stdout}"
    );
    let bands: Vec<(String, String)> = table("rating ").into_iter().take(6).collect();
    let want = [
        ("<1000", "2"),
        ("1000-1399", "8"),
        ("1400-1799", "7"),
        ("1800-2199", "8"),
        ("2200+", "5"),
        ("all", "30"),
    ]
    .map(|(a, b)| (a.to_owned(), b.to_owned()));
    assert_eq!(bands, want, "{stdout}");
    assert!(stdout.contains("unreadable rows: 6 (skipped)"), "{stdout}");
    // Bad rows: file, line and why.
    for (line, why) in [
        (12, "9 columns, expected 10"),
        (13, "FEN: invalid FEN"),
        (14, "Moves: move 2 \"a2c1\" is illegal"),
        (25, "Moves has 3 moves"),
        (26, "Rating: not a number: \"15o0\""),
        (27, "Moves: move 1 \"g4a1\" is illegal"),
    ] {
        let prefix = format!("lichess-puzzles.csv:line {line}: ");
        let message = stderr
            .lines()
            .find_map(|l| l.split_once(&prefix))
            .map(|(_, m)| m);
        assert!(
            message.is_some_and(|m| m.starts_with(why)),
            "{line}: {stderr}"
        );
    }
    // --limit: the first N puzzles only, and reading stops there (no bad row is reached).
    let out = dir.run(&[
        "solve",
        "--input",
        input,
        "--player",
        "random:seed=1",
        "--limit",
        "5",
    ]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("(the first 5)"), "{stdout}");
    assert!(
        stdout.contains("\nall ") && stdout.contains(" 0/5 "),
        "{stdout}"
    );
    // No warning: only the progress summary line.
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.lines().all(|l| l.starts_with("solve: 5 puzzles in ")),
        "{err}"
    );
    // Filters: themes (any of them) and ratings.
    let count = |args: &[&str]| {
        let mut all = vec![
            "solve",
            "--input",
            input,
            "--player",
            "random:seed=1",
            "--json",
        ];
        all.extend_from_slice(args);
        let v: serde_json::Value = serde_json::from_str(&dir.ok(&all)).unwrap();
        v["attempted"].as_u64().unwrap()
    };
    assert_eq!(count(&["--themes", "mateIn1,mateIn5"]), 5);
    assert_eq!(count(&["--min-rating", "2200"]), 5);
    assert_eq!(count(&["--max-rating", "999"]), 2);
    assert_eq!(
        count(&["--themes", "mate", "--min-rating", "1400", "--limit", "3"]),
        3
    );
});

cgtest!(lichess_puzzles_found_by_header_in_a_gz_file, |dir| {
    use std::io::Write;
    let text = std::fs::read(fixture("lichess-puzzles.csv")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&text).unwrap();
    let path = dir.create("puzzles.txt.gz", gz.finish().unwrap());
    let out = dir.ok(&[
        "solve",
        "--input",
        path.to_str().unwrap(),
        "--player",
        "random:seed=1",
        "--limit",
        "12",
    ]);
    assert!(
        out.contains("puzzles.txt.gz: Lichess puzzles (the first 12)"),
        "{out}"
    );
    assert!(out.contains("/12 solved (1 file)"), "{out}");
});
