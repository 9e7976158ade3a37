//! Input planes: a position as `planes × 8 × 8` numbers, the image a convolution reads.
//!
//! Planes are indexed `[plane][rank][file]` with rank 0 the first rank (a1 is
//! `[p][0][0]`, h8 `[p][7][7]`), from White's side of the board whoever is to move: the
//! studies' encodings are absolute, and so are these.
//!
//! * [`Encoding::Study`] — the players study's second representation: 12 piece planes
//!   (White pawn, knight, bishop, rook, queen, king, then Black's) and two planes of the
//!   squares White's and Black's pieces attack. 14 planes.
//! * [`Encoding::AlphaZero`] — the neural-network study's "simplified AlphaZero" planes:
//!   the 12 piece planes, then the side to move (all ones when White is to move), the four
//!   castling rights (White king side, White queen side, Black king side, Black queen
//!   side; all ones when held), the en-passant square (a one on it when an en-passant
//!   capture is legal), the halfmove clock / 100 and the move number / 100 (constant
//!   planes). 20 planes.

use shakmaty::{CastlingSide, Chess, Color, EnPassantMode, Position, Role};

/// Squares per plane.
pub const SQUARES: usize = 64;

/// How a position becomes input planes (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// 12 piece planes + White's and Black's attacked squares.
    Study,
    /// 12 piece planes + side to move, castling, en passant, clocks.
    AlphaZero,
}

impl Encoding {
    /// Every encoding.
    pub const ALL: [Encoding; 2] = [Encoding::Study, Encoding::AlphaZero];

    /// Number of planes.
    pub const fn planes(self) -> usize {
        match self {
            Encoding::Study => 14,
            Encoding::AlphaZero => 20,
        }
    }

    /// Numbers per position (`planes × 64`).
    pub const fn inputs(self) -> usize {
        self.planes() * SQUARES
    }

    /// The name written in model files.
    pub const fn as_str(self) -> &'static str {
        match self {
            Encoding::Study => "study-14",
            Encoding::AlphaZero => "alphazero-20",
        }
    }

    /// The encoding named `s` (as [`Encoding::as_str`] writes it).
    pub fn parse(s: &str) -> Option<Encoding> {
        Encoding::ALL.into_iter().find(|e| e.as_str() == s)
    }

    /// Writes the planes of `pos` into `out` (`self.inputs()` numbers, every one written).
    ///
    /// # Panics
    ///
    /// If `out` is not `self.inputs()` long.
    pub fn write(self, pos: &Chess, out: &mut [f32]) {
        assert_eq!(out.len(), self.inputs(), "plane buffer length");
        out.fill(0.0);
        let board = pos.board();
        for (sq, piece) in board.iter() {
            let plane = piece_plane(piece.color, piece.role);
            out[plane * SQUARES + usize::from(sq)] = 1.0;
        }
        match self {
            Encoding::Study => {
                for (i, color) in [Color::White, Color::Black].into_iter().enumerate() {
                    for sq in chessgraph_core::graph::attacked_squares(pos.board(), color) {
                        out[(12 + i) * SQUARES + usize::from(sq)] = 1.0;
                    }
                }
            }
            Encoding::AlphaZero => {
                let fill = |out: &mut [f32], plane: usize, v: f32| {
                    out[plane * SQUARES..(plane + 1) * SQUARES].fill(v);
                };
                if pos.turn() == Color::White {
                    fill(out, 12, 1.0);
                }
                let castles = pos.castles();
                let rights = [
                    (Color::White, CastlingSide::KingSide),
                    (Color::White, CastlingSide::QueenSide),
                    (Color::Black, CastlingSide::KingSide),
                    (Color::Black, CastlingSide::QueenSide),
                ];
                for (i, (color, side)) in rights.into_iter().enumerate() {
                    if castles.has(color, side) {
                        fill(out, 13 + i, 1.0);
                    }
                }
                if let Some(ep) = pos.ep_square(EnPassantMode::Legal) {
                    out[17 * SQUARES + usize::from(ep)] = 1.0;
                }
                fill(out, 18, pos.halfmoves() as f32 / 100.0);
                fill(out, 19, pos.fullmoves().get() as f32 / 100.0);
            }
        }
    }
}

/// The piece plane of a piece: White's pawn..king are 0..5, Black's 6..11.
pub fn piece_plane(color: Color, role: Role) -> usize {
    let side = if color == Color::White { 0 } else { 6 };
    side + usize::from(role) - 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_core::chess::fen::parse_position;
    use shakmaty::Square;

    #[test]
    fn start_position_planes() {
        let pos = Chess::default();
        let mut out = vec![9.0; Encoding::AlphaZero.inputs()];
        Encoding::AlphaZero.write(&pos, &mut out);
        let plane = |p: usize| &out[p * 64..(p + 1) * 64];
        // White pawns on the second rank, Black king on e8.
        assert_eq!(plane(0).iter().sum::<f32>(), 8.0);
        assert_eq!(plane(0)[8..16], [1.0; 8]);
        assert_eq!(plane(11)[60], 1.0);
        assert_eq!(plane(12), [1.0; 64]);
        for p in 13..17 {
            assert_eq!(plane(p), [1.0; 64], "castling plane {p}");
        }
        assert_eq!(plane(17).iter().sum::<f32>(), 0.0);
        assert_eq!(plane(19)[0], 0.01);
    }

    #[test]
    fn study_attack_planes() {
        // White: Ke1, Rh1; Black: Ke8, pawn d5. Black to move.
        let pos = parse_position("4k3/8/8/3p4/8/8/8/4K2R b K - 0 1").unwrap();
        let mut out = vec![0.0; Encoding::Study.inputs()];
        Encoding::Study.write(&pos, &mut out);
        let white = &out[12 * 64..13 * 64];
        let black = &out[13 * 64..14 * 64];
        // The rook sees the whole h-file and f1, g1; the king d1, d2, e2, f2, f1.
        for sq in [Square::H8, Square::H2, Square::G1, Square::F1, Square::D2] {
            assert_eq!(white[usize::from(sq)], 1.0, "{sq}");
        }
        assert_eq!(white[usize::from(Square::A8)], 0.0);
        // The d5 pawn attacks c4 and e4.
        assert_eq!(black[usize::from(Square::C4)], 1.0);
        assert_eq!(black[usize::from(Square::E4)], 1.0);
        assert_eq!(black[usize::from(Square::D4)], 0.0);
    }

    #[test]
    fn en_passant_plane_only_when_legal() {
        let pos = parse_position("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2").unwrap();
        let mut out = vec![0.0; Encoding::AlphaZero.inputs()];
        Encoding::AlphaZero.write(&pos, &mut out);
        assert_eq!(out[17 * 64 + usize::from(Square::D6)], 1.0);
        assert_eq!(out[12 * 64], 1.0);
    }
}
