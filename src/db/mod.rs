//! The SQLite store: opening, schema migrations (SQL files in `migrations/`), and the
//! reads and writes the rest of the pipeline needs.

pub mod analyze;
pub mod evaluators;
pub mod import;
pub mod labels;
pub mod runs;
pub mod stats;

use std::path::Path;

use rusqlite::Connection;

use crate::{Error, Result};

/// Schema migrations in order; `PRAGMA user_version` holds how many are applied.
const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/0001_init.sql"),
    include_str!("../../migrations/0002_fits.sql"),
    include_str!("../../migrations/0003_runs.sql"),
    include_str!("../../migrations/0004_evaluators.sql"),
    include_str!("../../migrations/0005_labels.sql"),
];

/// Opens (creating if needed) the database at `path` and brings its schema up to date.
pub fn open(path: &Path) -> Result<Connection> {
    let conn = Connection::open(path)?;
    configure(&conn)?;
    migrate(&conn)?;
    Ok(conn)
}

/// Opens an in-memory database with the full schema (tests, scratch work).
pub fn open_in_memory() -> Result<Connection> {
    let conn = Connection::open_in_memory()?;
    configure(&conn)?;
    migrate(&conn)?;
    Ok(conn)
}

fn configure(conn: &Connection) -> Result<()> {
    // Foreign keys in the schema document the relations; they are not enforced (SQLite's
    // default), since checking one per edge row would cost a lookup per insert.
    // WAL keeps readers working during an import; NORMAL sync is crash-safe in WAL mode
    // (a power cut may lose the last commits, never consistency).
    conn.busy_timeout(std::time::Duration::from_secs(30))?;
    // Larger pages suit the bulk tables (edges); only takes effect on a new file.
    conn.pragma_update(None, "page_size", 16_384)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "cache_size", -262_144)?; // 256 MiB
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    // Let the sorter use a second core when building indexes.
    conn.pragma_update(None, "threads", 2)?;
    Ok(())
}

/// Applies every migration newer than the DB's `user_version`, each in its own transaction.
pub fn migrate(conn: &Connection) -> Result<()> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let known = MIGRATIONS.len() as i64;
    if version > known {
        return Err(Error::SchemaTooNew {
            found: version,
            known,
        });
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        let tx = conn.unchecked_transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (i + 1) as i64)?;
        tx.commit()?;
    }
    Ok(())
}

/// Schema version of an open database.
pub fn schema_version(conn: &Connection) -> Result<i64> {
    Ok(conn.pragma_query_value(None, "user_version", |r| r.get(0))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_apply_once_and_set_version() {
        let conn = open_in_memory().unwrap();
        assert_eq!(schema_version(&conn).unwrap(), MIGRATIONS.len() as i64);
        // Re-running is a no-op, not an error ("table already exists").
        migrate(&conn).unwrap();
        let n: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'edges'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 1);
    }

    #[test]
    fn newer_schema_is_refused() {
        let conn = open_in_memory().unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
        assert!(matches!(
            migrate(&conn),
            Err(Error::SchemaTooNew { found: 99, .. })
        ));
    }
}
