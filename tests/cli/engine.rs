//! `chessgraph engine` (UCI over pipes) and `chessgraph bench`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use shakmaty::uci::UciMove;
use shakmaty::{Chess, Outcome, Position};

use crate::cgtest;
use crate::util::Dir;

/// Liveness bound for waiting on the engine (not a speed requirement: only to fail
/// instead of hanging when the engine stops answering).
const PATIENCE: Duration = Duration::from_secs(60);

/// A running `chessgraph engine` with line-based I/O (also used by `players`).
pub(crate) struct Uci {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    pub(crate) transcript: Vec<String>,
}

impl Uci {
    pub(crate) fn start(dir: &Dir, args: &[&str]) -> Uci {
        let mut full = vec!["engine"];
        full.extend_from_slice(args);
        let mut child = dir
            .command(&full)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn engine");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Uci {
            child,
            stdin,
            lines: rx,
            transcript: Vec::new(),
        }
    }

    pub(crate) fn send(&mut self, line: &str) {
        self.transcript.push(format!("> {line}"));
        writeln!(self.stdin, "{line}").expect("write to engine");
        self.stdin.flush().unwrap();
    }

    /// Reads lines until one starts with `prefix`; returns it.
    pub(crate) fn expect(&mut self, prefix: &str) -> String {
        loop {
            match self.lines.recv_timeout(PATIENCE) {
                Ok(line) => {
                    self.transcript.push(format!("< {line}"));
                    if line.starts_with(prefix) {
                        return line;
                    }
                }
                Err(e) => panic!(
                    "waiting for {prefix:?}: {e}\n{}",
                    self.transcript.join("\n")
                ),
            }
        }
    }

    /// The move of a `bestmove` line (`None` for 0000).
    pub(crate) fn bestmove(&mut self) -> Option<UciMove> {
        let line = self.expect("bestmove ");
        let m = line.split_whitespace().nth(1).unwrap();
        (m != "0000").then(|| m.parse().unwrap_or_else(|_| panic!("bad move in {line:?}")))
    }

    pub(crate) fn handshake(&mut self) {
        self.send("uci");
        self.expect("uciok");
        self.send("isready");
        self.expect("readyok");
    }

    pub(crate) fn quit(mut self) {
        self.send("quit");
        for _ in 0..(PATIENCE.as_millis() / 10) {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "engine exit {status}");
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        panic!("engine did not quit\n{}", self.transcript.join("\n"));
    }
}

fn position(fen: &str) -> Chess {
    chessgraph_core::chess::fen::parse(fen, chessgraph_core::chess::fen::Leniency::Strict).unwrap()
}

/// Plays one game between two engine processes; asserts every move is legal. Returns
/// the number of plies and how it ended.
fn play_game(dir: &Dir, white: &[&str], black: &[&str], start: &str, go: &str) -> (usize, String) {
    let mut engines = [Uci::start(dir, white), Uci::start(dir, black)];
    for e in &mut engines {
        e.handshake();
        e.send("ucinewgame");
    }
    let mut pos = position(start);
    let mut moves: Vec<String> = Vec::new();
    // The keys of the positions before `pos`.
    let mut keys = Vec::new();
    let ending = loop {
        if let Some(end) = chessgraph_core::chess::game::outcome(&pos, &keys) {
            break end.termination.words().to_owned();
        }
        if moves.len() >= 200 {
            break "ply cap".to_owned();
        }
        let side = usize::from(pos.turn().is_black());
        let e = &mut engines[side];
        if moves.is_empty() {
            e.send(&format!("position fen {start}"));
        } else {
            e.send(&format!("position fen {start} moves {}", moves.join(" ")));
        }
        e.send(go);
        let uci = e.bestmove().unwrap_or_else(|| {
            panic!(
                "bestmove 0000 with legal moves in {}",
                chessgraph_core::chess::fen::to_fen(&pos)
            )
        });
        let m = uci.to_move(&pos).unwrap_or_else(|_| {
            panic!(
                "illegal move {uci} in {}\n{}",
                chessgraph_core::chess::fen::to_fen(&pos),
                e.transcript.join("\n")
            )
        });
        keys.push(chessgraph_core::chess::hash::key(&pos));
        pos.play_unchecked(m);
        moves.push(uci.to_string());
    };
    if let Outcome::Known(k) = pos.outcome() {
        assert!(
            matches!(
                ending.as_str(),
                "checkmate" | "stalemate" | "insufficient material"
            ),
            "{k:?} {ending}"
        );
    }
    for e in engines {
        e.quit();
    }
    (moves.len(), ending)
}

cgtest!(engine_plays_whole_games_with_legal_moves, |dir| {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let (plies, ending) = play_game(
        &dir,
        &["--evaluator", "seed003"],
        &["--evaluator", "material"],
        start,
        "go nodes 3000",
    );
    assert!(plies >= 10, "{plies} plies, {ending}");
    // An endgame with promotions, castling rights gone, en passant possible.
    let (plies, ending) = play_game(
        &dir,
        &[],
        &["--evaluator", "simplified"],
        "8/5pk1/6p1/2pP4/1pP5/1P3K2/8/8 w - c6 0 40",
        "go depth 4",
    );
    assert!(plies >= 1, "{plies} plies, {ending}");
});

cgtest!(engine_game_with_clock_and_increment, |dir| {
    // A fast clock (300 ms + 10 ms, sent unchanged each move) with the engine playing both
    // sides: it must always answer with a legal move.
    let mut e = Uci::start(&dir, &[]);
    e.handshake();
    let mut pos = Chess::default();
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..40 {
        if pos.legal_moves().is_empty() {
            break;
        }
        if moves.is_empty() {
            e.send("position startpos");
        } else {
            e.send(&format!("position startpos moves {}", moves.join(" ")));
        }
        e.send("go wtime 300 btime 300 winc 10 binc 10");
        let m = e.bestmove().expect("a move");
        let mv = m.to_move(&pos).expect("legal move");
        pos.play_unchecked(mv);
        moves.push(m.to_string());
    }
    e.quit();
});

cgtest!(stop_during_go_infinite_returns_a_move, |dir| {
    let mut e = Uci::start(&dir, &[]);
    e.handshake();
    e.send("position startpos moves e2e4 c7c5 g1f3");
    e.send("go infinite");
    e.expect("info depth 2 ");
    // While searching, isready is answered at once.
    e.send("isready");
    e.expect("readyok");
    e.send("stop");
    let m = e.bestmove().expect("a move");
    let pos = {
        let mut p = Chess::default();
        for u in ["e2e4", "c7c5", "g1f3"] {
            let m = u.parse::<UciMove>().unwrap().to_move(&p).unwrap();
            p.play_unchecked(m);
        }
        p
    };
    assert!(m.to_move(&pos).is_ok());
    // The engine is still usable after the stop.
    e.send("go depth 2");
    e.bestmove().expect("a move");
    // quit during an infinite search ends the process.
    e.send("go infinite");
    e.expect("info depth 1 ");
    e.quit();
});

cgtest!(
    go_mate_without_a_quick_answer_obeys_stop_and_movetime,
    |dir| {
        // A mate in 5 from the start position cannot be proven or refuted quickly: the
        // full-width mate search must still end on stop and on movetime, with a legal move.
        let mut e = Uci::start(&dir, &[]);
        e.handshake();
        e.send("position startpos");
        e.send("go mate 5");
        e.send("isready");
        e.expect("readyok");
        e.send("stop");
        let m = e.bestmove().expect("a move");
        assert!(m.to_move(&Chess::default()).is_ok(), "{m}");
        let sent = std::time::Instant::now();
        e.send("go mate 5 movetime 100");
        let m = e.bestmove().expect("a move");
        assert!(m.to_move(&Chess::default()).is_ok(), "{m}");
        // Ended by the movetime, not by the harness's patience: a bound on correctness
        // (generous for a loaded machine), not a speed measurement.
        let took = sent.elapsed();
        assert!(took < std::time::Duration::from_secs(3), "{took:?}");
        e.quit();
    }
);

cgtest!(
    stop_reaches_a_long_search_with_another_go_queued_behind_it,
    |dir| {
        // `go mate 5` from the start position does not end by itself. A second `go` sent
        // meanwhile is queued; the reader must keep reading, so `stop` ends both searches
        // (each answers with a legal move) and the engine stays usable.
        let mut e = Uci::start(&dir, &[]);
        e.handshake();
        e.send("position startpos");
        e.send("go mate 5");
        e.send("go depth 30");
        e.send("isready");
        e.expect("readyok");
        e.send("stop");
        for _ in 0..2 {
            let m = e.bestmove().expect("a move");
            assert!(m.to_move(&Chess::default()).is_ok(), "{m}");
        }
        e.send("go depth 1");
        e.bestmove().expect("a move");
        // A go right after stop, before the stopped infinite search has answered, is
        // queued rather than refused.
        e.send("go infinite");
        e.expect("info depth 1 ");
        e.send("stop");
        e.send("go depth 1");
        for _ in 0..2 {
            e.bestmove().expect("a move");
        }
        e.quit();
    }
);

cgtest!(ponder_then_ponderhit, |dir| {
    let mut e = Uci::start(&dir, &[]);
    e.handshake();
    e.send("position startpos moves d2d4");
    e.send("go ponder wtime 500 btime 500");
    e.expect("info depth 1 ");
    e.send("ponderhit");
    assert!(e.bestmove().is_some());
    e.quit();
});

cgtest!(malformed_input_keeps_the_engine_alive, |dir| {
    let mut e = Uci::start(&dir, &[]);
    e.handshake();
    for bad in [
        "hello world",
        "position fen not/a/fen w - - 0 1",
        "position startpos moves e2e4 e2e4",
        "position sideways",
        "go depth banana",
        "go warp 9",
        "setoption name Hash value lots",
        "setoption name NoSuchOption value 1",
        "setoption name Evaluator value /no/such/evaluator.json",
        "setoption name BookFile value /no/such/book.bin",
        "setoption name SyzygyPath value /no/such/dir",
        "debug sometimes",
    ] {
        e.send(bad);
        let line = e.expect("info string error: ");
        assert!(line.len() > "info string error: ".len(), "{bad}: {line}");
    }
    // `moves e2e4 e2e4` kept its legal prefix; the unparsable lines after it changed
    // nothing: the answer is Black's, after 1.e4.
    let mut after_e4 = Chess::default();
    after_e4.play_unchecked(
        "e2e4"
            .parse::<UciMove>()
            .unwrap()
            .to_move(&after_e4)
            .unwrap(),
    );
    e.send("go depth 2");
    let m = e.bestmove().expect("a move");
    assert!(m.to_move(&after_e4).is_ok(), "{m}");
    // After a refused FEN there is no position: `go` answers 0000, until a valid one.
    e.send("position fen 8/8/8/4k3/8/8/8/Q3K3 w - - 0 1");
    e.expect("info string error: position fen");
    e.send("go depth 2");
    assert_eq!(e.bestmove(), None);
    e.send("position startpos");
    e.send("go depth 2");
    let m = e.bestmove().expect("a move");
    assert!(m.to_move(&Chess::default()).is_ok(), "{m}");
    e.send("isready");
    e.expect("readyok");
    e.quit();
});

cgtest!(no_legal_moves_gives_0000, |dir| {
    let mut e = Uci::start(&dir, &[]);
    e.handshake();
    for fen in [
        "8/8/8/8/8/6k1/6p1/6K1 w - - 0 1", // stalemate
        "7k/7P/6K1/8/3B4/8/8/8 b - - 0 1", // checkmate
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", // fool's mate
    ] {
        e.send(&format!("position fen {fen}"));
        e.send("go depth 1");
        assert_eq!(e.bestmove(), None, "{fen}");
    }
    // Mate in one is found and reported as such.
    e.send("position fen 6k1/5ppp/8/8/8/8/5PPP/4R1K1 w - - 0 1");
    e.send("go depth 3");
    let info = e.expect("info depth 3 ");
    assert!(info.contains("score mate 1"), "{info}");
    assert_eq!(e.bestmove().unwrap().to_string(), "e1e8");
    e.quit();
});

cgtest!(evaluator_option_and_flag, |dir| {
    let path = dir.path().join("mine.json");
    let mut e = chessgraph_engine::eval::Evaluator::builtin("material").unwrap();
    e = chessgraph_engine::eval::Evaluator::new(
        "mine",
        e.provenance().clone(),
        e.weights().unwrap().clone(),
    );
    e.save(&path).unwrap();
    let mut u = Uci::start(&dir, &["--evaluator", path.to_str().unwrap()]);
    u.handshake();
    u.send("setoption name Evaluator value simplified");
    assert_eq!(
        u.expect("info string evaluator"),
        "info string evaluator simplified"
    );
    u.send(&format!(
        "setoption name Evaluator value {}",
        path.display()
    ));
    assert_eq!(
        u.expect("info string evaluator"),
        "info string evaluator mine"
    );
    u.send("go depth 2");
    u.bestmove().expect("a move");
    u.quit();

    let bad = dir.create(
        "bad.json",
        "{\"format\": \"chessgraph-evaluator\", \"version\": 7}",
    );
    let out = dir.run(&["engine", "--evaluator", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.json") && err.contains("version 7"),
        "{err}"
    );
});

cgtest!(multipv_and_go_mate, |dir| {
    let mut e = Uci::start(&dir, &[]);
    e.handshake();
    e.send("setoption name MultiPV value 3");
    e.send("position startpos");
    e.send("go depth 3");
    let mut seen = Vec::new();
    for k in 1..=3 {
        let line = e.expect("info depth 3 ");
        assert!(line.contains(&format!("multipv {k} ")), "{line}");
        seen.push(
            line.split(" pv ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .to_owned(),
        );
    }
    seen.dedup();
    assert_eq!(seen.len(), 3);
    e.bestmove().expect("a move");
    e.send("setoption name MultiPV value 1");
    e.send("position fen kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1");
    e.send("go mate 2");
    assert_eq!(e.bestmove().unwrap().to_string(), "a1a6");
    // A composed #2 with a quiet key that the pruning search does not see: go mate runs
    // the full-width mate search and finds the composer's key, 1. Ng6.
    e.send("position fen 5B2/7Q/2n1n3/2Pkr3/1Pp3PN/2P5/2NKb3/1B2R3 w - - 0 1");
    e.send("go mate 2");
    let info = e.expect("info depth 3 ");
    assert!(info.contains(" score mate 2 "), "{info}");
    let best = e.bestmove().unwrap();
    let pv_start = info
        .split(" pv ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    assert_eq!(best.to_string(), pv_start);
    assert_eq!(best.to_string(), "h4g6");
    e.quit();
});

cgtest!(bench_is_deterministic, |dir| {
    let a = dir.ok(&["bench", "--depth", "3"]);
    let b = dir.ok(&["bench", "--depth", "3"]);
    let total = |s: &str| -> u64 {
        s.lines()
            .find_map(|l| l.strip_prefix("Nodes searched  : "))
            .expect("total line")
            .trim()
            .parse()
            .unwrap()
    };
    assert_eq!(total(&a), total(&b));
    assert!(total(&a) > 0);
    let per_position = a.lines().filter(|l| l.contains(" nodes ")).count();
    assert_eq!(per_position, 42);
    let sum: u64 = a
        .lines()
        .filter(|l| l.contains(" nodes "))
        .map(|l| l.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, total(&a));
    let out = dir.run(&["bench", "--depth", "0"]);
    assert!(!out.status.success());
});

cgtest!(hash_and_syzygy_options, |dir| {
    let mut e = Uci::start(&dir, &[]);
    e.handshake();
    e.send("setoption name Hash value 1");
    e.send("isready");
    e.expect("readyok");
    // A directory without tables is accepted and reported; the search works as before.
    e.send(&format!(
        "setoption name SyzygyPath value {}",
        dir.path().display()
    ));
    if cfg!(feature = "syzygy") {
        let line = e.expect("info string syzygy:");
        assert!(line.contains(" 0 tables"), "{line}");
    } else {
        let line = e.expect("info string error: option SyzygyPath");
        assert!(line.contains("without the `syzygy` feature"), "{line}");
    }
    e.send("position fen 8/8/8/4k3/8/8/4P3/4K3 w - - 0 1");
    e.send("go depth 5");
    let m = e.bestmove().expect("a move");
    assert!(
        m.to_move(&position("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"))
            .is_ok()
    );
    e.quit();
});

// At a root inside the tables the score has the winner's sign, for either side to move:
// a GUI shows a won ending as won and a tournament manager adjudicates it so.
#[cfg(feature = "syzygy")]
cgtest!(tablebase_root_scores_have_the_winners_sign, |dir| {
    let Some(tables) = crate::util::shared("syzygy") else {
        return;
    };
    let mut e = Uci::start(&dir, &[]);
    e.handshake();
    e.send(&format!(
        "setoption name SyzygyPath value {}",
        tables.display()
    ));
    e.expect("info string syzygy:");
    for (fen, sign) in [
        ("8/8/8/4k3/8/8/8/R3K3 w - - 0 1", 1),
        ("8/8/8/4k3/8/8/8/R3K3 b - - 0 1", -1),
        ("r3k3/8/8/8/4K3/8/8/8 b - - 0 1", 1),
        ("r3k3/8/8/8/4K3/8/8/8 w - - 0 1", -1),
        ("8/8/8/4k3/8/8/8/1B2K3 w - - 0 1", 0),
    ] {
        e.send(&format!("position fen {fen}"));
        e.send("go movetime 100");
        let mut score = None;
        loop {
            let line = e.expect("");
            if let Some(rest) = line.split(" score cp ").nth(1) {
                score = rest
                    .split_whitespace()
                    .next()
                    .map(|v| v.parse::<i32>().unwrap());
            }
            if line.starts_with("bestmove") {
                break;
            }
        }
        let score = score.unwrap_or_else(|| panic!("{fen}: no score\n{}", e.transcript.join("\n")));
        assert_eq!(score.signum(), sign, "{fen}: score cp {score}");
        if sign != 0 {
            assert!(score.abs() > 20_000, "{fen}: score cp {score}");
        }
    }
    e.quit();
});

cgtest!(engine_searches_with_several_threads, |dir| {
    let mut e = Uci::start(&dir, &[]);
    e.send("uci");
    let option = e.expect("option name Threads");
    assert!(option.ends_with("min 1 max 256"), "{option}");
    e.expect("uciok");
    e.send("setoption name Threads value 257");
    e.expect("info string error: option Threads: 257 is outside 1..=256");
    e.send("setoption name Threads value 3");
    e.send("ucinewgame");
    // A short game against itself on three threads: every move legal, node counts grow.
    let mut pos = Chess::default();
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..12 {
        if pos.legal_moves().is_empty() {
            break;
        }
        e.send(&format!("position startpos moves {}", moves.join(" ")));
        e.send("go movetime 60");
        let m = e.bestmove().expect("a move");
        let mv = m.to_move(&pos).expect("legal");
        pos.play_unchecked(mv);
        moves.push(m.to_string());
    }
    assert_eq!(moves.len(), 12);
    // `stop` ends all three threads: the answer comes and the engine still responds.
    e.send("position startpos");
    e.send("go infinite");
    e.expect("info depth 3 ");
    e.send("stop");
    assert!(e.bestmove().is_some());
    // Pondering on three threads: the clock starts at `ponderhit`, then a move comes.
    e.send("position startpos moves e2e4");
    e.send("go ponder wtime 3000 btime 3000");
    e.expect("info depth 2 ");
    e.send("ponderhit");
    assert!(e.bestmove().is_some());
    e.send("setoption name Threads value 1");
    e.send("go depth 5");
    assert!(e.bestmove().is_some());
    // `quit` in the middle of a four-thread search ends the process cleanly.
    e.send("setoption name Threads value 4");
    e.send("position startpos");
    e.send("go infinite");
    e.expect("info depth 2 ");
    e.quit();
});
