//! Labels per labeller: the `labels` written by `chessgraph label` (stored in
//! `label_rows`, the labeller's name once in `labellers`; `labels` is the view that joins
//! them), and the `--labels` choice every learning tool reads through.
//!
//! A position can carry several labels at once: the one it was imported or generated with
//! (`positions.eval_cp`/`mate`, named `imported`) and one per engine that labelled it. A
//! [`LabelChoice`] is a preference list, e.g. `stockfish,imported`: each position gets
//! the first label it has in that order, and positions with none are left out.

use rusqlite::{Connection, params};

use crate::Error;
use crate::Result;

/// The name of the label stored in `positions` itself.
pub const IMPORTED: &str = "imported";

/// Checks a name to store a labeller's labels under: one `--labels` can select, so not
/// empty, without commas (which separate the names there), and not [`IMPORTED`].
pub fn check_name(name: &str) -> Result<()> {
    let why = if name.trim().is_empty() || name.contains(',') {
        "a labeller's name must be non-empty and without commas"
    } else if name == IMPORTED {
        "this is the positions' own label; choose another name"
    } else {
        return Ok(());
    };
    Err(Error::BadLabellerName {
        name: name.to_owned(),
        why,
    })
}

/// Which labels to read, in order of preference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelChoice(Vec<String>);

impl Default for LabelChoice {
    fn default() -> LabelChoice {
        LabelChoice(vec![IMPORTED.to_owned()])
    }
}

impl LabelChoice {
    /// Parses `name[,name…]` (`imported` is the stored label of the positions).
    pub fn parse(s: &str) -> Result<LabelChoice> {
        let names: Vec<String> = s
            .split(',')
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty())
            .collect();
        if names.is_empty() {
            return Err(Error::NoLabeller(s.to_owned()));
        }
        Ok(LabelChoice(names))
    }

    /// The names in order of preference.
    pub fn names(&self) -> &[String] {
        &self.0
    }

    /// How the choice is spelled on the command line.
    pub fn describe(&self) -> String {
        self.0.join(",")
    }

    /// Checks that every named labeller has labels in the database, naming the ones it has.
    pub fn check(&self, conn: &Connection) -> Result<()> {
        let stored = list(conn)?;
        for name in &self.0 {
            if name != IMPORTED && !stored.iter().any(|(n, _)| n == name) {
                let known: Vec<String> = std::iter::once(IMPORTED.to_owned())
                    .chain(stored.iter().map(|(n, c)| format!("{n} ({c} positions)")))
                    .collect();
                return Err(Error::UnknownLabeller {
                    name: name.clone(),
                    known: known.join(", "),
                });
            }
        }
        Ok(())
    }

    /// SQL for the chosen `(eval_cp, mate)` of the position aliased `p`, and the joins
    /// it needs (labellers bound as `?1`, `?2`, … in [`LabelChoice::params`] order).
    /// A position without any chosen label gets `(NULL, NULL)`.
    pub fn sql(&self) -> LabelSql {
        let mut joins = String::new();
        let (mut cp, mut mate) = (String::from("CASE"), String::from("CASE"));
        let mut best = String::from("CASE");
        let mut n = 0;
        for name in &self.0 {
            if name == IMPORTED {
                let has = "(p.eval_cp IS NOT NULL OR p.mate IS NOT NULL)";
                cp += &format!(" WHEN {has} THEN p.eval_cp");
                mate += &format!(" WHEN {has} THEN p.mate");
                best += &format!(" WHEN {has} THEN p.best_move");
            } else {
                n += 1;
                joins += &format!(
                    " LEFT JOIN label_rows l{n} ON l{n}.position_id = p.id \
                     AND l{n}.labeller_id = (SELECT id FROM labellers WHERE name = ?{n})"
                );
                let has = format!("l{n}.position_id IS NOT NULL");
                cp += &format!(" WHEN {has} THEN l{n}.eval_cp");
                mate += &format!(" WHEN {has} THEN l{n}.mate");
                best += &format!(" WHEN {has} THEN l{n}.best_move");
            }
        }
        cp += " END";
        mate += " END";
        best += " END";
        LabelSql {
            eval_cp: cp,
            mate,
            // The chosen label's own best move first, then the position's.
            best_move: format!("coalesce({best}, p.best_move, p.next_move)"),
            joins,
        }
    }

    /// The labeller names to bind, in placeholder order.
    pub fn params(&self) -> Vec<String> {
        self.0.iter().filter(|n| *n != IMPORTED).cloned().collect()
    }
}

/// SQL pieces for reading a [`LabelChoice`].
#[derive(Clone, Debug)]
pub struct LabelSql {
    /// Expression of the chosen centipawn label.
    pub eval_cp: String,
    /// Expression of the chosen mate label.
    pub mate: String,
    /// Expression of the best move (UCI): the chosen labeller's, else the position's
    /// imported best move, else the move played next in its game.
    pub best_move: String,
    /// `LEFT JOIN`s to append after `FROM positions p`.
    pub joins: String,
}

/// Labellers with stored labels, and how many positions each labelled.
pub fn list(conn: &Connection) -> Result<Vec<(String, i64)>> {
    let mut stmt = conn.prepare(
        "SELECT n.name, count(*) FROM label_rows l JOIN labellers n ON n.id = l.labeller_id \
         GROUP BY l.labeller_id ORDER BY n.name",
    )?;
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// One engine label, White's point of view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineLabel {
    /// The position.
    pub position_id: i64,
    /// Centipawns (None for a mate score).
    pub eval_cp: Option<i32>,
    /// Signed moves to mate.
    pub mate: Option<i32>,
    /// Search depth.
    pub depth: Option<u32>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// The labeller's best move (UCI).
    pub best_move: Option<String>,
}

/// Positions (id, FEN as imported) that `labeller` has neither labelled nor failed on, by id, at most
/// `limit`, with ids above `after`, from the sources `source` selects (an id, or the
/// beginning of their paths such as `datagen`; all sources when `None`).
pub fn pending(
    conn: &Connection,
    labeller: &str,
    source: Option<&str>,
    after: i64,
    limit: usize,
) -> Result<Vec<(i64, String)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT p.id, p.fen_input FROM positions p \
         WHERE p.id > ?2 AND (?4 IS NULL OR p.source_id IN (SELECT id FROM sources WHERE \
               CAST(id AS TEXT) = ?4 OR substr(path, 1, length(?4)) = ?4)) \
           AND NOT EXISTS (SELECT 1 FROM label_rows l WHERE l.position_id = p.id \
                AND l.labeller_id = (SELECT id FROM labellers WHERE name = ?1)) \
           AND NOT EXISTS (SELECT 1 FROM label_failures f WHERE f.labeller = ?1 AND f.position_id = p.id) \
         ORDER BY p.id LIMIT ?3",
    )?;
    let rows = stmt
        .query_map(params![labeller, after, limit as i64, source], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// How many positions of the selected sources (all when `None`) `labeller` has still to
/// label (not labelled, not failed).
pub fn pending_count(conn: &Connection, labeller: &str, source: Option<&str>) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT count(*) FROM positions p WHERE (?2 IS NULL OR p.source_id IN (SELECT id FROM sources \
           WHERE CAST(id AS TEXT) = ?2 OR substr(path, 1, length(?2)) = ?2)) \
           AND NOT EXISTS (SELECT 1 FROM label_rows l WHERE l.position_id = p.id \
                AND l.labeller_id = (SELECT id FROM labellers WHERE name = ?1)) \
           AND NOT EXISTS (SELECT 1 FROM label_failures f WHERE f.labeller = ?1 AND f.position_id = p.id)",
        params![labeller, source],
        |r| r.get(0),
    )?)
}

/// Stores labels and failures in one transaction.
pub fn store(
    conn: &Connection,
    labeller: &str,
    labels: &[EngineLabel],
    failures: &[(i64, String)],
) -> Result<()> {
    let tx = conn.unchecked_transaction()?;
    {
        let id = labeller_id(&tx, labeller)?;
        let mut put = tx.prepare_cached(
            "INSERT INTO label_rows (position_id, labeller_id, eval_cp, mate, depth, nodes, best_move, \
             created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, unixepoch()) \
             ON CONFLICT (labeller_id, position_id) DO UPDATE SET eval_cp = excluded.eval_cp, \
             mate = excluded.mate, depth = excluded.depth, nodes = excluded.nodes, \
             best_move = excluded.best_move, created_at = excluded.created_at",
        )?;
        for l in labels {
            put.execute(params![
                l.position_id,
                id,
                l.eval_cp,
                l.mate,
                l.depth,
                l.nodes.map(|n| n as i64),
                l.best_move
            ])?;
        }
        let mut fail = tx.prepare_cached(
            "INSERT INTO label_failures (position_id, labeller, reason) VALUES (?1, ?2, ?3) \
             ON CONFLICT DO UPDATE SET reason = excluded.reason",
        )?;
        for (id, reason) in failures {
            fail.execute(params![id, labeller, reason])?;
        }
    }
    tx.commit()?;
    Ok(())
}

/// Forgets the failures of `labeller` so a re-run tries those positions again; returns
/// how many there were.
pub fn clear_failures(conn: &Connection, labeller: &str) -> Result<usize> {
    Ok(conn.execute("DELETE FROM label_failures WHERE labeller = ?1", [labeller])?)
}

/// Deletes every label of `labeller` (a re-label from scratch); returns how many.
pub fn delete(conn: &Connection, labeller: &str) -> Result<usize> {
    clear_failures(conn, labeller)?;
    Ok(conn.execute(
        "DELETE FROM label_rows WHERE labeller_id = (SELECT id FROM labellers WHERE name = ?1)",
        [labeller],
    )?)
}

/// The `labellers.id` of `name`, added when new.
pub fn labeller_id(conn: &Connection, name: &str) -> Result<i64> {
    conn.prepare_cached("INSERT INTO labellers (name) VALUES (?1) ON CONFLICT (name) DO NOTHING")?
        .execute([name])?;
    Ok(conn
        .prepare_cached("SELECT id FROM labellers WHERE name = ?1")?
        .query_row([name], |r| r.get(0))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labeller_names_must_be_selectable() {
        assert!(check_name("stockfish-d12").is_ok());
        for bad in ["", "  ", "a,b", IMPORTED] {
            let err = check_name(bad).unwrap_err();
            assert!(matches!(err, Error::BadLabellerName { .. }), "{bad:?}");
            assert!(err.is_users());
        }
    }

    fn db_with_positions() -> Connection {
        let conn = crate::open_in_memory().unwrap();
        conn.execute_batch(
            "INSERT INTO sources (id, path, format, compression, pov, started_at) \
               VALUES (1, 't', 'csv', 'none', 'white', 'now'); \
             INSERT INTO positions (id, fen, fen_input, eval_cp, mate, source_id, line) VALUES \
               (1, '8/8/8/8/8/8/8/K1k5 w - -', 'a', 10, NULL, 1, 1), \
               (2, '8/8/8/8/8/8/8/K2k4 w - -', 'b', NULL, 3, 1, 2), \
               (3, '8/8/8/8/8/8/8/K3k3 w - -', 'c', NULL, NULL, 1, 3);",
        )
        .unwrap();
        conn
    }

    fn read(conn: &Connection, choice: &LabelChoice) -> Vec<(i64, Option<i64>, Option<i64>)> {
        let sql = choice.sql();
        let q = format!(
            "SELECT p.id, {}, {} FROM positions p{} ORDER BY p.id",
            sql.eval_cp, sql.mate, sql.joins
        );
        let mut stmt = conn.prepare(&q).unwrap();
        stmt.query_map(rusqlite::params_from_iter(choice.params()), |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
    }

    #[test]
    fn preference_lists_pick_the_first_label_present() {
        let conn = db_with_positions();
        let label = |id, cp, mate| EngineLabel {
            position_id: id,
            eval_cp: cp,
            mate,
            depth: Some(10),
            nodes: Some(5000),
            best_move: None,
        };
        store(
            &conn,
            "sf",
            &[label(1, Some(25), None), label(3, None, Some(-2))],
            &[],
        )
        .unwrap();
        let imported = LabelChoice::default();
        assert_eq!(
            read(&conn, &imported),
            [(1, Some(10), None), (2, None, Some(3)), (3, None, None)]
        );
        let sf = LabelChoice::parse("sf").unwrap();
        assert_eq!(
            read(&conn, &sf),
            [(1, Some(25), None), (2, None, None), (3, None, Some(-2))]
        );
        let both = LabelChoice::parse("sf, imported").unwrap();
        assert_eq!(
            read(&conn, &both),
            [(1, Some(25), None), (2, None, Some(3)), (3, None, Some(-2))]
        );
        assert!(both.check(&conn).is_ok());
        let err = LabelChoice::parse("lc0").unwrap().check(&conn).unwrap_err();
        assert!(err.to_string().contains("sf (2 positions)"), "{err}");
        assert!(LabelChoice::parse(" , ").is_err());
    }

    #[test]
    fn pending_skips_labelled_and_failed_positions() {
        let conn = db_with_positions();
        assert_eq!(pending_count(&conn, "sf", None).unwrap(), 3);
        store(
            &conn,
            "sf",
            &[EngineLabel {
                position_id: 2,
                eval_cp: Some(1),
                mate: None,
                depth: None,
                nodes: None,
                best_move: None,
            }],
            &[(3, "crashed".into())],
        )
        .unwrap();
        let ids: Vec<i64> = pending(&conn, "sf", None, 0, 10)
            .unwrap()
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(ids, [1]);
        assert_eq!(pending_count(&conn, "sf", None).unwrap(), 1);
        assert_eq!(clear_failures(&conn, "sf").unwrap(), 1);
        assert_eq!(pending(&conn, "sf", Some("t"), 1, 10).unwrap().len(), 1);
    }

    #[test]
    fn best_move_comes_with_the_chosen_label() {
        let conn = db_with_positions();
        conn.execute_batch(
            "UPDATE positions SET best_move = 'a2a4' WHERE id = 1; \
             UPDATE positions SET next_move = 'b2b4' WHERE id IN (1, 2);",
        )
        .unwrap();
        let label = |id, best: Option<&str>| EngineLabel {
            position_id: id,
            eval_cp: Some(1),
            mate: None,
            depth: None,
            nodes: None,
            best_move: best.map(str::to_owned),
        };
        store(&conn, "sf", &[label(1, Some("c2c4")), label(2, None)], &[]).unwrap();
        let moves = |choice: &str| -> Vec<Option<String>> {
            let sql = LabelChoice::parse(choice).unwrap().sql();
            let q = format!(
                "SELECT {} FROM positions p{} ORDER BY p.id",
                sql.best_move, sql.joins
            );
            let mut stmt = conn.prepare(&q).unwrap();
            let params = LabelChoice::parse(choice).unwrap().params();
            stmt.query_map(rusqlite::params_from_iter(params), |r| r.get(0))
                .unwrap()
                .map(|r| r.unwrap())
                .collect()
        };
        let s = |m: &str| Some(m.to_owned());
        // The labeller's move, else the imported best move, else the game's next move.
        assert_eq!(moves("sf"), [s("c2c4"), s("b2b4"), None]);
        assert_eq!(moves("imported"), [s("a2a4"), s("b2b4"), None]);
    }
}
