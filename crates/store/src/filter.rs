//! Users' SQL conditions (`--where`, the page's `where=`): checked, placed in a query, and
//! the query prepared under a sandbox. Shared by `fit`, `heatmap` and `serve`.
//!
//! A condition is one SQL expression on the columns of `positions` (`p.`) and `features`
//! (`f.`). Three gates keep it so, whoever typed it:
//!
//! 1. [`Condition::parse`] reads it with SQLite's own lexical rules (strings, quoted
//!    names, comments) and refuses comments, `;`, parameters and a closing parenthesis
//!    that has no opening one — so, placed between parentheses in a query, it can only be
//!    an expression there: it cannot end the `WHERE` clause, start a `UNION` or comment
//!    out the rest.
//! 2. [`prepare_filtered`] prepares the query under an authorizer (SQLite's
//!    `sqlite3_set_authorizer`): only `SELECT`, reads of the project's position tables
//!    ([`READABLE_TABLES`]), of the condition's own common table expressions (a name
//!    that is no table, view or virtual table of the database) and the functions of
//!    [`SAFE_FUNCTIONS`]. Everything else —
//!    `pragma_*` tables, `sqlite_schema`, `ATTACH`, `load_extension`, `printf`,
//!    `zeroblob`, recursive CTEs — is refused when the query is prepared, before a row is
//!    read, with a message naming what was refused.
//! 3. [`Sandbox`] lowers SQLite's run-time limits while a condition runs (longest string
//!    or blob, longest `LIKE` pattern) so that no single step of the virtual machine can
//!    take long, and a time limit (the `Deadline` of `browse.rs`) that checks the clock
//!    every 100 steps therefore holds to within a few
//!    percent.

use std::sync::{Arc, Mutex};

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::{Connection, Statement};

use crate::Result;
pub use crate::error::ConditionError;

/// Longest condition accepted, in bytes.
pub const MAX_CONDITION_LEN: usize = 4096;

/// Tables a condition (and the queries around it) may read: the views and the tables
/// that store their rows.
pub const READABLE_TABLES: &[&str] = &[
    "positions",
    "features",
    "edges",
    "labels",
    "splits",
    "games",
    "position_rows",
    "feature_rows",
    "label_rows",
    "labellers",
    "split_meta",
];

/// Functions a condition may call: pure, cheap per call, and none that makes a string
/// much longer than its arguments (`printf`, `replace`, `hex`, `zeroblob`, ... are not
/// here), reads the database's environment (`sqlite_version`, `load_extension`) or has
/// side effects.
pub const SAFE_FUNCTIONS: &[&str] = &[
    // chessgraph's (bounded output: a FEN of at most ~90 bytes, an integer)
    "board_fen",
    "board_key",
    "board_attacks",
    "pack_fen",
    "split_part",
    "game_key",
    // scalar
    "abs",
    "coalesce",
    "ifnull",
    "iif",
    "if",
    "nullif",
    "min",
    "max",
    "length",
    "octet_length",
    "lower",
    "upper",
    "trim",
    "ltrim",
    "rtrim",
    "substr",
    "substring",
    "like",
    "glob",
    "typeof",
    "sign",
    "round",
    "random",
    "unicode",
    "char",
    "likely",
    "unlikely",
    "likelihood",
    // math
    "sqrt",
    "pow",
    "power",
    "exp",
    "ln",
    "log",
    "log2",
    "log10",
    "floor",
    "ceil",
    "ceiling",
    "mod",
    "pi",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "degrees",
    "radians",
    "trunc",
    // date and time (bounded output: the `labels` view's `created_at` calls `strftime`)
    "strftime",
    "date",
    "time",
    "datetime",
    "julianday",
    "unixepoch",
    // aggregate (in subqueries)
    "count",
    "sum",
    "total",
    "avg",
];

/// Longest string or blob a condition may make or read while it runs (bytes).
const SANDBOX_MAX_LENGTH: i32 = 10_000;
/// Longest `LIKE`/`GLOB` pattern while a condition runs (bytes).
const SANDBOX_MAX_PATTERN: i32 = 100;

/// A checked condition: one SQL expression, safe to place between parentheses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition(String);

impl Condition {
    /// Checks `text` with SQLite's lexical rules (see the module comment).
    pub fn parse(text: &str) -> std::result::Result<Condition, ConditionError> {
        if text.trim().is_empty() {
            return Err(ConditionError::Empty);
        }
        if text.len() > MAX_CONDITION_LEN {
            return Err(ConditionError::TooLong {
                len: text.len(),
                max: MAX_CONDITION_LEN,
            });
        }
        let refuse = |why: String| ConditionError::NotOneExpression {
            condition: shown(text),
            why,
        };
        let b = text.as_bytes();
        let mut depth = 0usize;
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            match c {
                b'\'' | b'"' | b'`' | b'[' => {
                    let close = if c == b'[' { b']' } else { c };
                    // Strings and quoted names end at the closing quote; a doubled quote
                    // is an escaped one (SQLite's rule; `[...]` has no escape).
                    let mut j = i + 1;
                    loop {
                        match b.get(j) {
                            None => return Err(refuse("an unterminated quote".into())),
                            Some(&q) if q == close => {
                                if close != b']' && b.get(j + 1) == Some(&close) {
                                    j += 2;
                                    continue;
                                }
                                break;
                            }
                            Some(_) => j += 1,
                        }
                    }
                    i = j + 1;
                    continue;
                }
                b'-' if b.get(i + 1) == Some(&b'-') => {
                    return Err(refuse("a `--` comment".into()));
                }
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    return Err(refuse("a `/* */` comment".into()));
                }
                b';' => return Err(refuse("`;`".into())),
                b'?' | b':' | b'@' | b'$' => {
                    return Err(refuse(format!("the parameter mark `{}`", c as char)));
                }
                b'(' => depth += 1,
                b')' => {
                    depth = depth
                        .checked_sub(1)
                        .ok_or_else(|| refuse("a `)` without its `(`".into()))?;
                }
                0 => return Err(refuse("a NUL byte".into())),
                _ => {}
            }
            i += 1;
        }
        if depth != 0 {
            return Err(refuse("a `(` without its `)`".into()));
        }
        Ok(Condition(text.to_owned()))
    }

    /// The condition's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A condition as messages quote it: the first 100 characters of a long one.
fn shown(text: &str) -> String {
    match text.char_indices().nth(100) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// What the authorizer refused first while a statement was prepared.
type Refusal = Arc<Mutex<Option<String>>>;

/// The names of [`real_names`].
type RealNames = std::collections::HashSet<String>;

/// The names a read may find in the database, lower case: its tables and views (main and
/// temporary), SQLite's own (`sqlite_*`, `pragma_*`) and the modules of virtual tables
/// (`json_each`, `dbstat`, ...). A read of any other name reads a common table
/// expression of the query itself.
fn real_names(conn: &Connection) -> Result<RealNames> {
    let mut names = RealNames::new();
    for sql in [
        "SELECT name FROM main.sqlite_schema WHERE type IN ('table', 'view')",
        "SELECT name FROM temp.sqlite_schema WHERE type IN ('table', 'view')",
        "SELECT name FROM pragma_module_list",
    ] {
        let mut stmt = conn.prepare(sql)?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        for name in rows {
            names.insert(name?.to_ascii_lowercase());
        }
    }
    Ok(names)
}

/// Whether `name` (lower case) is a name a read may find in the database.
fn is_real(real: &RealNames, name: &str) -> bool {
    name.starts_with("sqlite_") || name.starts_with("pragma_") || real.contains(name)
}

fn authorize(ctx: AuthContext<'_>, refusal: &Refusal, real: &RealNames) -> Authorization {
    let refused = match ctx.action {
        AuthAction::Select => return Authorization::Allow,
        AuthAction::Read { table_name, .. }
            // SQLite names no database for some reads (a rowid); ATTACH is refused, so
            // there is no other database than `main` to read.
            if READABLE_TABLES.contains(&table_name)
                && matches!(ctx.database_name, None | Some("main")) =>
        {
            return Authorization::Allow;
        }
        AuthAction::Function { function_name }
            if SAFE_FUNCTIONS.contains(&function_name.to_ascii_lowercase().as_str()) =>
        {
            return Authorization::Allow;
        }
        AuthAction::Read { table_name, .. }
            if !is_real(real, &table_name.to_ascii_lowercase()) =>
        {
            // Not a table, view or virtual table of the database: a name the condition
            // gave a subquery (`WITH t AS (...)`), whose reads are checked in turn.
            return Authorization::Allow;
        }
        AuthAction::Read { table_name, .. } => format!("reading table {table_name}"),
        AuthAction::Function { function_name } => format!("function {function_name}"),
        AuthAction::Recursive => "a recursive query".to_owned(),
        AuthAction::Pragma { pragma_name, .. } => format!("pragma {pragma_name}"),
        AuthAction::Attach { .. } => "ATTACH".to_owned(),
        other => format!("{other:?}"),
    };
    let mut first = refusal.lock().unwrap_or_else(|e| e.into_inner());
    if first.is_none() {
        *first = Some(refused);
    }
    Authorization::Deny
}

fn allowed_list(what: &str) -> String {
    if what.starts_with("function") {
        format!("functions: {}", SAFE_FUNCTIONS.join(", "))
    } else {
        format!("tables: {}", READABLE_TABLES.join(", "))
    }
}

/// Prepares `sql`, which contains the user's condition `filter`, under the authorizer of
/// the module comment; SQLite's complaints (unknown column, syntax error, something not
/// allowed) become a [`ConditionError`] that names the condition.
pub fn prepare_filtered<'c>(
    conn: &'c Connection,
    sql: &str,
    filter: &str,
) -> Result<Statement<'c>> {
    Condition::parse(filter)?;
    let refusal: Refusal = Arc::default();
    let seen = refusal.clone();
    let real = real_names(conn)?;
    conn.authorizer(Some(move |ctx: AuthContext<'_>| {
        authorize(ctx, &seen, &real)
    }));
    let prepared = conn.prepare(sql);
    conn.authorizer(None::<fn(AuthContext<'_>) -> Authorization>);
    let stmt = prepared.map_err(|e| {
        if let Some(what) = refusal.lock().unwrap_or_else(|e| e.into_inner()).take() {
            return ConditionError::NotAllowed {
                condition: shown(filter),
                allowed: allowed_list(&what),
                what,
            };
        }
        let why = match &e {
            rusqlite::Error::SqliteFailure(_, Some(msg)) => msg.clone(),
            rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
            other => other.to_string(),
        };
        ConditionError::Invalid {
            condition: shown(filter),
            why,
        }
    })?;
    if !stmt.readonly() {
        return Err(ConditionError::NotAllowed {
            condition: shown(filter),
            what: "writing".into(),
            allowed: "a condition only reads".into(),
        }
        .into());
    }
    Ok(stmt)
}

/// SQLite's run-time limits lowered while a user's condition runs (see the module
/// comment); [`Sandbox::run`] restores them after.
pub struct Sandbox;

impl Sandbox {
    /// Runs `f` with the lowered limits on `conn`.
    pub fn run<T>(conn: &Connection, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let lowered = [
            (Limit::SQLITE_LIMIT_LENGTH, SANDBOX_MAX_LENGTH),
            (Limit::SQLITE_LIMIT_LIKE_PATTERN_LENGTH, SANDBOX_MAX_PATTERN),
        ];
        let mut old = Vec::with_capacity(lowered.len());
        for (limit, value) in lowered {
            old.push((limit, conn.set_limit(limit, value)?));
        }
        let result = f();
        for (limit, value) in old {
            conn.set_limit(limit, value)?;
        }
        result
    }
}

/// Whether `err` is SQLite refusing a string or blob over the sandbox's length.
pub fn is_too_big(err: &crate::Error) -> bool {
    matches!(err, crate::Error::Sqlite(rusqlite::Error::SqliteFailure(e, _))
        if e.code == rusqlite::ErrorCode::TooBig)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE positions (id INTEGER PRIMARY KEY, fen TEXT, eval_cp INTEGER);
             CREATE TABLE features (position_id INTEGER PRIMARY KEY, phase INTEGER);
             CREATE TABLE sources (id INTEGER PRIMARY KEY, path TEXT);
             INSERT INTO positions VALUES (1, '8/8/8/8/8/8/8/K1k5 w - - 0 1', 5), (2, 'x', 300);
             INSERT INTO features VALUES (1, 3), (2, 20);
             INSERT INTO sources VALUES (1, '/home/someone/secret.csv');",
        )
        .unwrap();
        conn
    }

    fn run(conn: &Connection, filter: &str) -> Result<Vec<i64>> {
        let sql = format!(
            "SELECT p.id FROM positions p LEFT JOIN features f ON f.position_id = p.id \
             WHERE (\n{filter}\n) ORDER BY p.id"
        );
        Sandbox::run(conn, || {
            let mut stmt = prepare_filtered(conn, &sql, filter)?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    #[test]
    fn conditions_are_one_expression() {
        for good in [
            "phase > 12",
            "fen LIKE '%K%' AND (eval_cp BETWEEN -300 AND 300)",
            "fen = 'it''s -- not a comment; (nor this'",
            "\"phase\" > 1 OR [eval_cp] < 0 OR `fen` IS NULL",
            "p.id IN (SELECT position_id FROM features WHERE phase > (1))",
        ] {
            assert!(Condition::parse(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "  ",
            "1; DROP TABLE positions",
            "0) UNION ALL SELECT 1 /*",
            "0) OR (1",
            "phase > 1 -- rest",
            "phase > 1 /* x */",
            "(phase > 1",
            "fen = 'unterminated",
            "id = ?1",
            "id = :x",
            "\"phase",
        ] {
            assert!(Condition::parse(bad).is_err(), "{bad:?}");
        }
        assert!(matches!(
            Condition::parse(&"1".repeat(MAX_CONDITION_LEN + 1)),
            Err(ConditionError::TooLong { .. })
        ));
    }

    #[test]
    fn the_sandbox_allows_reading_positions_and_safe_functions() {
        let conn = db();
        assert_eq!(run(&conn, "phase > 12").unwrap(), vec![2]);
        assert_eq!(
            run(&conn, "abs(eval_cp) < 10 AND length(fen) > 3").unwrap(),
            vec![1]
        );
        assert_eq!(
            run(
                &conn,
                "p.id IN (SELECT position_id FROM features WHERE phase < 5)"
            )
            .unwrap(),
            vec![1]
        );
    }

    #[test]
    fn the_sandbox_refuses_other_tables_and_functions() {
        let conn = db();
        for (bad, what) in [
            (
                "length(printf('%.*c', 20000000 + p.id, 'x')) > 0",
                "function printf",
            ),
            (
                "(SELECT count(*) FROM sources) > 0",
                "reading table sources",
            ),
            (
                "(SELECT count(*) FROM pragma_database_list) > 0",
                "pragma_database_list",
            ),
            ("(SELECT count(*) FROM sqlite_schema) > 0", "sqlite_schema"),
            ("sqlite_version() IS NOT NULL", "function sqlite_version"),
            ("load_extension('x') IS NULL", "function load_extension"),
            ("length(zeroblob(1000000000)) > 0", "function zeroblob"),
            (
                "(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c) > 0",
                "is not allowed",
            ),
        ] {
            let err = run(&conn, bad).unwrap_err();
            let text = err.to_string();
            assert!(
                matches!(
                    err,
                    crate::Error::Condition(ConditionError::NotAllowed { .. })
                ),
                "{bad}: {text}"
            );
            assert!(text.contains(what), "{bad}: {text}");
        }
        // The authorizer is gone after the statement is prepared: the project's own
        // queries on the same connection read what they like.
        let n: i64 = conn
            .query_row("SELECT count(*) FROM sources", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
    }

    /// The documented views read in a condition (`labels` calls `strftime`), and a
    /// condition may name its own subqueries with a non-recursive `WITH`.
    #[test]
    fn views_and_plain_ctes_are_readable() {
        let conn = db();
        conn.execute_batch(
            "CREATE TABLE label_rows (position_id INTEGER, eval_cp INTEGER, created_at INTEGER);
             INSERT INTO label_rows VALUES (2, 40, 1700000000);
             CREATE VIEW labels AS SELECT position_id, eval_cp,
                 strftime('%Y-%m-%dT%H:%M:%SZ', created_at, 'unixepoch') AS created_at
             FROM label_rows;",
        )
        .unwrap();
        assert_eq!(
            run(
                &conn,
                "p.id IN (SELECT position_id FROM labels WHERE created_at > '2023')"
            )
            .unwrap(),
            vec![2]
        );
        assert_eq!(
            run(
                &conn,
                "p.id IN (WITH t AS (SELECT position_id FROM features WHERE phase > 10) SELECT position_id FROM t)"
            )
            .unwrap(),
            vec![2]
        );
        assert_eq!(
            run(
                &conn,
                "p.id IN (WITH t(x) AS (SELECT 2), u AS (SELECT x FROM t) SELECT x FROM u)"
            )
            .unwrap(),
            vec![2]
        );
        // A CTE does not open what is refused: its body is checked like the rest, and
        // it cannot take the name of a table that is not readable.
        for bad in [
            "(WITH t AS (SELECT path FROM sources) SELECT count(*) FROM t) > 0",
            "(WITH sources AS (SELECT 1 AS x) SELECT count(*) FROM sources) > 0",
            "(WITH t AS (SELECT 1 AS x) SELECT count(*) FROM t, pragma_database_list) > 0",
            "(WITH json_each AS (SELECT 1) SELECT 1) + (SELECT count(*) FROM json_each('[1]')) > 0",
        ] {
            let err = run(&conn, bad).unwrap_err();
            assert!(
                matches!(
                    err,
                    crate::Error::Condition(ConditionError::NotAllowed { .. })
                ),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn long_strings_are_refused_while_a_condition_runs() {
        let conn = db();
        // 500 copies of a 27-byte FEN: 13,500 bytes, over the sandbox's 10,000.
        let long = format!("length({}) > 0", vec!["fen"; 500].join(" || "));
        let err = run(&conn, &long).unwrap_err();
        assert!(is_too_big(&err), "{err:?}");
        let short = format!("length({}) > 0", vec!["fen"; 300].join(" || "));
        assert_eq!(run(&conn, &short).unwrap(), vec![1, 2]);
        // Outside the sandbox the limits are back.
        let big: i64 = conn
            .query_row("SELECT length(printf('%.*c', 100000, 'x'))", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(big, 100_000);
    }
}
