//! Start positions for games: a file of FENs, EPD lines or `fen,eval` CSV rows, and the
//! built-in balanced set (`assets/openings/balanced.epd`).

use std::path::Path;

use shakmaty::{Chess, Position};

use crate::Error;
use crate::Result;

/// Start positions from a file of FENs or EPD lines (one per line, `#` comments, blank
/// lines skipped; the first four or six FEN fields are used). Errors name the line.
pub fn read_openings(path: &Path) -> Result<Vec<Chess>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse_openings(&text)
        .map_err(|(line, why)| Error::Invalid(format!("{}:{line}: {why}", path.display())))
}

/// [`read_openings`] on a text.
pub fn parse_openings(text: &str) -> std::result::Result<Vec<Chess>, (usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim().trim_start_matches('\u{feff}');
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // A CSV row (`fen,eval`) or an EPD line: the FEN fields come first.
        let fields: Vec<&str> = line
            .split(',')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        if fields.len() < 4 || fields[0].eq_ignore_ascii_case("fen") {
            if i == 0
                && fields
                    .first()
                    .is_some_and(|f| f.eq_ignore_ascii_case("fen"))
            {
                continue; // a CSV header
            }
            return Err((i + 1, format!("not a FEN: {line:?}")));
        }
        let fen = if fields.len() >= 6 && fields[4].parse::<u32>().is_ok() {
            fields[..6].join(" ")
        } else {
            fields[..4].join(" ")
        };
        let pos = crate::chess::fen::parse_position(&fen).map_err(|e| (i + 1, e.to_string()))?;
        if pos.is_game_over() {
            return Err((i + 1, "the game is already over in this position".into()));
        }
        out.push(pos);
    }
    if out.is_empty() {
        return Err((0, "no positions".into()));
    }
    Ok(out)
}

/// The built-in openings: positions from the shared sample's games that Stockfish scored
/// within ±80 cp (`assets/openings/balanced.epd`, cut from the test fixture
/// `eval-positions-2k.csv`).
pub fn default_openings() -> Vec<Chess> {
    parse_openings(include_str!("../../../../assets/openings/balanced.epd"))
        .expect("the built-in openings parse (checked by a test)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_parse_with_line_numbers() {
        let text = "FEN,Evaluation\n\
                    rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1,+20\n\
                    # a comment\n\
                    \n\
                    4k3/8/8/8/8/8/8/4K2R w K - bm Rh8+; id \"x\";\n";
        let p = parse_openings(text).unwrap();
        assert_eq!(p.len(), 2);
        let err =
            parse_openings("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\nnonsense\n")
                .unwrap_err();
        assert_eq!(err.0, 2);
        // Checkmate already on the board.
        let err = parse_openings("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
            .unwrap_err();
        assert!(err.1.contains("over"), "{err:?}");
        assert!(default_openings().len() > 100);
    }

    #[test]
    fn built_in_openings_are_playable_and_many() {
        let o = default_openings();
        assert!(o.len() >= 200, "{}", o.len());
        assert!(o.iter().all(|p| !p.is_game_over()));
    }
}
