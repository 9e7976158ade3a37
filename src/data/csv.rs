//! CSV in the chessData.csv style: a header `FEN,Evaluation`, then one position per line
//! with `+56`, `-10`, `0`, `#+3` or `#-2`.
//!
//! The header is optional: when the first line already holds a FEN it is read as data.
//! Columns are found by name (`fen`; `evaluation`, `eval`, `score` or `cp`), so extra
//! columns or another order are fine. CRLF line ends and a UTF-8 BOM are accepted.

use std::io::BufRead;

use shakmaty::Position;

use super::{Item, Label, Pov, ReadOptions, Reject, Row, Sink};
use crate::Result;
use crate::chess::fen::{normalized_fen, parse_position};

/// Column indexes of the FEN and the evaluation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Columns {
    fen: usize,
    eval: usize,
    width: usize,
}

const DEFAULT_COLUMNS: Columns = Columns {
    fen: 0,
    eval: 1,
    width: 2,
};

/// Reads CSV rows from `input` into `sink`.
///
/// Lines are split here rather than by the csv crate: its record line numbers drift on
/// CRLF files and skipped blank lines, and every reject must name its exact line.
pub fn read(input: impl BufRead, opts: ReadOptions, sink: &mut dyn Sink) -> Result<()> {
    let mut fields: Vec<String> = Vec::with_capacity(4);
    let mut columns: Option<Columns> = None;
    let broken = super::for_each_line(input, |line, text| {
        let text = match text {
            Ok(t) => t,
            Err(bytes) => {
                return sink.item(Item::Reject(Reject::new(
                    line,
                    &String::from_utf8_lossy(bytes),
                    "not valid UTF-8",
                )));
            }
        };
        if text.trim().is_empty() {
            return Ok(());
        }
        split_fields(text, &mut fields);
        let cols = match columns {
            Some(c) => c,
            None => {
                let (cols, is_header) = detect_header(&fields);
                columns = Some(cols);
                if is_header {
                    return Ok(());
                }
                if !looks_like_fen(&fields[0]) {
                    // Neither a known header nor data: say so once, then read on.
                    return sink.item(Item::Reject(Reject::new(
                        line,
                        text,
                        "unrecognized header (expected FEN,Evaluation); reading columns 1 and 2 as FEN and evaluation",
                    )));
                }
                cols
            }
        };
        sink.item(parse_record(text, &fields, line, cols, opts.pov))
    })?;
    match broken {
        Some((line, source)) => Err(crate::Error::BrokenInput { line, source }),
        None => Ok(()),
    }
}

/// Splits a CSV line into fields, honouring double quotes (`""` inside quotes is a quote).
pub(crate) fn split_fields(text: &str, fields: &mut Vec<String>) {
    fields.clear();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(std::mem::take(&mut field)),
            c => field.push(c),
        }
    }
    fields.push(field);
}

/// Finds the columns from the first line; says whether that line was a header.
fn detect_header(fields: &[String]) -> (Columns, bool) {
    let names: Vec<String> = fields
        .iter()
        .map(|f| f.trim().to_ascii_lowercase())
        .collect();
    let fen = names.iter().position(|n| n == "fen" || n == "position");
    let eval = names
        .iter()
        .position(|n| matches!(n.as_str(), "evaluation" | "eval" | "score" | "cp" | "label"));
    match (fen, eval) {
        (Some(fen), Some(eval)) => (
            Columns {
                fen,
                eval,
                width: names.len(),
            },
            true,
        ),
        _ => (DEFAULT_COLUMNS, false),
    }
}

/// A cheap test for "this field is meant to be a FEN" (8 ranks separated by slashes).
fn looks_like_fen(field: &str) -> bool {
    field.bytes().filter(|&b| b == b'/').count() == 7
}

fn parse_record(text: &str, fields: &[String], line: u64, cols: Columns, pov: Pov) -> Item {
    let reject = |reason: String| Item::Reject(Reject::new(line, text, reason));
    if fields.len() != cols.width {
        return reject(format!(
            "expected {} fields (FEN,Evaluation), found {}",
            cols.width,
            fields.len()
        ));
    }
    let fen_input = fields[cols.fen].trim();
    let pos = match parse_position(fen_input) {
        Ok(pos) => pos,
        Err(e) => return reject(e.to_string()),
    };
    let label = match Label::parse_csv(&fields[cols.eval]) {
        Ok(l) => l,
        Err(e) => return reject(e),
    };
    let label = match pov {
        Pov::White => label,
        Pov::Stm => label.to_white_pov(pos.turn()),
    };
    let label = match super::check_label(label, &pos) {
        Ok(l) => l,
        Err(e) => return reject(e),
    };
    Item::Row(Row {
        line,
        fen: normalized_fen(&pos),
        fen_input: fen_input.to_owned(),
        label,
        result: None,
        ply: None,
        engine: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(text: &str, pov: Pov) -> Vec<Item> {
        let mut out = Vec::new();
        read(text.as_bytes(), ReadOptions { pov }, &mut |i| {
            out.push(i);
            Ok(())
        })
        .unwrap();
        out
    }

    fn summary(items: &[Item]) -> Vec<String> {
        items
            .iter()
            .map(|i| match i {
                Item::Row(r) => format!("{} ok {:?}", r.line, r.label),
                Item::Reject(r) => format!("{} rejected: {}", r.line, r.reason),
                Item::Game(_) => "game".to_owned(),
            })
            .collect()
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn header_rows_and_mates() {
        let text = format!("FEN,Evaluation\n{START},+56\n{START},#-2\r\n{START},0\n");
        let got = summary(&items(&text, Pov::White));
        assert_eq!(got, ["2 ok Cp(56)", "3 ok Mate(-2)", "4 ok Cp(0)"]);
    }

    #[test]
    fn bom_and_missing_header() {
        let text = format!("\u{feff}{START},+1\n\n{START},-3\n");
        let got = summary(&items(&text, Pov::White));
        assert_eq!(got, ["1 ok Cp(1)", "3 ok Cp(-3)"]);
    }

    #[test]
    fn other_column_order_by_name() {
        let text = format!("id,Evaluation,FEN\n7,+20,{START}\n");
        let got = summary(&items(&text, Pov::White));
        assert_eq!(got, ["2 ok Cp(20)"]);
    }

    #[test]
    fn quoted_fields_and_invalid_utf8() {
        let mut text = format!("\"{START}\",\"+7\"\n").into_bytes();
        text.extend_from_slice(b"\xff\xfe,+1\n");
        let mut out = Vec::new();
        read(text.as_slice(), ReadOptions::default(), &mut |i| {
            out.push(i);
            Ok(())
        })
        .unwrap();
        let got = summary(&out);
        assert_eq!(got, ["1 ok Cp(7)", "2 rejected: not valid UTF-8"]);
    }

    #[test]
    fn unknown_header_is_reported_once() {
        let text = format!("a,b\n{START},+5\n");
        let got = summary(&items(&text, Pov::White));
        assert_eq!(got.len(), 2);
        assert!(
            got[0].starts_with("1 rejected: unrecognized header"),
            "{got:?}"
        );
        assert_eq!(got[1], "2 ok Cp(5)");
    }

    #[test]
    fn bad_rows_are_rejected_with_their_line() {
        let text = format!(
            "FEN,Evaluation\n{START},abc\nnot a fen,+1\n{START}\n4k3/8/8/8/8/8/4R3/4K3 w - - 0 1,+3\n{START},+9\n"
        );
        let got = summary(&items(&text, Pov::White));
        assert!(got[0].starts_with("2 rejected: bad evaluation"), "{got:?}");
        assert!(got[1].starts_with("3 rejected: invalid FEN"), "{got:?}");
        assert!(
            got[2].starts_with("4 rejected: expected 2 fields"),
            "{got:?}"
        );
        assert!(
            got[3].starts_with("5 rejected: illegal position"),
            "{got:?}"
        );
        assert_eq!(got[4], "6 ok Cp(9)");
    }

    #[test]
    fn side_to_move_pov_is_flipped_for_black() {
        let black = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        let text = format!("{black},+40\n{START},+40\n");
        let got = summary(&items(&text, Pov::Stm));
        assert_eq!(got, ["1 ok Cp(-40)", "2 ok Cp(40)"]);
    }
}
