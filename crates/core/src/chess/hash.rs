//! Zobrist keys for the search, the opening book and the game rules (repetitions).
//!
//! Keys are shakmaty's [`Zobrist64`], which uses the Polyglot random numbers: the start
//! position hashes to `0x463b96181691fc9c`. The en passant file is included only when a
//! pawn of the side to move stands next to the pawn that just made a double step (the
//! Polyglot rule, shakmaty's [`EnPassantMode::PseudoLegal`]). [`key_after`] updates a key
//! incrementally and always equals [`key`] of the new position.

use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{CastlingSide, Chess, Color, EnPassantMode, Move, Position, Role, Square};

/// The key of `pos`, computed from scratch.
pub fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal).0
}

#[inline]
fn piece(sq: Square, role: Role, color: Color) -> u64 {
    Zobrist64::zobrist_for_piece(sq, role.of(color)).0
}

#[inline]
fn ep_part(pos: &Chess) -> u64 {
    pos.pseudo_legal_ep_square()
        .map_or(0, |sq| Zobrist64::zobrist_for_en_passant_file(sq.file()).0)
}

fn castling_part(pos: &Chess) -> u64 {
    let castles = pos.castles();
    let mut k = 0;
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            if castles.has(color, side) {
                k ^= Zobrist64::zobrist_for_castling_right(color, side).0;
            }
        }
    }
    k
}

/// The key of `after` (= `before` with the legal move `m` played), from `before`'s key.
#[inline]
pub fn key_after(before: &Chess, key: u64, m: Move, after: &Chess) -> u64 {
    let us = before.turn();
    let mut k = key ^ Zobrist64::zobrist_for_white_turn().0;
    k ^= ep_part(before) ^ ep_part(after);
    if before.castles().castling_rights() != after.castles().castling_rights() {
        k ^= castling_part(before) ^ castling_part(after);
    }
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            k ^= piece(from, role, us) ^ piece(to, promotion.unwrap_or(role), us);
            if let Some(c) = capture {
                k ^= piece(to, c, !us);
            }
        }
        Move::EnPassant { from, to } => {
            let captured = Square::from_coords(to.file(), from.rank());
            k ^= piece(from, Role::Pawn, us)
                ^ piece(to, Role::Pawn, us)
                ^ piece(captured, Role::Pawn, !us);
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_queen_side(rook < king);
            k ^= piece(king, Role::King, us)
                ^ piece(rook, Role::Rook, us)
                ^ piece(side.king_to(us), Role::King, us)
                ^ piece(side.rook_to(us), Role::Rook, us);
        }
        Move::Put { role, to } => k ^= piece(to, role, us),
    }
    k
}

/// The key after a null move (the side to move passes; en passant is cleared).
#[inline]
pub fn key_after_null(before: &Chess, key: u64) -> u64 {
    key ^ Zobrist64::zobrist_for_white_turn().0 ^ ep_part(before)
}

/// A key of the pawn structure alone (both colours' pawns, not the side to move): two
/// multiplicative hashes of the pawn bitboards, for tables indexed by pawn structure (the
/// search's correction history). Cheaper than a Zobrist sum and just as well spread in
/// its high bits, which are the ones to index by.
#[inline]
pub fn pawn_key(pos: &Chess) -> u64 {
    let board = pos.board();
    let white = (board.pawns() & board.white()).0;
    let black = (board.pawns() & board.black()).0;
    (white.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ black.wrapping_mul(0xc2b2_ae3d_27d4_eb4f))
        .wrapping_mul(0xff51_afd7_ed55_8ccd)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    #[test]
    fn pawn_key_sees_only_the_pawns() {
        let parse = |fen| -> Chess {
            crate::chess::fen::parse(fen, crate::chess::fen::Leniency::Strict).unwrap()
        };
        let a = parse("4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1");
        // The kings moved and a knight added: the same pawns.
        let b = parse("3k4/pp6/8/8/8/2N5/PP6/3K4 b - - 0 1");
        // One pawn a square further: another structure.
        let c = parse("4k3/pp6/8/8/8/P7/1P6/4K3 w - - 0 1");
        // The same squares with the colours swapped: another structure.
        let d = parse("4k3/PP6/8/8/8/8/pp6/4K3 w - - 0 1");
        assert_eq!(pawn_key(&a), pawn_key(&b));
        assert_ne!(pawn_key(&a), pawn_key(&c));
        assert_ne!(pawn_key(&a), pawn_key(&d));
    }

    #[test]
    fn polyglot_reference_keys() {
        // From the Polyglot book format description.
        let cases = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                0x463b_9618_1691_fc9c,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                0x22a4_8b5a_8e47_ff78,
            ),
            (
                "rnbqkbnr/p1pppppp/8/8/PpP4P/8/1P1PPPP1/RNBQKBNR b KQkq c3 0 3",
                0x3c81_23ea_7b06_7637,
            ),
            (
                "rnbq1bnr/ppp1pkpp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR w - - 2 4",
                0x00fd_d303_c946_bdd9,
            ),
        ];
        for (fen, expected) in cases {
            let pos: Chess =
                crate::chess::fen::parse(fen, crate::chess::fen::Leniency::Strict).unwrap();
            assert_eq!(key(&pos), expected, "{fen}");
        }
    }

    #[test]
    fn incremental_equals_scratch_on_playouts() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..60 {
            let mut pos = Chess::default();
            let mut k = key(&pos);
            for _ in 0..200 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                // Prefer captures, castling and double steps now and then to cover them.
                let special: Vec<Move> = moves
                    .iter()
                    .copied()
                    .filter(|m| m.is_capture() || m.is_castle() || m.is_promotion())
                    .collect();
                let m = if !special.is_empty() && seed.is_multiple_of(3) {
                    special[(seed / 3 % special.len() as u64) as usize]
                } else {
                    moves[(seed % moves.len() as u64) as usize]
                };
                let mut next = pos.clone();
                next.play_unchecked(m);
                k = key_after(&pos, k, m, &next);
                assert_eq!(k, key(&next), "after {m:?}");
                if !next.is_check() && seed.is_multiple_of(5) {
                    let nk = key_after_null(&next, k);
                    let mut setup = next.to_setup(EnPassantMode::Always);
                    setup.ep_square = None;
                    setup.swap_turn();
                    let passed: Chess = setup.position(CastlingMode::Standard).unwrap();
                    assert_eq!(nk, key(&passed));
                }
                pos = next;
            }
        }
    }
}
