//! Moves as UCI text (`g1f3`, `e7e8q`, castling as the king's move `e1g1`): the one
//! spelling the engine protocol, the stores and the browser page use; and which moves
//! count as quiet.

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move};

/// The UCI text of a move (standard castling: the king's two-square move).
pub fn uci(m: &Move) -> String {
    UciMove::from_move(*m, CastlingMode::Standard).to_string()
}

/// The move `text` names in UCI notation, if it is one and legal in `pos`.
pub fn parse_uci(pos: &Chess, text: &str) -> Option<Move> {
    UciMove::from_ascii(text.as_bytes()).ok()?.to_move(pos).ok()
}

/// A quiet move: neither a capture nor a promotion (the moves history orders and late-move
/// and futility pruning skip; the others are tactical).
#[inline]
pub fn is_quiet(m: Move) -> bool {
    !m.is_capture() && !m.is_promotion()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::{Leniency, parse};

    #[test]
    fn round_trips_castling_promotion_and_refuses_illegal() {
        let pos = parse("r3k3/1P6/8/8/8/8/8/R3K2R w KQq - 0 1", Leniency::Strict).unwrap();
        for text in ["e1g1", "e1c1", "b7a8q", "b7b8n", "a1a7"] {
            let m = parse_uci(&pos, text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(uci(&m), text);
        }
        assert!(parse_uci(&pos, "e1h1").is_some_and(|m| uci(&m) == "e1g1"));
        for bad in ["e2e4", "b7b8", "xyz", "", "e1g1q"] {
            assert_eq!(parse_uci(&pos, bad), None, "{bad}");
        }
    }

    #[test]
    fn quiet_means_neither_capture_nor_promotion() {
        let pos =
            crate::chess::fen::parse_position("r3k3/1P6/8/3p4/4P3/8/8/4K2R w K - 0 1").unwrap();
        let quiet = |t: &str| is_quiet(parse_uci(&pos, t).unwrap());
        assert!(quiet("e4e5"));
        assert!(quiet("e1g1"));
        assert!(!quiet("e4d5"));
        assert!(!quiet("b7b8q"));
        assert!(!quiet("b7a8n"));
    }
}
