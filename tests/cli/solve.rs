//! `chessgraph solve`: puzzles from EPD and PGN fixtures cut from the shared sets.

use std::path::{Path, PathBuf};

use crate::cgtest;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The report line of the puzzle named `id` (ids are the last column).
fn report_line<'a>(out: &'a str, id: &str) -> &'a str {
    out.lines()
        .find(|l| l.ends_with(&format!("  {id}")))
        .unwrap_or_else(|| panic!("no line for {id} in:\n{out}"))
}

cgtest!(solves_composed_problems, |dir| {
    let input = fixture("puzzles-composed.epd");
    let out = dir.ok(&["solve", "--input", input.to_str().unwrap()]);
    assert!(
        out.contains(
            "solved 30/30 (3 with another key); timeout 0, no mate 0, unverified 0; \
             skipped 0 (not mate problems), unreadable 0"
        ),
        "{out}"
    );
    let rows: Vec<(String, String)> = out
        .lines()
        .skip_while(|l| !l.starts_with("    N  solved/total"))
        .skip(1)
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
    let out = dir.ok(&["solve", "--input", input.to_str().unwrap()]);
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
    let out = dir.run(&["solve", "--input", input.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stdout.contains("solved 1/1 "), "{stdout}");
    assert!(
        stdout.contains("skipped 1 (not mate problems), unreadable 2"),
        "{stdout}"
    );
    assert!(
        report_line(&stdout, "bm only").contains(" skipped "),
        "{stdout}"
    );
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
    // Reading only (solving the full sets is scripts/solve-bench.sh's job): a time limit
    // of 1 ms keeps this fast; every puzzle must parse.
    for (name, total) in [
        ("puzzles/mate-in-2-games.pgn", 166),
        ("puzzles/composed-problems.epd", 1192),
    ] {
        let Some(path) = crate::util::shared(name) else {
            continue;
        };
        let out = dir.ok(&[
            "solve",
            "--input",
            path.to_str().unwrap(),
            "--movetime",
            "1",
        ]);
        assert!(out.contains(&format!("/{total} (")), "{out}");
        assert!(
            out.contains("skipped 0 (not mate problems), unreadable 0"),
            "{out}"
        );
    }
});

cgtest!(solve_bench_and_match_print_json, |dir| {
    let out = dir.ok(&[
        "solve",
        "--input",
        fixture("puzzles-composed.epd").to_str().unwrap(),
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
