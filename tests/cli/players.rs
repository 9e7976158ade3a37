//! The studies' players behind `chessgraph engine --player SPEC`, over UCI pipes: whole
//! games between two player processes, every move checked legal with shakmaty, and the
//! same seeds replaying the same game.

use chessgraph_core::chess::fen::to_fen;
use chessgraph_core::chess::game::outcome;
use chessgraph_core::chess::hash::key;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Position, Role};

use crate::cgtest;
use crate::engine::Uci;
use crate::util::Dir;

/// A finished game: its moves (UCI) and how it ended.
struct Game {
    moves: Vec<String>,
    ending: &'static str,
    end: Chess,
}

/// Starts `chessgraph engine --player SPEC` and checks that it introduces itself by
/// that spec written out in full (`full`).
fn start(dir: &Dir, spec: &str, full: &str) -> Uci {
    let mut e = Uci::start(dir, &["--player", spec]);
    e.send("uci");
    let id = e.expect("id name ");
    assert!(id.ends_with(&format!(" {full}")), "{id:?} for {spec}");
    e.expect("uciok");
    e.send("isready");
    e.expect("readyok");
    e.send("ucinewgame");
    e
}

/// Plays White `(spec, full spec)` against Black from the start position with plain
/// `go` (the player's own limits), until the rules end the game or `max_plies`.
fn play(dir: &Dir, white: (&str, &str), black: (&str, &str), max_plies: usize) -> Game {
    let mut engines = [start(dir, white.0, white.1), start(dir, black.0, black.1)];
    let mut pos = Chess::default();
    let mut moves: Vec<String> = Vec::new();
    // The keys of the positions before `pos`.
    let mut keys = Vec::new();
    let ending = loop {
        if let Some(end) = outcome(&pos, &keys) {
            break end.termination.words();
        }
        if moves.len() >= max_plies {
            break "ply cap";
        }
        let e = &mut engines[usize::from(pos.turn() == Color::Black)];
        if moves.is_empty() {
            e.send("position startpos");
        } else {
            e.send(&format!("position startpos moves {}", moves.join(" ")));
        }
        e.send("go");
        let fen = || to_fen(&pos);
        let uci = e
            .bestmove()
            .unwrap_or_else(|| panic!("bestmove 0000 with legal moves in {}", fen()));
        let m = uci.to_move(&pos).unwrap_or_else(|_| {
            panic!(
                "illegal move {uci} in {}\n{}",
                fen(),
                e.transcript.join("\n")
            )
        });
        keys.push(key(&pos));
        pos.play_unchecked(m);
        moves.push(uci.to_string());
    };
    for e in engines {
        e.quit();
    }
    Game {
        moves,
        ending,
        end: pos,
    }
}

/// Material of `color` (pawn 1, knight and bishop 3, rook 5, queen 9).
fn material(pos: &Chess, color: Color) -> u32 {
    let board = pos.board();
    [
        (Role::Pawn, 1),
        (Role::Knight, 3),
        (Role::Bishop, 3),
        (Role::Rook, 5),
        (Role::Queen, 9),
    ]
    .iter()
    .map(|&(role, v)| v * (board.by_role(role) & board.by_color(color)).count() as u32)
    .sum()
}

cgtest!(greedy_beats_random_with_legal_moves, |dir| {
    let greedy = ("greedy", "greedy:evaluator=seed003");
    let g = play(&dir, ("random:seed=3", "random:seed=3"), greedy, 150);
    assert!(g.moves.len() >= 20, "{} plies, {}", g.moves.len(), g.ending);
    // The capture search makes greedy win material from a random mover (or mate it):
    // a player with its signs mixed up would not.
    let mated_white = g.ending == "checkmate" && g.end.turn() == Color::White;
    let ahead = material(&g.end, Color::Black) > material(&g.end, Color::White) + 5;
    assert!(
        mated_white || ahead,
        "{}: {} plies, {:?}",
        g.ending,
        g.moves.len(),
        to_fen(&g.end)
    );
});

cgtest!(minimax_against_mcts_replays_with_the_same_seed, |dir| {
    let minimax = ("minimax:depth=2", "minimax:depth=2,evaluator=seed003");
    let mcts = |seed: u64| {
        (
            format!("mcts:iterations=200,seed={seed},evaluator=material"),
            format!("mcts:iterations=200,c=2,rollout=6,seed={seed},evaluator=material"),
        )
    };
    let (m1, m1_full) = mcts(1);
    let first = play(&dir, minimax, (&m1, &m1_full), 60);
    assert!(
        first.moves.len() >= 10,
        "{} {}",
        first.moves.len(),
        first.ending
    );
    let again = play(&dir, minimax, (&m1, &m1_full), 60);
    assert_eq!(first.moves, again.moves, "same specs, same game");
    // Another seed: another game (so the equality above is not that of a fixed line).
    let (m2, m2_full) = mcts(2);
    let other = play(&dir, minimax, (&m2, &m2_full), 60);
    assert_ne!(first.moves, other.moves);
});

cgtest!(players_obey_stop_during_go_infinite, |dir| {
    let after_e4 = {
        let mut p = Chess::default();
        let m = "e2e4".parse::<UciMove>().unwrap().to_move(&p).unwrap();
        p.play_unchecked(m);
        p
    };
    for (spec, full) in [
        (
            "mcts:iterations=1000000",
            "mcts:iterations=1000000,c=2,rollout=6,seed=1,evaluator=seed003",
        ),
        ("minimax:depth=32", "minimax:depth=32,evaluator=seed003"),
    ] {
        let mut e = start(&dir, spec, full);
        e.send("position startpos moves e2e4");
        e.send("go infinite");
        // The first report: the search is running (MCTS reports every 1,000
        // iterations, minimax every depth).
        e.expect("info depth ");
        e.send("stop");
        let m = e.bestmove().expect("a move");
        assert!(m.to_move(&after_e4).is_ok(), "{spec}: {m}");
        // Still usable: a bounded search after the stop.
        e.send("go nodes 300");
        let m = e.bestmove().expect("a move");
        assert!(m.to_move(&after_e4).is_ok(), "{spec}: {m}");
        e.quit();
    }
});

cgtest!(bad_player_specs_are_refused_by_name, |dir| {
    for (spec, says) in [
        ("minimax:depth=0", "depth"),
        ("mcts:iterations=lots", "iterations"),
        ("greedy:sede=1", "sede"),
        ("alphazero", "unknown player"),
    ] {
        let out = dir.run(&["engine", "--player", spec]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{spec}");
        assert!(err.contains(says), "{spec}: {err}");
    }
});
