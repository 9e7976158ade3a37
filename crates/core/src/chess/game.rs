//! How a game ends by the rules: checkmate, stalemate, insufficient material, the
//! fifty-move rule, threefold repetition; and, for search trees, when a line counts as
//! drawn ([`drawn_in_tree`]). One function, [`outcome`], for every place that
//! plays games (the browser page, matches, self-play); adjudication (a ply limit, a score
//! held for some moves) is not a rule and stays with the caller.
//!
//! The order follows the FIDE Laws: a checkmate ends the game even when the move also
//! completed fifty moves or a repetition (9.3, 9.6); stalemate and a dead position end
//! it at once (5.2); then the fifty-move rule, then the repetition — both drawn here
//! without a claim, as engine matches do.

use shakmaty::{Chess, Color, Position};

use crate::chess::hash;

/// Why a game ended by the rules.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// The side to move is mated.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can mate.
    InsufficientMaterial,
    /// Fifty moves of each side (100 halfmoves) without a capture or a pawn move.
    FiftyMoves,
    /// The same position (same side to move, castling rights, en passant) a third time.
    Repetition,
}

impl Termination {
    /// The words for it, as in a PGN `Termination` tag: `checkmate`, `stalemate`,
    /// `insufficient material`, `fifty-move rule`, `threefold repetition`.
    pub fn words(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::InsufficientMaterial => "insufficient material",
            Termination::FiftyMoves => "fifty-move rule",
            Termination::Repetition => "threefold repetition",
        }
    }
}

/// A finished game: who won (`None`: a draw) and why.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GameEnd {
    /// The winner, or `None` for a draw.
    pub winner: Option<Color>,
    /// Why the game ended.
    pub termination: Termination,
}

impl GameEnd {
    /// The result as PGN writes it: `1-0`, `0-1` or `1/2-1/2`.
    pub fn result(self) -> &'static str {
        match self.winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }

    /// White's score: 1, 0.5 or 0.
    pub fn white_score(self) -> f64 {
        match self.winner {
            Some(Color::White) => 1.0,
            Some(Color::Black) => 0.0,
            None => 0.5,
        }
    }
}

/// How the game ended in `pos`, if it did. `history` holds the keys ([`hash::key`]) of
/// the game's earlier positions, oldest first, without `pos` itself.
pub fn outcome(pos: &Chess, history: &[u64]) -> Option<GameEnd> {
    let draw = |termination| {
        Some(GameEnd {
            winner: None,
            termination,
        })
    };
    if pos.is_checkmate() {
        return Some(GameEnd {
            winner: Some(!pos.turn()),
            termination: Termination::Checkmate,
        });
    }
    if pos.is_stalemate() {
        return draw(Termination::Stalemate);
    }
    if pos.is_insufficient_material() {
        return draw(Termination::InsufficientMaterial);
    }
    if pos.halfmoves() >= 100 {
        return draw(Termination::FiftyMoves);
    }
    let key = hash::key(pos);
    if history.iter().filter(|&&k| k == key).count() >= 2 {
        return draw(Termination::Repetition);
    }
    None
}

/// Inside a search tree (the engine's and the players'): drawn by the fifty-move rule or
/// by insufficient material. A checkmate takes precedence over the fifty-move rule, so
/// callers look for mate first.
pub fn drawn_without_history(pos: &Chess) -> bool {
    pos.halfmoves() >= 100 || pos.is_insufficient_material()
}

/// Inside a search tree: whether the position with key `key` and halfmove clock
/// `halfmoves` repeats one of `keys`, the keys of the positions before it (oldest first;
/// the last is its parent). Only positions with the same side to move since the last
/// irreversible move count, and one repetition is enough: the side that allowed it can
/// repeat again, so a line that repeats is worth a draw.
pub fn repeats(keys: &[u64], key: u64, halfmoves: u32) -> bool {
    let n = keys.len();
    let window = (halfmoves as usize).min(n);
    (2..=window).step_by(2).any(|i| keys[n - i] == key)
}

/// Inside a search tree: drawn by the fifty-move rule, insufficient material or a
/// repetition ([`drawn_without_history`], [`repeats`]). Look for mate first.
pub fn drawn_in_tree(pos: &Chess, keys: &[u64], key: u64) -> bool {
    pos.halfmoves() >= 100 || repeats(keys, key, pos.halfmoves()) || pos.is_insufficient_material()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::{Leniency, parse};

    #[test]
    fn repetition_window_and_parity() {
        // Positions ... A B A' B' with A' = A: the current position (key A) repeats A
        // two plies back, not the parent (odd distance) and not beyond the window.
        let keys = [7, 1, 2, 3, 4];
        assert!(repeats(&keys, 3, 10));
        assert!(
            !repeats(&keys, 4, 10),
            "the parent has the other side to move"
        );
        assert!(repeats(&keys, 1, 10));
        assert!(!repeats(&keys, 1, 3), "beyond the last irreversible move");
        assert!(!repeats(&keys, 7, 10), "odd distance");
        assert!(!repeats(&[], 7, 10));
    }

    fn pos(fen: &str) -> Chess {
        parse(fen, Leniency::Strict).unwrap()
    }

    fn end(fen: &str) -> Option<(Option<Color>, Termination)> {
        outcome(&pos(fen), &[]).map(|e| (e.winner, e.termination))
    }

    #[test]
    fn rules_and_their_order() {
        use Termination::*;
        // Fool's mate: Black wins.
        let mate = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
        assert_eq!(end(mate), Some((Some(Color::Black), Checkmate)));
        let e = outcome(&pos(mate), &[]).unwrap();
        assert_eq!((e.result(), e.white_score()), ("0-1", 0.0));
        // A mate on the hundredth halfmove is a mate, not a draw.
        assert_eq!(
            end("7k/6Q1/6K1/8/8/8/8/8 b - - 100 80"),
            Some((Some(Color::White), Checkmate))
        );
        assert_eq!(
            end("7k/5Q2/6K1/8/8/8/8/8 b - - 100 80").unwrap().1,
            Stalemate
        );
        assert_eq!(
            end("8/8/4k3/8/8/3NK3/8/8 w - - 0 1").unwrap().1,
            InsufficientMaterial
        );
        assert_eq!(end("8/8/4k3/8/8/3RK3/8/8 w - - 99 80"), None);
        let fifty = outcome(&pos("8/8/4k3/8/8/3RK3/8/8 w - - 100 80"), &[]).unwrap();
        assert_eq!((fifty.termination, fifty.result()), (FiftyMoves, "1/2-1/2"));
        assert_eq!(fifty.termination.words(), "fifty-move rule");
        assert_eq!(Repetition.words(), "threefold repetition");
    }

    #[test]
    fn threefold_not_twofold() {
        let mut p = Chess::default();
        let mut history = Vec::new();
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        let mut ends = Vec::new();
        for uci in shuffle.iter().cycle().take(8) {
            history.push(hash::key(&p));
            let m = crate::chess::moves::parse_uci(&p, uci).unwrap();
            p.play_unchecked(m);
            ends.push(outcome(&p, &history).map(|e| e.termination));
        }
        // The start position comes back after 4 plies (twice) and after 8 (three times).
        assert_eq!(ends[3], None);
        assert_eq!(ends[7], Some(Termination::Repetition));
        assert!(ends[..7].iter().all(Option::is_none));
    }
}
