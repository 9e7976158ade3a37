//! Tests of parsing and whole sessions.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};

use super::*;
use crate::eval::Evaluator;
use chessgraph_core::chess::hash;

#[test]
fn parse_commands() {
    assert_eq!(parse("  ").unwrap(), None);
    assert_eq!(parse("uci").unwrap(), Some(Command::Uci));
    assert_eq!(parse("isready\r").unwrap(), Some(Command::IsReady));
    assert_eq!(
        parse("setoption name Move Overhead value 50").unwrap(),
        Some(Command::SetOption {
            name: "Move Overhead".into(),
            value: Some("50".into())
        })
    );
    assert_eq!(
        parse("setoption name BookFile value /tmp/my book.bin").unwrap(),
        Some(Command::SetOption {
            name: "BookFile".into(),
            value: Some("/tmp/my book.bin".into())
        })
    );
    assert_eq!(
        parse("position startpos moves e2e4 e7e5").unwrap(),
        Some(Command::Position {
            fen: None,
            moves: vec!["e2e4".parse().unwrap(), "e7e5".parse().unwrap()]
        })
    );
    assert_eq!(
        parse("position fen 8/8/8/8/8/8/8/K6k w - - 0 1").unwrap(),
        Some(Command::Position {
            fen: Some("8/8/8/8/8/8/8/K6k w - - 0 1".into()),
            moves: vec![]
        })
    );
    let Some(Command::Go(go)) =
        parse("go wtime 1000 btime -5 winc 10 binc 10 movestogo 7 searchmoves e2e4 d2d4 depth 3")
            .unwrap()
    else {
        panic!()
    };
    assert_eq!(go.wtime, Some(Duration::from_millis(1000)));
    assert_eq!(go.btime, Some(Duration::ZERO));
    assert_eq!(go.movestogo, Some(7));
    assert_eq!(go.searchmoves.len(), 2);
    assert_eq!(go.depth, Some(3));
    let Some(Command::Go(go)) = parse("go infinite ponder mate 3 nodes 10 movetime 5").unwrap()
    else {
        panic!()
    };
    assert!(go.infinite && go.ponder);
    assert_eq!((go.mate, go.nodes), (Some(3), Some(10)));
}

#[test]
fn parse_errors() {
    for bad in [
        "frobnicate",
        "go depth",
        "go depth x",
        "go sideways 3",
        "position",
        "position fen",
        "position somewhere",
        "position startpos moves e2e4 zz",
        "setoption",
        "setoption name",
        "debug maybe",
    ] {
        assert!(parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn game_from_position_command() {
    let moves: Vec<UciMove> = ["e2e4", "e7e5", "g1f3"]
        .iter()
        .map(|m| m.parse().unwrap())
        .collect();
    let (g, refused) = Game::from_command(None, &moves).unwrap();
    assert_eq!(refused, None);
    assert_eq!(g.history.len(), 3);
    assert_eq!(g.history[0], 0x463b_9618_1691_fc9c);
    assert_eq!(g.position.turn(), shakmaty::Color::Black);
    // An illegal move keeps the moves before it, as Stockfish does, and says which.
    let bad: Vec<UciMove> = ["e2e4", "e7e5", "e1e3", "d7d5"]
        .iter()
        .map(|m| m.parse().unwrap())
        .collect();
    let (g, refused) = Game::from_command(None, &bad).unwrap();
    let e = refused.unwrap();
    assert_eq!(
        e,
        UciError::IllegalMove {
            number: 3,
            uci: "e1e3".into()
        }
    );
    assert!(e.to_string().contains("move 3 (e1e3) is illegal"), "{e}");
    assert_eq!(
        chessgraph_core::chess::fen::to_fen(&g.position),
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    assert_eq!(g.history.len(), 2);
    assert!(Game::from_command(Some("not a fen"), &[]).is_err());
    // Kings missing: a FEN that parses but is no legal position.
    assert!(Game::from_command(Some("8/8/8/8/8/8/8/8 w - - 0 1"), &[]).is_err());
    // Castling rights without the rooks are dropped, not fatal.
    // The side not to move in check: no legal position.
    assert!(Game::from_command(Some("8/8/8/4k3/8/8/8/Q3K3 w - - 0 1"), &[]).is_err());
    let (g, _) = Game::from_command(Some("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1"), &[]).unwrap();
    assert!(!g.position.castles().any());
}

#[test]
fn limits_pick_the_side_to_move() {
    let go = Go {
        wtime: Some(Duration::from_millis(1000)),
        btime: Some(Duration::from_millis(2000)),
        binc: Some(Duration::from_millis(30)),
        ..Go::default()
    };
    let (g, _) = Game::from_command(None, &["e2e4".parse().unwrap()]).unwrap();
    let l = limits(&go, &g.position).unwrap();
    let c = l.clock.unwrap();
    assert_eq!(
        (c.time, c.inc),
        (Duration::from_millis(2000), Duration::from_millis(30))
    );
    let go = Go {
        searchmoves: vec!["e2e5".parse().unwrap()],
        ..Go::default()
    };
    assert!(limits(&go, &Chess::default()).is_err());
}

/// Runs a whole session in-process (end of input acts as quit).
fn session(input: &str) -> String {
    let buf = Arc::new(Mutex::new(Vec::<u8>::new()));
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let out = Output::new(Box::new(Shared(buf.clone())));
    let e = Evaluator::builtin("seed003").unwrap();
    run(
        io::Cursor::new(input.to_owned()),
        out,
        Box::new(crate::search::Searcher::new(Arc::new(e), 16)),
        "seed003",
        Box::new(|s| Ok(Evaluator::by_name_or_path(s)?)),
    )
    .unwrap();
    String::from_utf8(buf.lock().unwrap().clone()).unwrap()
}

#[test]
fn session_basics() {
    let text = session(
        "uci\nisready\nbogus\nsetoption name Hash value 0\nsetoption name Nope value 1\n\
         position startpos moves e2e4\ngo depth 3\nisready\n",
    );
    assert!(text.contains("id name chessgraph"));
    assert!(text.contains("option name Hash type spin"));
    assert!(text.contains("uciok"));
    assert!(text.matches("readyok").count() == 2, "{text}");
    assert!(text.contains("info depth 3 "));
    assert!(text.contains("info string error: unknown command \"bogus\""));
    assert!(text.contains("info string error: option Hash: 0 is outside 1..=16384"));
    assert!(text.contains("info string error: unknown option \"Nope\""));
    let best = text
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .expect("bestmove");
    let m: UciMove = best.split_whitespace().next().unwrap().parse().unwrap();
    let (g, _) = Game::from_command(None, &["e2e4".parse().unwrap()]).unwrap();
    assert!(m.to_move(&g.position).is_ok(), "{best}");
}

#[test]
fn session_book_move() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.bin");
    let start = Chess::default();
    let d4 = chessgraph_core::chess::moves::parse_uci(&start, "d2d4").unwrap();
    std::fs::write(
        &path,
        book::to_bytes(&[book::BookEntry {
            key: hash::key(&start),
            mv: book::polyglot_move(d4),
            weight: 1,
        }]),
    )
    .unwrap();
    let text = session(&format!(
        "setoption name BookFile value {}\nsetoption name OwnBook value true\nposition startpos\ngo wtime 1000 btime 1000\n",
        path.display()
    ));
    assert!(text.contains("info string book move d2d4"), "{text}");
    assert!(text.contains("bestmove d2d4"), "{text}");
}

/// A refused FEN leaves no position (`go` answers `bestmove 0000`, in its turn after the
/// search before it); an illegal move keeps the moves before it, and the engine says so.
#[test]
fn session_never_answers_for_another_position() {
    let text = session(
        "position startpos\ngo depth 2\n\
         position fen 8/8/8/4k3/8/8/8/Q3K3 w - - 0 1\ngo depth 2\n\
         position startpos moves e2e4 e7e5 e1e3\ngo depth 2\n",
    );
    let answers: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("bestmove "))
        .collect();
    assert_eq!(answers.len(), 3, "{text}");
    assert_eq!(answers[1], "0000", "{text}");
    assert!(text.contains("info string error: position fen"), "{text}");
    assert!(
        text.contains("info string error: go: no position"),
        "{text}"
    );
    assert!(
        text.contains("info string error: position: move 3 (e1e3) is illegal"),
        "{text}"
    );
    let after: Vec<UciMove> = ["e2e4", "e7e5"]
        .iter()
        .map(|m| m.parse().unwrap())
        .collect();
    let (g, _) = Game::from_command(None, &after).unwrap();
    let m: UciMove = answers[2]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(m.to_move(&g.position).is_ok(), "{text}");
}
