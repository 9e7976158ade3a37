use super::*;
use shakmaty::CastlingMode;

pub(crate) fn fixture_positions() -> Vec<Chess> {
    let text = include_str!("../../../../tests/fixtures/eval-positions-2k.csv");
    text.lines()
        .skip(1)
        .map(|line| {
            let fen = line.rsplit_once(',').unwrap().0;
            chessgraph_core::chess::fen::parse(fen, chessgraph_core::chess::fen::Leniency::Strict)
                .unwrap()
        })
        .collect()
}

/// A dense evaluator with every term non-zero (pseudo-random weights).
fn dense_evaluator() -> Evaluator {
    let mut w = Weights::zero();
    let mut x = 12345u32;
    for i in 0..TERM_COUNT {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        w.mg[i] = (x >> 16) as i32 % 61 - 30;
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        w.eg[i] = (x >> 16) as i32 % 61 - 30;
    }
    Evaluator::new("dense", Provenance::default(), w)
}

#[test]
fn evaluate_equals_term_function_on_fixture() {
    let evals: Vec<Evaluator> = BUILTIN_NAMES
        .iter()
        .map(|n| Evaluator::builtin(n).unwrap())
        .filter(|e| e.weights().is_some())
        .chain([dense_evaluator()])
        .collect();
    let mut tl = TermList::new();
    let positions = fixture_positions();
    assert!(positions.len() >= 2000);
    for pos in &positions {
        terms(pos, &mut tl);
        for e in &evals {
            assert_eq!(
                Some(e.evaluate(pos)),
                e.evaluate_terms(&tl),
                "{} on {}",
                e.name(),
                chessgraph_core::chess::fen::to_fen(pos)
            );
        }
    }
}

#[test]
fn start_position_is_symmetric() {
    let mut tl = TermList::new();
    terms(&Chess::default(), &mut tl);
    // Only tempo survives White-minus-Black in the start position.
    assert_eq!(tl.entries(), &[(layout::TEMPO as u16, 1)]);
    assert_eq!(tl.phase(), 24);
    for name in BUILTIN_NAMES.iter().filter(|&&n| n != "nnue") {
        assert_eq!(
            Evaluator::builtin(name)
                .unwrap()
                .evaluate(&Chess::default()),
            0
        );
    }
}

#[test]
fn mirrored_position_negates_without_tempo() {
    let e = Evaluator::builtin("seed003").unwrap();
    for pos in fixture_positions().iter().step_by(7) {
        let mut setup = pos.to_setup(shakmaty::EnPassantMode::Legal);
        setup.mirror();
        let mirrored: Chess = setup.position(CastlingMode::Standard).unwrap();
        assert_eq!(e.evaluate(&mirrored), -e.evaluate(pos));
    }
}

#[test]
fn every_term_is_colour_symmetric() {
    // Swapping colours (board mirrored, side to move flipped) must negate every
    // term and keep the phase; otherwise identical engines would favour one colour.
    let (mut a, mut b) = (TermList::new(), TermList::new());
    for pos in fixture_positions() {
        let mut setup = pos.to_setup(shakmaty::EnPassantMode::Legal);
        setup.mirror();
        let mirrored: Chess = setup.position(CastlingMode::Standard).unwrap();
        terms(&pos, &mut a);
        terms(&mirrored, &mut b);
        let negated: Vec<(u16, i32)> = a.entries().iter().map(|&(i, c)| (i, -c)).collect();
        assert_eq!(
            b.entries(),
            &negated[..],
            "{}",
            chessgraph_core::chess::fen::to_fen(&pos)
        );
        assert_eq!(b.phase(), a.phase());
    }
}

#[test]
fn hand_checked_terms() {
    // White: Kg1 Qd1 Nf3 pawns f2 g2 h2; Black: Kg8 Rd8 pawns f7 g7 h7. Black to move.
    let pos =
        chessgraph_core::chess::fen::parse_position("3r2k1/5ppp/8/8/8/5N2/5PPP/3Q2K1 b - - 0 1")
            .unwrap();
    let mut tl = TermList::new();
    terms(&pos, &mut tl);
    assert_eq!(
        tl.coefficient(Term::Material(shakmaty::Role::Queen).index()),
        1
    );
    assert_eq!(
        tl.coefficient(Term::Material(shakmaty::Role::Knight).index()),
        1
    );
    assert_eq!(
        tl.coefficient(Term::Material(shakmaty::Role::Rook).index()),
        -1
    );
    assert_eq!(
        tl.coefficient(Term::Material(shakmaty::Role::Pawn).index()),
        0
    );
    assert_eq!(tl.coefficient(Term::Tempo.index()), -1);
    // Phase: Q 4 + N 1 + R 2.
    assert_eq!(tl.phase(), 7);
    // Queen d1 and rook d8 attack each other on the open d-file and neither is
    // defended (Kg1, Nf3 do not reach d1; Kg8 does not reach d8): one hanging each.
    assert_eq!(tl.coefficient(Term::Hanging.index()), 0);
    // Defended: White f2 g2 h2 (king) and Nf3 (g2 pawn) = 4; Black f7 g7 h7 = 3.
    assert_eq!(tl.coefficient(Term::Defended.index()), 1);
    // Knight mobility: f3 -> e1 d2 d4 e5 g5 h4 (g1, h2 own) = 6.
    assert_eq!(
        tl.coefficient(Term::Mobility(shakmaty::Role::Knight).index()),
        6
    );
    // Pawn shields: three pawns each.
    assert_eq!(tl.coefficient(Term::PawnShield.index()), 0);
    // Rook PST d8 for Black is d1 mirrored; queen d1 for White.
    assert_eq!(
        tl.coefficient(Term::Pst(shakmaty::Role::Rook, shakmaty::Square::D1).index()),
        -1
    );
    assert_eq!(
        tl.coefficient(Term::Pst(shakmaty::Role::Queen, shakmaty::Square::D1).index()),
        1
    );
}

#[test]
fn hand_checked_extra_terms() {
    // White: Kg1 Rd1 Ne5, pawns a5 c3 f4. Black: Kg8 Rc8 Bb6, pawns e6 g7 h7. White to move.
    let pos = chessgraph_core::chess::fen::parse_position(
        "2r3k1/6pp/1b2p3/P3N3/5P2/2P5/8/3R2K1 w - - 0 1",
    )
    .unwrap();
    let mut tl = TermList::new();
    terms(&pos, &mut tl);
    let c = |t: Term| tl.coefficient(t.index());
    // Rd1 on the pawnless d-file; Rc8 on the c-file with only White's c3 pawn.
    assert_eq!(c(Term::RookOpenFile), 1);
    assert_eq!(c(Term::RookSemiOpenFile), -1);
    // Ne5: rank 5, defended by f4, no black pawn on the d- or f-file ahead.
    assert_eq!(c(Term::KnightOutpost), 1);
    // a5 attacks the bishop on b6.
    assert_eq!(c(Term::PawnThreats), 1);
    // King-zone attacks: White's Ne5 on f7 (1); Black's Bb6 on f2 and on g1, the king's
    // own square, where its ray stops (2). King danger 1² − 2².
    assert_eq!(c(Term::KingZoneAttacks), -1);
    assert_eq!(c(Term::KingDanger), -3);
    // Passed: a5 (stop a6: Kg8 6, Kg1 6), c3 (c4: 4 and 4), Black's h7 (h6: White's
    // king 5 away, Black's 2): 0 + 0 − (5 − 2).
    assert_eq!(c(Term::PassedKingDistance), -3);
    assert_eq!(c(Term::PassedBlocked), 0);
    // White to move with a5 (Bb6) and c3 (Rc8) attacked and undefended; nothing of
    // White's attacked by a lower-valued piece.
    assert_eq!(c(Term::StmHanging), 2);
    assert_eq!(c(Term::StmThreatened), 0);
    // The colour-blind hanging count: White 2, Black 1 (Bb6).
    assert_eq!(c(Term::Hanging), 1);
}

#[test]
fn batch_evaluation_equals_one_by_one() {
    let positions: Vec<Chess> = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 3 12",
        "8/8/4k3/8/8/4K3/4P3/8 w - - 20 60",
    ]
    .iter()
    .map(|f| chessgraph_core::chess::fen::parse_position(f).unwrap())
    .collect();
    let linear = Evaluator::builtin("seed003").unwrap();
    let one: Vec<i32> = positions.iter().map(|p| linear.evaluate(p)).collect();
    assert_eq!(linear.evaluate_batch(&positions), one);
    assert!(linear.evaluate_batch(&[]).is_empty());
    #[cfg(feature = "cnn")]
    {
        use chessgraph_cnn::{Arch, Shape, test_net};
        let shape = Shape {
            channels: 4,
            blocks: 2,
        };
        let deep = Evaluator::from_net("tiny", test_net(Arch::CnnStudy, shape, 3));
        let batch = deep.evaluate_batch(&positions);
        for (p, b) in positions.iter().zip(&batch) {
            assert!(
                (deep.evaluate(p) - b).abs() <= 1,
                "{b} vs {}",
                deep.evaluate(p)
            );
        }
        assert!(batch.iter().any(|&v| v != batch[0]), "{batch:?}");
    }
}

#[test]
fn a_network_has_no_terms_to_evaluate() {
    let mut tl = TermList::new();
    terms(&shakmaty::Chess::default(), &mut tl);
    assert_eq!(
        Evaluator::builtin("nnue").unwrap().evaluate_terms(&tl),
        None
    );
    assert_eq!(
        Evaluator::builtin("material").unwrap().evaluate_terms(&tl),
        Some(0)
    );
}
