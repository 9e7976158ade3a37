//! Input formats: CSV in the chessData.csv style, Lichess-style PGN with `[%eval]`
//! comments, EPD, and the Lichess evaluation database (JSON lines) — plain, gzip or zstd,
//! from a file or standard input; and one output format, the training data of the bullet
//! trainer ([`bullet`]).
//!
//! Every reader turns its input into a stream of [`Item`]s: validated rows, rejected
//! rows (with line and reason), and game headers for PGN. Validation uses shakmaty: a row
//! becomes a [`Row`] only if its position is legal.

pub mod bullet;
pub mod csv;
pub mod epd;
pub mod label;
pub mod lichess;
pub mod lichess_puzzles;
pub mod notation;
pub mod openings;
pub mod pgn;
pub mod puzzles;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use indicatif::ProgressBar;

use crate::Error;
use crate::Result;
pub use crate::error::cut;
use label::parse_signed;
pub use label::{BadEvaluation, Label, MAX_LABEL_CP, check_label};

/// A puzzle that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadPuzzle {
    /// Line of the input (for PGN, the line where the game starts).
    pub line: u64,
    /// What was wrong.
    pub reason: String,
}

impl std::fmt::Display for BadPuzzle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

/// Longest text kept for a rejected row.
pub const MAX_REJECT_TEXT: usize = 200;

/// Input format of a file.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// `FEN,Evaluation` rows (chessData.csv style).
    Csv,
    /// PGN games with `[%eval]` comments.
    Pgn,
    /// EPD lines with `ce`/`dm` and optional result (`c9`) opcodes.
    Epd,
    /// The Lichess evaluation database: one JSON object a line (`.jsonl`).
    LichessEvals,
}

impl Format {
    /// Every format, for option parsers and messages.
    pub const ALL: [Format; 4] = [Format::Csv, Format::Pgn, Format::Epd, Format::LichessEvals];

    /// Name stored in `sources.format`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Pgn => "pgn",
            Format::Epd => "epd",
            Format::LichessEvals => "lichess-evals",
        }
    }

    /// Guesses the format from a file name (`.csv`, `.pgn`, `.epd`, `.jsonl`, optionally
    /// followed by `.gz` or `.zst`).
    pub fn from_path(path: &Path) -> Option<Format> {
        let name = path.file_name()?.to_str()?.to_ascii_lowercase();
        let name = name
            .strip_suffix(".gz")
            .or_else(|| name.strip_suffix(".zst"))
            .or_else(|| name.strip_suffix(".zstd"))
            .unwrap_or(&name);
        let ext = Path::new(name).extension()?.to_str()?;
        match ext {
            "csv" => Some(Format::Csv),
            "pgn" => Some(Format::Pgn),
            "epd" => Some(Format::Epd),
            "jsonl" => Some(Format::LichessEvals),
            _ => None,
        }
    }
}

/// Whose point of view the input's evaluations use.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Pov {
    /// Positive means White is better (chessData.csv, Lichess).
    White,
    /// Positive means the side to move is better (EPD `ce`, most engines).
    Stm,
}

impl Pov {
    /// Both points of view, for option parsers.
    pub const ALL: [Pov; 2] = [Pov::White, Pov::Stm];

    /// Name stored in `sources.pov`.
    pub fn as_str(self) -> &'static str {
        match self {
            Pov::White => "white",
            Pov::Stm => "stm",
        }
    }
}

/// Compression of an input stream, detected from its first bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Plain text.
    None,
    /// gzip (`1f 8b`).
    Gzip,
    /// Zstandard (`28 b5 2f fd`).
    Zstd,
}

impl Compression {
    /// Name stored in `sources.compression`.
    pub fn as_str(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
        }
    }
}

/// An opened, decompressing input.
pub struct Input {
    /// Decompressed bytes.
    pub reader: Box<dyn BufRead + Send>,
    /// What compression was found.
    pub compression: Compression,
}

/// Opens `path` (`-` for standard input), detecting gzip or zstd by magic bytes.
pub fn open_input(path: &Path) -> Result<Input> {
    open_input_with_progress(path, &ProgressBar::hidden())
}

/// Like [`open_input`], advancing `progress` by the (compressed) bytes consumed.
pub fn open_input_with_progress(path: &Path, progress: &ProgressBar) -> Result<Input> {
    let raw: Box<dyn Read + Send> = if path == Path::new("-") {
        Box::new(progress.wrap_read(io::stdin()))
    } else {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        if let Ok(meta) = file.metadata() {
            progress.set_length(meta.len());
        }
        Box::new(progress.wrap_read(file))
    };
    let mut buffered = BufReader::with_capacity(1 << 16, raw);
    let head = buffered.fill_buf().map_err(|e| Error::io(path, e))?;
    let compression = if head.starts_with(&[0x1f, 0x8b]) {
        Compression::Gzip
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Compression::Zstd
    } else {
        Compression::None
    };
    let reader: Box<dyn BufRead + Send> = match compression {
        Compression::None => Box::new(buffered),
        Compression::Gzip => Box::new(BufReader::with_capacity(
            1 << 16,
            flate2::bufread::MultiGzDecoder::new(buffered),
        )),
        Compression::Zstd => Box::new(BufReader::with_capacity(
            1 << 16,
            zstd::stream::read::Decoder::with_buffer(buffered).map_err(|e| Error::io(path, e))?,
        )),
    };
    Ok(Input {
        reader,
        compression,
    })
}

/// A game result.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
}

impl GameResult {
    /// Parses `1-0`, `0-1`, `1/2-1/2` (anything else, like `*`, is unknown).
    pub fn parse(s: &str) -> Option<GameResult> {
        match s.trim() {
            "1-0" => Some(GameResult::WhiteWins),
            "0-1" => Some(GameResult::BlackWins),
            "1/2-1/2" | "½-½" => Some(GameResult::Draw),
            _ => None,
        }
    }

    /// The PGN spelling, as stored in `positions.result`.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// White's score: 1, ½ or 0.
    pub fn white_score(self) -> f64 {
        match self {
            GameResult::WhiteWins => 1.0,
            GameResult::BlackWins => 0.0,
            GameResult::Draw => 0.5,
        }
    }
}

/// A validated input row.
#[derive(Clone, Debug)]
pub struct Row {
    /// 1-based line in the decompressed input (for PGN: the line of the game's first tag).
    pub line: u64,
    /// The position's identity (board, side, castling, en passant only if a legal capture
    /// exists), packed ([`crate::chess::packed`]): the key it is stored under.
    pub board: Vec<u8>,
    /// The FEN as given (PGN: the FEN of the position reached) where it differs from the
    /// normalized FEN of `board`; `None` where it is that FEN.
    pub fen_input: Option<String>,
    /// Evaluation, White's point of view.
    pub label: Label,
    /// Game result, if known.
    pub result: Option<GameResult>,
    /// Plies from the game's start position (PGN only).
    pub ply: Option<u32>,
    /// The search the label came from, when the input says (Lichess evaluations): also
    /// stored as that labeller's label.
    pub engine: Option<EngineScore>,
    /// The engine's best move the input gives (EPD `bm`), UCI.
    pub best_move: Option<String>,
    /// The move played next from the position in its game (PGN), UCI.
    pub next_move: Option<String>,
}

impl Row {
    /// A row of `pos`, given as `fen_input`, with `label` and nothing else known.
    pub fn new(line: u64, pos: &shakmaty::Chess, fen_input: &str, label: Label) -> Row {
        let normalized = crate::chess::fen::normalized_fen(pos);
        Row {
            line,
            board: crate::chess::packed::pack(pos),
            fen_input: (fen_input != normalized).then(|| fen_input.to_owned()),
            label,
            result: None,
            ply: None,
            engine: None,
            best_move: None,
            next_move: None,
        }
    }

    /// The normalized FEN of the position (what `positions.fen` shows).
    pub fn fen(&self) -> Result<String> {
        let pos = crate::chess::packed::unpack(&self.board).map_err(|e| self.unpacking(e))?;
        Ok(crate::chess::fen::normalized_fen(&pos))
    }

    /// The position as given (move counters included where the input had them). The
    /// readers made the row of a FEN that parsed, so a failure is
    /// [`Error::Internal`].
    pub fn position(&self) -> Result<shakmaty::Chess> {
        match &self.fen_input {
            Some(fen) => crate::chess::fen::parse(fen, crate::chess::fen::Leniency::DropCastling)
                .map_err(|e| {
                    Error::Internal(format!(
                        "line {}: the reader's FEN {fen} no longer parses: {e}",
                        self.line
                    ))
                }),
            None => crate::chess::packed::unpack(&self.board).map_err(|e| self.unpacking(e)),
        }
    }

    /// A board that does not unpack: [`Row::new`] packed it from a position, so a bug.
    fn unpacking(&self, e: crate::chess::packed::PackedError) -> Error {
        Error::Internal(format!(
            "line {}: the packed board does not unpack: {e}",
            self.line
        ))
    }
}

/// The engine search behind an input row's label.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EngineScore {
    /// Name the label is stored under in the `labels` table (e.g. `lichess`).
    pub labeller: &'static str,
    /// Search depth.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
}

/// A row that could not be imported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reject {
    /// 1-based line in the decompressed input.
    pub line: u64,
    /// The offending text, cut to [`MAX_REJECT_TEXT`] characters.
    pub text: String,
    /// Why it was rejected.
    pub reason: String,
}

impl Reject {
    /// A rejection of `text` at `line`, cutting the text to a sane length.
    pub fn new(line: u64, text: &str, reason: impl Into<String>) -> Reject {
        Reject {
            line,
            text: cut(text, MAX_REJECT_TEXT),
            reason: reason.into(),
        }
    }
}

/// A PGN game's header.
#[derive(Clone, Debug, Default)]
pub struct GameInfo {
    /// Line of the game's first tag.
    pub line: u64,
    /// `White` tag.
    pub white: Option<String>,
    /// `Black` tag.
    pub black: Option<String>,
    /// `Event` tag.
    pub event: Option<String>,
    /// `Date` tag.
    pub date: Option<String>,
    /// `Result` tag, if a decisive or drawn result.
    pub result: Option<GameResult>,
    /// `FEN` tag, if the game starts from a set-up position.
    pub start_fen: Option<String>,
}

impl GameInfo {
    /// Keeps a PGN tag this crate uses (`White`, `Black`, `Event`, `Date`, `Result`,
    /// `FEN`); the game and puzzle readers share it.
    pub fn set_tag(&mut self, name: &[u8], value: String) {
        match name {
            b"White" => self.white = Some(value),
            b"Black" => self.black = Some(value),
            b"Event" => self.event = Some(value),
            b"Date" => self.date = Some(value),
            b"Result" => self.result = GameResult::parse(&value),
            b"FEN" => self.start_fen = Some(value),
            _ => {}
        }
    }
}

/// What a reader produces.
#[derive(Clone, Debug)]
pub enum Item {
    /// A new game starts; rows until the next `Game` belong to it.
    Game(GameInfo),
    /// A valid row.
    Row(Row),
    /// A rejected row.
    Reject(Reject),
}

/// Receives items from a reader; returning an error stops reading.
pub trait Sink {
    /// Takes one item.
    fn item(&mut self, item: Item) -> Result<()>;
}

impl<F: FnMut(Item) -> Result<()>> Sink for F {
    fn item(&mut self, item: Item) -> Result<()> {
        self(item)
    }
}

/// Options shared by the readers.
#[derive(Copy, Clone, Debug)]
pub struct ReadOptions {
    /// Point of view of CSV evaluations (EPD `ce` is always side to move, PGN always White).
    pub pov: Pov,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions { pov: Pov::White }
    }
}

/// Reads `input` in `format`, sending every item to `sink`. A read error in the middle of
/// the stream (e.g. a truncated .gz) becomes a final [`Reject`] at the line where it
/// happened; only a sink error is returned.
pub fn read(
    format: Format,
    input: impl BufRead,
    opts: ReadOptions,
    sink: &mut dyn Sink,
) -> Result<()> {
    match format {
        Format::Csv => csv::read(input, opts, sink),
        Format::Pgn => pgn::read(input, sink),
        Format::Epd => epd::read(input, sink),
        Format::LichessEvals => lichess::read(input, sink),
    }
}

/// One line of a line-based input: its text, or its raw bytes when not UTF-8.
pub type Line<'a> = std::result::Result<&'a str, &'a [u8]>;

/// Calls `f(line_no, line)` for every line of `input` (1-based numbers; a UTF-8 BOM on the
/// first line and the `\n` / `\r\n` ending removed). Stops at the first error of `f`.
/// Returns `Ok(Some((line, error)))` when the input itself broke (a truncated .gz, an I/O
/// error) at that line, so callers can report it and keep what came before.
pub fn for_each_line(
    mut input: impl BufRead,
    mut f: impl FnMut(u64, Line<'_>) -> Result<()>,
) -> Result<Option<(u64, io::Error)>> {
    let mut buf = Vec::with_capacity(256);
    let mut line = 0u64;
    loop {
        buf.clear();
        line += 1;
        match input.read_until(b'\n', &mut buf) {
            Ok(0) => return Ok(None),
            Ok(_) => {}
            Err(e) => return Ok(Some((line, e))),
        }
        let mut bytes = buf.as_slice();
        if line == 1 {
            bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
        }
        let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        f(line, std::str::from_utf8(bytes).map_err(|_| bytes))?;
    }
}

/// Reads a line-based format (EPD, the Lichess evaluation database): each line not valid
/// UTF-8 is rejected as such, `item` turns the others (trimmed) into an item or skips
/// them (`None`: a blank line, a comment), and a broken input is
/// [`crate::Error::BrokenInput`] at its line, after every item before it.
pub fn read_lines(
    input: impl BufRead,
    sink: &mut dyn Sink,
    mut item: impl FnMut(&str, u64) -> Option<Item>,
) -> Result<()> {
    let broken = for_each_line(input, |line, text| match text {
        Err(bytes) => sink.item(Item::Reject(Reject::new(
            line,
            &String::from_utf8_lossy(bytes),
            "not valid UTF-8",
        ))),
        Ok(text) => match item(text.trim(), line) {
            Some(i) => sink.item(i),
            None => Ok(()),
        },
    })?;
    match broken {
        Some((line, source)) => Err(crate::Error::BrokenInput { line, source }),
        None => Ok(()),
    }
}

/// Every item a reader makes of `text` (tests of the readers).
#[cfg(test)]
pub(crate) fn collect_items(
    read: impl FnOnce(&[u8], &mut dyn Sink) -> Result<()>,
    text: &str,
) -> Vec<Item> {
    let mut out = Vec::new();
    read(text.as_bytes(), &mut |i| {
        out.push(i);
        Ok(())
    })
    .expect("reading from memory does not fail");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::{normalized_fen, parse_position};
    use shakmaty::Color;

    /// A row whose board or FEN the reader made no longer reading back is the program's
    /// bug, not the user's input.
    #[test]
    fn a_row_that_does_not_read_back_is_a_bug() {
        let pos = shakmaty::Chess::default();
        let mut row = Row::new(7, &pos, "not a fen", Label::Cp(10));
        let e = row.position().unwrap_err();
        assert!(matches!(e, Error::Internal(_)) && !e.is_users(), "{e:?}");
        assert!(e.to_string().starts_with("internal error: line 7:"), "{e}");
        row.board.truncate(3);
        let e = row.fen().unwrap_err();
        assert!(matches!(e, Error::Internal(_)) && !e.is_users(), "{e:?}");
    }

    #[test]
    fn csv_labels() {
        assert_eq!(Label::parse_csv("+56"), Ok(Label::Cp(56)));
        assert_eq!(Label::parse_csv("-10"), Ok(Label::Cp(-10)));
        assert_eq!(Label::parse_csv("0"), Ok(Label::Cp(0)));
        assert_eq!(Label::parse_csv("#+3"), Ok(Label::Mate(3)));
        assert_eq!(Label::parse_csv("#-2"), Ok(Label::Mate(-2)));
        assert_eq!(Label::parse_csv(" #4 "), Ok(Label::Mate(4)));
        for bad in [
            "",
            "+",
            "#",
            "abc",
            "1.5",
            "++3",
            "#+",
            "99999999999",
            "# 3",
        ] {
            assert!(Label::parse_csv(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn centipawns_beyond_the_limit_are_refused() {
        let pos = shakmaty::Chess::default();
        assert_eq!(check_label(Label::Cp(20_000), &pos), Ok(Label::Cp(20_000)));
        assert_eq!(
            check_label(Label::Cp(-15_312), &pos),
            Ok(Label::Cp(-15_312))
        );
        assert_eq!(
            check_label(Label::Cp(40_000), &pos),
            Err(BadEvaluation::OutOfRange(40_000))
        );
        assert_eq!(
            check_label(Label::Cp(-20_001), &pos),
            Err(BadEvaluation::OutOfRange(-20_001))
        );
    }

    #[test]
    fn pov_flip() {
        assert_eq!(Label::Cp(30).to_white_pov(Color::Black), Label::Cp(-30));
        assert_eq!(Label::Mate(2).to_white_pov(Color::Black), Label::Mate(-2));
        assert_eq!(Label::Mate(2).to_white_pov(Color::White), Label::Mate(2));
    }

    #[test]
    fn normalization_drops_useless_ep_square() {
        // After 1. e4 the FEN names e3, but no black pawn can capture: not part of the key.
        let pos =
            parse_position("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1").unwrap();
        assert_eq!(
            normalized_fen(&pos),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -"
        );
        // A legal en passant capture keeps it.
        let pos = parse_position("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1").unwrap();
        assert_eq!(normalized_fen(&pos), "4k3/8/8/8/3pP3/8/8/4K3 b - e3");
    }

    #[test]
    fn illegal_positions_are_refused() {
        // Side not to move in check.
        assert!(parse_position("4k3/8/8/8/8/8/4R3/4K3 w - - 0 1").is_err());
        // Two white kings.
        assert!(parse_position("4k3/8/8/8/8/8/8/3KK3 w - - 0 1").is_err());
        // Pawn on the first rank.
        assert!(parse_position("4k3/8/8/8/8/8/8/P3K3 w - - 0 1").is_err());
        assert!(parse_position("not a fen").is_err());
    }

    #[test]
    fn impossible_castling_rights_are_dropped() {
        let pos = parse_position("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1").unwrap();
        assert_eq!(normalized_fen(&pos), "4k3/8/8/8/8/8/8/4K3 w - -");
    }

    #[test]
    fn format_from_path() {
        assert_eq!(
            Format::from_path(Path::new("a/b.csv.zst")),
            Some(Format::Csv)
        );
        assert_eq!(
            Format::from_path(Path::new("games.PGN.gz")),
            Some(Format::Pgn)
        );
        assert_eq!(Format::from_path(Path::new("x.epd")), Some(Format::Epd));
        assert_eq!(
            Format::from_path(Path::new("lichess_db_eval.jsonl.zst")),
            Some(Format::LichessEvals)
        );
        assert_eq!(Format::from_path(Path::new("x.txt")), None);
    }

    #[test]
    fn cut_is_char_safe() {
        assert_eq!(cut("ééé", 2), "éé…");
        assert_eq!(cut("ab", 2), "ab");
    }
}
