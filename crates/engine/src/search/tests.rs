//! Tests of the search as a whole.

use std::sync::atomic::Ordering;

use shakmaty::Color;

use super::mate::MateLimits;
use super::tt::{score_from_tt, score_to_tt};
use super::*;
use crate::eval::Evaluator;
use chessgraph_core::chess::hash;

fn pos(fen: &str) -> Chess {
    chessgraph_core::chess::fen::parse_position(fen).unwrap()
}

fn searcher(name: &str) -> Searcher {
    Searcher::new(Arc::new(Evaluator::builtin(name).unwrap()), 4)
}

fn depth(d: u32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

fn uci(m: Option<Move>) -> String {
    m.map_or("0000".into(), |m| chessgraph_core::chess::moves::uci(&m))
}

#[test]
fn qsearch_score_is_the_static_eval_of_its_leaf() {
    let e = Evaluator::builtin("seed003").unwrap();
    let mut resolved = 0;
    for line in include_str!("../../../../tests/fixtures/eval-positions-2k.csv")
        .lines()
        .skip(1)
        .step_by(5)
    {
        let p = pos(line.rsplit_once(',').unwrap().0);
        let (v, leaf) = qsearch_leaf(&e, &p);
        if leaf.is_check() || leaf.legal_moves().is_empty() {
            continue;
        }
        assert_eq!(v, e.evaluate(&leaf), "{line}");
        resolved += usize::from(leaf.board() != p.board());
    }
    // Some positions have captures worth making.
    assert!(resolved > 20, "{resolved}");
}

#[test]
fn score_conversion() {
    assert_eq!(Score::from_internal(MATE - 1), Score::Mate(1));
    assert_eq!(Score::from_internal(MATE - 3), Score::Mate(2));
    assert_eq!(Score::from_internal(-MATE + 2), Score::Mate(-1));
    assert_eq!(Score::from_internal(-MATE), Score::Mate(0));
    assert_eq!(Score::from_internal(35), Score::Cp(35));
    assert_eq!(Score::Mate(-3).to_string(), "mate -3");
    assert_eq!(score_from_tt(score_to_tt(MATE - 9, 4), 6), MATE - 11);
}

#[test]
fn encode_decode_round_trip() {
    for fen in bench::POSITIONS {
        let p = pos(fen);
        for m in p.legal_moves() {
            assert_eq!(decode(&p, encode(m)), Some(m));
        }
    }
}

#[test]
fn finds_mate_in_one() {
    // Back-rank mate: Re8#.
    let p = pos("6k1/5ppp/8/8/8/8/5PPP/4R1K1 w - - 0 1");
    let r = searcher("material").search(&p, &[], &depth(3), &mut |_| {});
    assert_eq!(uci(r.best), "e1e8");
    assert_eq!(r.score, Score::Mate(1));
}

#[test]
fn finds_mate_in_two() {
    let mut s = searcher("seed003");
    // Rook ladder: 1. Rb7 Kg8 2. Ra8#.
    let p = pos("7k/8/8/8/8/8/R7/1R5K w - - 0 1");
    let r = s.search(&p, &[], &depth(5), &mut |_| {});
    assert_eq!(r.score, Score::Mate(2), "{}", uci(r.best));
    // Morphy: 1. Ra6! bxa6 2. b7#.
    let p = pos("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1");
    let r = s.search(&p, &[], &depth(5), &mut |_| {});
    assert_eq!(r.score, Score::Mate(2), "{}", uci(r.best));
    assert_eq!(uci(r.best), "a1a6");
}

#[test]
fn go_mate_stops_at_proven_mate() {
    let p = pos("6k1/5ppp/8/8/8/8/5PPP/4R1K1 w - - 0 1");
    let limits = Limits {
        mate: Some(1),
        ..Limits::default()
    };
    let r = searcher("seed003").search(&p, &[], &limits, &mut |_| {});
    assert_eq!(r.score, Score::Mate(1));
    assert!(r.depth <= 2, "stopped at depth {}", r.depth);
}

#[test]
fn go_mate_finds_quiet_keys_of_composed_problems() {
    // Composed #2 (Baird) whose key the pruning search misses: with go mate 2 the
    // full-width search answers, and its key mates in two against every defence.
    let p = pos("5B2/7Q/2n1n3/2Pkr3/1Pp3PN/2P5/2NKb3/1B2R3 w - - 0 1");
    let limits = Limits {
        mate: Some(2),
        ..Limits::default()
    };
    let mut infos = Vec::new();
    let r = searcher("seed003").search(&p, &[], &limits, &mut |i| infos.push(i.clone()));
    assert_eq!(r.score, Score::Mate(2));
    let key = r.best.unwrap();
    assert_eq!(
        mate::verify_mate(&p, key, 2, &MateLimits::none()),
        Some(true),
        "{}",
        uci(Some(key))
    );
    let last = infos.last().unwrap();
    assert_eq!((last.score, last.pv[0]), (Score::Mate(2), key));
    assert!(last.nodes > 0 && last.nodes == r.nodes);
}

#[test]
fn go_mate_without_a_mate_still_moves() {
    // King and pawn against king: no mate in 2. The proof is followed by an ordinary
    // search of bounded depth, which returns a legal move.
    let p = pos("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    let limits = Limits {
        mate: Some(2),
        ..Limits::default()
    };
    let r = searcher("seed003").search(&p, &[], &limits, &mut |_| {});
    assert!(p.is_legal(r.best.unwrap()));
    assert!(matches!(r.score, Score::Cp(_)), "{:?}", r.score);
    assert_eq!(r.depth, NO_MATE_FALLBACK_DEPTH);
    // With a depth limit the ordinary search keeps it.
    let limits = Limits {
        mate: Some(2),
        depth: Some(3),
        ..Limits::default()
    };
    let r = searcher("seed003").search(&p, &[], &limits, &mut |_| {});
    assert_eq!(r.depth, 3);
}

#[test]
fn does_not_hang_the_queen() {
    // White queen on d4 attacked by the c5 pawn: it must move away (or be defended by
    // capture), never stay en prise at depth 2.
    let p = pos("4k3/8/8/2p5/3Q4/8/8/4K3 w - - 0 1");
    let r = searcher("material").search(&p, &[], &depth(2), &mut |_| {});
    let mut after = p.clone();
    after.play_unchecked(r.best.unwrap());
    let q = after.board().queens() & after.board().white();
    assert_eq!(q.count(), 1);
    let sq = q.first().unwrap();
    let attacked = after
        .board()
        .attacks_to(sq, Color::Black, after.board().occupied());
    assert!(
        attacked.is_empty() || uci(r.best) == "d4c5",
        "{}",
        uci(r.best)
    );
}

#[test]
fn takes_free_material_with_quiescence() {
    // Depth 1 + quiescence: Rxd5 wins a rook; Qxd5?? is not needed.
    let p = pos("3qk3/8/8/3r4/8/8/3R4/3RK3 w - - 0 1");
    let r = searcher("material").search(&p, &[], &depth(1), &mut |_| {});
    assert_eq!(uci(r.best), "d2d5");
}

#[test]
fn repetition_is_a_draw() {
    // White is a queen down. The position after Kf1 already occurred in the game
    // (history), so Kf1 repeats it: a draw, the best White can get.
    let p = pos("3qk3/8/8/8/8/8/8/4K3 w - - 10 40");
    let kf1 = chessgraph_core::chess::moves::parse_uci(&p, "e1f1").unwrap();
    let mut after = p.clone();
    after.play_unchecked(kf1);
    // Game: ... Kf1-position (Black to move), two more plies, now White to move.
    let history = [hash::key(&after), 0x1111, 0x2222];
    let mut s = searcher("seed003");
    let r = s.search(&p, &history, &depth(5), &mut |_| {});
    assert_eq!(uci(r.best), "e1f1");
    assert_eq!(r.score, Score::Cp(0));
    // Without that history the queen-down score comes back.
    s.clear();
    let r = s.search(&p, &[], &depth(5), &mut |_| {});
    assert!(
        matches!(r.score, Score::Cp(cp) if cp < -700),
        "{:?}",
        r.score
    );
    // The window is the halfmove clock: nothing before the last irreversible move.
    s.keys.clear();
    s.keys.extend([hash::key(&after), hash::key(&p)]);
    assert!(chessgraph_core::chess::game::repeats(
        &s.keys,
        hash::key(&after),
        2
    ));
    assert!(!chessgraph_core::chess::game::repeats(
        &s.keys,
        hash::key(&after),
        1
    ));
}

#[test]
fn no_legal_moves() {
    let stalemate = pos("8/8/8/8/8/6k1/6p1/6K1 w - - 0 1");
    let r = searcher("seed003").search(&stalemate, &[], &depth(1), &mut |_| {});
    assert_eq!((r.best, r.score), (None, Score::Cp(0)));
    let mated = pos("7k/7P/6K1/8/3B4/8/8/8 b - - 0 1");
    let r = searcher("seed003").search(&mated, &[], &depth(1), &mut |_| {});
    assert_eq!((r.best, r.score), (None, Score::Mate(0)));
}

#[test]
fn stop_flag_and_node_limit_return_a_legal_move() {
    let p = Chess::default();
    let mut s = searcher("seed003");
    s.control.stop.store(true, Ordering::Relaxed);
    // Nodes are only checked every 1024 nodes for the flag: still a legal move.
    let r = s.search(&p, &[], &Limits::default(), &mut |_| {});
    assert!(p.is_legal(r.best.unwrap()));
    s.control.stop.store(false, Ordering::Relaxed);
    let limits = Limits {
        nodes: Some(1),
        ..Limits::default()
    };
    let r = s.search(&p, &[], &limits, &mut |_| {});
    // Stopped at the first node: the static evaluation, not "mated now".
    assert_eq!((r.depth, r.score), (0, Score::Cp(0)));
    let limits = Limits {
        nodes: Some(5000),
        ..Limits::default()
    };
    let r = s.search(&p, &[], &limits, &mut |_| {});
    assert!(r.nodes <= 5000 + 1);
    assert!(p.is_legal(r.best.unwrap()));
}

#[test]
fn a_soft_node_limit_finishes_the_iteration() {
    let p = pos(bench::POSITIONS[1]);
    let soft = Limits {
        soft_nodes: Some(3000),
        ..Limits::default()
    };
    let r = searcher("seed003").search(&p, &[], &soft, &mut |_| {});
    assert!(r.nodes >= 3000, "{r:?}");
    // The same as a fresh search to the depth it reached: whole iterations only.
    let whole = searcher("seed003").search(&p, &[], &depth(r.depth), &mut |_| {});
    assert_eq!((whole.nodes, whole.best), (r.nodes, r.best));
    // And one iteration less stays under the soft limit.
    let less = searcher("seed003").search(&p, &[], &depth(r.depth - 1), &mut |_| {});
    assert!(less.nodes < 3000, "{less:?}");
}

#[test]
fn zero_time_still_moves() {
    let p = pos(bench::POSITIONS[1]);
    let limits = Limits {
        clock: Some(Clock {
            time: Duration::from_millis(1),
            inc: Duration::ZERO,
            movestogo: None,
        }),
        ..Limits::default()
    };
    let r = searcher("seed003").search(&p, &[], &limits, &mut |_| {});
    assert!(p.is_legal(r.best.unwrap()));
}

#[test]
fn multipv_reports_distinct_lines() {
    let mut s = searcher("seed003");
    s.set_multipv(3);
    let mut lines: Vec<Info> = Vec::new();
    s.search(&Chess::default(), &[], &depth(4), &mut |i| {
        lines.push(i.clone())
    });
    let last: Vec<&Info> = lines.iter().filter(|i| i.depth == 4).collect();
    assert_eq!(last.len(), 3);
    assert_eq!(
        last.iter().map(|i| i.multipv).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    assert_ne!(last[0].pv[0], last[1].pv[0]);
    assert_ne!(last[1].pv[0], last[2].pv[0]);
}

#[test]
fn pv_is_legal_and_info_is_filled() {
    let mut s = searcher("seed003");
    let mut infos: Vec<Info> = Vec::new();
    let p = pos(bench::POSITIONS[4]);
    let r = s.search(&p, &[], &depth(6), &mut |i| infos.push(i.clone()));
    assert_eq!(infos.len(), 6);
    let last = infos.last().unwrap();
    assert_eq!(last.pv[0], r.best.unwrap());
    let mut q = p.clone();
    for &m in &last.pv {
        assert!(q.is_legal(m));
        q.play_unchecked(m);
    }
    assert!(last.seldepth >= 6 && last.nodes > 0 && last.hashfull > 0);
}

#[test]
fn qsearch_eval_resolves_captures() {
    let e = Evaluator::builtin("material").unwrap();
    // White to move wins the undefended rook: statically equal, a rook up after
    // captures.
    let p = pos("4k3/8/8/3r4/8/8/3R4/4K3 w - - 0 1");
    assert_eq!(e.evaluate(&p), 0);
    assert_eq!(qsearch_eval(&e, &p), 500);
    // With Black to move the rook on d2 is defended by the king: nothing to win.
    let p = pos("4k3/8/8/3r4/8/8/3R4/4K3 b - - 0 1");
    assert_eq!(qsearch_eval(&e, &p), 0);
    // Undefended: Black wins it (White's point of view).
    let p = pos("4k3/8/8/3r4/8/8/3R4/6K1 b - - 0 1");
    assert_eq!(qsearch_eval(&e, &p), -500);
    // Quiet position: equal to the static evaluation.
    let p = Chess::default();
    assert_eq!(qsearch_eval(&e, &p), e.evaluate(&p));
}

#[test]
fn search_evaluations_match_term_function() {
    // Positions reached in search: walk PVs of the bench and compare evaluate()
    // against the sparse term function at every position along them.
    let e = Evaluator::builtin("seed003").unwrap();
    let mut tl = crate::eval::TermList::new();
    let mut s = searcher("seed003");
    let mut checked = 0;
    for fen in bench::POSITIONS.iter().take(20) {
        let p = pos(fen);
        let mut pv = Vec::new();
        s.search(&p, &[], &depth(4), &mut |i| pv = i.pv.clone());
        let mut q = p.clone();
        for m in pv {
            for reply in q.legal_moves() {
                let mut c = q.clone();
                c.play_unchecked(reply);
                crate::eval::terms(&c, &mut tl);
                assert_eq!(Some(e.evaluate(&c)), e.evaluate_terms(&tl));
                checked += 1;
            }
            q.play_unchecked(m);
        }
    }
    assert!(checked > 500, "{checked}");
}
