//! The piece-square input every feature set starts from: one of 768 inputs per piece,
//! seen from a perspective (its own pieces first, the board flipped for Black).

use shakmaty::{Color, Piece, Square};

/// Piece-square inputs: 2 colours × 6 roles × 64 squares.
pub const PIECE_INPUTS: usize = 768;

/// The feature index of `piece` on `sq` from `perspective`'s view.
#[inline]
pub fn index(perspective: Color, piece: Piece, sq: Square) -> usize {
    let relative = usize::from(piece.color != perspective);
    let sq = match perspective {
        Color::White => sq as usize,
        Color::Black => sq as usize ^ 56,
    };
    relative * 384 + (piece.role as usize - 1) * 64 + sq
}
