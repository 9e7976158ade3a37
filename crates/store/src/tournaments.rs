//! Tournaments (`chessgraph tournament`): the tournament and its fixed settings, its
//! players, and its games, stored one by one as they finish so that a re-run plays only
//! the missing ones.

use chessgraph_core::Error as CoreError;
use std::collections::HashSet;

use rusqlite::{Connection, OptionalExtension, params};

use crate::Result;

/// One row of `tournaments`.
#[derive(Clone, Debug, PartialEq)]
pub struct Tournament {
    /// `tournaments.id`.
    pub id: i64,
    /// The name it was created with.
    pub name: String,
    /// Its fixed settings (JSON object).
    pub settings: serde_json::Value,
    /// UTC time, ISO 8601.
    pub created_at: String,
}

/// One stored game (a row of `tournament_games`).
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    /// The pair's first name in sort order.
    pub player_a: String,
    /// The pair's second name.
    pub player_b: String,
    /// Number of the game within the pair, from 0.
    pub game_index: u32,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// Index of the opening.
    pub opening: u32,
    /// Start position.
    pub start_fen: String,
    /// UCI moves separated by spaces.
    pub moves: String,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// Why the game ended.
    pub termination: String,
    /// The player who lost by an illegal move, on time or by an engine failure.
    pub fault: Option<String>,
    /// Length in plies.
    pub plies: u32,
}

impl GameRow {
    /// White's score: 1, ½ or 0.
    pub fn white_score(&self) -> f64 {
        match self.result.as_str() {
            "1-0" => 1.0,
            "0-1" => 0.0,
            _ => 0.5,
        }
    }
}

fn tournament_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Tournament> {
    let text: String = r.get(2)?;
    Ok(Tournament {
        id: r.get(0)?,
        name: r.get(1)?,
        settings: serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)),
        created_at: r.get(3)?,
    })
}

/// The tournament called `name`, if stored.
pub fn find(conn: &Connection, name: &str) -> Result<Option<Tournament>> {
    Ok(conn
        .query_row(
            "SELECT id, name, settings, created_at FROM tournaments WHERE name = ?1",
            [name],
            tournament_from_row,
        )
        .optional()?)
}

/// Every stored tournament, oldest first.
pub fn list(conn: &Connection) -> Result<Vec<Tournament>> {
    let mut stmt =
        conn.prepare("SELECT id, name, settings, created_at FROM tournaments ORDER BY id")?;
    let rows = stmt
        .query_map([], tournament_from_row)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// The id of tournament `name`, created with `settings` if new. A stored tournament with
/// other settings is refused: its games were played under them.
pub fn open(conn: &Connection, name: &str, settings: &serde_json::Value) -> Result<i64> {
    if let Some(t) = find(conn, name)? {
        if &t.settings != settings {
            return Err(CoreError::Invalid(format!(
                "tournament {name:?} is stored with other settings ({}; now {}): give the same \
                 time control, move limit and openings to resume it, or another --name",
                describe(&t.settings),
                describe(settings)
            ))
            .into());
        }
        return Ok(t.id);
    }
    let text = serde_json::to_string(settings).map_err(|source| CoreError::Encode {
        what: "the tournament settings".into(),
        source,
    })?;
    conn.execute(
        "INSERT INTO tournaments (name, settings, created_at) \
         VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
        params![name, text],
    )?;
    Ok(conn.last_insert_rowid())
}

/// `key value, key value` of a settings object, for messages.
fn describe(settings: &serde_json::Value) -> String {
    match settings.as_object() {
        Some(o) => o
            .iter()
            .map(|(k, v)| {
                format!(
                    "{} {}",
                    k.replace('_', " "),
                    v.as_str().map_or_else(|| v.to_string(), str::to_owned)
                )
            })
            .collect::<Vec<_>>()
            .join(", "),
        None => settings.to_string(),
    }
}

/// Adds player `name` to tournament `id`, or checks that the stored player of that name is
/// the same `definition` (a name cannot change meaning between runs).
pub fn register_player(conn: &Connection, id: i64, name: &str, definition: &str) -> Result<()> {
    let stored: Option<String> = conn
        .query_row(
            "SELECT definition FROM tournament_players WHERE tournament_id = ?1 AND name = ?2",
            params![id, name],
            |r| r.get(0),
        )
        .optional()?;
    match stored {
        Some(d) if d == definition => Ok(()),
        Some(d) => Err(CoreError::Invalid(format!(
            "player {name:?} is stored in this tournament as `{d}`, not `{definition}`: \
             give it another name"
        ))
        .into()),
        None => {
            conn.execute(
                "INSERT INTO tournament_players (tournament_id, seq, name, definition) \
                 VALUES (?1, (SELECT count(*) FROM tournament_players WHERE tournament_id = ?1), ?2, ?3)",
                params![id, name, definition],
            )?;
            Ok(())
        }
    }
}

/// The players of tournament `id`, in the order they were registered.
pub fn players(conn: &Connection, id: i64) -> Result<Vec<String>> {
    let mut stmt =
        conn.prepare("SELECT name FROM tournament_players WHERE tournament_id = ?1 ORDER BY seq")?;
    let names = stmt
        .query_map([id], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(names)
}

/// The (player_a, player_b, game_index) of every stored game of tournament `id`.
pub fn played(conn: &Connection, id: i64) -> Result<HashSet<(String, String, u32)>> {
    let mut stmt = conn.prepare(
        "SELECT player_a, player_b, game_index FROM tournament_games WHERE tournament_id = ?1",
    )?;
    let keys = stmt
        .query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(keys)
}

/// Stores a finished game of tournament `id`.
pub fn insert_game(conn: &Connection, id: i64, g: &GameRow) -> Result<()> {
    conn.execute(
        "INSERT INTO tournament_games (tournament_id, player_a, player_b, game_index, white, \
         black, opening, start_fen, moves, result, termination, fault, plies, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, \
         strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
        params![
            id,
            g.player_a,
            g.player_b,
            g.game_index,
            g.white,
            g.black,
            g.opening,
            g.start_fen,
            g.moves,
            g.result,
            g.termination,
            g.fault,
            g.plies
        ],
    )?;
    Ok(())
}

/// The games of tournament `id` in the order they finished.
pub fn games(conn: &Connection, id: i64) -> Result<Vec<GameRow>> {
    let mut stmt = conn.prepare(
        "SELECT player_a, player_b, game_index, white, black, opening, start_fen, moves, result, \
         termination, fault, plies FROM tournament_games WHERE tournament_id = ?1 ORDER BY id",
    )?;
    let rows = stmt
        .query_map([id], |r| {
            Ok(GameRow {
                player_a: r.get(0)?,
                player_b: r.get(1)?,
                game_index: r.get(2)?,
                white: r.get(3)?,
                black: r.get(4)?,
                opening: r.get(5)?,
                start_fen: r.get(6)?,
                moves: r.get(7)?,
                result: r.get(8)?,
                termination: r.get(9)?,
                fault: r.get(10)?,
                plies: r.get(11)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(a: &str, b: &str, k: u32, result: &str) -> GameRow {
        let (white, black) = if k.is_multiple_of(2) { (a, b) } else { (b, a) };
        GameRow {
            player_a: a.into(),
            player_b: b.into(),
            game_index: k,
            white: white.into(),
            black: black.into(),
            opening: k / 2,
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            moves: "e2e4".into(),
            result: result.into(),
            termination: "adjudicated draw (ply limit)".into(),
            fault: None,
            plies: 1,
        }
    }

    #[test]
    fn settings_players_and_games_round_trip() {
        let conn = crate::open_in_memory().unwrap();
        let settings = serde_json::json!({"time_control": "nodes 100", "max_moves": 20});
        let id = open(&conn, "t", &settings).unwrap();
        assert_eq!(open(&conn, "t", &settings).unwrap(), id);
        let other = serde_json::json!({"time_control": "nodes 200", "max_moves": 20});
        let e = open(&conn, "t", &other).unwrap_err().to_string();
        assert!(e.contains("nodes 100") && e.contains("nodes 200"), "{e}");
        assert_ne!(open(&conn, "u", &other).unwrap(), id);

        register_player(&conn, id, "b", "player random:seed=2").unwrap();
        register_player(&conn, id, "a", "player random:seed=1").unwrap();
        register_player(&conn, id, "a", "player random:seed=1").unwrap();
        assert!(register_player(&conn, id, "a", "player random:seed=3").is_err());
        assert_eq!(players(&conn, id).unwrap(), ["b", "a"]);

        insert_game(&conn, id, &game("a", "b", 0, "1-0")).unwrap();
        insert_game(&conn, id, &game("a", "b", 1, "1/2-1/2")).unwrap();
        // The same game twice is refused by the schema.
        assert!(insert_game(&conn, id, &game("a", "b", 1, "0-1")).is_err());
        let keys = played(&conn, id).unwrap();
        assert!(keys.contains(&("a".into(), "b".into(), 1)) && keys.len() == 2);
        let g = games(&conn, id).unwrap();
        assert_eq!(g[0], game("a", "b", 0, "1-0"));
        assert_eq!(g[1].white_score(), 0.5);
        assert_eq!(list(&conn).unwrap().len(), 2);
        assert_eq!(find(&conn, "t").unwrap().unwrap().settings, settings);
    }
}
