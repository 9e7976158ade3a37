//! Piece values (centipawns) and the MVV-LVA capture order built on them: one table for
//! the search's SEE, move ordering and delta pruning, the players' ordering and the
//! `simplified` evaluator's material (Michniewski's simplified evaluation function).

use shakmaty::{Move, Role};

/// Evaluations are clamped to ±`EVAL_LIMIT` centipawns (far below mate scores), and no
/// centipawn label beyond it is accepted: engines stay below it short of mate.
pub const EVAL_LIMIT: i32 = 20_000;

/// The value of a piece in centipawns: P 100, N 320, B 330, R 500, Q 900; the king is
/// "infinite" (20 000), so that no exchange ever trades it.
#[inline]
pub const fn piece_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 20_000,
    }
}

/// The value of the piece `m` captures (a pawn for en passant), 0 for a non-capture.
#[inline]
pub fn captured_value(m: Move) -> i32 {
    match m {
        Move::EnPassant { .. } => piece_value(Role::Pawn),
        _ => m.capture().map_or(0, piece_value),
    }
}

/// Most valuable victim, least valuable attacker: the victim and any promotion first,
/// then the cheaper mover. Meant for captures and promotions; a quiet move scores below
/// 0 (minus a tenth of its mover's value).
#[inline]
pub fn mvv_lva(m: Move) -> i32 {
    let promotion = m.promotion().map_or(0, piece_value);
    16 * (captured_value(m) + promotion) - piece_value(m.role()) / 10
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Chess;

    #[test]
    fn victims_first_then_cheaper_attackers() {
        let pos: Chess = crate::chess::fen::parse(
            "4k3/8/8/2r1q3/3P4/8/2Q5/7K w - - 0 1",
            crate::chess::fen::Leniency::Strict,
        )
        .unwrap();
        let score = |uci: &str| {
            let m = uci
                .parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&pos)
                .unwrap();
            mvv_lva(m)
        };
        // PxQ > QxR (the queen) and PxR; PxQ = 16·900 − 10.
        assert_eq!(score("d4e5"), 16 * 900 - 10);
        assert!(score("d4e5") > score("d4c5"));
        assert!(score("d4c5") > score("c2c5"));
        assert!(score("c2c3") < 0, "a quiet move");
        assert_eq!(piece_value(Role::Knight), 320);
    }
}
