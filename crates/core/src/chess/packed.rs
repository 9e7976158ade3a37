//! Packed positions: a position's identity (board, side to move, castling rights and an en
//! passant square only where a legal en passant capture exists — what
//! [`super::fen::normalized_fen`] writes) in 9 to 25 bytes, in the spirit of Stockfish's
//! packed positions. Two positions have equal packed bytes exactly when their normalized
//! FENs are equal, so the bytes serve as a compact unique key and the FEN is computed from
//! them on demand.
//!
//! Layout:
//! - bytes 0..8: the occupied squares, a little-endian bitboard (a1 = bit 0);
//! - byte 8: 0 when White is to move, 1 when Black is;
//! - then one 4-bit code per occupied square in ascending square order, two to a byte,
//!   the first square in the low nibble (a last odd nibble is 0): 0–5 White's pawn,
//!   knight, bishop, rook, queen, king, 6–11 Black's; 12 a White rook that keeps a
//!   castling right, 13 a Black one; 14 the pawn that can be taken en passant (it belongs
//!   to the side not to move, the en passant square is the one behind it).
//!
//! A board has at most 32 pieces, so at most 9 + 16 = 25 bytes. Unpacking checks every
//! code and builds the position through shakmaty's legality checks, so bytes that no
//! [`pack`] wrote are an error, never a panic. Standard chess only (castling rooks on
//! their corner squares).

use super::fen::{FenError, Leniency, normalized_fen, parse};
use shakmaty::{
    Bitboard, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Piece, Position, Rank, Role,
    Setup, Square,
};

/// The largest packed position: 8 + 1 + 32 / 2 bytes.
pub const MAX_LEN: usize = 25;

const WHITE_CASTLING_ROOK: u8 = 12;
const BLACK_CASTLING_ROOK: u8 = 13;
const EP_PAWN: u8 = 14;

/// Why bytes are not a packed position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PackedError {
    /// Shorter or longer than its occupancy says.
    #[error("packed position of {got} bytes, expected {expected}")]
    Length {
        /// Bytes given.
        got: usize,
        /// Bytes the occupancy asks for (0 when even the header is missing).
        expected: usize,
    },
    /// The side-to-move byte is neither 0 nor 1.
    #[error("packed position: side to move byte {0}")]
    Turn(u8),
    /// A piece code that no position packs to.
    #[error("packed position: code {code} on {square}")]
    Code {
        /// The square.
        square: Square,
        /// The code.
        code: u8,
    },
    /// The codes describe a position shakmaty refuses (two kings, a pawn on the first
    /// rank, a castling rook off its corner, ...), or bytes [`pack`] never writes.
    #[error("packed position: {0}")]
    Illegal(String),
}

/// The code of a plain piece.
fn piece_code(piece: Piece) -> u8 {
    let role = piece.role as u8 - 1; // shakmaty's roles count from pawn = 1
    role + if piece.color.is_white() { 0 } else { 6 }
}

/// The packed bytes of `pos`.
pub fn pack(pos: &Chess) -> Vec<u8> {
    let board = pos.board();
    let occupied = board.occupied();
    let castling = pos.castles().castling_rights();
    let ep_pawn = pos
        .ep_square(EnPassantMode::Legal)
        .map(|ep| Square::from_coords(ep.file(), pos.turn().fold_wb(Rank::Fifth, Rank::Fourth)));
    let mut out = Vec::with_capacity(9 + occupied.count().div_ceil(2));
    out.extend_from_slice(&u64::from(occupied).to_le_bytes());
    out.push(u8::from(pos.turn() == Color::Black));
    let mut pending: Option<u8> = None;
    for sq in occupied {
        let piece = board
            .piece_at(sq)
            .expect("an occupied square holds a piece");
        let code = if castling.contains(sq) && piece.role == Role::Rook {
            piece
                .color
                .fold_wb(WHITE_CASTLING_ROOK, BLACK_CASTLING_ROOK)
        } else if Some(sq) == ep_pawn {
            EP_PAWN
        } else {
            piece_code(piece)
        };
        match pending.take() {
            None => pending = Some(code),
            Some(low) => out.push(low | code << 4),
        }
    }
    if let Some(low) = pending {
        out.push(low);
    }
    out
}

/// The key of packed bytes: the top 47 bits of FNV-1a then splitmix64's finalizer, a
/// non-negative integer SQLite stores in 6 bytes (2 fewer than a full 64-bit key; about
/// 130 colliding pairs among 191M positions, resolved by comparing the bytes). What the
/// database's position index is built on: it never changes without a schema migration
/// that rebuilds that index.
pub fn key(bytes: &[u8]) -> i64 {
    (super::rng::mix64(super::fnv::fnv1a64(bytes)) >> 17) as i64
}

/// The packed bytes of a FEN (4 or 6 fields), as the import stores it: castling rights the
/// board cannot have are dropped ([`Leniency::DropCastling`]).
pub fn pack_fen(fen: &str) -> Result<Vec<u8>, FenError> {
    Ok(pack(&parse(fen, Leniency::DropCastling)?))
}

/// The normalized 4-field FEN (`positions.fen`'s form) of packed bytes.
pub fn board_fen(bytes: &[u8]) -> Result<String, PackedError> {
    Ok(normalized_fen(&unpack(bytes)?))
}

/// The position packed in `bytes` (with no move counters: halfmove clock 0, move 1).
pub fn unpack(bytes: &[u8]) -> Result<Chess, PackedError> {
    let Some((head, codes)) = bytes.split_first_chunk::<9>() else {
        return Err(PackedError::Length {
            got: bytes.len(),
            expected: 0,
        });
    };
    let occupied = Bitboard(u64::from_le_bytes(head[..8].try_into().expect("8 bytes")));
    let expected = 9 + occupied.count().div_ceil(2);
    if bytes.len() != expected {
        return Err(PackedError::Length {
            got: bytes.len(),
            expected,
        });
    }
    let turn = match head[8] {
        0 => Color::White,
        1 => Color::Black,
        b => return Err(PackedError::Turn(b)),
    };
    let mut setup = Setup::empty();
    setup.turn = turn;
    for (i, sq) in occupied.into_iter().enumerate() {
        let code = (codes[i / 2] >> (4 * (i % 2))) & 15;
        let piece = match code {
            0..=11 => Piece {
                color: if code < 6 { Color::White } else { Color::Black },
                role: Role::ALL[usize::from(code % 6)],
            },
            WHITE_CASTLING_ROOK | BLACK_CASTLING_ROOK => {
                setup.castling_rights.add(sq);
                Color::from_white(code == WHITE_CASTLING_ROOK).rook()
            }
            EP_PAWN => {
                let passed = Square::from_coords(sq.file(), turn.fold_wb(Rank::Sixth, Rank::Third));
                setup.ep_square = Some(passed);
                (!turn).pawn()
            }
            _ => return Err(PackedError::Code { square: sq, code }),
        };
        setup.board.set_piece_at(sq, piece);
    }
    let pos = Chess::from_setup(setup, CastlingMode::Standard)
        .map_err(|e| PackedError::Illegal(e.to_string()))?;
    // Only what pack writes: an en passant pawn with no legal capture, or a last odd
    // nibble that is not 0, was not written by pack.
    if pack(&pos) != bytes {
        return Err(PackedError::Illegal(
            "bytes pack never writes (an en passant pawn without a legal capture, or a padding nibble that is not 0)".into(),
        ));
    }
    Ok(pos)
}

#[cfg(test)]
mod tests;
