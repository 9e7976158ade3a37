//! The Lichess evaluation database (`lichess_db_eval.jsonl`, plain or `.zst`): one JSON
//! object a line,
//!
//! ```text
//! {"fen": "<board> <side> <castling> <ep>",
//!  "evals": [{"pvs": [{"cp": 311, "line": "f7g7 e6e7 …"}, {"mate": -3, "line": …}],
//!             "knodes": 206765, "depth": 36}, …]}
//! ```
//!
//! A position may have several evaluations (different depths, node counts and numbers of
//! lines). The one of the greatest `depth` is kept — on equal depths the one with the most
//! `knodes`, then the first — and its first line's `cp` (centipawns) or `mate` (signed
//! moves to mate) is the label. Lichess gives both from White's point of view (positive:
//! White is better, or White mates), as the CSV does, so nothing is flipped. The depth and
//! the nodes (`knodes` × 1000) travel with the row as its [`EngineScore`], stored as the
//! labeller [`LABELLER`]. Blank lines are skipped; anything else that is not such an
//! object is a rejected row naming the column and what was wrong.

use std::io::BufRead;

use serde::Deserialize;

use super::{EngineScore, Item, Label, Reject, Row, Sink};
use crate::Result;
use crate::chess::fen::parse_position;

/// The labeller name the evaluations' depth and nodes are stored under (`labels` table).
pub const LABELLER: &str = "lichess";

/// Largest centipawn magnitude accepted (the other formats' bound too).
const MAX_CP: i32 = 100_000;

/// One line of the file.
#[derive(Deserialize)]
struct Record {
    fen: String,
    evals: Vec<Evaluation>,
}

/// One evaluation of the position: a search of some depth with one or more lines.
#[derive(Deserialize)]
struct Evaluation {
    pvs: Vec<Pv>,
    knodes: u64,
    depth: u32,
}

/// One principal variation; its moves (`line`) are not needed and not read.
#[derive(Deserialize)]
struct Pv {
    cp: Option<i64>,
    mate: Option<i64>,
}

/// Reads Lichess evaluation lines from `input` into `sink`.
pub fn read(input: impl BufRead, sink: &mut dyn Sink) -> Result<()> {
    super::read_lines(input, sink, |text, line| {
        (!text.is_empty()).then(|| parse_row(text, line))
    })
}

/// The evaluation a position is labelled with: greatest depth, then most knodes, then
/// the first.
fn deepest(evals: &[Evaluation]) -> Option<(usize, &Evaluation)> {
    let mut best: Option<(usize, &Evaluation)> = None;
    for (i, e) in evals.iter().enumerate() {
        let better = match best {
            None => true,
            Some((_, b)) => (e.depth, e.knodes) > (b.depth, b.knodes),
        };
        if better {
            best = Some((i, e));
        }
    }
    best
}

/// A serde_json error without its "at line 1 column N" (the file's line is the reject's).
fn json_reason(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    let message = text.strip_suffix(&position).unwrap_or(&text);
    format!("bad JSON at column {}: {message}", e.column())
}

fn parse_row(text: &str, line: u64) -> Item {
    let reject = |reason: String| Item::Reject(Reject::new(line, text, reason));
    let record: Record = match serde_json::from_str(text) {
        Ok(r) => r,
        Err(e) => return reject(json_reason(&e)),
    };
    let pos = match parse_position(&record.fen) {
        Ok(p) => p,
        Err(e) => return reject(e.to_string()),
    };
    let Some((index, eval)) = deepest(&record.evals) else {
        return reject("no evaluations (\"evals\" is empty)".into());
    };
    let Some(pv) = eval.pvs.first() else {
        return reject(format!(
            "evaluation {} (depth {}, the deepest) has no lines (\"pvs\" is empty)",
            index + 1,
            eval.depth
        ));
    };
    let label = match (pv.cp, pv.mate) {
        (Some(cp), None) if cp.abs() <= i64::from(MAX_CP) => Label::Cp(cp as i32),
        (None, Some(m)) if m.abs() <= i64::from(MAX_CP) => Label::Mate(m as i32),
        (Some(_), Some(_)) => {
            return reject("the deepest evaluation's line has both cp and mate".into());
        }
        (None, None) => {
            return reject("the deepest evaluation's line has neither cp nor mate".into());
        }
        (Some(v), None) | (None, Some(v)) => {
            return reject(format!("evaluation {v} out of range (at most ±{MAX_CP})"));
        }
    };
    let label = match super::check_label(label, &pos) {
        Ok(l) => l,
        Err(e) => return reject(e.to_string()),
    };
    Item::Row(Row {
        engine: Some(EngineScore {
            labeller: LABELLER,
            depth: eval.depth,
            nodes: eval.knodes.saturating_mul(1000),
        }),
        ..Row::new(line, &pos, record.fen.trim(), label)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(text: &str) -> Vec<Item> {
        crate::data::collect_items(|b, s| read(b, s), text)
    }

    fn row(item: &Item) -> &Row {
        match item {
            Item::Row(r) => r,
            other => panic!("expected a row, got {other:?}"),
        }
    }

    fn reason(item: &Item) -> &str {
        match item {
            Item::Reject(r) => &r.reason,
            other => panic!("expected a reject, got {other:?}"),
        }
    }

    // The example of the Lichess database page: Black to move, White a pawn up with a
    // passed pawn on d6 — +311 is White's advantage, not Black's.
    const EXAMPLE: &str = r#"{"fen": "7r/1p3k2/p1bPR3/5p2/2B2P1p/8/PP4P1/3K4 b - -", "evals": [{"pvs": [{"cp": 311, "line": "f7g7 e6e7 g7f8 e7c7 h8h7 c7c6 b7c6 d6d7 f8e7 c4e6"}], "knodes": 206765, "depth": 36}, {"pvs": [{"cp": 292, "line": "f7g7 e6e7 g7f8 e7c7 h8h7 c7c6 b7c6 d6d7 f8e7 c4e6"}, {"cp": 277, "line": "f7f8 e6e7 h8g8 e7c7 g8e8 c7c6 b7c6 d6d7 e8d8 c4e6"}], "knodes": 92083, "depth": 27}]}"#;

    #[test]
    fn deepest_evaluation_first_line_white_pov() {
        let items = items(EXAMPLE);
        let r = row(&items[0]);
        assert_eq!(r.label, Label::Cp(311));
        assert_eq!(
            r.fen().unwrap(),
            "7r/1p3k2/p1bPR3/5p2/2B2P1p/8/PP4P1/3K4 b - -"
        );
        let e = r.engine.expect("engine score");
        assert_eq!((e.labeller, e.depth, e.nodes), ("lichess", 36, 206_765_000));
    }

    #[test]
    fn ties_on_depth_go_to_most_knodes_then_first() {
        let fen = "4k3/8/8/8/8/8/4P3/4K3 w - -";
        let text = format!(
            "{{\"fen\":\"{fen}\",\"evals\":[{{\"pvs\":[{{\"cp\":1}}],\"knodes\":5,\"depth\":20}},\
             {{\"pvs\":[{{\"cp\":2}},{{\"cp\":9}}],\"knodes\":7,\"depth\":20}},\
             {{\"pvs\":[{{\"cp\":3}}],\"knodes\":7,\"depth\":20}},\
             {{\"pvs\":[{{\"mate\":4}}],\"knodes\":900,\"depth\":19}}]}}\n"
        );
        let items = items(&text);
        let r = row(&items[0]);
        assert_eq!(r.label, Label::Cp(2));
        assert_eq!(r.engine.unwrap().nodes, 7000);
    }

    #[test]
    fn mate_scores_are_kept_signed() {
        let text = r#"{"fen":"4k3/8/8/8/8/8/4P3/4K3 b - -","evals":[{"pvs":[{"mate":-3,"line":"e8d7"}],"knodes":1,"depth":5}]}"#;
        assert_eq!(row(&items(text)[0]).label, Label::Mate(-3));
    }

    #[test]
    fn bad_lines_say_why() {
        let k = "4k3/8/8/8/8/8/4P3/4K3 w - -";
        let text = [
            "{\"fen\": \"x\", \"evals\": [".to_owned(),
            format!("{{\"fen\":\"{k}\",\"evals\":[{{\"pvs\":[{{\"cp\":1}}],\"knodes\":5}}]}}"),
            "{\"fen\":\"4k3/8/8/8/8/8/4R3/4K3 w - -\",\"evals\":[{\"pvs\":[{\"cp\":1}],\"knodes\":5,\"depth\":1}]}".to_owned(),
            format!("{{\"fen\":\"{k}\",\"evals\":[]}}"),
            format!("{{\"fen\":\"{k}\",\"evals\":[{{\"pvs\":[{{\"mate\":0}}],\"knodes\":5,\"depth\":1}}]}}"),
            format!("{{\"fen\":\"{k}\",\"evals\":[{{\"pvs\":[],\"knodes\":5,\"depth\":1}}]}}"),
            format!("{{\"fen\":\"{k}\",\"evals\":[{{\"pvs\":[{{\"line\":\"e2e4\"}}],\"knodes\":5,\"depth\":1}}]}}"),
            format!("{{\"fen\":\"{k}\",\"evals\":[{{\"pvs\":[{{\"cp\":1,\"mate\":2}}],\"knodes\":5,\"depth\":1}}]}}"),
            format!("{{\"fen\":\"{k}\",\"evals\":[{{\"pvs\":[{{\"cp\":100001}}],\"knodes\":5,\"depth\":1}}]}}"),
            "[1, 2]".to_owned(),
            String::new(),
        ]
        .join("\n");
        let items = items(&text);
        let reasons: Vec<&str> = items.iter().map(reason).collect();
        assert_eq!(
            reasons[0],
            "bad JSON at column 23: EOF while parsing a list"
        );
        assert_eq!(reasons[1], "bad JSON at column 75: missing field `depth`");
        assert!(reasons[2].starts_with("illegal position"), "{}", reasons[2]);
        assert_eq!(reasons[3], "no evaluations (\"evals\" is empty)");
        assert_eq!(
            reasons[4],
            "mate in 0 but the side to move is not checkmated"
        );
        assert!(reasons[5].contains("has no lines"), "{}", reasons[5]);
        assert!(reasons[6].contains("neither cp nor mate"), "{}", reasons[6]);
        assert!(reasons[7].contains("both cp and mate"), "{}", reasons[7]);
        assert!(reasons[8].contains("out of range"), "{}", reasons[8]);
        assert!(reasons[9].starts_with("bad JSON"), "{}", reasons[9]);
        assert_eq!(items.len(), 10, "the blank line is skipped");
        let lines: Vec<u64> = items
            .iter()
            .map(|i| match i {
                Item::Reject(r) => r.line,
                _ => 0,
            })
            .collect();
        assert_eq!(lines, (1..=10).collect::<Vec<u64>>());
    }
}
