//! Users' own SQL on the database (`chessgraph sql`): every statement of a script run in
//! order, with chessgraph's functions registered, the rows of each statement that
//! returns some handed to a [`Sink`] as they come (nothing is gathered in memory).

use fallible_iterator::FallibleIterator;
use rusqlite::types::ValueRef;
use rusqlite::{Batch, Connection};

use crate::{Error, Result};

/// Where the rows of a query go.
pub trait Sink {
    /// A statement that returns rows starts, with these column names.
    fn columns(&mut self, names: &[String]) -> std::io::Result<()>;
    /// One row of the current statement, a value per column.
    fn row(&mut self, values: &[ValueRef<'_>]) -> std::io::Result<()>;
    /// The current statement's rows are done.
    fn end(&mut self) -> std::io::Result<()>;
}

/// What a script did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Statements run.
    pub statements: u64,
    /// Rows returned, over every statement.
    pub rows: u64,
    /// Rows inserted, updated or deleted, over every statement that returns none.
    pub changed: u64,
}

/// Runs every statement of `sql` on `conn` in order, the rows of those that return some
/// into `sink`. A statement SQLite refuses is [`Error::Query`] (the user's), naming it
/// when the script has several; one that writes on a read-only connection is
/// [`Error::QueryWrites`].
pub fn run(conn: &Connection, sql: &str, sink: &mut dyn Sink) -> Result<Summary> {
    let mut summary = Summary::default();
    let mut batch = Batch::new(conn, sql);
    loop {
        let mut stmt = match batch.next() {
            Ok(Some(stmt)) => stmt,
            Ok(None) => break,
            Err(e) => return Err(refused(e, summary.statements + 1)),
        };
        summary.statements += 1;
        let n = summary.statements;
        let columns = stmt.column_count();
        if columns == 0 {
            summary.changed += stmt.execute([]).map_err(|e| refused(e, n))? as u64;
            continue;
        }
        let names: Vec<String> = stmt.column_names().iter().map(|s| s.to_string()).collect();
        sink.columns(&names).map_err(io)?;
        let mut rows = stmt.query([]).map_err(|e| refused(e, n))?;
        while let Some(row) = rows.next().map_err(|e| refused(e, n))? {
            let values = (0..columns)
                .map(|i| row.get_ref(i))
                .collect::<rusqlite::Result<Vec<_>>>()
                .map_err(|e| refused(e, n))?;
            sink.row(&values).map_err(io)?;
            summary.rows += 1;
        }
        sink.end().map_err(io)?;
    }
    Ok(summary)
}

/// An I/O error of the sink (its output closed, a full disk).
fn io(e: std::io::Error) -> Error {
    Error::io("the query's output", e)
}

/// The user's statement number `n` refused by SQLite, in SQLite's words.
fn refused(e: rusqlite::Error, n: u64) -> Error {
    let readonly = matches!(
        &e,
        rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::ReadOnly
    );
    let message = match &e {
        rusqlite::Error::SqliteFailure(_, Some(m)) => m.clone(),
        rusqlite::Error::SqlInputError { msg, offset, .. } => {
            format!("{msg} (at character {offset})")
        }
        other => other.to_string(),
    };
    if readonly {
        return Error::QueryWrites { statement: n };
    }
    Error::Query {
        statement: n,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Collects what it is given, as text.
    #[derive(Default)]
    struct Lines(Vec<String>);

    impl Sink for Lines {
        fn columns(&mut self, names: &[String]) -> std::io::Result<()> {
            self.0.push(names.join(","));
            Ok(())
        }
        fn row(&mut self, values: &[ValueRef<'_>]) -> std::io::Result<()> {
            let cells: Vec<String> = values
                .iter()
                .map(|v| format!("{:?}", rusqlite::types::Value::from(*v)))
                .collect();
            self.0.push(cells.join(","));
            Ok(())
        }
        fn end(&mut self) -> std::io::Result<()> {
            self.0.push("end".into());
            Ok(())
        }
    }

    #[test]
    fn every_statement_runs_and_rows_stream_with_the_functions() {
        let conn = crate::open_in_memory().unwrap();
        let mut sink = Lines::default();
        let s = run(
            &conn,
            "CREATE TEMP TABLE t(x); INSERT INTO t VALUES (1), (2); \
             SELECT x, board_fen(pack_fen('8/8/8/8/8/8/8/K6k w - -')) AS fen FROM t ORDER BY x;",
            &mut sink,
        )
        .unwrap();
        assert_eq!(
            s,
            Summary {
                statements: 3,
                rows: 2,
                changed: 2
            }
        );
        assert_eq!(
            sink.0,
            [
                "x,fen",
                "Integer(1),Text(\"8/8/8/8/8/8/8/K6k w - -\")",
                "Integer(2),Text(\"8/8/8/8/8/8/8/K6k w - -\")",
                "end"
            ]
        );
    }

    #[test]
    fn refusals_name_the_statement() {
        let conn = crate::open_in_memory().unwrap();
        let err = run(
            &conn,
            "SELECT 1; SELECT * FROM nowhere",
            &mut Lines::default(),
        )
        .unwrap_err();
        assert!(err.is_users());
        let text = err.to_string();
        assert!(
            text.contains("statement 2") && text.contains("no such table: nowhere"),
            "{text}"
        );
        conn.pragma_update(None, "query_only", true).unwrap();
        let err = run(&conn, "DELETE FROM games", &mut Lines::default()).unwrap_err();
        assert!(matches!(err, Error::QueryWrites { statement: 1 }), "{err}");
    }
}
