//! EPD: `<board> <side> <castling> <ep> op args; op args; …`.
//!
//! Labels come from `ce` (centipawns, side to move) or `dm` (side to move mates in N);
//! the result from `c9 "1-0"` (or `result "1-0"`). Positions without a label are imported
//! unlabeled. Blank lines and lines starting with `#` are skipped.

use std::io::BufRead;

use shakmaty::{Chess, Position};

use super::{GameResult, Item, Label, Reject, Row, Sink};
use crate::Result;
use crate::chess::fen::parse_position;

/// One EPD operation: opcode and its operands (quotes removed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation {
    /// The opcode (`ce`, `bm`, `id`, …).
    pub opcode: String,
    /// The operands, unquoted.
    pub operands: Vec<String>,
}

/// A parsed EPD line: the four position fields and the operations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpdLine {
    /// `board side castling ep` (plus half-move and full-move counters if they were given).
    pub fen: String,
    /// The operations in order.
    pub operations: Vec<Operation>,
}

impl EpdLine {
    /// The operands of the first operation named `opcode`.
    pub fn get(&self, opcode: &str) -> Option<&[String]> {
        self.operations
            .iter()
            .find(|o| o.opcode == opcode)
            .map(|o| o.operands.as_slice())
    }
}

/// Why an EPD line does not split into a position and operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EpdError {
    /// Fewer than the four position fields.
    #[error("expected 4 position fields, found {0}")]
    Fields(usize),
    /// A quoted operand without its closing quote.
    #[error("unterminated string in operations")]
    Unterminated,
}

/// Splits an EPD line into its position and operations.
pub fn parse_line(text: &str) -> std::result::Result<EpdLine, EpdError> {
    let mut rest = text.trim();
    let mut fields = Vec::with_capacity(6);
    for _ in 0..4 {
        let (field, after) = next_token(rest);
        if field.is_empty() {
            return Err(EpdError::Fields(fields.len()));
        }
        fields.push(field);
        rest = after;
    }
    // Some files put FEN counters before the operations: keep them if both are numbers.
    let (a, after_a) = next_token(rest);
    let (b, after_b) = next_token(after_a);
    if a.parse::<u32>().is_ok() && b.parse::<u32>().is_ok() {
        fields.push(a);
        fields.push(b);
        rest = after_b;
    }
    let operations = parse_operations(rest)?;
    Ok(EpdLine {
        fen: fields.join(" "),
        operations,
    })
}

/// The next whitespace-separated token of `s` and what follows it.
fn next_token(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    let end = s.find(char::is_whitespace).unwrap_or(s.len());
    s.split_at(end)
}

fn parse_operations(text: &str) -> std::result::Result<Vec<Operation>, EpdError> {
    let mut ops = Vec::new();
    let mut tokens: Vec<String> = Vec::new();
    let mut chars = text.chars().peekable();
    let mut current = String::new();
    let flush = |current: &mut String, tokens: &mut Vec<String>| {
        if !current.is_empty() {
            tokens.push(std::mem::take(current));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                let mut quoted = String::new();
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some(ch) => quoted.push(ch),
                        None => return Err(EpdError::Unterminated),
                    }
                }
                flush(&mut current, &mut tokens);
                tokens.push(quoted);
            }
            ';' => {
                flush(&mut current, &mut tokens);
                if let Some((opcode, operands)) = tokens.split_first() {
                    ops.push(Operation {
                        opcode: opcode.clone(),
                        operands: operands.to_vec(),
                    });
                }
                tokens.clear();
            }
            c if c.is_whitespace() => flush(&mut current, &mut tokens),
            c => current.push(c),
        }
    }
    flush(&mut current, &mut tokens);
    if let Some((opcode, operands)) = tokens.split_first() {
        // The last operation may lack its semicolon.
        ops.push(Operation {
            opcode: opcode.clone(),
            operands: operands.to_vec(),
        });
    }
    Ok(ops)
}

/// Reads EPD lines from `input` into `sink`.
pub fn read(input: impl BufRead, sink: &mut dyn Sink) -> Result<()> {
    super::read_lines(input, sink, |text, line| {
        (!text.is_empty() && !text.starts_with('#')).then(|| parse_row(text, line))
    })
}

fn parse_row(text: &str, line: u64) -> Item {
    let reject = |reason: String| Item::Reject(Reject::new(line, text, reason));
    let epd = match parse_line(text) {
        Ok(e) => e,
        Err(e) => return reject(e.to_string()),
    };
    let pos = match parse_position(&epd.fen) {
        Ok(p) => p,
        Err(e) => return reject(e.to_string()),
    };
    let number = |op: &str| -> std::result::Result<Option<i32>, String> {
        match epd.get(op) {
            None => Ok(None),
            Some([v]) => super::parse_signed(v)
                .map(Some)
                .ok_or_else(|| format!("bad {op} value {v:?}")),
            Some(other) => Err(format!("bad {op} operation: {other:?}")),
        }
    };
    let label = match (number("ce"), number("dm")) {
        (Err(e), _) | (_, Err(e)) => return reject(e),
        (Ok(Some(cp)), _) => Label::Cp(cp),
        (Ok(None), Ok(Some(n))) => Label::Mate(n),
        (Ok(None), Ok(None)) => Label::None,
    };
    let label = match super::check_label(label, &pos) {
        Ok(l) => l,
        Err(e) => return reject(e.to_string()),
    };
    let result = match epd.get("c9").or_else(|| epd.get("result")) {
        None => None,
        Some([r]) if r == "*" => None,
        Some([r]) => match GameResult::parse(r) {
            Some(r) => Some(r),
            None => return reject(format!("bad result {r:?} (expected 1-0, 0-1 or 1/2-1/2)")),
        },
        Some(other) => return reject(format!("bad result operation: {other:?}")),
    };
    let best_move = match epd.get("bm") {
        None => None,
        Some([]) => return reject("empty bm operation".into()),
        Some([first, ..]) => match best_move_uci(&pos, first) {
            Ok(m) => Some(m),
            Err(e) => return reject(e),
        },
    };
    Item::Row(Row {
        result,
        best_move,
        ..Row::new(line, &pos, &epd.fen, label.to_white_pov(pos.turn()))
    })
}

/// The UCI text of a `bm` operand (SAN, `+`/`#` allowed) in `pos`.
fn best_move_uci(pos: &Chess, san: &str) -> std::result::Result<String, String> {
    let parsed = shakmaty::san::SanPlus::from_ascii(san.as_bytes())
        .map_err(|_| format!("bm {san:?} is not a move in SAN"))?;
    let m = parsed
        .san
        .to_move(pos)
        .map_err(|e| format!("bm {san} is not a legal move here ({e})"))?;
    Ok(crate::chess::moves::uci(&m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_operations_with_quotes() {
        let e = parse_line(r#"4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id "a; b"; c9 "1-0""#).unwrap();
        assert_eq!(e.fen, "4k3/8/8/8/8/8/8/4K2R w K -");
        assert_eq!(e.get("bm"), Some(&["O-O".to_owned()][..]));
        assert_eq!(e.get("id"), Some(&["a; b".to_owned()][..]));
        assert_eq!(e.get("c9"), Some(&["1-0".to_owned()][..]));
    }

    #[test]
    fn keeps_fen_counters() {
        let e = parse_line("4k3/8/8/8/8/8/8/4K2R w K - 3 40 ce 12;").unwrap();
        assert_eq!(e.fen, "4k3/8/8/8/8/8/8/4K2R w K - 3 40");
        assert_eq!(e.get("ce"), Some(&["12".to_owned()][..]));
    }

    fn rows(text: &str) -> Vec<Item> {
        crate::data::collect_items(|b, s| read(b, s), text)
    }

    #[test]
    fn labels_are_side_to_move_and_flipped() {
        let items = rows(
            "4k3/8/8/8/8/8/8/4K2R b K - ce 50; c9 \"0-1\";\n\n4k3/8/8/8/8/8/8/4K2R w K - dm 2;\n4k3/8/8/8/8/8/8/4K2R w K - ce x;\n",
        );
        match &items[0] {
            Item::Row(r) => {
                assert_eq!(r.label, Label::Cp(-50));
                assert_eq!(r.result, Some(GameResult::BlackWins));
                assert_eq!(r.line, 1);
            }
            other => panic!("{other:?}"),
        }
        match &items[1] {
            Item::Row(r) => assert_eq!((r.line, r.label), (3, Label::Mate(2))),
            other => panic!("{other:?}"),
        }
        match &items[2] {
            Item::Reject(r) => assert_eq!((r.line, r.reason.as_str()), (4, "bad ce value \"x\"")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn best_moves_become_uci() {
        let items = rows(
            "4k3/8/8/8/8/8/8/4K2R w K - bm O-O; ce 300;\n\
             3rk3/4P3/8/8/8/8/8/4K3 w - - bm exd8=Q+ e8=N;\n\
             4k3/8/8/8/8/8/8/4K2R w K - bm Qh5;\n\
             4k3/8/8/8/8/8/8/4K2R w K - bm 1.x;\n",
        );
        let moves: Vec<_> = items
            .iter()
            .map(|i| match i {
                Item::Row(r) => Ok(r.best_move.clone()),
                Item::Reject(r) => Err((r.line, r.reason.clone())),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(moves[0], Ok(Some("e1g1".into())));
        // The first of several best moves; promotions keep their piece.
        assert_eq!(moves[1], Ok(Some("e7d8q".into())));
        let Err((3, why)) = &moves[2] else {
            panic!("{:?}", moves[2])
        };
        assert!(why.contains("bm Qh5 is not a legal move here"), "{why}");
        let Err((4, why)) = &moves[3] else {
            panic!("{:?}", moves[3])
        };
        assert!(why.contains("not a move in SAN"), "{why}");
    }
}
