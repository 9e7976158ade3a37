//! Reads for browsing a database (`chessgraph serve`): one position with its features,
//! graph edges and labels; positions found by a user's SQL condition, by game or at
//! random; games, stored fits and import errors. Everything here only reads.
//!
//! A user's condition runs under a [`Deadline`]: a SQLite progress handler that aborts
//! the statement once its time is up, so no query can hold a connection for long.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use serde_json::{Map, Value};

use super::filter::prepare_filtered;
use crate::Error;
use crate::Result;

/// How many SQLite virtual-machine steps pass between two looks at the clock. With the
/// sandbox's limits ([`super::filter::Sandbox`]) one step costs at most a few
/// microseconds, so a statement stops within milliseconds of its deadline.
pub const PROGRESS_STEPS: i32 = 100;

/// A time limit for the statements of one connection (see [`Deadline::install`]).
#[derive(Clone, Debug)]
pub struct Deadline {
    /// When the handler was installed: the deadline is kept as nanoseconds since then.
    origin: Instant,
    /// Nanoseconds since `origin` after which statements stop; `u64::MAX`: none.
    at: Arc<AtomicU64>,
    /// SQLite's heap (bytes, all connections) past which statements stop; 0: none.
    memory: Arc<AtomicI64>,
    /// Whether the last statement stopped for `memory`.
    over_memory: Arc<AtomicBool>,
}

impl Deadline {
    /// Installs a progress handler on `conn` that interrupts any statement running past
    /// the deadline set by [`Deadline::run`]; outside `run` nothing is interrupted.
    pub fn install(conn: &Connection) -> Deadline {
        let deadline = Deadline {
            origin: Instant::now(),
            at: Arc::new(AtomicU64::new(u64::MAX)),
            memory: Arc::new(AtomicI64::new(0)),
            over_memory: Arc::new(AtomicBool::new(false)),
        };
        let (origin, at) = (deadline.origin, deadline.at.clone());
        let (memory, over) = (deadline.memory.clone(), deadline.over_memory.clone());
        conn.progress_handler(
            PROGRESS_STEPS,
            Some(move || {
                let at = at.load(Ordering::Relaxed);
                if at == u64::MAX {
                    return false;
                }
                if origin.elapsed().as_nanos() as u64 >= at {
                    return true;
                }
                let cap = memory.load(Ordering::Relaxed);
                // SAFETY: sqlite3_memory_used takes no argument and only reads SQLite's
                // counters (0 when its memory accounting is off).
                if cap > 0 && unsafe { rusqlite::ffi::sqlite3_memory_used() } > cap {
                    over.store(true, Ordering::Relaxed);
                    return true;
                }
                false
            }),
        );
        deadline
    }

    /// Like [`Deadline::run`], and statements also stop once SQLite's heap, all
    /// connections of the process together, is over `memory` bytes (checked with the
    /// clock; SQLite's memory accounting must be on); [`Deadline::over_memory`] then says
    /// so.
    pub fn run_within<T>(
        &self,
        limit: Duration,
        memory: i64,
        f: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        self.over_memory.store(false, Ordering::Relaxed);
        self.memory.store(memory.max(0), Ordering::Relaxed);
        let result = self.run(limit, f);
        self.memory.store(0, Ordering::Relaxed);
        result
    }

    /// Whether the last statement under [`Deadline::run_within`] stopped for memory.
    pub fn over_memory(&self) -> bool {
        self.over_memory.load(Ordering::Relaxed)
    }

    /// Runs `f` with statements limited to `limit` from now. A statement past it fails
    /// with an error for which [`is_interrupted`] is true.
    pub fn run<T>(&self, limit: Duration, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let at = (self.origin.elapsed() + limit).as_nanos() as u64;
        self.at.store(at.min(u64::MAX - 1), Ordering::Relaxed);
        let result = f();
        self.at.store(u64::MAX, Ordering::Relaxed);
        result
    }
}

/// Whether `err` is a statement interrupted by a [`Deadline`].
pub fn is_interrupted(err: &Error) -> bool {
    matches!(err, Error::Sqlite(rusqlite::Error::SqliteFailure(e, _))
        if e.code == rusqlite::ErrorCode::OperationInterrupted)
}

/// A stored position and where it came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PositionRow {
    /// `positions.id`.
    pub id: i64,
    /// Normalized FEN.
    pub fen: String,
    /// Centipawns, White's point of view (`None` for a mate score or no label).
    pub eval_cp: Option<i64>,
    /// Signed moves to mate, White's point of view.
    pub mate: Option<i64>,
    /// Game result, if known.
    pub result: Option<String>,
    /// The game it comes from.
    pub game_id: Option<i64>,
    /// Plies from the game's start.
    pub ply: Option<i64>,
    /// The source file (as given to import) and line.
    pub source: String,
    /// Line in the source.
    pub line: i64,
    /// train, valid or test, when the split was made for it.
    pub part: Option<String>,
}

/// One stored edge of the attack/defense graph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EdgeRow {
    /// Square of the attacking piece (a1 = 0).
    pub from_sq: i64,
    /// Square of the attacked or defended piece.
    pub to_sq: i64,
    /// FEN letter of the piece on `from_sq`.
    pub attacker: String,
    /// FEN letter of the piece on `to_sq`.
    pub target: String,
    /// `attack` or `defend`.
    pub kind: String,
}

/// A label given by an engine (`labels` table).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LabelRow {
    /// Labeller name.
    pub labeller: String,
    /// Centipawns, White's point of view.
    pub eval_cp: Option<i64>,
    /// Moves to mate, White's point of view.
    pub mate: Option<i64>,
    /// Search depth.
    pub depth: Option<i64>,
}

/// The stored position `id`, if any.
pub fn position(conn: &Connection, id: i64) -> Result<Option<PositionRow>> {
    Ok(conn
        .query_row(
            // The part as a subquery: a view on the right of a LEFT JOIN would be
            // computed for every position.
            "SELECT p.id, p.fen, p.eval_cp, p.mate, p.result, p.game_id, p.ply, s.path, p.line, \
             (SELECT sp.part FROM splits sp WHERE sp.position_id = p.id) \
             FROM positions p JOIN sources s ON s.id = p.source_id WHERE p.id = ?1",
            [id],
            position_row,
        )
        .optional()?)
}

fn position_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<PositionRow> {
    Ok(PositionRow {
        id: r.get(0)?,
        fen: r.get(1)?,
        eval_cp: r.get(2)?,
        mate: r.get(3)?,
        result: r.get(4)?,
        game_id: r.get(5)?,
        ply: r.get(6)?,
        source: r.get(7)?,
        line: r.get(8)?,
        part: r.get(9)?,
    })
}

/// Every column of the `features` row of position `id` (name → value), `None` when the
/// position is not analyzed.
pub fn features(conn: &Connection, id: i64) -> Result<Option<Map<String, Value>>> {
    let mut stmt = conn.prepare("SELECT * FROM features WHERE position_id = ?1")?;
    let names: Vec<String> = stmt.column_names().iter().map(|s| s.to_string()).collect();
    let mut rows = stmt.query([id])?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let mut map = Map::new();
    for (i, name) in names.iter().enumerate().skip(1) {
        let value = match row.get_ref(i)? {
            rusqlite::types::ValueRef::Integer(v) => Value::from(v),
            rusqlite::types::ValueRef::Real(v) => Value::from(v),
            rusqlite::types::ValueRef::Text(t) => Value::from(String::from_utf8_lossy(t)),
            _ => Value::Null,
        };
        map.insert(name.clone(), value);
    }
    Ok(Some(map))
}

/// The stored graph edges of position `id`, by target square then source square.
pub fn edges(conn: &Connection, id: i64) -> Result<Vec<EdgeRow>> {
    let mut stmt = conn.prepare(
        "SELECT from_sq, to_sq, attacker, target, kind FROM edges WHERE position_id = ?1 \
         ORDER BY to_sq, from_sq",
    )?;
    let rows = stmt.query_map([id], |r| {
        Ok(EdgeRow {
            from_sq: r.get(0)?,
            to_sq: r.get(1)?,
            attacker: r.get(2)?,
            target: r.get(3)?,
            kind: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The engine labels of position `id`, by labeller.
pub fn labels(conn: &Connection, id: i64) -> Result<Vec<LabelRow>> {
    let mut stmt = conn.prepare(
        "SELECT labeller, eval_cp, mate, depth FROM labels WHERE position_id = ?1 ORDER BY labeller",
    )?;
    let rows = stmt.query_map([id], |r| {
        Ok(LabelRow {
            labeller: r.get(0)?,
            eval_cp: r.get(1)?,
            mate: r.get(2)?,
            depth: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A position in a list (search results, a game's positions).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PositionItem {
    /// `positions.id`.
    pub id: i64,
    /// Normalized FEN.
    pub fen: String,
    /// Centipawns, White's point of view.
    pub eval_cp: Option<i64>,
    /// Moves to mate, White's point of view.
    pub mate: Option<i64>,
    /// The game it comes from.
    pub game_id: Option<i64>,
    /// Plies from the game's start.
    pub ply: Option<i64>,
}

fn item(r: &rusqlite::Row<'_>) -> rusqlite::Result<PositionItem> {
    Ok(PositionItem {
        id: r.get(0)?,
        fen: r.get(1)?,
        eval_cp: r.get(2)?,
        mate: r.get(3)?,
        game_id: r.get(4)?,
        ply: r.get(5)?,
    })
}

/// Positions (joined with their features, where analyzed) that pass the user's SQL
/// condition `filter`, by id from `after` on, at most `limit`; the flag says whether more
/// follow. Run it under a [`Deadline`].
pub fn search(
    conn: &Connection,
    filter: &str,
    after: i64,
    limit: usize,
) -> Result<(Vec<PositionItem>, bool)> {
    let sql = format!(
        "SELECT p.id, p.fen, p.eval_cp, p.mate, p.game_id, p.ply FROM positions p \
         LEFT JOIN features f ON f.position_id = p.id WHERE p.id > ?1 AND (\n{filter}\n) \
         ORDER BY p.id LIMIT ?2"
    );
    let mut stmt = prepare_filtered(conn, &sql, filter)?;
    let mut list: Vec<PositionItem> = stmt
        .query_map(params![after, limit as i64 + 1], item)?
        .collect::<rusqlite::Result<_>>()?;
    let more = list.len() > limit;
    list.truncate(limit);
    Ok((list, more))
}

/// A random analyzed position, or with `filter` a random position (joined with its
/// features) passing it; `None` when there is none. Run it under a [`Deadline`].
pub fn random(conn: &Connection, filter: Option<&str>) -> Result<Option<i64>> {
    match filter {
        None => Ok(conn
            .query_row(
                "SELECT position_id FROM features WHERE position_id >= \
                 (SELECT min(position_id) + abs(random() % (max(position_id) - min(position_id) + 1)) FROM features) \
                 ORDER BY position_id LIMIT 1",
                [],
                |r| r.get(0),
            )
            .optional()?),
        Some(filter) => {
            let sql = format!(
                "SELECT p.id FROM positions p LEFT JOIN features f ON f.position_id = p.id \
                 WHERE (\n{filter}\n) ORDER BY random() LIMIT 1"
            );
            let mut stmt = prepare_filtered(conn, &sql, filter)?;
            Ok(stmt.query_row([], |r| r.get(0)).optional()?)
        }
    }
}

/// A game read from PGN.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameRow {
    /// `games.id`.
    pub id: i64,
    /// White player.
    pub white: Option<String>,
    /// Black player.
    pub black: Option<String>,
    /// Event.
    pub event: Option<String>,
    /// Date.
    pub date: Option<String>,
    /// Result.
    pub result: Option<String>,
}

/// Games by id from `after` on, at most `limit`.
pub fn games(conn: &Connection, after: i64, limit: usize) -> Result<Vec<GameRow>> {
    let mut stmt = conn.prepare(
        "SELECT id, white, black, event, date, result FROM games WHERE id > ?1 ORDER BY id LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![after, limit as i64], game_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn game_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<GameRow> {
    Ok(GameRow {
        id: r.get(0)?,
        white: r.get(1)?,
        black: r.get(2)?,
        event: r.get(3)?,
        date: r.get(4)?,
        result: r.get(5)?,
    })
}

/// Game `id` and its stored positions in ply order (`None`: no such game).
pub fn game(conn: &Connection, id: i64) -> Result<Option<(GameRow, Vec<PositionItem>)>> {
    let Some(game) = conn
        .query_row(
            "SELECT id, white, black, event, date, result FROM games WHERE id = ?1",
            [id],
            game_row,
        )
        .optional()?
    else {
        return Ok(None);
    };
    let mut stmt = conn.prepare(
        "SELECT id, fen, eval_cp, mate, game_id, ply FROM positions WHERE game_id = ?1 ORDER BY ply, id",
    )?;
    let list = stmt
        .query_map([id], item)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(Some((game, list)))
}

/// A stored fit, its JSON columns parsed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FitRow {
    /// `fits.id`.
    pub id: i64,
    /// `linear` or `logistic`.
    pub kind: String,
    /// What was fitted.
    pub target: String,
    /// The SQL condition that chose the rows.
    pub filter: String,
    /// Rows trained on.
    pub n_train: i64,
    /// Rows held out.
    pub n_test: i64,
    /// Measures per part.
    pub metrics: Value,
    /// Coefficients, intercept first.
    pub coefficients: Value,
    /// When (UTC).
    pub created_at: String,
}

/// Every stored fit, newest first.
pub fn fits(conn: &Connection) -> Result<Vec<FitRow>> {
    let mut stmt = conn.prepare(
        "SELECT id, kind, target, filter, n_train, n_test, metrics, coefficients, created_at \
         FROM fits ORDER BY id DESC",
    )?;
    let json = |s: String| serde_json::from_str(&s).unwrap_or(Value::String(s));
    let rows = stmt.query_map([], |r| {
        Ok(FitRow {
            id: r.get(0)?,
            kind: r.get(1)?,
            target: r.get(2)?,
            filter: r.get(3)?,
            n_train: r.get(4)?,
            n_test: r.get(5)?,
            metrics: json(r.get(6)?),
            coefficients: json(r.get(7)?),
            created_at: r.get(8)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A row that import could not use.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ImportErrorRow {
    /// The source file, as given to import.
    pub source: String,
    /// Line in it (1-based).
    pub line: i64,
    /// The offending text (cut).
    pub text: String,
    /// Why it was refused.
    pub reason: String,
}

/// Import errors by source and line from `offset` on, at most `limit`, and how many there
/// are in all.
pub fn import_errors(
    conn: &Connection,
    offset: usize,
    limit: usize,
) -> Result<(Vec<ImportErrorRow>, i64)> {
    let total: i64 = conn.query_row("SELECT count(*) FROM import_errors", [], |r| r.get(0))?;
    let mut stmt = conn.prepare(
        "SELECT s.path, e.line, e.text, e.reason FROM import_errors e \
         JOIN sources s ON s.id = e.source_id ORDER BY e.source_id, e.line LIMIT ?1 OFFSET ?2",
    )?;
    let rows = stmt.query_map(params![limit as i64, offset as i64], |r| {
        Ok(ImportErrorRow {
            source: r.get(0)?,
            line: r.get(1)?,
            text: r.get(2)?,
            reason: r.get(3)?,
        })
    })?;
    Ok((rows.collect::<rusqlite::Result<_>>()?, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db_with_positions(n: i64) -> Connection {
        let conn = crate::open_in_memory().unwrap();
        conn.execute(
            "INSERT INTO sources (id, path, format, compression, pov, started_at) VALUES (1, 'a.csv', 'csv', 'none', 'white', 'now')",
            [],
        )
        .unwrap();
        for i in 1..=n {
            conn.execute(
                "INSERT INTO positions (id, fen, fen_input, eval_cp, source_id, line) VALUES (?1, ?2, '', ?1, 1, ?1)",
                params![i, chessgraph_testkit::test_fen(i as usize)],
            )
            .unwrap();
        }
        conn
    }

    #[test]
    fn search_pages_and_refuses_bad_conditions() {
        let conn = db_with_positions(10);
        let (list, more) = search(&conn, "eval_cp > 3", 0, 4).unwrap();
        assert_eq!(list.iter().map(|p| p.id).collect::<Vec<_>>(), [4, 5, 6, 7]);
        assert!(more);
        let (list, more) = search(&conn, "eval_cp > 3", 7, 4).unwrap();
        assert_eq!(list.iter().map(|p| p.id).collect::<Vec<_>>(), [8, 9, 10]);
        assert!(!more);
        assert!(search(&conn, "no_such_column = 1", 0, 4).is_err());
        assert!(search(&conn, "1; DROP TABLE positions", 0, 4).is_err());
        assert_eq!(position(&conn, 3).unwrap().unwrap().source, "a.csv");
        assert_eq!(position(&conn, 99).unwrap(), None);
        assert_eq!(random(&conn, Some("eval_cp = 5")).unwrap(), Some(5));
        assert_eq!(random(&conn, Some("eval_cp > 99")).unwrap(), None);
    }

    #[test]
    fn deadline_interrupts_a_long_query_and_only_within_run() {
        let conn = db_with_positions(1);
        let deadline = Deadline::install(&conn);
        let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) \
                       SELECT count(*) FROM c";
        let err = deadline
            .run(Duration::from_millis(50), || {
                Ok(conn.query_row(endless, [], |r| r.get::<_, i64>(0))?)
            })
            .unwrap_err();
        assert!(is_interrupted(&err), "{err:?}");
        assert!(!deadline.over_memory());
        // Outside `run` a statement is not interrupted.
        let n: i64 = conn
            .query_row("SELECT count(*) FROM positions", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
    }
}
