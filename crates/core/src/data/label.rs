//! An input's evaluation as a label: centipawns or a mate score, from White's point of
//! view once in a row, and the checks that keep impossible ones out.

use shakmaty::Color;

/// An evaluation label, always from White's point of view once in a [`Row`](super::Row).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Label {
    /// No evaluation given.
    None,
    /// Centipawns.
    Cp(i32),
    /// Signed moves to mate: positive when White mates.
    Mate(i32),
}

impl Label {
    /// Turns a side-to-move label into White's point of view.
    pub fn to_white_pov(self, turn: Color) -> Label {
        match (self, turn) {
            (l, Color::White) => l,
            (Label::Cp(cp), Color::Black) => Label::Cp(-cp),
            (Label::Mate(m), Color::Black) => Label::Mate(-m),
            (Label::None, _) => Label::None,
        }
    }

    /// Parses a chessData.csv evaluation: `+56`, `-10`, `0`, `#+3`, `#-2` (also `#3`).
    pub fn parse_csv(s: &str) -> std::result::Result<Label, BadEvaluation> {
        let s = s.trim();
        let bad = || BadEvaluation::Csv(s.to_owned());
        if let Some(m) = s.strip_prefix('#') {
            parse_signed(m).map(Label::Mate).ok_or_else(bad)
        } else {
            parse_signed(s).map(Label::Cp).ok_or_else(bad)
        }
    }
}

/// Parses an integer with an optional `+`/`-`, refusing absurd magnitudes.
pub(super) fn parse_signed(s: &str) -> Option<i32> {
    let digits = s.strip_prefix('+').unwrap_or(s);
    if digits.is_empty() || digits.starts_with('+') {
        return None;
    }
    let v: i32 = digits.parse().ok()?;
    (v.abs() <= 100_000).then_some(v)
}

/// Why an evaluation in the input is not a label.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadEvaluation {
    /// A CSV evaluation that is neither centipawns nor a mate score.
    #[error("bad evaluation {0:?} (expected centipawns like +56, or a mate score like #-2)")]
    Csv(String),
    /// A PGN `[%eval]` operand that is neither pawns nor a mate score.
    #[error("bad [%eval] value {0:?} (expected pawns like 0.17 or a mate like #-3)")]
    Pgn(String),
    /// A mate in 0 for a side that is not checkmated.
    #[error("mate in 0 but the side to move is not checkmated")]
    MateInZero,
    /// A centipawn evaluation beyond what an engine reports short of mate.
    #[error(
        "evaluation {0} cp is beyond ±{MAX_LABEL_CP} cp, which no engine reports short of mate \
         (a mate score is written like #-3)"
    )]
    OutOfRange(i32),
}

/// The largest centipawn label accepted: engines stay below it short of mate (Stockfish's
/// largest non-mate score is about 15,300 cp), and it is the evaluators' own limit
/// ([`crate::chess::values::EVAL_LIMIT`]), so a larger number is a mate score written as
/// centipawns or a typing error, and would dominate any RMSE or fit it entered.
pub const MAX_LABEL_CP: i32 = crate::chess::values::EVAL_LIMIT;

/// Checks a label against its position: a mate in 0 (`#0`, `#-0`, `dm 0`) is only true of a
/// position whose side to move is checkmated, and centipawns stay within
/// ±[`MAX_LABEL_CP`].
pub fn check_label(
    label: Label,
    pos: &shakmaty::Chess,
) -> std::result::Result<Label, BadEvaluation> {
    use shakmaty::Position;
    match label {
        Label::Mate(0) if !pos.is_checkmate() => Err(BadEvaluation::MateInZero),
        Label::Cp(cp) if cp.abs() > MAX_LABEL_CP => Err(BadEvaluation::OutOfRange(cp)),
        l => Ok(l),
    }
}
