//! Writing a game as PGN (the export format of the PGN standard): tags with their values
//! escaped (`\` → `\\`, `"` → `\"`), `SetUp` and `FEN` for a game that does not start
//! from the standard position, then SAN movetext with move numbers (`N...` for a Black
//! move that opens the movetext or follows a comment), wrapped to fit 80 columns (lines
//! of at most 79 characters, the export format's rule), and the result.

use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, Move, Position};

use crate::chess::fen::to_fen;

/// The most characters on a movetext line.
const WIDTH: usize = 79;

/// A game to write: tags, start position, moves and result.
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    /// Tags written before `Result` (the roster: `Event`, `Site`, `Date`, `Round`,
    /// `White`, `Black`), as name and unescaped value.
    pub roster: &'a [(&'a str, &'a str)],
    /// Tags written after `Result` and the start position's `SetUp`/`FEN`.
    pub extra: &'a [(&'a str, &'a str)],
    /// Start position.
    pub start: &'a Chess,
    /// The moves, legal from `start`.
    pub moves: &'a [Move],
    /// `1-0`, `0-1`, `1/2-1/2` or `*`: the `Result` tag and the movetext's last token.
    pub result: &'a str,
}

/// A tag value with `\` and `"` escaped as the PGN standard wants.
pub fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

impl Record<'_> {
    /// The game as PGN, ending in one newline.
    pub fn write(&self) -> String {
        self.write_with_comments(|_, _| None)
    }

    /// The game as PGN, ending in one newline; `comment(i, after)` gives the text of a
    /// `{ }` comment written after move `i` (0-based), `after` being the position the
    /// move leads to.
    pub fn write_with_comments(
        &self,
        mut comment: impl FnMut(usize, &Chess) -> Option<String>,
    ) -> String {
        let mut out = String::new();
        let mut tag = |name: &str, value: &str| {
            out.push_str(&format!("[{name} \"{}\"]\n", escape(value)));
        };
        for (name, value) in self.roster {
            tag(name, value);
        }
        tag("Result", self.result);
        if *self.start != Chess::default() {
            tag("SetUp", "1");
            tag("FEN", &to_fen(self.start));
        }
        for (name, value) in self.extra {
            tag(name, value);
        }
        out.push('\n');

        let mut pos = self.start.clone();
        let mut line = String::new();
        let mut push = |out: &mut String, token: &str| {
            if !line.is_empty() && line.len() + 1 + token.len() > WIDTH {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(token);
        };
        let mut commented = false;
        for (i, &m) in self.moves.iter().enumerate() {
            let number = match pos.turn() {
                Color::White => format!("{}. ", pos.fullmoves()),
                Color::Black if i == 0 || commented => format!("{}... ", pos.fullmoves()),
                Color::Black => String::new(),
            };
            let san = SanPlus::from_move_and_play_unchecked(&mut pos, m);
            push(&mut out, &format!("{number}{san}"));
            let text = comment(i, &pos);
            commented = text.is_some();
            if let Some(text) = text {
                push(&mut out, &format!("{{ {text} }}"));
            }
        }
        push(&mut out, self.result);
        out.push_str(&line);
        out.push('\n');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::{Leniency, parse};
    use pgn_reader::{RawTag, Reader, SanPlus as ReadSan, Visitor};
    use std::ops::ControlFlow;

    /// Tags (decoded) and SAN moves as pgn-reader reads them.
    #[derive(Default)]
    struct Read {
        tags: Vec<(String, String)>,
        sans: Vec<ReadSan>,
    }

    impl Visitor for Read {
        type Tags = ();
        type Movetext = ();
        type Output = ();
        fn begin_tags(&mut self) -> ControlFlow<(), ()> {
            ControlFlow::Continue(())
        }
        fn tag(&mut self, _: &mut (), name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
            let name = String::from_utf8_lossy(name).into_owned();
            self.tags
                .push((name, value.decode_utf8_lossy().into_owned()));
            ControlFlow::Continue(())
        }
        fn begin_movetext(&mut self, _: ()) -> ControlFlow<(), ()> {
            ControlFlow::Continue(())
        }
        fn san(&mut self, _: &mut (), san: ReadSan) -> ControlFlow<()> {
            self.sans.push(san);
            ControlFlow::Continue(())
        }
        fn end_game(&mut self, _: ()) {}
    }

    fn play(start: &Chess, ucis: &[&str]) -> Vec<Move> {
        let mut pos = start.clone();
        ucis.iter()
            .map(|u| {
                let m = crate::chess::moves::parse_uci(&pos, u).unwrap();
                pos.play_unchecked(m);
                m
            })
            .collect()
    }

    #[test]
    fn escapes_tags_numbers_black_start_and_reads_back() {
        let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 2";
        let start = parse(fen, Leniency::Strict).unwrap();
        // Knights out and back: 30 plies, enough to wrap.
        let shuffle = ["g8f6", "b1c3", "f6g8", "c3b1"];
        let ucis: Vec<&str> = shuffle.iter().copied().cycle().take(30).collect();
        let moves = play(&start, &ucis);
        let white = r#"A "quoted" \ name"#;
        let game = Record {
            roster: &[("Event", "t"), ("White", white), ("Black", "B")],
            extra: &[("Termination", "fifty-move rule")],
            start: &start,
            moves: &moves,
            result: "1/2-1/2",
        };
        let text = game.write();
        assert!(text.contains(r#"[White "A \"quoted\" \\ name"]"#), "{text}");
        assert!(text.contains("[SetUp \"1\"]\n[FEN \"r1bqkbnr/"), "{text}");
        assert!(
            text.contains("\n\n2... Nf6 3. Nc3 Ng8 4. Nb1 Nf6"),
            "{text}"
        );
        assert!(text.lines().all(|l| l.len() <= WIDTH), "{text}");
        assert!(
            text.lines().filter(|l| !l.starts_with('[')).count() > 2,
            "{text}"
        );
        assert!(text.ends_with(" 1/2-1/2\n"), "{text}");

        let mut read = Read::default();
        Reader::new(text.as_bytes()).read_game(&mut read).unwrap();
        let tag = |name: &str| {
            read.tags
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(tag("White").as_deref(), Some(white));
        assert_eq!(tag("FEN").as_deref(), Some(fen));
        assert_eq!(tag("Result").as_deref(), Some("1/2-1/2"));
        let mut pos = start.clone();
        let back: Vec<Move> = read
            .sans
            .iter()
            .map(|s| {
                let m = s.san.to_move(&pos).unwrap();
                pos.play_unchecked(m);
                m
            })
            .collect();
        assert_eq!(back, moves);
    }

    #[test]
    fn standard_start_has_no_fen_and_comments_renumber() {
        let start = Chess::default();
        let moves = play(&start, &["e2e4", "e7e5", "g1f3"]);
        let game = Record {
            roster: &[("Event", "t")],
            extra: &[],
            start: &start,
            moves: &moves,
            result: "*",
        };
        let text = game.write_with_comments(|i, _| (i == 0).then(|| "[%eval 0.3]".to_owned()));
        assert!(!text.contains("FEN"), "{text}");
        assert_eq!(
            text,
            "[Event \"t\"]\n[Result \"*\"]\n\n1. e4 { [%eval 0.3] } 1... e5 2. Nf3 *\n"
        );
    }
}
