//! Static exchange evaluation (swap algorithm with x-rays).

use shakmaty::{Bitboard, Board, Chess, Color, Move, Position, Role, Square};

use chessgraph_core::chess::values::piece_value;

/// Least valuable piece of `color` among `attackers`.
#[inline]
fn least_valuable(board: &Board, attackers: Bitboard, color: Color) -> Option<(Square, Role)> {
    let mine = attackers & board.by_color(color);
    if mine.is_empty() {
        return None;
    }
    // `Role::ALL` runs from the pawn up: least valuable first.
    Role::ALL
        .into_iter()
        .find_map(|role| (mine & board.by_role(role)).first().map(|sq| (sq, role)))
}

/// Material balance (centipawns, for the side making `m`) of the capture sequence on the
/// target square when both sides always recapture with their least valuable piece and
/// may stop at any time. Quiet moves get the value of losing the moved piece, if any.
pub fn see(pos: &Chess, m: Move) -> i32 {
    let board = pos.board();
    let us = pos.turn();
    let (from, to, mut captured_value, mut occ, mover) = match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            let mut gain = capture.map_or(0, piece_value);
            let mut mover = role;
            if let Some(p) = promotion {
                gain += piece_value(p) - piece_value(Role::Pawn);
                mover = p;
            }
            (from, to, gain, board.occupied(), mover)
        }
        Move::EnPassant { from, to } => {
            let captured = Square::from_coords(to.file(), from.rank());
            (
                from,
                to,
                piece_value(Role::Pawn),
                board.occupied() ^ captured,
                Role::Pawn,
            )
        }
        Move::Castle { .. } | Move::Put { .. } => return 0,
    };
    let mut gain = [0i32; 34];
    gain[0] = captured_value;
    captured_value = piece_value(mover);
    occ ^= from;
    occ |= to;
    let mut side = !us;
    let mut d = 0;
    loop {
        d += 1;
        gain[d] = captured_value - gain[d - 1];
        if d >= 32 {
            break;
        }
        let attackers = (board.attacks_to(to, Color::White, occ)
            | board.attacks_to(to, Color::Black, occ))
            & occ
            & !Bitboard::from_square(to);
        let Some((sq, role)) = least_valuable(board, attackers, side) else {
            break;
        };
        if role == Role::King
            && (attackers & board.by_color(!side) & !Bitboard::from_square(sq)).any()
        {
            // The king cannot recapture into an attacked square.
            break;
        }
        occ ^= sq;
        captured_value = piece_value(role);
        side = !side;
    }
    while d > 1 {
        d -= 1;
        gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
    }
    gain[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn see_of(fen: &str, uci: &str) -> i32 {
        let pos: Chess =
            chessgraph_core::chess::fen::parse(fen, chessgraph_core::chess::fen::Leniency::Strict)
                .unwrap();
        let m = chessgraph_core::chess::moves::parse_uci(&pos, uci).unwrap();
        see(&pos, m)
    }

    #[test]
    fn classic_cases() {
        // Undefended pawn.
        assert_eq!(
            see_of("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5"),
            100
        );
        // Knight takes a pawn and is lost in the exchange (chessprogramming.org example).
        assert_eq!(
            see_of(
                "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1",
                "d3e5"
            ),
            100 - 320
        );
        // Queen takes a defended pawn.
        assert_eq!(
            see_of("4k3/8/3p4/4p3/8/8/8/4QK2 w - - 0 1", "e1e5"),
            100 - 900
        );
        // X-ray: two rooks vs rook defended once; RxR, RxR, RxR wins a rook.
        assert_eq!(see_of("3r2k1/3r4/8/8/8/8/3R4/3R2K1 w - - 0 1", "d2d7"), 500);
        // Quiet move to an attacked square loses the piece.
        assert_eq!(see_of("4k3/8/8/3p4/8/8/8/2B1K3 w - - 0 1", "c1e3"), 0);
        assert_eq!(see_of("4k3/8/8/3p4/8/8/8/2B1K3 w - - 0 1", "c1f4"), 0);
        assert_eq!(see_of("4k3/8/4p3/3p4/8/8/8/2B1K3 w - - 0 1", "c1f4"), 0);
        assert_eq!(see_of("4k3/8/5p2/8/8/8/8/2B1K3 w - - 0 1", "c1g5"), -330);
        // The king may not recapture a defended piece.
        assert_eq!(see_of("4k3/8/8/8/8/8/3r4/3RK3 b - - 0 1", "d2d1"), 0);
        assert_eq!(see_of("3rk3/8/8/8/8/8/3r4/3RK3 b - - 0 1", "d2d1"), 500);
        assert_eq!(
            see_of("4k3/8/8/8/8/8/3r4/R2QK3 b - - 0 1", "d2d1"),
            900 - 500
        );
        // En passant.
        assert_eq!(see_of("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"), 100);
        // Promotion with capture: queen gained minus pawn, plus rook captured, defended by
        // nothing.
        assert_eq!(
            see_of("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8q"),
            500 + 800
        );
    }
}
