//! Users' SQL conditions (`--where`): checked, pasted into a query, and the query
//! prepared so that SQLite's complaints name the condition. Shared by `fit` and `heatmap`.

use rusqlite::{Connection, Statement};

use crate::{Error, Result};

/// Checks a user's SQL condition before it is pasted into a query: not empty, one
/// expression (no `;`).
pub fn check_filter(filter: &str) -> Result<()> {
    if filter.trim().is_empty() {
        return Err(Error::Invalid(
            "empty --where condition (give an SQL expression such as `phase >= 12`)".into(),
        ));
    }
    if filter.contains(';') {
        return Err(Error::Invalid(format!(
            "--where {filter:?}: `;` is not allowed; give one SQL condition on positions/features columns"
        )));
    }
    Ok(())
}

/// Prepares `sql`, which contains the user's condition `filter`, turning SQLite's complaints
/// (unknown column, syntax error) into a message that names the condition.
pub fn prepare_filtered<'c>(
    conn: &'c Connection,
    sql: &str,
    filter: &str,
) -> Result<Statement<'c>> {
    check_filter(filter)?;
    let stmt = conn.prepare(sql).map_err(|e| {
        let msg = match &e {
            rusqlite::Error::SqliteFailure(_, Some(msg)) => msg.clone(),
            rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
            other => other.to_string(),
        };
        Error::Invalid(format!(
            "invalid --where condition {filter:?}: {msg} (columns of positions and features can be used, e.g. \"phase >= 12 AND eval_cp BETWEEN -300 AND 300\")"
        ))
    })?;
    if !stmt.readonly() {
        return Err(Error::Invalid(format!(
            "--where {filter:?} must only read the database"
        )));
    }
    Ok(stmt)
}
