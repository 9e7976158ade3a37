//! The Lichess puzzle database (<https://database.lichess.org/#puzzles>), read as a stream:
//! a CSV with the header
//! `PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl,OpeningTags`
//! and millions of rows.
//!
//! The FEN is the position *before* the opponent's move, the first of `Moves` (UCI moves
//! separated by spaces); the puzzle starts after it. The rest of `Moves` is the solution:
//! the player's move, the opponent's reply, ..., ending with the player's move, so `Moves`
//! always has an even number of moves. `Themes` and `OpeningTags` are space-separated.
//!
//! A row with the wrong number of columns, a FEN that does not read, an illegal or
//! unreadable move, an odd number of moves or a number that does not read is a
//! [`BadPuzzle`] with its line; reading goes on. The older 9-column database (no
//! `OpeningTags`) reads too when its header says so.

use std::io::BufRead;
use std::path::Path;

use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move, Position};

use super::BadPuzzle;
use super::csv::split_fields;
use crate::chess::fen::{self, Leniency};

/// The database's columns, in order.
pub const COLUMNS: [&str; 10] = [
    "PuzzleId",
    "FEN",
    "Moves",
    "Rating",
    "RatingDeviation",
    "Popularity",
    "NbPlays",
    "Themes",
    "GameUrl",
    "OpeningTags",
];

/// One puzzle of the database.
#[derive(Clone, Debug)]
pub struct LichessPuzzle {
    /// `PuzzleId`.
    pub id: String,
    /// Line of the input (1-based).
    pub line: u64,
    /// The `FEN` position, before the opponent's move.
    pub before: Chess,
    /// The opponent's move that sets the puzzle (the first of `Moves`).
    pub setup: Move,
    /// The position to solve: `before` after `setup`.
    pub position: Chess,
    /// The solution from `position`: the player's moves at even indexes, the opponent's
    /// replies at odd ones; it ends with a player's move.
    pub solution: Vec<Move>,
    /// `Rating`.
    pub rating: u32,
    /// `RatingDeviation`.
    pub rating_deviation: u32,
    /// `Popularity` (-100 to 100).
    pub popularity: i32,
    /// `NbPlays`.
    pub plays: u64,
    /// `Themes`.
    pub themes: Vec<String>,
    /// `GameUrl`.
    pub game_url: String,
    /// `OpeningTags` (empty for most puzzles and in the 9-column database).
    pub opening_tags: Vec<String>,
}

impl LichessPuzzle {
    /// How many moves the player must find.
    pub fn player_moves(&self) -> usize {
        self.solution.len().div_ceil(2)
    }

    /// Whether `Themes` names `theme`.
    pub fn has_theme(&self, theme: &str) -> bool {
        self.themes.iter().any(|t| t == theme)
    }
}

/// Whether a file's first bytes are the database's header (the first three column names
/// are enough).
pub fn is_header(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    head.starts_with(b"PuzzleId,FEN,Moves")
}

/// Whether a file name ends in `.csv` (also before `.gz`/`.zst`): a puzzle file named so
/// is read as the Lichess database.
pub fn is_csv_path(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    let name = name
        .strip_suffix(".gz")
        .or_else(|| name.strip_suffix(".zst"))
        .unwrap_or(&name);
    name.ends_with(".csv")
}

/// Reads the database row by row: an iterator of puzzles and bad rows, ending at the end of
/// the input or with its I/O error (a truncated .gz). The header line is optional.
pub struct LichessReader<R> {
    input: R,
    buf: Vec<u8>,
    line: u64,
    columns: Option<usize>,
    fields: Vec<String>,
    failed: bool,
}

impl<R: BufRead> LichessReader<R> {
    /// A reader of `input` (decompressed).
    pub fn new(input: R) -> Self {
        LichessReader {
            input,
            buf: Vec::with_capacity(512),
            line: 0,
            columns: None,
            fields: Vec::with_capacity(COLUMNS.len()),
            failed: false,
        }
    }

    /// The line read last (1-based; where an I/O error happened).
    pub fn line(&self) -> u64 {
        self.line
    }
}

impl<R: BufRead> Iterator for LichessReader<R> {
    type Item = std::io::Result<Result<LichessPuzzle, BadPuzzle>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.failed {
                return None;
            }
            self.buf.clear();
            self.line += 1;
            match self.input.read_until(b'\n', &mut self.buf) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
            let line = self.line;
            let mut bytes = self.buf.as_slice();
            if line == 1 {
                bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
            }
            let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
            let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
            let Ok(text) = std::str::from_utf8(bytes) else {
                let reason = "not valid UTF-8".to_owned();
                return Some(Ok(Err(BadPuzzle { line, reason })));
            };
            if text.trim().is_empty() {
                continue;
            }
            split_fields(text, &mut self.fields);
            let columns = match self.columns {
                Some(n) => n,
                None => {
                    let n = header_columns(&self.fields);
                    self.columns = Some(n.unwrap_or(COLUMNS.len()));
                    if n.is_some() {
                        continue;
                    }
                    COLUMNS.len()
                }
            };
            return Some(Ok(parse_row(&self.fields, columns, line).map_err(|e| {
                BadPuzzle {
                    line,
                    reason: e.to_string(),
                }
            })));
        }
    }
}

/// The number of columns a header line announces: all ten names, or the first nine (the
/// database before `OpeningTags`); `None` when the line is not a header.
fn header_columns(fields: &[String]) -> Option<usize> {
    let n = fields.len();
    ((n == COLUMNS.len() || n == COLUMNS.len() - 1)
        && fields.iter().zip(COLUMNS).all(|(f, c)| f.trim() == c))
    .then_some(n)
}

/// Why a row of the Lichess puzzle database is not a puzzle.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PuzzleRowError {
    /// Another number of columns than the header announced.
    #[error("{found} columns, expected {expected} ({names})", names = COLUMNS[..*expected].join(","))]
    Columns {
        /// Columns in the row.
        found: usize,
        /// Columns the header announced.
        expected: usize,
    },
    /// No puzzle id.
    #[error("empty PuzzleId")]
    EmptyId,
    /// A FEN that is no legal position.
    #[error("FEN: {reason} in {fen:?}")]
    Fen {
        /// The FEN given.
        fen: String,
        /// The parser's reason.
        reason: String,
    },
    /// A move that is not UCI.
    #[error("Moves: move {number} {word:?} is not UCI")]
    NotUci {
        /// 1-based index in the list.
        number: usize,
        /// The word given.
        word: String,
    },
    /// A move that is illegal where it is played.
    #[error("Moves: move {number} {word:?} is illegal")]
    Illegal {
        /// 1-based index in the list.
        number: usize,
        /// The word given.
        word: String,
    },
    /// Not the opponent's move then a solution ending with the player's move.
    #[error(
        "Moves has {0} moves: expected the opponent's move then the solution, ending with \
         the player's move (an even number)"
    )]
    MoveCount(usize),
    /// A numeric column that is no number.
    #[error("{column}: not a number: {text:?}")]
    NotANumber {
        /// The column.
        column: &'static str,
        /// Its text.
        text: String,
    },
    /// A negative rating.
    #[error("Rating: {0} is negative")]
    NegativeRating(i64),
}

/// Parses one row of `columns` fields.
pub fn parse_row(
    fields: &[String],
    columns: usize,
    line: u64,
) -> Result<LichessPuzzle, PuzzleRowError> {
    if fields.len() != columns {
        return Err(PuzzleRowError::Columns {
            found: fields.len(),
            expected: columns,
        });
    }
    let id = fields[0].trim();
    if id.is_empty() {
        return Err(PuzzleRowError::EmptyId);
    }
    let fen_text = fields[1].trim();
    let before = fen::parse(fen_text, Leniency::DropCastling).map_err(|e| PuzzleRowError::Fen {
        fen: fen_text.to_owned(),
        reason: e.to_string(),
    })?;
    let words: Vec<&str> = fields[2].split_whitespace().collect();
    let mut pos = before.clone();
    let mut moves = Vec::with_capacity(words.len());
    for (i, word) in words.iter().enumerate() {
        let m = UciMove::from_ascii(word.as_bytes())
            .map_err(|_| PuzzleRowError::NotUci {
                number: i + 1,
                word: (*word).to_owned(),
            })?
            .to_move(&pos)
            .map_err(|_| PuzzleRowError::Illegal {
                number: i + 1,
                word: (*word).to_owned(),
            })?;
        pos.play_unchecked(m);
        moves.push(m);
    }
    if moves.len() < 2 || moves.len() % 2 == 1 {
        return Err(PuzzleRowError::MoveCount(moves.len()));
    }
    let number = |i: usize| {
        let text = fields[i].trim();
        text.parse::<i64>().map_err(|_| PuzzleRowError::NotANumber {
            column: COLUMNS[i],
            text: text.to_owned(),
        })
    };
    let rating = number(3)?;
    let rating_deviation = number(4)?;
    let popularity = number(5)?;
    let plays = number(6)?;
    let words = |i: usize| -> Vec<String> {
        fields
            .get(i)
            .map(|f| f.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let setup = moves[0];
    let mut position = before.clone();
    position.play_unchecked(setup);
    Ok(LichessPuzzle {
        id: id.to_owned(),
        line,
        before,
        setup,
        position,
        solution: moves.split_off(1),
        rating: u32::try_from(rating).map_err(|_| PuzzleRowError::NegativeRating(rating))?,
        rating_deviation: u32::try_from(rating_deviation).unwrap_or(0),
        popularity: popularity.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32,
        plays: u64::try_from(plays).unwrap_or(0),
        themes: words(7),
        game_url: fields[8].trim().to_owned(),
        opening_tags: words(9),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str =
        "PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl,OpeningTags";
    // Lichess puzzle 00008 (the database's first row).
    const ROW: &str = "00008,r6k/pp2r2p/4Rp1Q/3p4/8/1N1P2R1/PqP2bPP/7K b - - 0 24,\
        f2g3 e6e7 b2b1 b3c1 b1c1 h6c1,1913,75,94,6230,crushing hangingPiece long middlegame,\
        https://lichess.org/787zsVup/black#48,";

    fn read(text: &str) -> Vec<Result<LichessPuzzle, BadPuzzle>> {
        LichessReader::new(text.as_bytes())
            .map(|r| r.unwrap())
            .collect()
    }

    #[test]
    fn reads_a_row_after_the_header() {
        let rows = read(&format!("{HEADER}\n{ROW}\n"));
        let [Ok(p)] = &rows[..] else {
            panic!("{rows:?}")
        };
        assert_eq!((p.id.as_str(), p.line, p.rating), ("00008", 2, 1913));
        assert_eq!((p.rating_deviation, p.popularity, p.plays), (75, 94, 6230));
        assert_eq!(p.solution.len(), 5);
        assert_eq!(p.player_moves(), 3);
        assert!(p.has_theme("hangingPiece") && !p.has_theme("mate"));
        assert_eq!(p.game_url, "https://lichess.org/787zsVup/black#48");
        assert!(p.opening_tags.is_empty());
        // The puzzle starts after Black's f2g3; White is to move.
        assert_eq!(p.position.turn(), shakmaty::Color::White);
        assert_eq!(crate::chess::moves::uci(&p.setup), "f2g3");
    }

    #[test]
    fn the_header_is_optional_and_the_nine_column_header_reads() {
        assert_eq!(read(&format!("{ROW}\n")).len(), 1);
        assert!(read(&format!("{ROW}\n"))[0].is_ok());
        let old = HEADER.rsplit_once(',').unwrap().0;
        let row = ROW.strip_suffix(',').unwrap();
        let rows = read(&format!("{old}\r\n{row}\r\n"));
        assert!(rows[0].as_ref().is_ok_and(|p| p.opening_tags.is_empty()));
        // In a 10-column file a 9-column row is bad.
        let rows = read(&format!("{HEADER}\n{row}\n"));
        assert!(
            rows[0]
                .as_ref()
                .unwrap_err()
                .reason
                .starts_with("9 columns, expected 10")
        );
    }

    #[test]
    fn bad_rows_say_why_with_their_line() {
        let fields: Vec<&str> = ROW.split(',').collect();
        let with = |i: usize, value: &str| {
            let mut f = fields.clone();
            f[i] = value;
            f.join(",")
        };
        let text = [
            HEADER.to_owned(),
            with(1, "r6k/pp2r2p/4Rp1Q/3p4/8/1N1P2R1/PqP2bPP w - - 0 24"),
            with(2, "f2g3 e6e7 b2b1 b3c1 b1c1"),
            with(2, "f2g3 e6e8 b2b1 b3c1"),
            with(2, "f2g3 e6e7 b2b1 b3c1 b1c1 h6c1 zz"),
            with(2, "f2g3"),
            with(3, "15o0"),
            String::new(),
            ROW.replacen(',', ",,", 1),
            with(0, " "),
        ]
        .join("\n");
        let rows = read(&text);
        let bad: Vec<(u64, String)> = rows
            .iter()
            .map(|r| {
                let b = r.as_ref().unwrap_err();
                (b.line, b.reason.clone())
            })
            .collect();
        let lines: Vec<u64> = bad.iter().map(|b| b.0).collect();
        assert_eq!(lines, [2, 3, 4, 5, 6, 7, 9, 10]);
        for ((_, reason), want) in bad.iter().zip([
            "FEN: ",
            "Moves has 5 moves",
            "Moves: move 2 \"e6e8\" is illegal",
            "Moves: move 7 \"zz\" is not UCI",
            "Moves has 1 moves",
            "Rating: not a number: \"15o0\"",
            "11 columns, expected 10",
            "empty PuzzleId",
        ]) {
            assert!(reason.starts_with(want), "{reason} (want {want})");
        }
        let mut bytes = format!("{HEADER}\n").into_bytes();
        bytes.extend_from_slice(b"\xff,\n");
        let rows: Vec<_> = LichessReader::new(bytes.as_slice()).collect();
        assert_eq!(
            rows[0].as_ref().unwrap().as_ref().unwrap_err().reason,
            "not valid UTF-8"
        );
    }

    #[test]
    fn detection_by_header_or_extension() {
        assert!(is_header(HEADER.as_bytes()));
        assert!(is_header(b"\xef\xbb\xbfPuzzleId,FEN,Moves,Rating"));
        assert!(!is_header(b"FEN,Evaluation\n"));
        assert!(is_csv_path(Path::new("db/lichess_db_puzzle.csv.zst")));
        assert!(is_csv_path(Path::new("x.CSV")));
        assert!(!is_csv_path(Path::new("x.epd")));
    }
}
