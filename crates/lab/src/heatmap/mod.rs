//! Piece-square heatmaps: for each of the 12 pieces, the mean evaluation (centipawns,
//! White's point of view, mate scores left out) of the positions where that piece stands on
//! each square. Drawn as one PNG board per piece, one 3 × 4 grid, and a CSV of the numbers.
//!
//! This is a pipeline stage beside [`chessgraph_learn::fit`] (it reads `positions` and `features` and
//! writes files), so it lives in its own module rather than under a report module; a report
//! can call [`aggregate`] and [`render`] directly.

pub mod render;

use chessgraph_core::Error as CoreError;
use std::io::Write;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use chessgraph_store::Error;
use chessgraph_store::Result;
use chessgraph_store::filter::prepare_filtered;

/// The study's filter, as for `fit`: material level, not an endgame.
pub const DEFAULT_FILTER: &str = chessgraph_learn::fit::STUDY_FILTER;

/// Pieces in drawing order: White K Q R B N P, then Black.
pub const PIECES: [char; 12] = ['K', 'Q', 'R', 'B', 'N', 'P', 'k', 'q', 'r', 'b', 'n', 'p'];

/// Index of a FEN piece letter in [`PIECES`].
pub fn piece_index(c: char) -> Option<usize> {
    PIECES.iter().position(|&p| p == c)
}

/// `white_knight` for `N`: file names and titles.
pub fn piece_name(piece: char) -> String {
    let color = if piece.is_ascii_uppercase() {
        "white"
    } else {
        "black"
    };
    let kind = match piece.to_ascii_lowercase() {
        'k' => "king",
        'q' => "queen",
        'r' => "rook",
        'b' => "bishop",
        'n' => "knight",
        _ => "pawn",
    };
    format!("{color}_{kind}")
}

/// `e4` for square 28 (a1 = 0, h8 = 63).
pub fn square_name(sq: usize) -> String {
    format!("{}{}", (b'a' + (sq % 8) as u8) as char, sq / 8 + 1)
}

/// Calls `f(piece_index, square)` for every piece on the board part of `fen` (the text up to
/// the first space); `None` when the board part is malformed.
pub fn for_each_piece(fen: &str, mut f: impl FnMut(usize, usize)) -> Option<()> {
    // Only the board is needed: shakmaty's board parser, without a legality check per row.
    let board = shakmaty::Board::from_ascii_board_fen(fen.split(' ').next()?.as_bytes()).ok()?;
    for (sq, piece) in board.iter() {
        f(piece_index(piece.char())?, sq as usize);
    }
    Some(())
}

/// Sample counts and evaluation sums per piece and square.
#[derive(Clone, Debug)]
pub struct Heatmap {
    /// Positions with piece `p` on square `s`: `n[p][s]`.
    pub n: Vec<[u64; 64]>,
    /// Sum of their `eval_cp`.
    pub sum: Vec<[f64; 64]>,
    /// Positions aggregated.
    pub positions: u64,
    /// Sum of their `eval_cp`.
    pub eval_sum: f64,
    /// The row filter used.
    pub filter: String,
}

impl Heatmap {
    /// Mean evaluation of all aggregated positions.
    pub fn overall_mean(&self) -> f64 {
        self.eval_sum / self.positions.max(1) as f64
    }

    /// Mean evaluation of piece `p` on square `s`, when at least `min_samples` positions
    /// (and at least one) have it there.
    pub fn mean(&self, p: usize, s: usize, min_samples: u64) -> Option<f64> {
        let n = self.n[p][s];
        (n >= min_samples.max(1)).then(|| self.sum[p][s] / n as f64)
    }
}

/// Aggregates every analyzed position with a centipawn evaluation that passes `filter`.
pub fn aggregate(conn: &Connection, filter: &str) -> Result<Heatmap> {
    let sql = format!(
        "SELECT p.id, p.fen, p.eval_cp FROM positions p JOIN features f ON f.position_id = p.id \
         WHERE (\n{filter}\n) AND p.eval_cp IS NOT NULL"
    );
    let mut stmt = prepare_filtered(conn, &sql, filter)?;
    let mut map = Heatmap {
        n: vec![[0; 64]; 12],
        sum: vec![[0.0; 64]; 12],
        positions: 0,
        eval_sum: 0.0,
        filter: filter.to_string(),
    };
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let eval = row.get::<_, i64>(2)? as f64;
        let fen = row.get_ref(1)?;
        let fen = fen.as_str().map_err(rusqlite::Error::from)?;
        for_each_piece(fen, |p, s| {
            map.n[p][s] += 1;
            map.sum[p][s] += eval;
        })
        .ok_or_else(|| {
            let id: i64 = row.get(0).unwrap_or_default();
            CoreError::Stored {
                what: format!("position {id}"),
                why: format!("malformed FEN board {fen:?}"),
            }
        })?;
        map.positions += 1;
        map.eval_sum += eval;
    }
    if map.positions == 0 {
        let analyzed: i64 = conn.query_row("SELECT count(*) FROM features", [], |r| r.get(0))?;
        return Err(CoreError::NoData(if analyzed == 0 {
            "no positions match; run import and analyze first".to_string()
        } else {
            format!(
                "no positions with a centipawn evaluation match --where {filter:?} (of {analyzed} analyzed positions)"
            )
        }).into());
    }
    Ok(map)
}

/// Writes `piece,square,n,mean` for all 768 cells; `mean` is empty below `min_samples`.
pub fn write_csv(path: &Path, map: &Heatmap, min_samples: u64) -> Result<()> {
    let io = |e| Error::io(path, e);
    let file = std::fs::File::create(path).map_err(io)?;
    let mut w = std::io::BufWriter::new(file);
    writeln!(w, "piece,square,n,mean").map_err(io)?;
    for (p, piece) in PIECES.iter().enumerate() {
        for s in 0..64 {
            let mean = map
                .mean(p, s, min_samples)
                .map_or(String::new(), |m| format!("{m:.2}"));
            writeln!(w, "{piece},{},{},{mean}", square_name(s), map.n[p][s]).map_err(io)?;
        }
    }
    w.flush().map_err(io)
}

/// What `chessgraph heatmap` is asked for.
#[derive(Clone, Debug)]
pub struct Options {
    /// Directory for the PNGs and the CSV (created if missing).
    pub out_dir: PathBuf,
    /// SQL condition on positions/features columns.
    pub filter: String,
    /// Cells with fewer positions are left blank.
    pub min_samples: u64,
    /// Half-width of the color scale in centipawns; `None` picks one from the data.
    pub range: Option<f64>,
}

/// What [`run`] wrote.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Positions aggregated.
    pub positions: u64,
    /// Cells shown (at least `min_samples` positions).
    pub cells_shown: usize,
    /// Half-width of the color scale used.
    pub range: f64,
    /// Files written: 12 boards, the grid, the CSV.
    pub files: Vec<PathBuf>,
}

/// Aggregates, then writes the CSV, one PNG per piece and the grid.
pub fn run(conn: &Connection, opts: &Options) -> Result<Summary> {
    if opts.range.is_some_and(|r| !(r > 0.0 && r.is_finite())) {
        return Err(
            CoreError::Invalid("--range must be a positive number of centipawns".into()).into(),
        );
    }
    let map = aggregate(conn, &opts.filter)?;
    std::fs::create_dir_all(&opts.out_dir).map_err(|e| Error::io(&opts.out_dir, e))?;
    let csv = opts.out_dir.join("heatmap.csv");
    write_csv(&csv, &map, opts.min_samples)?;
    let range = opts
        .range
        .unwrap_or_else(|| render::auto_range(&map, opts.min_samples));
    let mut files = render::render(&map, &opts.out_dir, opts.min_samples, range)?;
    files.push(csv);
    let cells_shown = (0..12)
        .flat_map(|p| (0..64).map(move |s| (p, s)))
        .filter(|&(p, s)| map.mean(p, s, opts.min_samples).is_some())
        .count();
    Ok(Summary {
        positions: map.positions,
        cells_shown,
        range,
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(fen: &str) -> Vec<(char, String)> {
        let mut v = Vec::new();
        for_each_piece(fen, |p, s| v.push((PIECES[p], square_name(s)))).unwrap();
        v
    }

    #[test]
    fn board_parsing_puts_a1_at_zero() {
        let start = pieces("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
        assert_eq!(start.len(), 32);
        assert!(start.contains(&('K', "e1".into())));
        assert!(start.contains(&('q', "d8".into())));
        assert!(start.contains(&('P', "h2".into())));
        let mut v = pieces("8/8/8/3k4/8/8/8/R3K3 b Q -");
        v.sort();
        assert_eq!(
            v,
            [('K', "e1".into()), ('R', "a1".into()), ('k', "d5".into())]
        );
        assert_eq!(square_name(0), "a1");
        assert_eq!(square_name(63), "h8");
    }

    #[test]
    fn malformed_boards_are_refused() {
        for bad in [
            "8/8/8/8/8/8/8 w - -",       // 7 ranks
            "9/8/8/8/8/8/8/8 w - -",     // 9 files
            "8/8/8/8/8/8/8/7X w - -",    // unknown piece
            "8/8/8/8/8/8/8/ppppppppp w", // 9 pieces on a rank
            "8/8/8/8/8/8/8/8/8 w - -",   // 9 ranks
            "4k3/8/8/8/8/8/8/4K2 w - -", // short last rank
        ] {
            assert!(for_each_piece(bad, |_, _| {}).is_none(), "{bad}");
        }
    }

    #[test]
    fn names() {
        assert_eq!(piece_name('N'), "white_knight");
        assert_eq!(piece_name('p'), "black_pawn");
        assert_eq!(piece_index('k'), Some(6));
    }
}
