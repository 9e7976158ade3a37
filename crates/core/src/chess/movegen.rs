//! The quiescence search's moves out of check generated directly: legal captures (en
//! passant and capturing promotions included) and queen promotions.
//!
//! Shakmaty generates every legal move and its `capture_moves` filters that list; the
//! quiescence search, the most frequent node, wants only the captures. This generator
//! targets the enemy's pieces from the start and keeps shakmaty's move order exactly
//! (en passant, pawns, knights, bishops, rooks, queens, king), so a search that picks
//! among equal scores by list order sees the same list and searches the same tree.

use shakmaty::{Bitboard, Chess, Color, Move, MoveList, Position, Role, Square, attacks};

use super::check::blockers;

/// The files a pawn capturing towards the a-file (resp. h-file) cannot start on.
const FILE_A: Bitboard = Bitboard(0x0101_0101_0101_0101);
const FILE_H: Bitboard = Bitboard(0x8080_8080_8080_8080);

/// The legal captures and queen promotions of `pos`, a position whose side to move is
/// not in check (the caller knows: in check, every evasion matters), in shakmaty's
/// legal-move order.
pub fn noisy_moves(pos: &Chess) -> MoveList {
    debug_assert!(!pos.is_check(), "noisy_moves in check");
    let board = pos.board();
    let us = pos.turn();
    let them = pos.them();
    let occupied = board.occupied();
    let mut moves = pos.en_passant_moves();

    let pawns = pos.our(Role::Pawn);
    // Towards the a-file, then towards the h-file: shakmaty's two capture directions.
    let (west, east) = match us {
        Color::White => (((pawns & !FILE_A).0 << 7), ((pawns & !FILE_H).0 << 9)),
        Color::Black => (((pawns & !FILE_A).0 >> 9), ((pawns & !FILE_H).0 >> 7)),
    };
    let (west_from, east_from) = us.fold_wb((-7, -9), (9, 7));
    for (targets, back) in [(west, west_from), (east, east_from)] {
        let captures = Bitboard(targets) & them;
        for to in captures & !Bitboard::BACKRANKS {
            push(
                &mut moves,
                Role::Pawn,
                offset(to, back),
                to,
                board.role_at(to),
                None,
            );
        }
        for to in captures & Bitboard::BACKRANKS {
            let from = offset(to, back);
            for p in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                push(&mut moves, Role::Pawn, from, to, board.role_at(to), Some(p));
            }
        }
    }
    let advance = us.fold_wb(8, -8);
    for to in pawns.shift(advance) & !occupied & Bitboard::BACKRANKS {
        push(
            &mut moves,
            Role::Pawn,
            offset(to, -advance),
            to,
            None,
            Some(Role::Queen),
        );
    }

    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        for from in pos.our(role) {
            for to in attacks::attacks(from, role.of(us), occupied) & them {
                push(&mut moves, role, from, to, board.role_at(to), None);
            }
        }
    }
    if let Some(king) = board.king_of(us) {
        for to in attacks::king_attacks(king) & them {
            if board.attacks_to(to, !us, occupied).is_empty() {
                push(&mut moves, Role::King, king, to, board.role_at(to), None);
            }
        }
        // A pinned piece may only move along the line through its king.
        let blockers = blockers(board, king, !us);
        if blockers.any() {
            moves.retain(|m| match *m {
                Move::Normal { from, to, .. } => {
                    !blockers.contains(from) || attacks::aligned(from, to, king)
                }
                _ => true,
            });
        }
    }
    moves
}

/// `sq` moved by `delta` squares (the caller knows the result is on the board).
fn offset(sq: Square, delta: i32) -> Square {
    Square::new((sq as i32 + delta) as u32)
}

fn push(
    moves: &mut MoveList,
    role: Role,
    from: Square,
    to: Square,
    capture: Option<Role>,
    promotion: Option<Role>,
) {
    moves.push(Move::Normal {
        role,
        from,
        capture,
        to,
        promotion,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_position;
    use crate::chess::rng::SplitMix;

    /// Shakmaty's legal moves filtered to the quiescence search's set.
    fn reference(pos: &Chess) -> MoveList {
        let mut moves = pos.legal_moves();
        moves.retain(|m| m.is_capture() || m.promotion() == Some(Role::Queen));
        moves
    }

    #[test]
    fn equals_the_filtered_legal_moves_in_order_on_random_games() {
        let mut rng = SplitMix(7);
        let mut checked = 0;
        let mut with_captures = 0;
        for _ in 0..300 {
            let mut pos = Chess::default();
            for _ in 0..160 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                if !pos.is_check() {
                    let got = noisy_moves(&pos);
                    assert_eq!(got, reference(&pos), "{}", crate::chess::fen::to_fen(&pos));
                    checked += 1;
                    with_captures += usize::from(got.iter().any(|m| m.is_capture()));
                }
                // Captures half the time keep material on the board for longer games.
                let captures: Vec<Move> =
                    legal.iter().copied().filter(|m| m.is_capture()).collect();
                let m = if !captures.is_empty() && rng.below(2) == 0 {
                    captures[rng.below(captures.len())]
                } else {
                    legal[rng.below(legal.len())]
                };
                pos.play_unchecked(m);
            }
        }
        assert!(
            checked > 20_000 && with_captures > 5_000,
            "{checked} {with_captures}"
        );
    }

    #[test]
    fn pins_en_passant_and_promotions() {
        let fens = [
            // En passant would open the fifth rank to the rook.
            "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1",
            // The pinned bishop may take its pinner but not the knight off the line.
            "7k/8/8/4q3/1n6/2B5/8/K7 w - - 0 1",
            // Two pieces between king and bishop: neither is pinned.
            "7k/8/8/8/3b4/2n5/1B6/K7 w - - 0 1",
            // Capturing promotions (all four pieces) and the quiet queen promotion.
            "1n2k3/P7/8/8/8/8/2p5/1N5K b - - 0 1",
            // The b7 pawn promotes by taking the a8 rook (four pieces) or on b8 (the queen).
            "r3k3/1P6/8/8/8/8/8/4K3 w q - 0 1",
            // The king takes the undefended rook, not the pawn the rook defends.
            "4k3/8/8/8/8/8/3rp3/4K3 w - - 0 1",
        ];
        for fen in fens {
            let pos = parse_position(fen).unwrap();
            assert_eq!(noisy_moves(&pos), reference(&pos), "{fen}");
        }
    }
}
