//! Whether a move gives check, told without playing it: the search prunes a quiet move
//! before making it unless it checks, and the mate search orders checks first.

use shakmaty::{Bitboard, Board, Chess, Color, Move, Position, Square, attacks};

/// What it takes to tell whether a move of the side to move gives check, without
/// playing it: the enemy king, our pieces whose moving off a line discovers a check.
pub struct CheckInfo {
    us: Color,
    king: Option<Square>,
    occupied: Bitboard,
    discoverers: Bitboard,
}

impl CheckInfo {
    /// The check facts of `pos` for its side to move.
    pub fn new(pos: &Chess) -> CheckInfo {
        let board = pos.board();
        let us = pos.turn();
        let ours = board.by_color(us);
        let occupied = board.occupied();
        let king = board.king_of(!us);
        let discoverers = king.map_or(Bitboard::EMPTY, |ksq| blockers(board, ksq, us) & ours);
        CheckInfo {
            us,
            king,
            occupied,
            discoverers,
        }
    }

    /// Whether the legal move `m` gives check.
    pub fn gives_check(&self, pos: &Chess, m: Move) -> bool {
        let Some(ksq) = self.king else {
            return false;
        };
        match m {
            Move::Normal {
                role,
                from,
                to,
                promotion,
                ..
            } => {
                if self.discoverers.contains(from) && !attacks::aligned(from, to, ksq) {
                    return true;
                }
                let occupied = self.occupied.without(from).with(to);
                attacks::attacks(to, promotion.unwrap_or(role).of(self.us), occupied).contains(ksq)
            }
            // Rare: en passant (two pieces leave) and castling (the rook checks).
            _ => {
                let mut child = pos.clone();
                child.play_unchecked(m);
                child.is_check()
            }
        }
    }
}

/// The pieces (of either colour) that stand alone between `king` and a slider of
/// `snipers`' colour aiming at it: pinned pieces when the king is the mover's, pieces
/// whose moving off the line discovers check when it is the opponent's.
pub fn blockers(board: &Board, king: Square, snipers: Color) -> Bitboard {
    let aiming = ((attacks::rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens())
        | (attacks::bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens()))
        & board.by_color(snipers);
    let mut found = Bitboard::EMPTY;
    for sniper in aiming {
        let between = attacks::between(king, sniper) & board.occupied();
        if !between.more_than_one() {
            found |= between;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_position;

    #[test]
    fn gives_check_matches_playing_the_move() {
        let fens = [
            "3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - 0 1",
            "r3k2r/pPp2ppp/8/3Pp3/8/8/PPP2PPP/R3K2R w KQkq e6 0 1",
            "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
            "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
            "4k3/1P6/8/3pP3/8/8/8/4K2B w - d6 0 1",
            "1k6/8/8/8/1N6/8/8/1Q2K2R w K - 0 1",
            "1k6/8/8/8/8/8/8/RN2K3 w - - 0 1",
            "2r1k3/8/8/8/2N5/8/2B5/2K5 w - - 0 1",
            "8/8/8/K1pP3k/8/8/8/8 w - c6 0 1",
        ];
        for fen in fens {
            let p = parse_position(fen).unwrap();
            for q in [p.clone(), p.clone().swap_turn().unwrap_or(p.clone())] {
                let info = CheckInfo::new(&q);
                for m in q.legal_moves() {
                    let mut c = q.clone();
                    c.play_unchecked(m);
                    assert_eq!(info.gives_check(&q, m), c.is_check(), "{fen}: {m}");
                }
            }
        }
    }
}
