//! Recorded runs: puzzle solving, matches, engine benchmarks and evaluator comparisons store
//! their summaries in `runs`, so `chessgraph report` can show them next to the data.

use chessgraph_core::Error as CoreError;
use rusqlite::{Connection, params};
use serde::Serialize;

use crate::Result;

/// One row of `runs`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Run {
    /// `runs.id`.
    pub id: i64,
    /// What kind of run: `solve`, `match`, `bench`, `eval`, ...
    pub kind: String,
    /// What was run (input file, engines, evaluator), for people.
    pub label: String,
    /// The command's own summary.
    pub summary: serde_json::Value,
    /// UTC time, ISO 8601.
    pub created_at: String,
}

/// Stores a run and returns its id.
pub fn record(conn: &Connection, kind: &str, label: &str, summary: &impl Serialize) -> Result<i64> {
    let summary = serde_json::to_string(summary).map_err(|source| CoreError::Encode {
        what: format!("the {kind} summary"),
        source,
    })?;
    conn.execute(
        "INSERT INTO runs (kind, label, summary, created_at) \
         VALUES (?1, ?2, ?3, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
        params![kind, label, summary],
    )?;
    Ok(conn.last_insert_rowid())
}

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Run> {
    let text: String = r.get(3)?;
    Ok(Run {
        id: r.get(0)?,
        kind: r.get(1)?,
        label: r.get(2)?,
        // A summary that is not JSON (edited by hand) is shown as a string, not an error.
        summary: serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)),
        created_at: r.get(4)?,
    })
}

/// The newest run of `kind` for each distinct label, newest first.
pub fn latest_per_label(conn: &Connection, kind: &str) -> Result<Vec<Run>> {
    let mut stmt = conn.prepare(
        "SELECT id, kind, label, summary, created_at FROM runs \
         WHERE id IN (SELECT max(id) FROM runs WHERE kind = ?1 GROUP BY label) ORDER BY id DESC",
    )?;
    let runs = stmt
        .query_map([kind], from_row)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(runs)
}

/// The newest run of `kind`, if any.
#[cfg(test)]
pub fn latest(conn: &Connection, kind: &str) -> Result<Option<Run>> {
    use rusqlite::OptionalExtension as _;
    Ok(conn
        .query_row(
            "SELECT id, kind, label, summary, created_at FROM runs WHERE kind = ?1 ORDER BY id DESC LIMIT 1",
            [kind],
            from_row,
        )
        .optional()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_and_read_back() {
        let conn = crate::open_in_memory().unwrap();
        assert_eq!(latest(&conn, "solve").unwrap(), None);
        record(&conn, "solve", "a.epd", &serde_json::json!({"solved": 1})).unwrap();
        record(&conn, "solve", "b.epd", &serde_json::json!({"solved": 2})).unwrap();
        let id = record(&conn, "solve", "a.epd", &serde_json::json!({"solved": 3})).unwrap();
        record(&conn, "bench", "x", &serde_json::json!({})).unwrap();
        let runs = latest_per_label(&conn, "solve").unwrap();
        let got: Vec<_> = runs
            .iter()
            .map(|r| (r.label.as_str(), r.summary["solved"].as_i64()))
            .collect();
        assert_eq!(got, [("a.epd", Some(3)), ("b.epd", Some(2))]);
        assert_eq!(latest(&conn, "solve").unwrap().unwrap().id, id);
    }
}
