//! Reading whole tables out for a columnar export (`chessgraph export data`): the
//! columns of a table with their declared types, and its rows streamed in key order, so
//! memory stays constant whatever the table's size.

use chessgraph_core::Error as CoreError;
use rusqlite::Connection;

use crate::Result;

/// The SQLite storage class a column is declared with.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// `INTEGER`: 64-bit signed.
    Integer,
    /// `REAL`: 64-bit float.
    Real,
    /// `TEXT`.
    Text,
}

/// One column of a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// Its name.
    pub name: String,
    /// Its declared type.
    pub kind: ColumnType,
    /// Whether NULL is allowed (not `NOT NULL` and not the integer primary key).
    pub nullable: bool,
}

/// A table that can be exported, and the key its rows are ordered by.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Table {
    /// Table name.
    pub name: &'static str,
    /// `ORDER BY` of the export.
    pub order_by: &'static str,
}

/// The tables `export data` writes from the database, in that order (the edges are
/// computed from the positions).
pub const TABLES: [Table; 4] = [
    Table {
        name: "positions",
        order_by: "id",
    },
    Table {
        name: "features",
        order_by: "position_id",
    },
    Table {
        name: "labels",
        order_by: "position_id, labeller",
    },
    Table {
        name: "splits",
        order_by: "position_id",
    },
];

/// The table holding the rows of a view the schema keeps for reading (`positions`,
/// `features`, `labels`), and the declared type of each view column computed from them.
fn stored(view: &str) -> Option<(&'static str, &'static [(&'static str, &'static str)])> {
    match view {
        "positions" => Some(("position_rows", &[("fen", "TEXT"), ("fen_input", "TEXT")])),
        "features" => Some((
            "feature_rows",
            &[
                ("mobility", "INTEGER"),
                ("white_attacks", "INTEGER"),
                ("black_attacks", "INTEGER"),
            ],
        )),
        "labels" => Some((
            "label_rows",
            &[("labeller", "TEXT"), ("created_at", "TEXT")],
        )),
        "splits" => Some((
            "position_rows",
            &[("position_id", "INTEGER"), ("part", "TEXT")],
        )),
        _ => None,
    }
}

/// `(name, declared type, not null, primary key)` of every column of `table`.
fn table_info(conn: &Connection, table: &str) -> Result<Vec<(String, String, bool, i64)>> {
    let mut stmt = conn.prepare("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1)")?;
    let rows = stmt.query_map([table], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The columns of `table`, in declaration order. A view's columns take their type and
/// nullability from the table that stores them; its computed columns (a FEN, a
/// labeller's name) are never NULL. `table` is one of chessgraph's own, so a missing table
/// or a column of another type is [`chessgraph_core::Error::Stored`]: the schema was changed outside
/// chessgraph.
pub fn columns(conn: &Connection, table: &str) -> Result<Vec<Column>> {
    let mut info = table_info(conn, table)?;
    if let Some((rows_table, computed)) = stored(table) {
        let stored_info = table_info(conn, rows_table)?;
        for (name, declared, not_null, pk) in &mut info {
            if let Some((_, kind)) = computed.iter().find(|(n, _)| n == name) {
                (*declared, *not_null) = ((*kind).to_owned(), true);
            } else if let Some(s) = stored_info.iter().find(|s| &s.0 == name) {
                (*declared, *not_null, *pk) = (s.1.clone(), s.2, s.3);
            }
        }
    }
    let mut out = Vec::new();
    for (name, declared, not_null, pk) in info {
        let kind = match declared.to_ascii_uppercase().as_str() {
            "INTEGER" => ColumnType::Integer,
            "REAL" => ColumnType::Real,
            "TEXT" => ColumnType::Text,
            other => {
                return Err(CoreError::Stored {
                    what: format!("{table}.{name}"),
                    why: format!("column type {other:?} has no columnar equivalent"),
                }
                .into());
            }
        };
        let integer_key = pk > 0 && kind == ColumnType::Integer;
        out.push(Column {
            name,
            kind,
            nullable: !not_null && !integer_key,
        });
    }
    if out.is_empty() {
        return Err(CoreError::Stored {
            what: format!("table {table:?}"),
            why: "not in the database".into(),
        }
        .into());
    }
    Ok(out)
}

/// Rows in `table`.
pub fn row_count(conn: &Connection, table: &str) -> Result<u64> {
    Ok(
        conn.query_row(&format!("SELECT count(*) FROM \"{table}\""), [], |r| {
            r.get(0)
        })?,
    )
}

/// Calls `f` with every row of `table` (the given `columns`, in that order), ordered by
/// the table's key. SQLite streams the rows: nothing is held but the current one.
pub fn for_each_row(
    conn: &Connection,
    table: &Table,
    columns: &[Column],
    mut f: impl FnMut(&rusqlite::Row<'_>) -> Result<()>,
) -> Result<()> {
    let list: Vec<String> = columns.iter().map(|c| format!("\"{}\"", c.name)).collect();
    let sql = format!(
        "SELECT {} FROM \"{}\" ORDER BY {}",
        list.join(", "),
        table.name,
        table.order_by
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        f(row)?;
    }
    Ok(())
}

/// Calls `f` with chunks of at most `chunk` analyzed positions (those with a `features`
/// row) `(id, normalized FEN)`, by id.
pub fn for_each_analyzed_chunk(
    conn: &Connection,
    chunk: usize,
    mut f: impl FnMut(&[(i64, String)]) -> Result<()>,
) -> Result<()> {
    let mut stmt = conn.prepare(
        "SELECT p.id, p.fen FROM positions p \
         WHERE EXISTS (SELECT 1 FROM feature_rows f WHERE f.position_id = p.id) ORDER BY p.id",
    )?;
    let mut rows = stmt.query([])?;
    let mut buf = Vec::with_capacity(chunk);
    while let Some(row) = rows.next()? {
        buf.push((row.get(0)?, row.get(1)?));
        if buf.len() == chunk {
            f(&buf)?;
            buf.clear();
        }
    }
    if !buf.is_empty() {
        f(&buf)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    #[test]
    fn columns_know_types_and_nulls() {
        let conn = crate::open_in_memory().unwrap();
        let cols = columns(&conn, "positions").unwrap();
        let get = |n: &str| cols.iter().find(|c| c.name == n).unwrap().clone();
        assert_eq!(cols[0].name, "id");
        assert!(!get("id").nullable && get("id").kind == ColumnType::Integer);
        assert!(!get("fen").nullable && get("fen").kind == ColumnType::Text);
        assert!(get("eval_cp").nullable);
        for t in TABLES {
            assert!(!columns(&conn, t.name).unwrap().is_empty());
        }
        // A table of ours that is gone: the schema was changed, not the user's fault.
        let gone = columns(&conn, "nope").unwrap_err();
        assert!(
            matches!(gone, Error::Core(CoreError::Stored { .. })) && !gone.is_users(),
            "{gone:?}"
        );
    }
}
