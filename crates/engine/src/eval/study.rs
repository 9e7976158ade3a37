//! The two terms of the graph-features study's bot (`seed003`), with python-chess semantics.
//!
//! * Study mobility: the legal moves of each side, each counted with that side to move.
//!   For the side not to move, the study did `b = board.copy(); b.push(chess.Move.null());
//!   b.legal_moves.count()`: the turn passes, en passant is cleared, and castling rights
//!   stay. When the side to move is in check, the side not to move can then "capture" the
//!   king; python-chess counts such moves (they are pseudo-legal moves that keep the
//!   mover's own king safe). shakmaty cannot represent that position, so the count is done
//!   here directly on the board: pseudo-legal moves whose piece is not pinned off its line,
//!   king steps to unattacked squares, and castling through unattacked squares.
//!
//!   The canonical implementation of this count is [`chessgraph_core::graph::mobility_counts`] (the
//!   graph features and [`terms`](super::terms) use it). [`mobility_counts`] here is the
//!   engine's faster version (it avoids generating the side to move's move list and the
//!   full attack maps: about 1.4× the engine's speed with `seed003`); tests assert that
//!   both agree.
//! * Study king safety: squares next to the Black king attacked by White minus squares next
//!   to the White king attacked by Black (attacks with the current occupancy, so a square
//!   counts whether it is empty or occupied).

use shakmaty::{Bitboard, Board, Castles, CastlingSide, Chess, Color, Position, attacks};

use chessgraph_core::chess::check::blockers;

/// Legal moves of `color` with python-chess null-move semantics (see the module docs).
pub fn side_moves(pos: &Chess, color: Color) -> u32 {
    if color == pos.turn() {
        if pos.is_check() {
            // Evasions are rare in the tree; shakmaty's generator is exact.
            return pos.legal_moves().len() as u32;
        }
        let ep = if pos.maybe_ep_square().is_some() {
            pos.en_passant_moves().len() as u32
        } else {
            0
        };
        count_quiet_king_moves(pos.board(), color, pos.castles()) + ep
    } else {
        count_quiet_king_moves(pos.board(), color, pos.castles())
    }
}

/// `(white, black)` legal move counts, each with that side to move.
pub fn mobility_counts(pos: &Chess) -> (u32, u32) {
    (side_moves(pos, Color::White), side_moves(pos, Color::Black))
}

/// Squares next to `color`'s king attacked by the other side (0 without a king).
pub fn attacked_next_to_king(board: &Board, color: Color) -> u32 {
    let Some(king) = board.king_of(color) else {
        return 0;
    };
    let occupied = board.occupied();
    let mut n = 0;
    for sq in attacks::king_attacks(king) {
        if board.attacks_to(sq, !color, occupied).any() {
            n += 1;
        }
    }
    n
}

/// Study king safety: attacked squares next to the Black king minus next to the White king.
pub fn study_king_safety(board: &Board) -> i32 {
    attacked_next_to_king(board, Color::Black) as i32
        - attacked_next_to_king(board, Color::White) as i32
}

/// Legal moves of `us` without en passant, assuming `us`'s king is not attacked. The
/// enemy king counts as a capturable piece (python-chess pseudo-legal semantics).
fn count_quiet_king_moves(board: &Board, us: Color, castles: &Castles) -> u32 {
    let Some(king) = board.king_of(us) else {
        return 0;
    };
    let occ = board.occupied();
    let own = board.by_color(us);
    let them = board.by_color(!us);
    let target = !own;
    let pinned = blockers(board, king, !us) & own;
    let mut n = 0u32;

    // Knights: a pinned knight can never move along its pin line.
    for sq in board.knights() & own & !pinned {
        n += (attacks::knight_attacks(sq) & target).count() as u32;
    }
    for sq in board.bishops_and_queens() & own {
        let mut a = attacks::bishop_attacks(sq, occ) & target;
        if pinned.contains(sq) {
            a &= attacks::ray(king, sq);
        }
        n += a.count() as u32;
    }
    for sq in board.rooks_and_queens() & own {
        let mut a = attacks::rook_attacks(sq, occ) & target;
        if pinned.contains(sq) {
            a &= attacks::ray(king, sq);
        }
        n += a.count() as u32;
    }

    // Pawns: free pawns in bulk, pinned pawns one by one.
    let pawns = board.pawns() & own;
    let free = pawns & !pinned;
    let (up, start_rank, last_rank) = match us {
        Color::White => (
            8,
            Bitboard(0x0000_0000_00ff_0000),
            Bitboard(0xff00_0000_0000_0000),
        ),
        Color::Black => (
            -8,
            Bitboard(0x0000_ff00_0000_0000),
            Bitboard(0x0000_0000_0000_00ff),
        ),
    };
    let empty = !occ;
    let push1 = free.shift(up) & empty;
    let push2 = (push1 & start_rank).shift(up) & empty;
    let not_a = !Bitboard(0x0101_0101_0101_0101);
    let not_h = !Bitboard(0x8080_8080_8080_8080);
    let cap_west = (free & not_a).shift(up - 1) & them;
    let cap_east = (free & not_h).shift(up + 1) & them;
    let count_with_promotions = |b: Bitboard| -> u32 {
        (b & !last_rank).count() as u32 + 4 * (b & last_rank).count() as u32
    };
    n += count_with_promotions(push1) + push2.count() as u32;
    n += count_with_promotions(cap_west) + count_with_promotions(cap_east);
    for sq in pawns & pinned {
        let line = attacks::ray(king, sq);
        let from = Bitboard::from_square(sq);
        let p1 = from.shift(up) & empty;
        let p2 = (p1 & start_rank).shift(up) & empty;
        let caps = attacks::pawn_attacks(us, sq) & them;
        n += count_with_promotions((p1 | caps) & line) + (p2 & line).count() as u32;
    }

    // King steps to squares the enemy does not attack.
    for to in attacks::king_attacks(king) & target {
        if board.attacks_to(to, !us, occ).is_empty() {
            n += 1;
        }
    }

    // Castling: empty path, king not passing through or landing on an attacked square.
    for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
        let Some(rook) = castles.rook(us, side) else {
            continue;
        };
        if (castles.path(us, side) & occ).any() {
            continue;
        }
        let king_to = side.king_to(us);
        let after = occ ^ king ^ rook ^ side.rook_to(us);
        if board.attacks_to(king_to, !us, after).any() {
            continue;
        }
        let passes = attacks::between(king, king_to).with(king);
        if passes
            .into_iter()
            .all(|sq| board.attacks_to(sq, !us, occ ^ king).is_empty())
        {
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, EnPassantMode, fen::Fen};

    fn pos(fen: &str) -> Chess {
        chessgraph_core::chess::fen::parse_position(fen).unwrap()
    }

    /// Every position of the golden file (python-chess 1.11.2 counts).
    #[test]
    fn matches_python_chess_golden() {
        let golden = include_str!("../../../../tests/golden/study-terms.csv");
        let mut rows = 0;
        for line in golden.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            let p = pos(f[0]);
            let (w, b) = mobility_counts(&p);
            assert_eq!(w, f[1].parse::<u32>().unwrap(), "white moves {}", f[0]);
            assert_eq!(b, f[2].parse::<u32>().unwrap(), "black moves {}", f[0]);
            assert_eq!(
                study_king_safety(p.board()),
                f[3].parse::<i32>().unwrap(),
                "king safety {}",
                f[0]
            );
            rows += 1;
        }
        assert!(rows >= 2000);
    }

    /// Against shakmaty's own generator wherever shakmaty can represent the passed turn.
    #[test]
    fn matches_shakmaty_on_playouts() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut checked = 0;
        for _game in 0..40 {
            let mut p = Chess::default();
            for _ply in 0..160 {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                assert_eq!(side_moves(&p, p.turn()), moves.len() as u32);
                if !p.is_check() {
                    let mut setup = p.to_setup(EnPassantMode::Always);
                    setup.ep_square = None;
                    setup.swap_turn();
                    let passed: Chess = setup.position(CastlingMode::Standard).unwrap();
                    assert_eq!(
                        side_moves(&p, !p.turn()),
                        passed.legal_moves().len() as u32,
                        "{}",
                        Fen::from_position(&p, EnPassantMode::Always)
                    );
                    checked += 1;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let m = moves[(seed % moves.len() as u64) as usize];
                p.play_unchecked(m);
            }
        }
        assert!(checked > 1000);
    }

    #[test]
    fn fast_counter_equals_graph_counter() {
        let golden = include_str!("../../../../tests/golden/study-terms.csv");
        for line in golden.lines().skip(1) {
            let p = pos(line.split(',').next().unwrap());
            let (w, b) = mobility_counts(&p);
            assert_eq!(
                (w as i32, b as i32),
                chessgraph_core::graph::mobility_counts(&p)
            );
        }
    }

    #[test]
    fn king_capture_counts_when_side_to_move_is_in_check() {
        // Black to move is in check from the rook; White, passing the turn back, could
        // capture the king: Rxe8 is one of White's moves (python-chess counts it).
        let p = pos("4k3/8/8/8/8/8/8/K3R3 b - - 0 1");
        // Rook: e2..e7 (6), e8 capture (1), a1..d1 minus a1 (K) -> b1 c1 d1 (3),
        // f1 g1 h1 (3); king a1: a2 b2 b1 (3).
        assert_eq!(side_moves(&p, Color::White), 6 + 1 + 3 + 3 + 3);
    }
}
