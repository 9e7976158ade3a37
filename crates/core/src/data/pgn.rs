//! Lichess-style PGN: `{ [%eval 0.17] }` or `{ [%eval #-3] }` after moves (pawns, White's
//! point of view), the result in the `Result` tag.
//!
//! The stream is cut into games by lines (so every game knows the line it starts on),
//! and each game is parsed with pgn-reader's streaming [`Visitor`]. Every position that
//! has an eval comment becomes a row with its ply and the game's result (rows carry the
//! game's first line, the unit an interrupted import resumes from). An illegal move ends
//! that game (rows before it are kept) and is reported with the move's own line.

use std::io::BufRead;
use std::ops::ControlFlow;

use pgn_reader::{KnownOutcome, Outcome, RawComment, RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::{Chess, Position};

use super::{GameInfo, GameResult, Item, Label, Reject, Row, Sink};
use crate::Result;
use crate::chess::fen::to_fen;

/// Reads PGN games from `input` into `sink`.
pub fn read(input: impl BufRead, sink: &mut dyn Sink) -> Result<()> {
    let broken = for_each_game(input, |text, line| parse_game(text, line, sink))?;
    match broken {
        Some((line, source)) => Err(crate::Error::BrokenInput { line, source }),
        None => Ok(()),
    }
}

/// Cuts a PGN stream into games by lines — a tag line after movetext starts the next game
/// — and calls `game(text, first_line)` for each, so every game knows the line it starts
/// on. When the input breaks (a truncated .gz), the cut-off game is still passed on and the
/// line and error are returned.
pub fn for_each_game(
    mut input: impl BufRead,
    mut game: impl FnMut(&[u8], u64) -> Result<()>,
) -> Result<Option<(u64, std::io::Error)>> {
    let mut chunk: Vec<u8> = Vec::with_capacity(1 << 14);
    let mut chunk_line = 1u64;
    let mut in_movetext = false;
    let mut line_no = 0u64;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        line_no += 1;
        let n = match input.read_until(b'\n', &mut buf) {
            Ok(n) => n,
            Err(e) => {
                game(&chunk, chunk_line)?;
                return Ok(Some((line_no, e)));
            }
        };
        if n == 0 {
            game(&chunk, chunk_line)?;
            return Ok(None);
        }
        let mut line = buf.as_slice();
        if line_no == 1 {
            line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
        }
        let trimmed = line.trim_ascii_start();
        let is_tag = trimmed.first() == Some(&b'[')
            && trimmed.get(1).is_some_and(|b| b.is_ascii_alphabetic());
        if is_tag && in_movetext {
            game(&chunk, chunk_line)?;
            chunk.clear();
            in_movetext = false;
        }
        if chunk.is_empty() {
            if trimmed.trim_ascii().is_empty() {
                continue;
            }
            chunk_line = line_no;
        }
        if !is_tag && !trimmed.trim_ascii().is_empty() {
            in_movetext = true;
        }
        chunk.extend_from_slice(line);
    }
}

/// Parses one game's text (starting on `line`) and sends its items.
fn parse_game(text: &[u8], line: u64, sink: &mut dyn Sink) -> Result<()> {
    if text.trim_ascii().is_empty() {
        return Ok(());
    }
    let mut visitor = GameVisitor {
        line,
        text,
        items: Vec::new(),
    };
    let mut reader = Reader::new(text);
    match reader.read_game(&mut visitor) {
        Ok(_) => {}
        Err(e) => visitor.items.push(Item::Reject(Reject::new(
            line,
            "",
            format!("unreadable game: {e}"),
        ))),
    }
    for item in visitor.items {
        sink.item(item)?;
    }
    Ok(())
}

struct GameVisitor<'a> {
    /// The game's first line.
    line: u64,
    /// The game's text, to find the line of a rejected move.
    text: &'a [u8],
    items: Vec<Item>,
}

/// Movetext state of the game being read.
struct Game {
    pos: Chess,
    ply: u32,
    result: Option<GameResult>,
    /// Whether the current position already got its row (one eval per position).
    labelled: bool,
}

impl GameVisitor<'_> {
    fn reject(&mut self, line: u64, text: &str, reason: String) {
        self.items
            .push(Item::Reject(Reject::new(line, text, reason)));
    }
}

/// The line of the game's `index`-th main-line move (0-based), counting from the game's
/// `first` line; the game's last line when there are fewer moves. Tag pairs, comments
/// (`{…}`, `;…`), variations, move numbers, NAGs and results are not moves.
fn move_line(text: &[u8], first: u64, index: u32) -> u64 {
    let (mut line, mut depth, mut seen) = (first, 0u32, 0u32);
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        let line_start = i == 0 || text[i - 1] == b'\n';
        match b {
            b'\n' => line += 1,
            // A tag pair or an escaped line: the rest of the line.
            b'[' | b'%' if line_start => {
                while i + 1 < text.len() && text[i + 1] != b'\n' {
                    i += 1;
                }
            }
            b'{' => {
                while i + 1 < text.len() && text[i] != b'}' {
                    i += 1;
                    line += u64::from(text[i] == b'\n');
                }
            }
            b';' => {
                while i + 1 < text.len() && text[i + 1] != b'\n' {
                    i += 1;
                }
            }
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            _ if b.is_ascii_whitespace() => {}
            _ => {
                let start = i;
                while i + 1 < text.len() && !b" \t\r\n{}();".contains(&text[i + 1]) {
                    i += 1;
                }
                let token = &text[start..=i];
                let number_or_result = token
                    .iter()
                    .all(|c| c.is_ascii_digit() || b"./-*".contains(c))
                    || token[0] == b'$';
                if depth == 0 && !number_or_result {
                    if seen == index {
                        return line;
                    }
                    seen += 1;
                }
            }
        }
        i += 1;
    }
    line
}

impl Visitor for GameVisitor<'_> {
    type Tags = GameInfo;
    type Movetext = Game;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(GameInfo {
            line: self.line,
            ..GameInfo::default()
        })
    }

    fn tag(
        &mut self,
        tags: &mut GameInfo,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        tags.set_tag(name, value.decode_utf8_lossy().into_owned());
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: GameInfo) -> ControlFlow<Self::Output, Game> {
        let pos = match &tags.start_fen {
            None => Chess::default(),
            Some(fen) => match crate::chess::fen::parse(fen, crate::chess::fen::Leniency::Strict) {
                Ok(p) => p,
                Err(e) => {
                    self.reject(self.line, fen, format!("FEN tag: {e}"));
                    return ControlFlow::Break(());
                }
            },
        };
        let result = tags.result;
        self.items.push(Item::Game(tags));
        ControlFlow::Continue(Game {
            pos,
            ply: 0,
            result,
            labelled: false,
        })
    }

    fn san(&mut self, game: &mut Game, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        match san_plus.san.to_move(&game.pos) {
            Ok(m) => {
                // The row of the position the move leaves (if it has one) learns its move.
                if let Some(Item::Row(row)) = self.items.last_mut()
                    && row.ply == Some(game.ply)
                {
                    row.next_move = Some(crate::chess::moves::uci(&m));
                }
                game.pos.play_unchecked(m);
                game.ply += 1;
                game.labelled = false;
                ControlFlow::Continue(())
            }
            Err(e) => {
                let mv = (game.ply / 2) + 1;
                let dots = if game.ply.is_multiple_of(2) {
                    "."
                } else {
                    "..."
                };
                let line = move_line(self.text, self.line, game.ply);
                self.reject(
                    line,
                    &san_plus.to_string(),
                    format!("illegal move {mv}{dots}{san_plus} ({e}); rest of the game skipped"),
                );
                ControlFlow::Break(())
            }
        }
    }

    fn begin_variation(&mut self, _game: &mut Game) -> ControlFlow<Self::Output, Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn comment(&mut self, game: &mut Game, comment: RawComment<'_>) -> ControlFlow<Self::Output> {
        let Some(eval) = find_eval(comment.as_bytes()) else {
            return ControlFlow::Continue(());
        };
        if game.labelled {
            return ControlFlow::Continue(());
        }
        game.labelled = true;
        match parse_eval(eval).and_then(|l| super::check_label(l, &game.pos)) {
            Ok(label) => self.items.push(Item::Row(Row {
                result: game.result,
                ply: Some(game.ply),
                ..Row::new(self.line, &game.pos, &to_fen(&game.pos), label)
            })),
            Err(reason) => {
                let text = String::from_utf8_lossy(eval).into_owned();
                let line = move_line(self.text, self.line, game.ply.saturating_sub(1));
                self.reject(line, &text, format!("ply {}: {reason}", game.ply));
            }
        }
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, game: &mut Game, outcome: Outcome) -> ControlFlow<Self::Output> {
        // The Result tag wins; the movetext's result fills in when the tag is missing.
        if game.result.is_none() {
            game.result = match outcome {
                Outcome::Known(KnownOutcome::Decisive { winner }) => Some(if winner.is_white() {
                    GameResult::WhiteWins
                } else {
                    GameResult::BlackWins
                }),
                Outcome::Known(KnownOutcome::Draw) => Some(GameResult::Draw),
                Outcome::Unknown => None,
            };
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, game: Game) -> Self::Output {
        // A result known only from the movetext reaches the rows read before it.
        if let Some(result) = game.result {
            for item in &mut self.items {
                if let Item::Row(row) = item {
                    row.result.get_or_insert(result);
                }
            }
        }
    }
}

/// The operand of `[%eval …]` in a comment, if any.
fn find_eval(comment: &[u8]) -> Option<&[u8]> {
    let start = comment.windows(6).position(|w| w == b"[%eval")? + 6;
    let rest = comment[start..].trim_ascii_start();
    let end = rest
        .iter()
        .position(|&b| b == b']' || b == b',' || b.is_ascii_whitespace())
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// Parses `0.17`, `-1.5`, `#3`, `#-3` into a White-point-of-view label.
fn parse_eval(raw: &[u8]) -> std::result::Result<Label, super::BadEvaluation> {
    let s = String::from_utf8_lossy(raw);
    let bad = || super::BadEvaluation::Pgn(s.clone().into_owned());
    if let Some(m) = s.strip_prefix('#') {
        return super::parse_signed(m).map(Label::Mate).ok_or_else(bad);
    }
    let pawns: f64 = s.parse().map_err(|_| bad())?;
    if !pawns.is_finite() || pawns.abs() > 1000.0 {
        return Err(bad());
    }
    Ok(Label::Cp((pawns * 100.0).round() as i32))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(text: &str) -> Vec<Item> {
        crate::data::collect_items(|b, s| read(b, s), text)
    }

    #[test]
    fn evals_become_rows_with_ply_and_result() {
        let pgn = "[Event \"t\"]\n[Result \"0-1\"]\n\n1. e4 { [%eval 0.17] } 1... e5 { [%eval #-3] } 2. Nf3 { no eval } 0-1\n\n\
                   [Event \"u\"]\n[Result \"*\"]\n\n1. d4 { [%eval -0.5] } *\n";
        let got = items(pgn);
        let rows: Vec<_> = got
            .iter()
            .filter_map(|i| match i {
                Item::Row(r) => Some((r.line, r.ply, r.label, r.result)),
                _ => None,
            })
            .collect();
        assert_eq!(
            rows,
            [
                (1, Some(1), Label::Cp(17), Some(GameResult::BlackWins)),
                (1, Some(2), Label::Mate(-3), Some(GameResult::BlackWins)),
                (6, Some(1), Label::Cp(-50), None),
            ]
        );
        // Each row knows the move played from it; the last of a game none.
        let next: Vec<_> = got
            .iter()
            .filter_map(|i| match i {
                Item::Row(r) => Some(r.next_move.as_deref()),
                _ => None,
            })
            .collect();
        assert_eq!(next, [Some("e7e5"), Some("g1f3"), None]);
        assert_eq!(got.iter().filter(|i| matches!(i, Item::Game(_))).count(), 2);
    }

    #[test]
    fn illegal_move_keeps_earlier_rows() {
        let pgn = "[Event \"t\"]\n\n1. e4 { [%eval 0.2] } 1... e5 { [%eval 0.9] } 2. Qxf7 { [%eval 9] } 1-0\n";
        let got = items(pgn);
        assert!(matches!(&got[1], Item::Row(r) if r.label == Label::Cp(20)));
        assert!(matches!(&got[2], Item::Row(r) if r.label == Label::Cp(90)));
        match &got[3] {
            Item::Reject(r) => {
                // The move's line, not the game's first.
                assert_eq!(r.line, 3);
                assert!(r.reason.starts_with("illegal move 2.Qxf7"), "{}", r.reason);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(got.len(), 4);
    }

    /// A rejected move or eval names its own line, not the game's first.
    #[test]
    fn rejects_name_the_line_of_their_move() {
        let pgn = "[Event \"t\"]\n[Site \"x\"]\n\n1. e4 { [%eval 0.2]\n still a comment } e5 (1... c5 2. Nf3)\n\
                   2. Nf3 $1 Nc6 ; a remark\n3. Bb5 { [%eval x] } a6\n4. Qxh8 1-0\n";
        let got = items(pgn);
        let rejects: Vec<(u64, &str)> = got
            .iter()
            .filter_map(|i| match i {
                Item::Reject(r) => Some((r.line, r.reason.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(rejects.len(), 2, "{rejects:?}");
        assert_eq!(rejects[0].0, 7, "{rejects:?}");
        assert!(rejects[0].1.starts_with("ply 5:"), "{rejects:?}");
        assert_eq!(rejects[1].0, 8, "{rejects:?}");
        assert!(
            rejects[1].1.starts_with("illegal move 4.Qxh8"),
            "{rejects:?}"
        );
        assert_eq!(move_line(pgn.as_bytes(), 1, 0), 4);
        assert_eq!(move_line(pgn.as_bytes(), 1, 1), 5);
        assert_eq!(move_line(pgn.as_bytes(), 1, 2), 6);
    }

    #[test]
    fn start_fen_and_bad_eval() {
        let pgn = "[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. e4 { [%eval 2.5] } 1... Kd7 { [%eval x] } 1-0\n";
        let got = items(pgn);
        match &got[1] {
            Item::Row(r) => {
                assert_eq!(r.fen().unwrap(), "4k3/8/8/8/4P3/8/8/4K3 b - -");
                assert_eq!(r.result, Some(GameResult::WhiteWins));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&got[2], Item::Reject(r) if r.reason.contains("bad [%eval]")));
    }

    #[test]
    fn eval_operand() {
        assert_eq!(find_eval(b" [%eval 0.17] "), Some(&b"0.17"[..]));
        assert_eq!(find_eval(b"[%clk 0:01:00] [%eval #-2]"), Some(&b"#-2"[..]));
        assert_eq!(find_eval(b"[%eval 1.5,20]"), Some(&b"1.5"[..]));
        assert_eq!(find_eval(b"nothing"), None);
        assert_eq!(parse_eval(b"-0.05"), Ok(Label::Cp(-5)));
    }
}
