//! Chess puzzles as files: reading them (EPD and PGN) into positions with their expected
//! or refuted moves. Solving them is the `solve` command's work.
//!
//! - EPD: `<board> <side> <castling> <ep> dm N; bm <SAN>…; am <SAN>…; id "<name>";`.
//!   `dm N` (side to move mates in N) makes a mate problem; `bm`/`am` give the expected
//!   (or refuted) moves, in SAN, UCI or long algebraic notation
//!   ([`crate::data::notation`]); an STS-style `c0 "f5=10, Be5+=2"` gives points
//!   per move (any other `c0` is a plain comment).
//! - PGN: a game with the start position in a `FEN` tag; its main line is the solution.
//!   If the line ends in checkmate the puzzle is a mate in N = (plies + 1) / 2.
//!
//! Unreadable puzzles are collected with their line number. The Lichess puzzle database
//! (CSV, millions of rows) is streamed instead: [`open`] gives its reader
//! ([`crate::data::lichess_puzzles`]).

use std::io::BufRead;
use std::ops::ControlFlow;
use std::path::Path;

use pgn_reader::{RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::{Chess, Move, Position};

use crate::Error;
use crate::Result;
use crate::chess::fen::{self, Leniency};
use crate::data::lichess_puzzles::{self, LichessReader};
use crate::data::{GameInfo, epd, notation};

/// The longest mate a `dm N` puzzle may ask for (the mate search's limit too).
pub const MAX_MATE_MOVES: u32 = 100;

/// One puzzle.
#[derive(Clone, Debug)]
pub struct Puzzle {
    /// Name: the EPD `id`, or White-Black and year for a PGN game.
    pub id: String,
    /// Line of the input where the puzzle starts (1-based).
    pub line: u64,
    /// The position to solve.
    pub position: Chess,
    /// Side to move mates in at most this many moves (EPD `dm`, or a PGN line ending in mate).
    pub mate_in: Option<u32>,
    /// Expected key moves (EPD `bm`, or the first move of a PGN solution).
    pub best_moves: Vec<Move>,
    /// Moves that must not be played (EPD `am`).
    pub avoid_moves: Vec<Move>,
    /// Points per move (an STS-style EPD `c0` comment); moves not listed score 0.
    pub points: Vec<(Move, u32)>,
    /// The PGN solution line (empty for EPD).
    pub solution: Vec<Move>,
}

use super::BadPuzzle;

/// Everything read from a puzzle file.
#[derive(Clone, Debug, Default)]
pub struct PuzzleSet {
    /// Puzzles in input order.
    pub puzzles: Vec<Puzzle>,
    /// Unreadable puzzles, skipped.
    pub bad: Vec<BadPuzzle>,
}

/// Puzzle file formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PuzzleFormat {
    /// One puzzle per line with EPD operations.
    Epd,
    /// Games with a FEN tag; the moves are the solution.
    Pgn,
}

impl PuzzleFormat {
    /// The format named by the file extension (`.epd`, `.pgn`, also before `.gz`/`.zst`).
    pub fn from_path(path: &Path) -> Option<PuzzleFormat> {
        let name = path.file_name()?.to_str()?.to_ascii_lowercase();
        let name = name
            .strip_suffix(".gz")
            .or_else(|| name.strip_suffix(".zst"))
            .unwrap_or(&name);
        if name.ends_with(".epd") {
            Some(PuzzleFormat::Epd)
        } else if name.ends_with(".pgn") {
            Some(PuzzleFormat::Pgn)
        } else {
            None
        }
    }

    /// Guesses from the first non-blank text: PGN starts with a `[Tag "..."]` line.
    pub fn sniff(head: &[u8]) -> PuzzleFormat {
        let first = head
            .split(|&b| b == b'\n')
            .map(|l| l.trim_ascii())
            .find(|l| !l.is_empty());
        match first {
            Some(l) if l.starts_with(b"[") => PuzzleFormat::Pgn,
            _ => PuzzleFormat::Epd,
        }
    }
}

/// Reads a puzzle file (plain, gzip or zstd; `-` for standard input). The format comes
/// from the extension, or from the content when the extension says nothing.
/// Fails only when the file cannot be opened or read.
pub fn load(path: &Path) -> Result<PuzzleSet> {
    let mut input = crate::data::open_input(path)?.reader;
    let format = match PuzzleFormat::from_path(path) {
        Some(f) => f,
        None => PuzzleFormat::sniff(input.fill_buf().map_err(|e| Error::io(path, e))?),
    };
    read(input, format).map_err(|e| Error::io(path, e))
}

/// An opened puzzle file.
pub enum Source {
    /// EPD or PGN, read whole.
    Set(PuzzleSet),
    /// The Lichess puzzle database, read row by row.
    Lichess(LichessReader<Box<dyn BufRead + Send>>),
}

/// Opens a puzzle file (plain, gzip or zstd; `-` for standard input): a file whose first
/// line is the Lichess puzzle header, or whose name ends in `.csv`, is the Lichess
/// database (streamed); any other is read whole as [`load`] does.
pub fn open(path: &Path) -> Result<Source> {
    let mut input = crate::data::open_input(path)?.reader;
    let head = input.fill_buf().map_err(|e| Error::io(path, e))?;
    if lichess_puzzles::is_header(head) || lichess_puzzles::is_csv_path(path) {
        return Ok(Source::Lichess(LichessReader::new(input)));
    }
    let format = match PuzzleFormat::from_path(path) {
        Some(f) => f,
        None => PuzzleFormat::sniff(head),
    };
    read(input, format)
        .map(Source::Set)
        .map_err(|e| Error::io(path, e))
}

/// Reads puzzles of `format` from `input`. Fails only on an I/O error.
pub fn read(input: impl BufRead, format: PuzzleFormat) -> std::io::Result<PuzzleSet> {
    match format {
        PuzzleFormat::Epd => read_epd(input),
        PuzzleFormat::Pgn => read_pgn(input),
    }
}

/// Reads EPD puzzles, one per line; blank lines and `#` comments are skipped.
pub fn read_epd(input: impl BufRead) -> std::io::Result<PuzzleSet> {
    let mut set = PuzzleSet::default();
    let broken = crate::data::for_each_line(input, |line, text| {
        match text {
            Err(_) => set.bad.push(BadPuzzle {
                line,
                reason: "not valid UTF-8".to_owned(),
            }),
            Ok(text) => {
                let text = text.trim();
                if text.is_empty() || text.starts_with('#') {
                    return Ok(());
                }
                match parse_epd_puzzle(text, line) {
                    Ok(p) => set.puzzles.push(p),
                    Err(e) => set.bad.push(BadPuzzle {
                        line,
                        reason: e.to_string(),
                    }),
                }
            }
        }
        Ok(())
    })
    .map_err(std::io::Error::other)?;
    match broken {
        Some((_, e)) => Err(e),
        None => Ok(set),
    }
}

/// Why a line or game is not a puzzle.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PuzzleError {
    /// The line is not EPD.
    #[error(transparent)]
    Epd(#[from] epd::EpdError),
    /// The position is not legal.
    #[error("{reason} in {fen:?}")]
    Fen {
        /// The FEN given.
        fen: String,
        /// The parser's reason.
        reason: String,
    },
    /// A `dm` that is no number of moves in range.
    #[error("bad dm {0:?} (expected a number of moves from 1 to {MAX_MATE_MOVES})")]
    Dm(String),
    /// A `dm` with other than one operand.
    #[error("bad dm operation {0:?} (expected one number)")]
    DmOperands(Vec<String>),
    /// A `bm` or `am` move that does not read.
    #[error("{opcode} {text:?}: {source}")]
    Move {
        /// `bm` or `am`.
        opcode: &'static str,
        /// The move as given.
        text: String,
        /// Why it does not read.
        source: notation::MoveTextError,
    },
    /// A `c0` points list whose moves do not read.
    #[error("{0}")]
    Points(String),
    /// Nothing to solve on the line.
    #[error("no dm, bm, am or c0 points: nothing to solve")]
    NothingToSolve,
    /// A PGN puzzle without its FEN tag.
    #[error("no FEN tag (a puzzle game starts from its FEN)")]
    NoFenTag,
    /// A PGN puzzle whose FEN tag is no legal position.
    #[error("FEN tag: {0}")]
    FenTag(Box<PuzzleError>),
    /// An illegal move in a PGN puzzle's solution.
    #[error("illegal move {0}")]
    IllegalMove(String),
    /// A PGN puzzle without moves.
    #[error("no moves: the solution is missing")]
    NoMoves,
    /// A PGN game the reader cannot read.
    #[error("unreadable game: {0}")]
    Unreadable(String),
}

/// Parses one EPD puzzle line.
pub fn parse_epd_puzzle(text: &str, line: u64) -> std::result::Result<Puzzle, PuzzleError> {
    let epd = epd::parse_line(text)?;
    let position = parse_puzzle_fen(&epd.fen)?;
    let mate_in = match epd.get("dm") {
        None => None,
        Some([n]) => match n.parse::<u32>() {
            Ok(n) if (1..=MAX_MATE_MOVES).contains(&n) => Some(n),
            _ => return Err(PuzzleError::Dm(n.clone())),
        },
        Some(other) => return Err(PuzzleError::DmOperands(other.to_vec())),
    };
    let moves = |opcode: &'static str| -> std::result::Result<Vec<Move>, PuzzleError> {
        epd.get(opcode)
            .unwrap_or_default()
            .iter()
            .map(|s| {
                notation::parse_move(&position, s).map_err(|source| PuzzleError::Move {
                    opcode,
                    text: s.clone(),
                    source,
                })
            })
            .collect()
    };
    let best_moves = moves("bm")?;
    let avoid_moves = moves("am")?;
    let points = match epd.get("c0") {
        Some(words) => notation::parse_points(&position, &words.join(" "))
            .unwrap_or(Ok(Vec::new()))
            .map_err(PuzzleError::Points)?,
        None => Vec::new(),
    };
    if mate_in.is_none() && best_moves.is_empty() && avoid_moves.is_empty() && points.is_empty() {
        return Err(PuzzleError::NothingToSolve);
    }
    let id = match epd.get("id") {
        Some([id]) => id.clone(),
        _ => format!("line {line}"),
    };
    Ok(Puzzle {
        id,
        line,
        position,
        mate_in,
        best_moves,
        avoid_moves,
        points,
        solution: Vec::new(),
    })
}

/// Parses a FEN/EPD position through the one FEN entry point: castling rights that the
/// position cannot have are dropped, as a solver would; anything else illegal is refused.
fn parse_puzzle_fen(text: &str) -> std::result::Result<Chess, PuzzleError> {
    fen::parse(text, Leniency::DropCastling).map_err(|e| PuzzleError::Fen {
        fen: text.to_owned(),
        reason: e.to_string(),
    })
}

/// Reads PGN puzzles: each game's `FEN` tag is the position, its main line the solution.
pub fn read_pgn(input: impl BufRead) -> std::io::Result<PuzzleSet> {
    let mut set = PuzzleSet::default();
    let broken = crate::data::pgn::for_each_game(input, |text, line| {
        parse_pgn_game(text, line, &mut set);
        Ok(())
    })
    .map_err(std::io::Error::other)?;
    match broken {
        Some((_, e)) => Err(e),
        None => Ok(set),
    }
}

fn parse_pgn_game(text: &[u8], line: u64, set: &mut PuzzleSet) {
    if text.trim_ascii().is_empty() {
        return;
    }
    let mut visitor = PuzzleVisitor { line };
    let result = match Reader::new(text).read_game(&mut visitor) {
        Ok(Some(r)) => r,
        Ok(None) => return,
        Err(e) => Err(PuzzleError::Unreadable(e.to_string())),
    };
    match result {
        Ok(p) => set.puzzles.push(p),
        Err(e) => set.bad.push(BadPuzzle {
            line,
            reason: e.to_string(),
        }),
    }
}

struct PuzzleVisitor {
    line: u64,
}

/// A tag value that says something (not empty, not `?`).
fn known(tag: &Option<String>) -> Option<&str> {
    tag.as_deref().filter(|s| !s.is_empty() && *s != "?")
}

struct PgnMoves {
    id: String,
    start: Chess,
    pos: Chess,
    moves: Vec<Move>,
}

impl Visitor for PuzzleVisitor {
    type Tags = GameInfo;
    type Movetext = PgnMoves;
    type Output = std::result::Result<Puzzle, PuzzleError>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, GameInfo> {
        ControlFlow::Continue(GameInfo::default())
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

    fn begin_movetext(&mut self, tags: GameInfo) -> ControlFlow<Self::Output, PgnMoves> {
        let Some(fen) = tags.start_fen else {
            return ControlFlow::Break(Err(PuzzleError::NoFenTag));
        };
        let start = match parse_puzzle_fen(&fen) {
            Ok(p) => p,
            Err(e) => return ControlFlow::Break(Err(PuzzleError::FenTag(Box::new(e)))),
        };
        let mut id = match (known(&tags.white), known(&tags.black)) {
            (Some(w), Some(b)) => format!("{w}-{b}"),
            (Some(w), None) => w.to_owned(),
            (None, Some(b)) => b.to_owned(),
            (None, None) => format!("line {}", self.line),
        };
        if let Some(year) = known(&tags.date)
            .and_then(|d| d.get(..4))
            .filter(|y| y.bytes().all(|b| b.is_ascii_digit()))
        {
            id = format!("{id} {year}");
        }
        ControlFlow::Continue(PgnMoves {
            id,
            pos: start.clone(),
            start,
            moves: Vec::new(),
        })
    }

    fn san(&mut self, game: &mut PgnMoves, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        match san_plus.san.to_move(&game.pos) {
            Ok(m) => {
                game.pos.play_unchecked(m);
                game.moves.push(m);
                ControlFlow::Continue(())
            }
            Err(e) => {
                let ply = game.moves.len() as u32;
                let number = ply / 2 + 1;
                let dots = if ply.is_multiple_of(2) { "." } else { "..." };
                ControlFlow::Break(Err(PuzzleError::IllegalMove(format!(
                    "{number}{dots}{san_plus} ({e})"
                ))))
            }
        }
    }

    fn begin_variation(&mut self, _game: &mut PgnMoves) -> ControlFlow<Self::Output, Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn end_game(&mut self, game: PgnMoves) -> Self::Output {
        let Some(&first) = game.moves.first() else {
            return Err(PuzzleError::NoMoves);
        };
        let mate_in = game
            .pos
            .is_checkmate()
            .then(|| (game.moves.len() as u32).div_ceil(2));
        Ok(Puzzle {
            id: game.id,
            line: self.line,
            position: game.start,
            mate_in,
            best_moves: vec![first],
            avoid_moves: Vec::new(),
            points: Vec::new(),
            solution: game.moves,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::san::San;

    fn epd(text: &str) -> PuzzleSet {
        read_epd(text.as_bytes()).unwrap()
    }

    fn pgn(text: &str) -> PuzzleSet {
        read_pgn(text.as_bytes()).unwrap()
    }

    fn san_of(p: &Puzzle, moves: &[Move]) -> Vec<String> {
        moves
            .iter()
            .map(|&m| San::from_move(&p.position, m).to_string())
            .collect()
    }

    #[test]
    fn epd_puzzles_and_their_operations() {
        let set = epd("# composed problems\n\
             3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - dm 2; bm Nd6; id \"baird-0\";\n\
             \n\
             4k3/8/8/8/8/8/8/4K2R w K - bm O-O; am Kf1 e1f2\n");
        assert!(set.bad.is_empty(), "{:?}", set.bad);
        assert_eq!(set.puzzles.len(), 2);
        let a = &set.puzzles[0];
        assert_eq!((a.id.as_str(), a.line, a.mate_in), ("baird-0", 2, Some(2)));
        assert_eq!(san_of(a, &a.best_moves), ["Nd6"]);
        let b = &set.puzzles[1];
        assert_eq!((b.id.as_str(), b.line, b.mate_in), ("line 4", 4, None));
        assert_eq!(san_of(b, &b.best_moves), ["O-O"]);
        // SAN and UCI both work for am.
        assert_eq!(san_of(b, &b.avoid_moves), ["Kf1", "Kf2"]);
    }

    #[test]
    fn epd_impossible_castling_rights_are_dropped() {
        // KQkq with no rooks: the rights go, the puzzle stays.
        let set = epd("4k3/8/8/8/8/8/8/4K3 w KQkq - dm 1;\n");
        assert!(set.bad.is_empty(), "{:?}", set.bad);
        assert!(set.puzzles[0].position.castles().is_empty());
    }

    #[test]
    fn malformed_epd_lines_are_reported_with_their_line() {
        let text = "3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - dm 2; bm Nd6;\n\
                    3N1K2/B7/4P3/1Nrpk1P1 w - - dm 2;\n\
                    3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - dm two;\n\
                    3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - dm 0;\n\
                    3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - dm 2; bm Nd7;\n\
                    3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - id \"x\";\n\
                    3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - dm 2; id \"open\n\
                    k7/8/8/8/8/8/8/K7 w\n\
                    kk6/8/8/8/8/8/8/K7 w - - dm 1;\n";
        let mut bytes = text.as_bytes().to_vec();
        bytes.extend_from_slice(b"\xff\xfe dm 2;\n");
        let set = read_epd(bytes.as_slice()).unwrap();
        assert_eq!(set.puzzles.len(), 1);
        let lines: Vec<u64> = set.bad.iter().map(|b| b.line).collect();
        assert_eq!(lines, [2, 3, 4, 5, 6, 7, 8, 9, 10]);
        let reason = |line: u64| &set.bad.iter().find(|b| b.line == line).unwrap().reason;
        assert!(reason(2).contains("invalid FEN"), "{}", reason(2));
        assert!(reason(3).contains("bad dm \"two\""), "{}", reason(3));
        assert!(reason(4).contains("bad dm \"0\""), "{}", reason(4));
        assert!(reason(5).starts_with("bm \"Nd7\""), "{}", reason(5));
        assert!(reason(6).contains("nothing to solve"), "{}", reason(6));
        assert!(reason(7).contains("unterminated"), "{}", reason(7));
        assert!(reason(8).contains("4 position fields"), "{}", reason(8));
        assert!(reason(9).contains("illegal position"), "{}", reason(9));
        assert_eq!(reason(10), "not valid UTF-8");
    }

    const BUCKLE: &str = "[Event \"?\"]\n[White \"Henry Buckle\"]\n[Black \"NN\"]\n[Date \"1840.??.??\"]\n\
        [FEN \"r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 0\"]\n[SetUp \"1\"]\n\n\
        1. Nf6+ gxf6 2. Bxf7# *\n\n";

    #[test]
    fn pgn_mate_puzzle() {
        let set = pgn(BUCKLE);
        assert!(set.bad.is_empty(), "{:?}", set.bad);
        let p = &set.puzzles[0];
        assert_eq!(
            (p.id.as_str(), p.line, p.mate_in),
            ("Henry Buckle-NN 1840", 1, Some(2))
        );
        assert_eq!(san_of(p, &p.best_moves), ["Nf6"]);
        assert_eq!(p.solution.len(), 3);
        // The FEN's castling rights are legal here and kept.
        assert!(!p.position.castles().is_empty());
    }

    #[test]
    fn pgn_line_not_ending_in_mate_is_a_best_move_puzzle() {
        let set = pgn("[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 Kd7 2. e5 *\n");
        let p = &set.puzzles[0];
        assert_eq!(p.mate_in, None);
        assert_eq!(san_of(p, &p.best_moves), ["e4"]);
        assert_eq!(p.id, "line 1");
    }

    #[test]
    fn malformed_pgn_games_are_reported_with_their_line() {
        let text = format!(
            "{BUCKLE}[Event \"no fen\"]\n\n1. e4 e5 *\n\n\
             [FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1. e4 *\n\n\
             [FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 Kd7 2. e6 *\n\n\
             [FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n*\n\n{BUCKLE}"
        );
        let set = pgn(&text);
        assert_eq!(set.puzzles.len(), 2);
        assert_eq!(set.puzzles[1].line, 26);
        let bad: Vec<(u64, &str)> = set
            .bad
            .iter()
            .map(|b| (b.line, b.reason.as_str()))
            .collect();
        assert_eq!(bad.len(), 4, "{bad:?}");
        assert_eq!(bad[0].0, 10);
        assert!(bad[0].1.contains("no FEN tag"), "{}", bad[0].1);
        assert_eq!(bad[1].0, 14);
        assert!(bad[1].1.contains("illegal position"), "{}", bad[1].1);
        assert_eq!(bad[2].0, 18);
        assert!(bad[2].1.starts_with("illegal move 2.e6"), "{}", bad[2].1);
        assert_eq!(bad[3].0, 22);
        assert!(bad[3].1.contains("no moves"), "{}", bad[3].1);
    }

    #[test]
    fn format_from_extension_or_content() {
        assert_eq!(
            PuzzleFormat::from_path(Path::new("a/b.EPD")),
            Some(PuzzleFormat::Epd)
        );
        assert_eq!(
            PuzzleFormat::from_path(Path::new("x.pgn.zst")),
            Some(PuzzleFormat::Pgn)
        );
        assert_eq!(PuzzleFormat::from_path(Path::new("x.txt")), None);
        assert_eq!(
            PuzzleFormat::sniff(b"\n  [Event \"x\"]\n"),
            PuzzleFormat::Pgn
        );
        assert_eq!(
            PuzzleFormat::sniff(b"8/8/8 w - - dm 2;\n"),
            PuzzleFormat::Epd
        );
    }
}
