//! The study's 192 input columns of a (position, move) pair, seen from the side to move.
//!
//! | columns | what |
//! | --- | --- |
//! | 0..64 `board_a1`..`board_h8` | the piece on each square: +1 pawn, +2 knight, +3 bishop, +4 rook, +5 queen, +6 king of the side to move; the same codes negative for the opponent's pieces; 0 empty |
//! | 64..128 `from_a1`..`from_h8` | 1 on the square the move leaves, 0 elsewhere |
//! | 128..192 `to_a1`..`to_h8` | 1 on the square the move reaches, 0 elsewhere |
//!
//! Squares are the side to move's: as given when White is to move, mirrored top to bottom
//! (rank r becomes rank 9 − r, files unchanged) when Black is, so that the mover always plays
//! up the board and one weight serves both colours (`board_e2` holds Black's piece on e7
//! when Black is to move). Castling is the king's move (`e1g1`), en passant the capturing
//! pawn's, a promotion its pawn's (the columns cannot tell a queen promotion from an
//! under-promotion). Square index `8 · rank + file`, a1 = 0, h8 = 63.
//!
//! The board columns are the same for every move of a position: they move the probability
//! of all its moves together and cannot prefer one move to another. Which move a model
//! ranks first depends on the from- and to-square weights alone.

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Move, Position, Role, Square};

/// Number of columns.
pub const COLUMNS: usize = 192;

/// Name of this encoding, written into model files and checked when they are read.
pub const NAME: &str = "side-to-move-v1";

/// One line describing the encoding, written into model files for their readers.
pub const DESCRIPTION: &str = "192 columns: board (64, a1..h8: +1 P, +2 N, +3 B, +4 R, +5 Q, \
    +6 K for the side to move, negative for the opponent, 0 empty), from-square one-hot (64), \
    to-square one-hot (64); squares mirrored top to bottom when Black is to move; castling \
    as the king's move";

/// The board codes of a position, indexed by the side to move's square.
pub type Board = [i8; 64];

/// The square index (0..64) of `sq` as the side `mover` sees it.
pub fn orient(sq: Square, mover: Color) -> usize {
    match mover {
        Color::White => usize::from(sq),
        Color::Black => usize::from(sq.flip_vertical()),
    }
}

/// The piece code of `role`: pawn 1 up to king 6.
pub fn role_code(role: Role) -> i8 {
    match role {
        Role::Pawn => 1,
        Role::Knight => 2,
        Role::Bishop => 3,
        Role::Rook => 4,
        Role::Queen => 5,
        Role::King => 6,
    }
}

/// The board columns of `pos`.
pub fn board(pos: &Chess) -> Board {
    let mover = pos.turn();
    let mut codes = [0i8; 64];
    for (sq, piece) in pos.board().clone() {
        let code = role_code(piece.role);
        codes[orient(sq, mover)] = if piece.color == mover { code } else { -code };
    }
    codes
}

/// The from and to square indices (0..64) of `m` as `mover` sees them; castling as the
/// king's two-square move.
pub fn move_squares(m: &Move, mover: Color) -> (usize, usize) {
    match m.to_uci(CastlingMode::Standard) {
        UciMove::Normal { from, to, .. } => (orient(from, mover), orient(to, mover)),
        // Drops and null moves do not occur in standard chess.
        UciMove::Put { to, .. } => (orient(to, mover), orient(to, mover)),
        UciMove::Null => (0, 0),
    }
}

/// Writes the 192 columns of a move from `from` to `to` on `board` into `row`.
pub fn write_row(board: &Board, from: usize, to: usize, row: &mut [f64]) {
    assert_eq!(row.len(), COLUMNS);
    for (r, &c) in row[..64].iter_mut().zip(board) {
        *r = f64::from(c);
    }
    row[64..].fill(0.0);
    row[64 + from] = 1.0;
    row[128 + to] = 1.0;
}

/// The 192 columns of playing `m` in `pos`.
pub fn columns(pos: &Chess, m: &Move) -> [f64; COLUMNS] {
    let (from, to) = move_squares(m, pos.turn());
    let mut row = [0.0; COLUMNS];
    write_row(&board(pos), from, to, &mut row);
    row
}

/// The column names in order: `board_a1` .. `board_h8`, `from_a1` .., `to_a1` ...
pub fn names() -> Vec<String> {
    ["board", "from", "to"]
        .iter()
        .flat_map(|group| (0..64u32).map(move |i| format!("{group}_{}", Square::new(i))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_core::chess::fen::{Leniency, parse};

    fn pos(fen: &str) -> Chess {
        parse(fen, Leniency::Strict).unwrap()
    }

    fn find(pos: &Chess, uci: &str) -> Move {
        let u: UciMove = uci.parse().unwrap();
        u.to_move(pos).unwrap()
    }

    /// Nonzero columns of a row, as (name, value).
    fn nonzero(row: &[f64]) -> Vec<(String, f64)> {
        let names = names();
        row.iter()
            .enumerate()
            .filter(|&(_, &v)| v != 0.0)
            .map(|(i, &v)| (names[i].clone(), v))
            .collect()
    }

    #[test]
    fn names_follow_the_columns() {
        let n = names();
        assert_eq!(n.len(), COLUMNS);
        assert_eq!(
            [&n[0], &n[7], &n[8], &n[63], &n[64], &n[128], &n[191]],
            [
                "board_a1", "board_h1", "board_a2", "board_h8", "from_a1", "to_a1", "to_h8"
            ]
        );
    }

    #[test]
    fn white_to_move_keeps_the_squares() {
        // White: K e1, R h1, P e4; Black: K e8, N c6. White castles short.
        let p = pos("4k3/8/2n5/8/4P3/8/8/4K2R w K - 0 1");
        let row = columns(&p, &find(&p, "e1g1"));
        let want = [
            ("board_e1", 6.0),
            ("board_h1", 4.0),
            ("board_e4", 1.0),
            ("board_c6", -2.0),
            ("board_e8", -6.0),
            ("from_e1", 1.0),
            ("to_g1", 1.0),
        ];
        let want: Vec<(String, f64)> = want.iter().map(|(n, v)| (n.to_string(), *v)).collect();
        assert_eq!(nonzero(&row), want);
    }

    #[test]
    fn black_to_move_is_mirrored() {
        // The same position with colours swapped and mirrored, Black to move, gives the
        // same columns: Black's e8 king is the mover's e1, its castling e8g8 is e1g1.
        let p = pos("4k2r/8/8/4p3/8/2N5/8/4K3 b k - 0 1");
        let white = pos("4k3/8/2n5/8/4P3/8/8/4K2R w K - 0 1");
        assert_eq!(
            columns(&p, &find(&p, "e8g8")),
            columns(&white, &find(&white, "e1g1"))
        );
        // A black pawn push e5e4 is the mover's e4e5.
        let row = columns(&p, &find(&p, "e5e4"));
        assert_eq!(row[64 + 28], 1.0, "from e4 (index 28)");
        assert_eq!(row[128 + 36], 1.0, "to e5 (index 36)");
        assert_eq!(row[..64].iter().filter(|&&v| v != 0.0).count(), 5);
    }

    #[test]
    fn en_passant_and_promotions() {
        let p = pos("4k3/1P6/8/3pP3/8/8/8/4K3 w - d6 0 1");
        let ep = columns(&p, &find(&p, "e5d6"));
        assert_eq!((ep[64 + 36], ep[128 + 43]), (1.0, 1.0));
        // Queen and knight promotions have the same columns.
        assert_eq!(
            columns(&p, &find(&p, "b7b8q")),
            columns(&p, &find(&p, "b7b8n"))
        );
    }
}
