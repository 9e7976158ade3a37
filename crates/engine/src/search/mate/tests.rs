//! Tests of the mate search against brute force and known problems.

use super::order::{NO_MOVE, pack, unpack};
use super::*;
use shakmaty::san::San;

fn pos(fen: &str) -> Chess {
    chessgraph_core::chess::fen::parse(fen, chessgraph_core::chess::fen::Leniency::Strict).unwrap()
}

fn san(p: &Chess, m: Move) -> String {
    San::from_move(p, m).to_string()
}

/// Independent brute force (no table, no ordering, no check filter): does the side
/// to move mate in at most `n`?
fn bf_mates(p: &Chess, n: u32) -> bool {
    p.legal_moves().into_iter().any(|m| {
        let mut c = p.clone();
        c.play_unchecked(m);
        bf_mated(&c, n)
    })
}

/// Brute force: is the side to move mated within `n` moves of the opponent (the
/// opponent's move that led here counts as the first)?
fn bf_mated(p: &Chess, n: u32) -> bool {
    if p.is_checkmate() {
        return true;
    }
    if n == 1 || p.is_stalemate() {
        return false;
    }
    p.legal_moves().into_iter().all(|r| {
        let mut c = p.clone();
        c.play_unchecked(r);
        bf_mates(&c, n - 1)
    })
}

/// Checks a result against the brute force: the key mates in k, nothing mates in
/// k - 1, and with no mate found, nothing mates in n.
fn check_exact(p: &Chess, n: u32, r: &MateResult) {
    let fen = chessgraph_core::chess::fen::to_fen(p);
    assert!(!r.stopped);
    match (r.best, r.mate_in) {
        (Some(key), Some(k)) => {
            let mut c = p.clone();
            c.play_unchecked(key);
            assert!(
                bf_mated(&c, k),
                "{fen}: key {} does not mate in {k}",
                san(p, key)
            );
            assert!(
                k == 1 || !bf_mates(p, k - 1),
                "{fen}: a mate shorter than {k} exists"
            );
            assert_eq!(r.no_mate_within, k - 1);
            assert_eq!(r.pv.len() as u32, 2 * k - 1, "{fen}: pv {:?}", r.pv);
            let mut end = p.clone();
            for &m in &r.pv {
                end = end.play(m).expect("pv move is legal");
            }
            assert!(end.is_checkmate(), "{fen}: pv does not end in mate");
        }
        (None, None) => {
            assert!(!bf_mates(p, n), "{fen}: missed a mate in {n}");
            assert_eq!(r.no_mate_within, n);
        }
        other => panic!("{fen}: inconsistent result {other:?}"),
    }
}

#[test]
fn mate_in_1_back_rank() {
    let p = pos("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1");
    let r = mate_search(&p, 1, &MateLimits::none());
    assert_eq!(r.best.map(|m| san(&p, m)).as_deref(), Some("Ra8"));
    assert_eq!(r.mate_in, Some(1));
    check_exact(&p, 1, &r);
}

#[test]
fn mate_in_2_with_quiet_key() {
    // baird-0: 1. Nd6! (no check, no capture) and mate next move.
    let p = pos("3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - 0 1");
    let r = mate_search(&p, 2, &MateLimits::none());
    assert_eq!(r.best.map(|m| san(&p, m)).as_deref(), Some("Nd6"));
    assert_eq!(r.mate_in, Some(2));
    check_exact(&p, 2, &r);
    // Not a mate in 1.
    let r1 = mate_search(&p, 1, &MateLimits::none());
    assert_eq!((r1.best, r1.no_mate_within), (None, 1));
}

#[test]
fn mate_in_3_with_quiet_key() {
    // dawson-31: 1. Rh2! (quiet).
    let p = pos("k7/P1R1K3/4P3/8/p3p3/1p1pPp1p/1R6/8 w - - 0 1");
    let r = mate_search(&p, 3, &MateLimits::none());
    assert_eq!(r.mate_in, Some(3));
    let key = r.best.unwrap();
    assert!(!key.is_capture());
    let mut c = p.clone();
    c.play_unchecked(key);
    assert!(!c.is_check());
    assert_eq!(verify_mate(&p, key, 3, &MateLimits::none()), Some(true));
    check_exact(&p, 3, &r);
}

#[test]
fn stalemate_is_not_mate() {
    // 8 of White's 13 moves stalemate the caged king; there is no mate in 2, only in 3.
    let p = pos("7k/5K2/6P1/8/8/8/8/3B4 w - - 0 1");
    let r2 = mate_search(&p, 2, &MateLimits::none());
    assert_eq!((r2.best, r2.mate_in, r2.no_mate_within), (None, None, 2));
    check_exact(&p, 2, &r2);
    let r3 = mate_search(&p, 3, &MateLimits::none());
    assert_eq!(r3.mate_in, Some(3));
    check_exact(&p, 3, &r3);
}

#[test]
fn no_mate_returns_none() {
    let r = mate_search(&Chess::default(), 2, &MateLimits::none());
    assert_eq!((r.best, r.mate_in, r.no_mate_within), (None, None, 2));
    assert!(!r.stopped);
    // King and rook against king, far from a mate in 3.
    let p = pos("8/8/3k4/8/8/8/8/R3K3 w - - 0 1");
    let r = mate_search(&p, 3, &MateLimits::none());
    assert_eq!(r.mate_in, None);
    check_exact(&p, 3, &r);
    // Checkmated and stalemated sides have nothing.
    let mated = pos("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1");
    assert_eq!(mate_search(&mated, 3, &MateLimits::none()).mate_in, None);
}

#[test]
fn finds_the_shortest_mate() {
    // Mate in 1 exists (Qg7#), so n = 4 must report 1.
    let p = pos("7k/5K2/8/6Q1/8/8/8/8 w - - 0 1");
    let r = mate_search(&p, 4, &MateLimits::none());
    assert_eq!(r.mate_in, Some(1));
    check_exact(&p, 4, &r);
}

#[test]
fn black_to_move_and_special_moves() {
    // Black mates: castling gives the mate (O-O-O with the rook checking on d1... here
    // d8 for Black) is among the candidates; en passant is legal in the position.
    let p = pos("r3k3/8/8/8/4pP2/8/8/3K4 b q f3 0 1");
    let r = mate_search(&p, 2, &MateLimits::none());
    check_exact(&p, 2, &r);
}

/// Random positions near composed problems and game puzzles: the search agrees with
/// the brute force for n = 1 and 2.
#[test]
fn agrees_with_brute_force() {
    let seeds = [
        "3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - 0 1",
        "7B/8/1K6/4bPp1/3k1NpQ/4p3/1P1N1P1p/3R4 w - - 0 1",
        "4RQ1N/2p1r1p1/2P2b2/1P2k1PR/1P6/3P2P1/B6N/3K4 w - - 0 1",
        "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1",
        "1rb4r/pkPp3p/1b1P3n/1Q6/N3Pp2/8/P1P3PP/7K w - - 1 1",
        "4kb1r/p2n1ppp/4q3/4p1B1/4P3/1Q6/PPP2PPP/2KR4 w k - 1 1",
        "7k/5K2/6P1/8/8/8/8/3B4 w - - 0 1",
        "k7/P1R1K3/4P3/8/p3p3/1p1pPp1p/1R6/8 w - - 0 1",
    ];
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut searcher = MateSearcher::new(1);
    let mut mates = 0;
    for fen in seeds {
        for _ in 0..6 {
            let mut p = pos(fen);
            // 0..3 random plies, ending with the original side to move half the time.
            for _ in 0..(next() % 4) {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                p.play_unchecked(moves[(next() % moves.len() as u64) as usize]);
            }
            for n in 1..=2 {
                let r = searcher.search(&p, n, &MateLimits::none());
                check_exact(&p, n, &r);
                mates += usize::from(r.is_mate());
            }
            // The fresh-table search agrees with the one that reuses its table.
            let fresh = mate_search(&p, 2, &MateLimits::none());
            assert_eq!(
                fresh.mate_in,
                searcher.search(&p, 2, &MateLimits::none()).mate_in
            );
        }
    }
    assert!(
        mates > 10,
        "too few mates among the samples ({mates}) to test much"
    );
}

/// Sparse endings where a brute force to n = 3 is affordable.
#[test]
fn agrees_with_brute_force_to_3() {
    let fens = [
        "7k/5K2/6P1/8/8/8/8/3B4 w - - 0 1",
        "7k/5K2/6P1/8/8/8/8/N7 w - - 0 1",
        "8/8/8/8/8/2k5/4q3/K7 b - - 0 1",
        "8/8/8/8/4k3/8/8/2K2R2 w - - 0 1",
        "6k1/8/5K2/8/8/8/8/7R w - - 0 1",
        "k7/8/1K6/8/8/8/8/6B1 w - - 0 1",
        "8/8/8/5k2/8/5K2/4Q3/8 w - - 0 1",
    ];
    let mut searcher = MateSearcher::new(1);
    for fen in fens {
        let p = pos(fen);
        for n in 1..=3 {
            check_exact(&p, n, &searcher.search(&p, n, &MateLimits::none()));
        }
    }
}

/// The table changes speed, never answers: the same searches with and without it
/// (one table shared by all positions and depths) agree on every mate length.
#[test]
fn table_changes_nothing_but_speed() {
    let fens = [
        "7k/5K2/6P1/8/8/8/8/N7 w - - 0 1",
        "6k1/8/5K2/8/8/8/8/7R w - - 0 1",
        "k7/P1R1K3/4P3/8/p3p3/1p1pPp1p/1R6/8 w - - 0 1",
        // #4 problems (dm 4 in the composed set).
        "k3K3/P1P5/8/8/P7/P7/8/8 w - - 0 1",
        "4K3/5R1N/6k1/5N2/8/8/8/8 w - - 0 1",
        "7R/8/2b5/8/8/K1N4p/7P/k7 w - - 0 1",
    ];
    let mut with = MateSearcher::new(1);
    for fen in fens {
        let p = pos(fen);
        for n in 1..=4 {
            let mut without = MateSearcher::new(1);
            without.use_tt = false;
            let a = with.search(&p, n, &MateLimits::none());
            let b = without.search(&p, n, &MateLimits::none());
            assert_eq!(
                (a.mate_in, a.no_mate_within),
                (b.mate_in, b.no_mate_within),
                "{fen} n={n}"
            );
        }
    }
}

#[test]
fn stops_on_flag_and_node_limit() {
    // King and rook against king: no mate in 6, so proving that takes many nodes.
    let p = pos("1k6/8/8/8/8/8/8/1K5R w - - 0 1");
    let stop = Arc::new(AtomicBool::new(true));
    let r = mate_search(
        &p,
        6,
        &MateLimits {
            stop: Some(stop),
            ..MateLimits::default()
        },
    );
    assert!(r.stopped);
    assert_eq!(r.mate_in, None);
    let r = mate_search(
        &p,
        6,
        &MateLimits {
            nodes: Some(5000),
            ..MateLimits::default()
        },
    );
    assert!(r.stopped, "{r:?}");
    assert!(r.nodes <= 5000 + 1024, "{}", r.nodes);
    assert_eq!(r.mate_in, None);
}

#[test]
fn move_packing_round_trips() {
    let p = pos("r3k2r/pPp2ppp/8/3Pp3/8/8/PPP2PPP/R3K2R w KQkq e6 0 1");
    let moves = p.legal_moves();
    for &m in &moves {
        assert_eq!(unpack(&moves, pack(m)), Some(m));
    }
    assert_eq!(pack(NO_MOVE), 0);
}
