//! The one FEN entry point: every FEN the tool reads (CSV rows, PGN `FEN` tags, EPD lines,
//! puzzles, the UCI `position fen` command, test fixtures) goes through [`parse`], with the
//! leniency spelled out by the caller.
//!
//! shakmaty parses the text; what differs between callers is only which *repairable* slips
//! they forgive. Hand-written FENs often keep castling rights for a rook that has moved,
//! or name an en passant square that no pawn could have made: python-chess and GUIs drop
//! those, and so do we where the caller says so. Anything else illegal (a side not to move
//! in check, two kings, a pawn on the first rank) is always refused.

mod diagnose;

use std::fmt;

pub use diagnose::{FenProblem, diagnose};
use shakmaty::fen::{Epd, Fen};
use shakmaty::{CastlingMode, Chess, EnPassantMode, PositionError};

/// Which repairable slips a caller forgives.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Leniency {
    /// Refuse any position shakmaty does not accept as it stands.
    Strict,
    /// Drop castling rights the board cannot have (no king or rook on its square), as
    /// python-chess does. Used for data: a label stays attached to the intended position.
    DropCastling,
    /// Also drop an impossible en passant square. Used where a GUI sends the FEN (UCI
    /// `position fen`): refusing it would leave the engine without a position.
    DropCastlingAndEp,
}

/// Why a FEN was refused: the text could not be parsed, or it names an illegal position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FenError {
    /// The text is not a FEN of standard chess: what [`diagnose`] finds wrong (nine ranks,
    /// a rank of nine squares, an unknown piece letter, ...).
    Syntax(String),
    /// The FEN parses but the position is illegal.
    Illegal(String),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Syntax(e) => write!(f, "invalid FEN: {e}"),
            FenError::Illegal(e) => write!(f, "illegal position: {e}"),
        }
    }
}

impl std::error::Error for FenError {}

/// Parses a FEN (4 to 6 fields, surrounding white space ignored) into a legal position,
/// forgiving what `leniency` allows.
pub fn parse(fen: &str, leniency: Leniency) -> Result<Chess, FenError> {
    let fen = fen.trim();
    // shakmaty also reads variants' FENs (a pocket as a ninth rank or in brackets, `~`
    // promoted pieces, remaining checks), which standard chess would silently ignore: those
    // and every text it refuses are diagnosed here, in a player's words.
    let syntax =
        |fallback: String| FenError::Syntax(diagnose(fen).map_or(fallback, |p| p.to_string()));
    let parsed = Fen::from_ascii(fen.as_bytes()).map_err(|e| syntax(e.to_string()))?;
    let setup = parsed.as_setup();
    if setup.pockets.is_some() || setup.remaining_checks.is_some() || setup.promoted.any() {
        return Err(syntax("not a FEN of standard chess".to_owned()));
    }
    let result = parsed.into_position::<Chess>(CastlingMode::Standard);
    let result = match leniency {
        Leniency::Strict => result,
        Leniency::DropCastling => result.or_else(PositionError::ignore_invalid_castling_rights),
        Leniency::DropCastlingAndEp => match result {
            Ok(pos) => Ok(pos),
            Err(e) => e
                .ignore_invalid_castling_rights()
                .or_else(PositionError::ignore_invalid_ep_square),
        },
    };
    // shakmaty's message starts with "illegal position: " too: say it once.
    result.map_err(|e| {
        let text = e.to_string();
        FenError::Illegal(
            text.strip_prefix("illegal position: ")
                .unwrap_or(&text)
                .to_owned(),
        )
    })
}

/// Parses a data FEN: [`parse`] with [`Leniency::DropCastling`].
pub fn parse_position(fen: &str) -> Result<Chess, FenError> {
    parse(fen, Leniency::DropCastling)
}

/// The full FEN of a position (six fields, en passant square only when a legal capture
/// exists).
pub fn to_fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// The normalized key of a position: board, side, castling, and the en passant square
/// only when a legal en passant capture exists.
pub fn normalized_fen(pos: &Chess) -> String {
    Epd::from_position(pos, EnPassantMode::Legal).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leniency_levels() {
        // Castling rights without a rook: refused strictly, dropped leniently.
        let fen = "4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1";
        assert!(matches!(
            parse(fen, Leniency::Strict),
            Err(FenError::Illegal(_))
        ));
        let pos = parse(fen, Leniency::DropCastling).unwrap();
        assert_eq!(normalized_fen(&pos), "4k3/8/8/8/8/8/8/4K3 w - -");

        // An en passant square no double push could have made: only the UCI level forgives.
        let fen = "4k3/8/8/8/8/8/8/4K3 w - e6 0 1";
        assert!(parse(fen, Leniency::DropCastling).is_err());
        let pos = parse(fen, Leniency::DropCastlingAndEp).unwrap();
        assert_eq!(to_fen(&pos), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    }

    #[test]
    fn errors_say_which_kind() {
        assert!(matches!(
            parse("not a fen", Leniency::DropCastlingAndEp),
            Err(FenError::Syntax(_))
        ));
        // Side not to move in check is never forgiven.
        assert!(matches!(
            parse(
                "4k3/8/8/8/8/8/4R3/4K3 w - - 0 1",
                Leniency::DropCastlingAndEp
            ),
            Err(FenError::Illegal(_))
        ));
        assert!(
            parse_position("not a fen")
                .unwrap_err()
                .to_string()
                .starts_with("invalid FEN")
        );
    }

    #[test]
    fn syntax_errors_say_what_is_wrong() {
        let says = |fen: &str| {
            parse(fen, Leniency::DropCastlingAndEp)
                .unwrap_err()
                .to_string()
        };
        // shakmaty reads a ninth rank as a pocket ("invalid pocket in fen") or keeps it.
        assert_eq!(
            says("8/8/8/8/8/8/8/8/8 w - - 0 1"),
            "invalid FEN: the board has 9 ranks, not 8"
        );
        assert_eq!(
            says("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/Q w KQkq - 0 1"),
            "invalid FEN: the board has 9 ranks, not 8"
        );
        assert_eq!(
            says("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNNR w KQkq - 0 1"),
            "invalid FEN: rank 1 \"RNBQKBNNR\" has 9 squares, not 8"
        );
        assert!(
            says("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1")
                .starts_with("invalid FEN: rank 1 \"RNBQKBNX\": 'X' is not a piece letter")
        );
        assert!(says("4k3/8/8/8/8/8/8/4K3 w - - 0 1 +1+1").contains("7 fields"));
        assert!(says("4k3/8/8/8/8/8/8/4K3~ w - - 0 1").contains("'~' is not a piece letter"));
    }

    #[test]
    fn white_space_and_short_fens() {
        let pos =
            parse_position("  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\n").unwrap();
        assert_eq!(pos, Chess::default());
    }
}
