//! What is wrong with the text of a FEN, said field by field in a player's words (shakmaty
//! only says which part it stopped at, and calls a ninth rank a "pocket").

use crate::error::cut;

/// Longest quote of a field in a message (a board's rank is at most 8 characters; a
/// longer field is no FEN field at all).
const QUOTE: usize = 12;

/// The first thing wrong with a FEN's text, for standard chess.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenProblem {
    /// Nothing but white space.
    #[error("the FEN is empty")]
    Empty,
    /// More fields than board, side, castling, en passant and the two counters.
    #[error(
        "{0} fields, a FEN has at most 6 (board, side to move, castling, en passant, halfmove clock, move number)"
    )]
    TooManyFields(usize),
    /// The board does not have 8 ranks separated by `/`.
    #[error("the board has {0} rank{s}, not 8", s = if *.0 == 1 { "" } else { "s" })]
    Ranks(usize),
    /// A rank that does not cover 8 squares.
    #[error("rank {rank} {text:?} has {files} squares, not 8")]
    Files {
        /// The rank's number (8 is the first in the FEN).
        rank: usize,
        /// The rank's text.
        text: String,
        /// How many squares it covers.
        files: usize,
    },
    /// A character that is neither a piece letter nor a count of empty squares.
    #[error(
        "rank {rank} {text:?}: {ch:?} is not a piece letter (K Q R B N P for White, k q r b n p for Black) nor a count of empty squares (1 to 8)"
    )]
    Letter {
        /// The rank's number.
        rank: usize,
        /// The rank's text.
        text: String,
        /// The character.
        ch: char,
    },
    /// The side to move is not `w` or `b`.
    #[error("side to move {0:?}: expected w or b")]
    Turn(String),
    /// Castling rights that are not `-`, `KQkq` letters or file letters.
    #[error("castling rights {0:?}: expected - or letters from KQkq")]
    Castling(String),
    /// An en passant field that is not `-` or a square.
    #[error("en passant square {0:?}: expected - or a square such as e3")]
    EnPassant(String),
    /// A halfmove clock that is not a whole number.
    #[error("halfmove clock {0:?}: expected a whole number")]
    Halfmoves(String),
    /// A move number that is not a whole number.
    #[error("move number {0:?}: expected a whole number")]
    Fullmoves(String),
}

/// The first problem of `fen`'s text (fields split at spaces or `_`, as shakmaty does), or
/// `None` when every field is well formed. It checks form only: whether the position is
/// legal is the parser's question.
pub fn diagnose(fen: &str) -> Option<FenProblem> {
    let fields: Vec<&str> = fen
        .split([' ', '_'])
        .filter(|f| !f.trim().is_empty())
        .map(str::trim)
        .collect();
    let Some(board) = fields.first() else {
        return Some(FenProblem::Empty);
    };
    if fields.len() > 6 {
        return Some(FenProblem::TooManyFields(fields.len()));
    }
    if let Some(problem) = board_problem(board) {
        return Some(problem);
    }
    let field = |i: usize| fields.get(i).copied();
    if let Some(turn) = field(1).filter(|t| !matches!(*t, "w" | "b")) {
        return Some(FenProblem::Turn(cut(turn, QUOTE)));
    }
    if let Some(castling) = field(2).filter(|c| !castling_ok(c)) {
        return Some(FenProblem::Castling(cut(castling, QUOTE)));
    }
    if let Some(ep) = field(3).filter(|e| *e != "-" && !is_square(e)) {
        return Some(FenProblem::EnPassant(cut(ep, QUOTE)));
    }
    let whole = |s: &&str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some(n) = field(4).filter(|n| !whole(n)) {
        return Some(FenProblem::Halfmoves(cut(n, QUOTE)));
    }
    if let Some(n) = field(5).filter(|n| !whole(n)) {
        return Some(FenProblem::Fullmoves(cut(n, QUOTE)));
    }
    None
}

/// The first problem of the board field: rank count, then each rank's letters and width.
fn board_problem(board: &str) -> Option<FenProblem> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Some(FenProblem::Ranks(ranks.len()));
    }
    for (i, text) in ranks.iter().enumerate() {
        let rank = 8 - i;
        let mut files = 0;
        for ch in text.chars() {
            match ch {
                '1'..='8' => files += ch as usize - '0' as usize,
                'K' | 'Q' | 'R' | 'B' | 'N' | 'P' | 'k' | 'q' | 'r' | 'b' | 'n' | 'p' => files += 1,
                _ => {
                    return Some(FenProblem::Letter {
                        rank,
                        text: cut(text, QUOTE),
                        ch,
                    });
                }
            }
        }
        if files != 8 {
            return Some(FenProblem::Files {
                rank,
                text: cut(text, QUOTE),
                files,
            });
        }
    }
    None
}

/// `-`, or KQkq letters and (Shredder-FEN) file letters, each at most once.
fn castling_ok(text: &str) -> bool {
    if text == "-" {
        return true;
    }
    let known = |c: char| "KQkq".contains(c) || matches!(c.to_ascii_lowercase(), 'a'..='h');
    text.chars().all(known)
        && text
            .chars()
            .enumerate()
            .all(|(i, c)| !text[i + 1..].contains(c))
}

/// A square's name, `a1` to `h8`.
fn is_square(text: &str) -> bool {
    matches!(text.as_bytes(), [b'a'..=b'h', b'1'..=b'8'])
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    fn says(fen: &str) -> String {
        diagnose(fen).map(|p| p.to_string()).unwrap_or_default()
    }

    #[test]
    fn well_formed_fens_pass() {
        assert_eq!(diagnose(START), None);
        assert_eq!(diagnose("4k3/8/8/8/8/8/8/4K3 b - e3"), None);
        assert_eq!(diagnose("4k3/8/8/8/8/8/8/4K3"), None);
        assert_eq!(diagnose("r3k2r/8/8/8/8/8/8/R3K2R w HAha - 3 20"), None);
    }

    #[test]
    fn each_field_says_what_is_wrong() {
        assert_eq!(says("  "), "the FEN is empty");
        assert_eq!(
            says("8/8/8/8/8/8/8/8/8 w - - 0 1"),
            "the board has 9 ranks, not 8"
        );
        assert_eq!(
            says("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            "the board has 7 ranks, not 8"
        );
        assert_eq!(
            says("rnbqkbnr/pppppppp/8/8/44/8/PPPPPPPP/RNBQKBNR1 w KQkq - 0 1"),
            "rank 1 \"RNBQKBNR1\" has 9 squares, not 8"
        );
        assert_eq!(
            says("rnbqkbnr/pppppppp/8/8/3p3/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            "rank 4 \"3p3\" has 7 squares, not 8"
        );
        assert!(
            says("rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
                .starts_with("rank 7 \"ppppxppp\": 'x' is not a piece letter"),
        );
        assert!(
            says("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
                .starts_with("rank 6 \"9\": '9' is not a piece letter"),
        );
        assert_eq!(
            says("4k3/8/8/8/8/8/8/4K3 x - - 0 1"),
            "side to move \"x\": expected w or b"
        );
        assert_eq!(
            says("4k3/8/8/8/8/8/8/4K3 w KQxk - 0 1"),
            "castling rights \"KQxk\": expected - or letters from KQkq"
        );
        assert_eq!(
            says("4k3/8/8/8/8/8/8/4K3 w KK - 0 1"),
            "castling rights \"KK\": expected - or letters from KQkq"
        );
        assert_eq!(
            says("4k3/8/8/8/8/8/8/4K3 w - e9 0 1"),
            "en passant square \"e9\": expected - or a square such as e3"
        );
        assert_eq!(
            says("4k3/8/8/8/8/8/8/4K3 w - - x 1"),
            "halfmove clock \"x\": expected a whole number"
        );
        assert_eq!(
            says("4k3/8/8/8/8/8/8/4K3 w - - 0 -1"),
            "move number \"-1\": expected a whole number"
        );
        assert!(says("4k3/8/8/8/8/8/8/4K3 w - - 0 1 +0+0").starts_with("7 fields"));
        // A long field is quoted cut.
        assert_eq!(says(&"x".repeat(1000)), "the board has 1 rank, not 8");
        assert_eq!(
            says(&format!("{}/8/8/8/8/8/8/8", "p".repeat(1000))),
            "rank 8 \"pppppppppppp…\" has 1000 squares, not 8"
        );
    }
}
