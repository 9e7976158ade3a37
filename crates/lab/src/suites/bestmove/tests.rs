use super::*;
use chessgraph_core::data::puzzles::{PuzzleSet, read_epd};

fn epd(text: &str) -> PuzzleSet {
    read_epd(text.as_bytes()).unwrap()
}

fn mv(p: &Puzzle, text: &str) -> Option<Move> {
    Some(chessgraph_core::data::notation::parse_move(&p.position, text).unwrap())
}

#[test]
fn bm_am_and_points() {
    let set = epd(
        "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - bm O-O c3; \
         c0 \"O-O=10, c3=10, Nc3=7\";\n\
         3rk3/8/8/3p4/8/8/8/3QK3 w - - am Qxd5;\n\
         4k3/8/8/8/8/8/4P3/4K3 w - - c0 \"e4=10, e3=6\";\n\
         4k3/8/8/8/8/8/4P3/4K3 w - - bm e4; am e4;\n",
    );
    let [italian, avoid, points, both] = &set.puzzles[..] else {
        panic!("{:?}", set.bad)
    };
    let s = |p: &Puzzle, m: &str| score(p, mv(p, m));
    assert_eq!(
        s(italian, "O-O"),
        MoveScore {
            solved: true,
            points: Some((10, 10))
        }
    );
    assert_eq!(
        s(italian, "c3"),
        MoveScore {
            solved: true,
            points: Some((10, 10))
        }
    );
    assert_eq!(
        s(italian, "Nc3"),
        MoveScore {
            solved: false,
            points: Some((7, 10))
        }
    );
    assert_eq!(
        s(italian, "h3"),
        MoveScore {
            solved: false,
            points: Some((0, 10))
        }
    );
    assert_eq!(
        s(avoid, "Qxd5"),
        MoveScore {
            solved: false,
            points: None
        }
    );
    assert_eq!(
        s(avoid, "Qd2"),
        MoveScore {
            solved: true,
            points: None
        }
    );
    // Points without bm: the top-scored move is the solution.
    assert!(s(points, "e4").solved);
    assert_eq!(
        s(points, "e3"),
        MoveScore {
            solved: false,
            points: Some((6, 10))
        }
    );
    // A move both expected and avoided is not a solution; no move never is.
    assert!(!s(both, "e4").solved);
    assert!(!score(italian, None).solved);
    let r = MoveReport::new(italian, mv(italian, "Nc3"));
    assert_eq!(
        (r.expected.as_str(), r.played_san.as_str()),
        ("O-O c3", "Nc3")
    );
    assert_eq!(
        (r.best_uci.clone(), r.played_uci.as_str()),
        (vec!["e1g1".to_owned(), "c2c3".to_owned()], "b1c3")
    );
    assert_eq!(MoveReport::new(avoid, None).expected, "not Qxd5");
    assert_eq!(MoveReport::new(points, None).expected, "e4");
}

#[test]
fn groups_from_ids() {
    assert_eq!(
        group_of("STS(v1.0) Undermine.001"),
        Some("STS(v1.0) Undermine")
    );
    assert_eq!(group_of("WAC.300"), Some("WAC"));
    assert_eq!(group_of("line 3"), None);
    assert_eq!(group_of("v1.0a"), None);
    assert_eq!(group_of(".001"), None);
}

#[test]
fn summary_groups_misses_and_points() {
    let set = epd(
        "4k3/8/8/8/8/8/4P3/4K3 w - - bm e4; id \"A.1\"; c0 \"e4=10, e3=5\";\n\
         4k3/8/8/8/8/8/4P3/4K3 w - - bm e4; id \"A.2\"; c0 \"e4=10, e3=5\";\n\
         4k3/8/8/8/8/8/4P3/4K3 w - - bm e3; id \"B.1\";\n",
    );
    let played = ["e4", "e3", "e3"];
    let reports: Vec<MoveReport> = set
        .puzzles
        .iter()
        .zip(played)
        .map(|(p, m)| MoveReport::new(p, mv(p, m)))
        .collect();
    let s = SuiteSummary::new(&reports);
    let row = |g: &SuiteStats| (g.name.clone(), g.solved, g.total, g.points, g.max_points);
    assert_eq!(
        s.groups.iter().map(row).collect::<Vec<_>>(),
        [("A".to_owned(), 1, 2, 15, 20), ("B".to_owned(), 1, 1, 0, 0)]
    );
    assert_eq!(row(&s.all), ("all".to_owned(), 2, 3, 15, 20));
    assert_eq!(s.misses.len(), 1);
    let text = s.to_string();
    assert!(text.starts_with("missed 1 of 3:\n"), "{text}");
    assert!(
        text.contains("    2  A.2  e4              e3          5/10  4k3/8/8/8/8/8/4P3/4K3 w - -"),
        "{text}"
    );
    assert!(
        text.contains("\nall             2/3         15/20"),
        "{text}"
    );
}

/// The fixture suite and python-chess's verdicts on moves played in it
/// (`scripts/golden/suite.py`).
const SUITE: &str = include_str!("../../../../../tests/fixtures/suite-bestmove.epd");
const GOLDEN: &str = include_str!("../../../../../tests/golden/suite-verdicts.csv");

#[test]
fn verdicts_match_python_chess() {
    let set = epd(SUITE);
    let bad_lines: Vec<u64> = set.bad.iter().map(|b| b.line).collect();
    let golden_bad: Vec<u64> = GOLDEN
        .lines()
        .find_map(|l| l.strip_prefix("# bad lines: "))
        .expect("golden file names the bad lines")
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    assert_eq!(bad_lines, golden_bad, "{:?}", set.bad);
    let mut rows = 0;
    for row in GOLDEN.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let [line, id, played, solved, points, max_points] = f[..] else {
            panic!("bad golden row {row}")
        };
        let puzzle = set
            .puzzles
            .iter()
            .find(|p| p.id == id)
            .unwrap_or_else(|| panic!("no puzzle {id}"));
        assert_eq!(puzzle.line.to_string(), line, "{row}");
        let m = chessgraph_core::chess::moves::parse_uci(&puzzle.position, played).unwrap();
        let s = score(puzzle, Some(m));
        let expected_points = match (points, max_points) {
            ("", "") => None,
            (p, m) => Some((p.parse().unwrap(), m.parse().unwrap())),
        };
        assert_eq!(
            (s.solved, s.points),
            (solved == "true", expected_points),
            "{row}"
        );
        rows += 1;
    }
    // Both verdicts, with and without points, are among the golden rows.
    assert!(rows >= 30, "{rows} golden rows");
}
