use super::*;
use chessgraph_core::data::lichess_puzzles::LichessReader;
use chessgraph_engine::players::{Player, plain_result};
use chessgraph_engine::search::{Control, Info, SearchResult};

/// The first row of the Lichess database: Black's f2g3, then White's e6e7, b3c1, h6c1.
const ROW_00008: &str = "00008,r6k/pp2r2p/4Rp1Q/3p4/8/1N1P2R1/PqP2bPP/7K b - - 0 24,\
    f2g3 e6e7 b2b1 b3c1 b1c1 h6c1,1913,75,94,6230,crushing hangingPiece long middlegame,\
    https://lichess.org/787zsVup/black#48,";
/// Black's b7b6, then White mates with Re8# (Ra8# mates too).
const ROW_TWO_MATES: &str = "mate1,6k1/1p3ppp/8/8/8/8/5PPP/R3R1K1 b - - 0 1,b7b6 e1e8,\
    700,80,90,100,backRankMate mate mateIn1 oneMove endgame,https://lichess.org/x#1,";

fn puzzle(row: &str) -> LichessPuzzle {
    let mut rows = LichessReader::new(row.as_bytes());
    rows.next().unwrap().unwrap().unwrap()
}

/// The player's moves from UCI: each in the position the line reaches before it.
fn moves(p: &LichessPuzzle, ucis: &[&str]) -> Vec<Move> {
    let mut pos = p.position.clone();
    let mut out = Vec::new();
    for (pair, u) in p.solution.chunks(2).zip(ucis) {
        out.push(chessgraph_core::chess::moves::parse_uci(&pos, u).unwrap());
        for &m in pair {
            pos.play_unchecked(m);
        }
    }
    out
}

fn verdict(p: &LichessPuzzle, ucis: &[&str]) -> (bool, usize) {
    let v = judge(p, &moves(p, ucis));
    (v.solved, v.right)
}

#[test]
fn every_player_move_must_be_the_lines() {
    let p = puzzle(ROW_00008);
    assert_eq!(verdict(&p, &["e6e7", "b3c1", "h6c1"]), (true, 3));
    assert_eq!(verdict(&p, &["e6e7", "b3c1"]), (false, 2));
    assert_eq!(verdict(&p, &["e6e7", "h6c1"]), (false, 1));
    assert_eq!(verdict(&p, &["h6f8"]), (false, 0));
    assert_eq!(verdict(&p, &[]), (false, 0));
}

#[test]
fn any_mating_move_wins() {
    let p = puzzle(ROW_TWO_MATES);
    assert_eq!(verdict(&p, &["e1e8"]), (true, 1));
    assert_eq!(verdict(&p, &["a1a8"]), (true, 1));
    assert_eq!(verdict(&p, &["a1a7"]), (false, 0));
    let pos = &p.position;
    let m = |u: &str| chessgraph_core::chess::moves::parse_uci(pos, u).unwrap();
    assert_eq!(check(pos, m("a1a8"), m("e1e8")), Step::Mates);
    assert_eq!(check(pos, m("e1e8"), m("e1e8")), Step::Right);
    assert_eq!(check(pos, m("a1a2"), m("e1e8")), Step::Wrong);
}

/// Plays the moves it is given, in order, and records the positions it was asked about.
struct Script {
    moves: Vec<String>,
    asked: Vec<(String, usize)>,
}

impl Player for Script {
    fn name(&self) -> String {
        "script".to_owned()
    }

    fn control(&self) -> Control {
        Control::default()
    }

    fn choose(
        &mut self,
        pos: &Chess,
        history: &[u64],
        _limits: &Limits,
        _info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        let fen = chessgraph_core::chess::fen::to_fen(pos);
        self.asked.push((fen.to_string(), history.len()));
        let best = (!self.moves.is_empty())
            .then(|| self.moves.remove(0))
            .map(|u| chessgraph_core::chess::moves::parse_uci(pos, &u).unwrap());
        plain_result(best, Duration::ZERO)
    }
}

#[test]
fn play_stops_at_the_first_wrong_move() {
    let p = puzzle(ROW_00008);
    let mut player = Script {
        moves: ["e6e7", "h6c1", "h6c1"].map(str::to_owned).to_vec(),
        asked: Vec::new(),
    };
    let r = play(&mut player, &p, &Limits::default());
    assert_eq!(r.played, ["e6e7", "h6c1"]);
    assert_eq!(
        r.verdict,
        LineVerdict {
            solved: false,
            right: 1
        }
    );
    assert_eq!(r.solution.len(), 5);
    // Asked twice: after f2g3 (history: the FEN), then after e6e7 b2b1 (two more).
    assert_eq!(player.asked.len(), 2);
    assert_eq!(player.asked[0].1, 1);
    assert_eq!(player.asked[1].1, 3);
    assert!(
        player.asked[1]
            .0
            .starts_with("r6k/pp2R2p/5p1Q/3p4/8/1N1P2b1/P1P3PP/1q5K w")
    );
    let mut player = Script {
        moves: ["e6e7", "b3c1", "h6c1"].map(str::to_owned).to_vec(),
        asked: Vec::new(),
    };
    let r = play(&mut player, &p, &Limits::default());
    assert_eq!(
        r.verdict,
        LineVerdict {
            solved: true,
            right: 3
        }
    );
    assert_eq!(r.to_json()["played"].as_array().unwrap().len(), 3);
}

#[test]
fn filter_by_rating_and_themes() {
    let p = puzzle(ROW_00008);
    assert!(Filter::default().accepts(&p));
    let f = |min, max, themes: &[&str]| Filter {
        min_rating: min,
        max_rating: max,
        themes: themes.iter().map(|t| t.to_string()).collect(),
    };
    assert!(f(Some(1913), Some(1913), &[]).accepts(&p));
    assert!(!f(Some(1914), None, &[]).accepts(&p));
    assert!(!f(None, Some(1900), &[]).accepts(&p));
    assert!(f(None, None, &["mate", "long"]).accepts(&p));
    assert!(!f(None, None, &["mate"]).accepts(&p));
}

/// The fixture and python-chess's verdicts on move lists played in it
/// (`scripts/fixtures/lichess-puzzles.py golden`).
const FIXTURE: &str = include_str!("../../../../../tests/fixtures/lichess-puzzles.csv");
const GOLDEN: &str = include_str!("../../../../../tests/golden/lichess-verdicts.csv");

#[test]
fn verdicts_match_python_chess() {
    let (mut puzzles, mut bad) = (Vec::new(), Vec::new());
    for row in LichessReader::new(FIXTURE.as_bytes()) {
        match row.unwrap() {
            Ok(p) => puzzles.push(p),
            Err(b) => bad.push(b.line),
        }
    }
    let golden_bad: Vec<u64> = GOLDEN
        .lines()
        .find_map(|l| l.strip_prefix("# bad lines: "))
        .expect("the golden file names the bad lines")
        .split_whitespace()
        .map(|item| item.split_once('=').unwrap().0.parse().unwrap())
        .collect();
    assert_eq!(bad, golden_bad);
    assert_eq!(puzzles.len(), 30);
    let (mut rows, mut solved, mut other_mates) = (0, 0, 0);
    for row in GOLDEN.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let [line, id, played, want_solved, want_right] = row.split(',').collect::<Vec<_>>()[..]
        else {
            panic!("bad golden row {row}")
        };
        let p = puzzles
            .iter()
            .find(|p| p.id == id)
            .unwrap_or_else(|| panic!("no puzzle {id}"));
        assert_eq!(p.line.to_string(), line, "{row}");
        let ucis: Vec<&str> = played.split_whitespace().collect();
        let got = verdict(p, &ucis);
        assert_eq!(
            (got.0.to_string(), got.1.to_string()),
            (want_solved.to_owned(), want_right.to_owned()),
            "{row}: chessgraph vs python-chess"
        );
        rows += 1;
        solved += usize::from(got.0);
        let line_moves: Vec<String> = p
            .solution
            .iter()
            .step_by(2)
            .map(chessgraph_core::chess::moves::uci)
            .collect();
        other_mates += usize::from(got.0 && ucis != line_moves);
    }
    // Both verdicts, and mates other than the line's, are among the golden rows.
    assert!(
        rows >= 100 && solved >= 30 && other_mates >= 1,
        "{rows} {solved} {other_mates}"
    );
}
