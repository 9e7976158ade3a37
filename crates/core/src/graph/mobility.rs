//! Mobility: legal move counts of both sides.
//!
//! The side to move is counted with shakmaty's legal move generator. The side not to move
//! is counted as python-chess does after `board.push(chess.Move.null())`: the turn passes,
//! the en passant square is cleared, and every pseudo-legal move that does not leave the
//! mover's own king attacked counts. When the side to move is in check that includes
//! capturing its king, a position shakmaty refuses to build, so this count is done here
//! with shakmaty's attack tables. The side not to move is never in check in a valid
//! [`Chess`] position (shakmaty rejects "opposite check"), so no evasion logic is needed.

use shakmaty::{Bitboard, ByColor, CastlingSide, Chess, Color, Piece, Position, attacks};

use super::attacked_squares;
use crate::chess::check::blockers;

/// Mobility of both sides: `(mobility_white, mobility_black)` as in
/// [`Features`](super::Features).
pub fn mobility_counts(pos: &Chess) -> (i32, i32) {
    let board = pos.board();
    let attacked = ByColor::new_with(|color| attacked_squares(board, color));
    counts_with(pos, &attacked)
}

/// [`mobility_counts`] with the squares attacked by each side already known.
pub(super) fn counts_with(pos: &Chess, attacked: &ByColor<Bitboard>) -> (i32, i32) {
    let to_move = pos.legal_moves().len() as i32;
    let waiting = null_move_count(pos, *attacked.get(pos.turn()));
    match pos.turn() {
        Color::White => (to_move, waiting),
        Color::Black => (waiting, to_move),
    }
}

/// Number of moves of the side not to move after a null move (python-chess:
/// `b.push(chess.Move.null()); b.legal_moves.count()`). Promotions count 4 moves;
/// capturing the king of a side in check counts as a move. (A reference for the tests:
/// the features use [`mobility_counts`].)
#[cfg(test)]
pub fn null_move_mobility(pos: &Chess) -> i32 {
    null_move_count(pos, attacked_squares(pos.board(), pos.turn()))
}

/// Moves of the side not to move, given `their_attacks`, the squares attacked by the side
/// to move.
fn null_move_count(pos: &Chess, their_attacks: Bitboard) -> i32 {
    let board = pos.board();
    let us = !pos.turn();
    let them = pos.turn();
    let occ = board.occupied();
    let ours = board.by_color(us);
    let theirs = board.by_color(them);
    let king = board.king_of(us);
    let pinned = king.map_or(Bitboard::EMPTY, |k| {
        blockers(board, k, !us) & board.by_color(us)
    });
    // A pinned piece may only move along the line through its king.
    let allowed = |from: shakmaty::Square| match king {
        Some(k) if pinned.contains(from) => attacks::ray(k, from),
        _ => Bitboard::FULL,
    };

    let mut moves = 0;

    for from in ours & !board.pawns() & !board.kings() {
        let Some(role) = board.role_at(from) else {
            continue;
        };
        let targets = attacks::attacks(from, Piece { color: us, role }, occ) & !ours;
        moves += (targets & allowed(from)).count();
    }

    let empty = !occ;
    let (push, double_rank) = match us {
        Color::White => (8, Bitboard::from(shakmaty::Rank::Third)),
        Color::Black => (-8, Bitboard::from(shakmaty::Rank::Sixth)),
    };
    for from in ours & board.pawns() {
        let single = Bitboard::from_square(from).shift(push) & empty;
        let double = (single & double_rank).shift(push) & empty;
        let captures = attacks::pawn_attacks(us, from) & theirs;
        let targets = (single | double | captures) & allowed(from);
        // A move to the last rank is four moves (=Q, =R, =B, =N).
        moves +=
            (targets & !Bitboard::BACKRANKS).count() + 4 * (targets & Bitboard::BACKRANKS).count();
    }

    if let Some(king) = king {
        moves += (attacks::king_attacks(king) & !ours & !their_attacks).count();
        moves += castling_count(pos, king, us);
    }

    moves as i32
}

/// Castling moves of `us` (not to move, not in check), with python-chess's conditions:
/// the squares the king and rook pass and land on are empty (but for themselves), and the
/// king's square, the squares it passes and its destination are not attacked.
fn castling_count(pos: &Chess, king: shakmaty::Square, us: Color) -> usize {
    let board = pos.board();
    if king.rank() != us.backrank() {
        return 0;
    }
    let occ = board.occupied();
    let attacked =
        |sq: shakmaty::Square, occupied: Bitboard| board.attacks_to(sq, !us, occupied).any();
    let mut moves = 0;
    for side in CastlingSide::ALL {
        let Some(rook) = pos.castles().rook(us, side) else {
            continue;
        };
        let king_to = side.king_to(us);
        let rook_to = side.rook_to(us);
        let king_path = attacks::between(king, king_to);
        let rook_path = attacks::between(rook, rook_to);
        let king_bb = Bitboard::from_square(king);
        let rook_bb = Bitboard::from_square(rook);
        let must_be_empty = king_path | rook_path | king_to | rook_to;
        if (occ ^ king_bb ^ rook_bb).intersects(must_be_empty) {
            continue;
        }
        let without_king = occ ^ king_bb;
        if (king_path | king_bb)
            .into_iter()
            .any(|sq| attacked(sq, without_king))
        {
            continue;
        }
        if attacked(
            king_to,
            without_king ^ rook_bb ^ Bitboard::from_square(rook_to),
        ) {
            continue;
        }
        moves += 1;
    }
    moves
}
