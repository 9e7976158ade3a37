//! bullet's training-data format ("bulletformat" `ChessBoard`): 32 bytes a position,
//! read as-is by the bullet NNUE trainer and by engines' own data tools. Everything is
//! from the side to move's view: the board is flipped top to bottom when Black is to move
//! (square `s` becomes `s ^ 56`, colours swapped), and the score and result are the side
//! to move's.
//!
//! Layout, little-endian: the occupancy (`u64`, bit `s` for square `s`, a1 = 0); sixteen
//! bytes of 4-bit pieces in the occupancy's square order, two a byte, low nibble first
//! (bits 0–2 the piece, pawn 0 … king 5; bit 3 set for the opponent's); the score (`i16`,
//! centipawns); the result (`u8`: 0 loss, 1 draw, 2 win); the side to move's king square;
//! the opponent's king square flipped (`^ 56`); three bytes of zeros.
//!
//! Written from the format's definition; the tests compare every byte with the
//! `bulletformat` crate's own reading of the same position, score and result.

use shakmaty::{Chess, Color, Position, Role, Square};

/// Bytes of one position.
pub const RECORD_BYTES: usize = 32;

/// A position as bullet's trainer reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// The squares with a piece (side to move's view).
    pub occupancy: u64,
    /// The pieces in the occupancy's square order: `(is the opponent's, role)`.
    pub pieces: [(bool, Role); 32],
    /// How many of `pieces` there are.
    pub count: usize,
    /// The score for the side to move, centipawns.
    pub score: i16,
    /// The result for the side to move: 0 loss, 1 draw, 2 win.
    pub result: u8,
}

fn role_code(role: Role) -> u8 {
    match role {
        Role::Pawn => 0,
        Role::Knight => 1,
        Role::Bishop => 2,
        Role::Rook => 3,
        Role::Queen => 4,
        Role::King => 5,
    }
}

/// `pos` with `white_score` (centipawns for White, clamped to `i16`) and `white_result`
/// (White's points: 0, ½ or 1) as a record.
pub fn encode(pos: &Chess, white_score: i32, white_result: f32) -> [u8; RECORD_BYTES] {
    let us = pos.turn();
    let flip = |sq: Square| {
        if us == Color::Black {
            u32::from(sq) ^ 56
        } else {
            u32::from(sq)
        }
    };
    let board = pos.board();
    let mut placed: Vec<(u32, u8)> = board
        .occupied()
        .into_iter()
        .map(|sq| {
            let piece = board.piece_at(sq).expect("an occupied square has a piece");
            let theirs = u8::from(piece.color != us) << 3;
            (flip(sq), theirs | role_code(piece.role))
        })
        .collect();
    placed.sort_unstable_by_key(|&(s, _)| s);
    let mut out = [0u8; RECORD_BYTES];
    let occupancy = placed.iter().fold(0u64, |o, &(s, _)| o | 1 << s);
    out[..8].copy_from_slice(&occupancy.to_le_bytes());
    for (i, &(_, code)) in placed.iter().enumerate().take(32) {
        out[8 + i / 2] |= code << (4 * (i & 1));
    }
    let sign = if us == Color::White { 1 } else { -1 };
    let score = (sign * white_score).clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
    out[24..26].copy_from_slice(&score.to_le_bytes());
    let wins = (2.0 * white_result).round() as u8;
    out[26] = if us == Color::White {
        wins
    } else {
        2 - wins.min(2)
    };
    let king = |c: Color| board.king_of(c).map_or(0, |sq| flip(sq) as u8);
    out[27] = king(us);
    out[28] = king(!us) ^ 56;
    out
}

/// Reads a record back (no check that the position is legal: the format does not keep
/// castling rights, the en-passant square or the move counters).
pub fn decode(bytes: &[u8; RECORD_BYTES]) -> Record {
    let occupancy = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
    let mut pieces = [(false, Role::Pawn); 32];
    let count = occupancy.count_ones() as usize;
    for (i, slot) in pieces.iter_mut().enumerate().take(count) {
        let code = (bytes[8 + i / 2] >> (4 * (i & 1))) & 0xf;
        let role = match code & 7 {
            0 => Role::Pawn,
            1 => Role::Knight,
            2 => Role::Bishop,
            3 => Role::Rook,
            4 => Role::Queen,
            _ => Role::King,
        };
        *slot = (code & 8 != 0, role);
    }
    Record {
        occupancy,
        pieces,
        count,
        score: i16::from_le_bytes([bytes[24], bytes[25]]),
        result: bytes[26],
    }
}

impl Record {
    /// The board from the side to move's view as a FEN placement (the side to move as
    /// White): what a trainer sees.
    pub fn placement(&self) -> String {
        let mut at = [None; 64];
        let mut occ = self.occupancy;
        for &(theirs, role) in &self.pieces[..self.count] {
            let sq = occ.trailing_zeros() as usize;
            occ &= occ - 1;
            at[sq] = Some((theirs, role));
        }
        let mut fen = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match at[rank * 8 + file] {
                    None => empty += 1,
                    Some((theirs, role)) => {
                        if empty > 0 {
                            fen.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        let c = role.char();
                        fen.push(if theirs { c } else { c.to_ascii_uppercase() });
                    }
                }
            }
            if empty > 0 {
                fen.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        fen
    }
}

#[cfg(test)]
mod tests;
