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
use crate::chess::fen::parse_position;

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
/// Records are read by the csv crate (RFC 4180 quoting: a quoted field may hold commas,
/// `""` for a quote, even line breaks). Every record is reported with the line it starts
/// on, counting blank lines and CRLF ends: records end at `\n` only (a `\r` before it is
/// trimmed with the field), so the crate's count of the `\n` it has read, less the ones
/// inside the record's quoted fields and its own end, is the record's first line.
pub fn read(input: impl BufRead, opts: ReadOptions, sink: &mut dyn Sink) -> Result<()> {
    // The extra `\n` gives a last line without one its end, so every record has one.
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_reader(input.chain(&b"\n"[..]));
    let mut bytes = csv::ByteRecord::new();
    let mut columns: Option<Columns> = None;
    loop {
        match reader.read_byte_record(&mut bytes) {
            Ok(true) => {}
            Ok(false) => return Ok(()),
            Err(e) => {
                let line = reader.position().line();
                let source = match e.into_kind() {
                    csv::ErrorKind::Io(e) => e,
                    other => std::io::Error::other(format!("{other:?}")),
                };
                return Err(crate::Error::BrokenInput { line, source });
            }
        }
        let inside = bytes.as_slice().iter().filter(|&&b| b == b'\n').count() as u64;
        let line = reader.position().line() - inside - 1;
        // Checked as UTF-8 in place; the buffer goes back to `bytes` for the next record.
        let record = match csv::StringRecord::from_byte_record(std::mem::take(&mut bytes)) {
            Ok(record) => record,
            Err(e) => {
                bytes = e.into_byte_record();
                let text = join_bytes(&bytes);
                let text = String::from_utf8_lossy(&text);
                sink.item(Item::Reject(Reject::new(line, &text, "not valid UTF-8")))?;
                continue;
            }
        };
        let item = item(&record, line, &mut columns, opts.pov);
        bytes = record.into_byte_record();
        if let Some(item) = item {
            sink.item(item)?;
        }
    }
}

/// What a record is: `None` for a blank line or the header (found on the first record,
/// into `columns`), else a row or a reject.
fn item(
    record: &csv::StringRecord,
    line: u64,
    columns: &mut Option<Columns>,
    pov: Pov,
) -> Option<Item> {
    if record.len() == 1 && record[0].trim().is_empty() {
        return None; // a line of blanks
    }
    let cols = match *columns {
        Some(c) => c,
        None => {
            let (cols, is_header) = detect_header(record);
            *columns = Some(cols);
            if is_header {
                return None;
            }
            if !looks_like_fen(&record[0]) {
                // Neither a known header nor data: say so once, then read on.
                return Some(Item::Reject(Reject::new(
                    line,
                    &join(record),
                    "unrecognized header (expected FEN,Evaluation); reading columns 1 and 2 as FEN and evaluation",
                )));
            }
            cols
        }
    };
    Some(parse_record(record, line, cols, pov))
}

/// A record's fields joined by commas, without the `\r` of a CRLF end (the text of a
/// reject).
fn join(record: &csv::StringRecord) -> String {
    let text = record.iter().collect::<Vec<_>>().join(",");
    match text.strip_suffix('\r') {
        Some(t) => t.to_owned(),
        None => text,
    }
}

/// A record's fields joined by commas, without the `\r` of a CRLF end (the text of a
/// reject).
fn join_bytes(record: &csv::ByteRecord) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, field) in record.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(field);
    }
    if out.last() == Some(&b'\r') {
        out.pop();
    }
    out
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
fn detect_header(fields: &csv::StringRecord) -> (Columns, bool) {
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

fn parse_record(fields: &csv::StringRecord, line: u64, cols: Columns, pov: Pov) -> Item {
    let reject = |reason: String| Item::Reject(Reject::new(line, &join(fields), reason));
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
        Err(e) => return reject(e.to_string()),
    };
    let label = match pov {
        Pov::White => label,
        Pov::Stm => label.to_white_pov(pos.turn()),
    };
    let label = match super::check_label(label, &pos) {
        Ok(l) => l,
        Err(e) => return reject(e.to_string()),
    };
    Item::Row(Row::new(line, &pos, fen_input, label))
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
    fn quoted_fields_with_commas_and_line_breaks_keep_their_lines() {
        // A quoted FEN and evaluation, a quoted extra column holding a comma, a quote
        // doubled inside quotes, and a field across two lines: each record keeps the
        // line it starts on, and the lines after it are counted right.
        let text = format!(
            "\u{feff}id,FEN,Evaluation\r\n\r\n\"a,b\",\"{START}\",\"+10\"\r\n\
             \"say \"\"hi\"\"\",{START},#+3\n\
             \"two\nlines\",{START},-4\n\
             \n\
             x,{START},abc\n\
             y,{START},#-2"
        );
        let got = summary(&items(&text, Pov::White));
        assert_eq!(
            got,
            [
                "3 ok Cp(10)",
                "4 ok Mate(3)",
                "5 ok Cp(-4)",
                "8 rejected: bad evaluation \"abc\" (expected centipawns like +56, or a mate score like #-2)",
                "9 ok Mate(-2)",
            ]
        );
    }

    #[test]
    fn a_reject_keeps_its_text_without_the_line_end() {
        let text = format!("FEN,Evaluation\r\n{START},+1,extra\r\n");
        let out = items(&text, Pov::White);
        let Item::Reject(r) = &out[0] else {
            panic!("{:?}", summary(&out))
        };
        assert_eq!(
            (r.line, r.text.as_str()),
            (2, format!("{START},+1,extra").as_str())
        );
        assert!(r.reason.starts_with("expected 2 fields"), "{}", r.reason);
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
