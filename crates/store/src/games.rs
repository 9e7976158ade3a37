//! Stored games with their positions in game order: what the move models learn from.
//!
//! The database keeps no move lists. A game is its `games` row (tags, start position,
//! result) and the `positions` rows that carry its `game_id`, each with its ply (plies from
//! the start position). Positions are stored once, under the first game that reached them,
//! so a game's sequence has gaps where it repeated an earlier position (its own or another
//! game's) or passed a position without a label.

use rusqlite::Connection;

use crate::Result;
use chessgraph_core::data::GameResult;

/// One game with its stored positions.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredGame {
    /// `games.id`.
    pub id: i64,
    /// Line of its first tag in its file.
    pub line: i64,
    /// `White` tag.
    pub white: Option<String>,
    /// `Black` tag.
    pub black: Option<String>,
    /// `Event` tag.
    pub event: Option<String>,
    /// `Date` tag.
    pub date: Option<String>,
    /// The result.
    pub result: GameResult,
    /// `FEN` tag, when the game starts from a set-up position.
    pub start_fen: Option<String>,
    /// `(ply, normalized FEN)` of its stored positions, by ply.
    pub positions: Vec<(i64, String)>,
}

/// Every game won by one side, by id, with its positions.
pub fn decisive_games(conn: &Connection) -> Result<Vec<StoredGame>> {
    let mut games: Vec<StoredGame> = Vec::new();
    let mut stmt = conn.prepare(
        "SELECT id, line, white, black, event, date, result, start_fen FROM games \
         WHERE result IN ('1-0', '0-1') ORDER BY id",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let result: String = r.get(6)?;
        let Some(result) = GameResult::parse(&result) else {
            continue;
        };
        games.push(StoredGame {
            id: r.get(0)?,
            line: r.get(1)?,
            white: r.get(2)?,
            black: r.get(3)?,
            event: r.get(4)?,
            date: r.get(5)?,
            result,
            start_fen: r.get(7)?,
            positions: Vec::new(),
        });
    }
    let mut stmt = conn.prepare(
        "SELECT p.game_id, p.ply, p.fen FROM positions p JOIN games g ON g.id = p.game_id \
         WHERE g.result IN ('1-0', '0-1') AND p.ply IS NOT NULL ORDER BY p.game_id, p.ply",
    )?;
    let mut rows = stmt.query([])?;
    let mut at = 0;
    while let Some(r) = rows.next()? {
        let game: i64 = r.get(0)?;
        while at < games.len() && games[at].id < game {
            at += 1;
        }
        if at < games.len() && games[at].id == game {
            games[at].positions.push((r.get(1)?, r.get(2)?));
        }
    }
    Ok(games)
}

/// How many games are stored, whatever their result.
pub fn count(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("SELECT count(*) FROM games", [], |r| r.get(0))?)
}

/// When a fit was stored (`fits.created_at`, UTC, ISO 8601).
pub fn fit_created_at(conn: &Connection, fit_id: i64) -> Result<String> {
    Ok(
        conn.query_row("SELECT created_at FROM fits WHERE id = ?1", [fit_id], |r| {
            r.get(0)
        })?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_decisive_games_with_positions_in_ply_order() {
        let conn = crate::open_in_memory().unwrap();
        conn.execute_batch(
            "INSERT INTO sources (id, path, format, compression, pov, started_at)
                 VALUES (1, 't', 'pgn', 'none', 'white', '2024-01-01');
             INSERT INTO games (id, source_id, line, white, result, start_fen) VALUES
                 (1, 1, 1, 'A', '1-0', NULL), (2, 1, 20, 'B', '1/2-1/2', NULL),
                 (3, 1, 40, 'C', '0-1', 'x');",
        )
        .unwrap();
        let fen = chessgraph_testkit::test_fen;
        // (fen, line, game, ply): a2 before a1 in the table, a CSV position without a game.
        for (i, line, game, ply) in [
            (2, 1, Some(1), Some(2)),
            (1, 1, Some(1), Some(1)),
            (3, 20, Some(2), Some(1)),
            (4, 40, Some(3), Some(1)),
            (5, 50, None, None),
        ] {
            conn.execute(
                "INSERT INTO positions (fen, fen_input, source_id, line, game_id, ply) \
                 VALUES (?1, '', 1, ?2, ?3, ?4)",
                rusqlite::params![fen(i), line, game, ply],
            )
            .unwrap();
        }
        let g = decisive_games(&conn).unwrap();
        let got: Vec<_> = g
            .iter()
            .map(|g| (g.id, g.result, g.start_fen.clone(), g.positions.clone()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    1,
                    GameResult::WhiteWins,
                    None,
                    vec![(1, fen(1)), (2, fen(2))]
                ),
                (
                    3,
                    GameResult::BlackWins,
                    Some("x".to_string()),
                    vec![(1, fen(4))]
                ),
            ]
        );
    }
}
