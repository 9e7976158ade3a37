//! The engine alone (`chessgraph-engine`), as engine-testing frameworks run it: UCI when
//! started without arguments, `bench` printing a signature and a speed they can read.

use std::io::Write;
use std::process::{Command, Stdio};

fn engine() -> Command {
    Command::new(env!("CARGO_BIN_EXE_chessgraph-engine"))
}

/// The `(nodes, nps)` an OpenBench worker reads from a bench's output: lines from the
/// last up, every character but letters, digits and spaces made a space, the first
/// `nodes searched N` (or `N nodes` / `nodes N`) and `nodes second N` (or `N nps` /
/// `nps N`) found, case ignored. Written from the rule, so that a change of the bench's
/// last lines that such a worker would misread fails here.
fn framework_reading(output: &str) -> (Option<u64>, Option<u64>) {
    let (mut nodes, mut nps) = (None, None);
    for line in output.lines().rev() {
        let clean: String = line
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    ' '
                }
            })
            .collect();
        let words: Vec<&str> = clean.split_whitespace().collect();
        let number = |w: Option<&&str>| w.and_then(|w| w.parse::<u64>().ok());
        for (i, w) in words.iter().enumerate() {
            let before = i.checked_sub(1).and_then(|j| words.get(j));
            let found_nps = match *w {
                "nps" => number(before).or(number(words.get(i + 1))),
                "second" if before == Some(&"nodes") => number(words.get(i + 1)),
                _ => None,
            };
            let found_nodes = match *w {
                "searched" if before == Some(&"nodes") => number(words.get(i + 1)),
                "nodes" => number(before).or(number(words.get(i + 1))),
                _ => None,
            };
            if nps.is_none() && found_nps.is_some() {
                nps = found_nps;
            }
            if nodes.is_none() && found_nodes.is_some() {
                nodes = found_nodes;
            }
        }
        if nodes.is_some() && nps.is_some() {
            break;
        }
    }
    (nodes, nps)
}

fn bench(depth: &str) -> String {
    let out = engine().args(["bench", depth]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn bench_reads_as_a_signature_and_a_speed() {
    let first = bench("3");
    let (nodes, nps) = framework_reading(&first);
    let nodes = nodes.expect("a node count");
    assert!(nps.expect("a speed") > 0, "{first}");
    // The signature is the sum of the positions' lines, and the same on every run.
    let summed: u64 = first
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            w.next()?.parse::<u32>().ok()?;
            w.next()?.parse::<u64>().ok()
        })
        .sum();
    assert_eq!(nodes, summed, "{first}");
    assert_eq!(framework_reading(&bench("3")).0, Some(nodes));
    // A deeper bench searches more.
    assert!(framework_reading(&bench("4")).0.unwrap() > nodes);
}

#[test]
fn no_arguments_is_a_uci_engine() {
    let mut child = engine()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"uci\nisready\nposition startpos moves e2e4\ngo nodes 2000\nisready\nquit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for needed in [
        "id name chessgraph",
        "option name Hash type spin",
        "option name Threads type spin",
        "uciok",
        "readyok",
    ] {
        assert!(text.contains(needed), "{needed:?} missing:\n{text}");
    }
    let best = text
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .expect("a best move");
    assert!(!best.starts_with("0000"), "{text}");
}

#[test]
fn bad_arguments_are_refused_with_the_usage() {
    for args in [&["bench", "0"][..], &["bench", "x"], &["--nope"]] {
        let out = engine().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.starts_with("chessgraph-engine: "), "{err}");
    }
    let out = engine().arg("--help").output().unwrap();
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("bench [DEPTH]")
    );
}

#[test]
fn the_reading_rule_itself() {
    // Ethereal's and Stockfish's forms, and a line that only looks like one.
    let ethereal = "Total time (ms) : 12\nNodes searched  : 345\nNodes/second    : 678\n";
    assert_eq!(framework_reading(ethereal), (Some(345), Some(678)));
    let stockfish = "info depth 1 nodes 20 nps 5000\n999 nodes 12345 nps\n";
    assert_eq!(framework_reading(stockfish), (Some(999), Some(12345)));
    assert_eq!(framework_reading("Total time (ms) : 12\n"), (None, None));
}

/// The engine's answers to `commands` (each line sent as given, then `quit`).
fn session(commands: &str) -> String {
    let mut child = engine()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(commands.as_bytes()).unwrap();
    input.write_all(b"quit\n").unwrap();
    drop(input);
    String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap()
}

/// The node count of the last `info` line before `bestmove`.
#[cfg(feature = "tune")]
fn searched_nodes(answers: &str) -> u64 {
    let info = answers
        .lines()
        .rfind(|l| l.starts_with("info depth"))
        .unwrap_or_else(|| panic!("no info line:\n{answers}"));
    let words: Vec<&str> = info.split_whitespace().collect();
    let i = words.iter().position(|w| *w == "nodes").unwrap();
    words[i + 1].parse().unwrap()
}

#[cfg(not(feature = "tune"))]
#[test]
fn a_normal_build_has_no_tunable_options() {
    let out = engine().arg("spsa").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("make tune"));
    let answers = session("uci\nsetoption name rfp_margin value 100\nisready\n");
    assert!(!answers.contains("option name rfp_margin"), "{answers}");
    assert!(answers.contains("unknown option"), "{answers}");
}

#[cfg(feature = "tune")]
#[test]
fn a_tuning_build_sets_the_search_constants() {
    let out = engine().arg("spsa").output().unwrap();
    assert!(out.status.success());
    let lines = String::from_utf8(out.stdout).unwrap();
    let answers = session("uci\n");
    let mut count = 0;
    for line in lines.lines() {
        let fields: Vec<&str> = line.split(", ").collect();
        assert_eq!(fields.len(), 7, "{line}");
        assert_eq!(fields[1], "int", "{line}");
        let option = format!(
            "option name {} type spin default {} min {} max {}",
            fields[0], fields[2], fields[3], fields[4]
        );
        assert!(answers.contains(&option), "{option} missing:\n{answers}");
        count += 1;
    }
    assert!(count >= 30, "{lines}");

    let search = "position startpos moves e2e4 e7e5 g1f3\ngo depth 8\nisready\n";
    let default = searched_nodes(&session(search));
    // The default value again: the same search, node for node.
    let same = session(&format!("setoption name LMR_BASE value 75\n{search}"));
    assert_eq!(searched_nodes(&same), default);
    // Larger reductions: a smaller tree.
    let reduced = session(&format!("setoption name lmr_base value 200\n{search}"));
    assert!(searched_nodes(&reduced) < default, "{reduced}");
    // Out of range, or not a number: refused, the value kept.
    let refused = session(&format!(
        "setoption name lmr_base value 201\nsetoption name lmr_base value x\n{search}"
    ));
    assert_eq!(refused.matches("info string error").count(), 2, "{refused}");
    assert_eq!(searched_nodes(&refused), default);
}
