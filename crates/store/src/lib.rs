//! chessgraph's store: the SQLite file. Opening it (and refusing files that are not
//! chessgraph's), the schema and its migrations (SQL files in `migrations/`), the SQL
//! functions every connection has, import (one row at a time or in bulk, resumable),
//! analyze (features and the attack/defense graph), labels, games, stored evaluators,
//! fits and runs, the split's seed, `--where` conditions, users' own SQL ([`query`]),
//! and the reads the rest of the pipeline needs. Its error ([`Error`]) is also the error of the stages above it.
//!
//! Inside the crate a module uses only those before it in [`LAYERS`] (a test of the
//! workspace checks it).

#![warn(missing_docs)]

pub mod analyze;
pub mod browse;
pub mod error;
pub mod evaluators;
pub mod export;
pub mod filter;
pub mod games;
pub mod import;
pub mod labels;
pub mod query;
pub mod runs;
pub mod split;
pub mod stats;
pub mod tournaments;

use std::path::Path;

use rusqlite::Connection;

pub use chessgraph_sql as functions;
pub use error::{Error, Result};

/// The modules in order: each may use only those before it in this list (the crate's
/// root, `lib.rs`, may use any).
pub const LAYERS: &[&str] = &[
    "error",
    "query",
    "split",
    "filter",
    "labels",
    "games",
    "evaluators",
    "runs",
    "tournaments",
    "analyze",
    "import",
    "stats",
    "browse",
    "export",
];

/// Schema migrations in order; `PRAGMA user_version` holds how many are applied.
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/0001_init.sql"),
    include_str!("../migrations/0002_fits.sql"),
    include_str!("../migrations/0003_runs.sql"),
    include_str!("../migrations/0004_evaluators.sql"),
    include_str!("../migrations/0005_labels.sql"),
    include_str!("../migrations/0006_tournaments.sql"),
    include_str!("../migrations/0007_positions_game.sql"),
    include_str!("../migrations/0008_evaluator_measures.sql"),
    include_str!("../migrations/0009_best_moves.sql"),
    include_str!("../migrations/0010_compact.sql"),
    include_str!("../migrations/0011_stored_key.sql"),
];

/// `PRAGMA application_id` of a chessgraph database ("CHGR"), set when chessgraph
/// creates one: a SQLite file without it (and not empty) is someone else's.
pub const APPLICATION_ID: i32 = 0x4348_4752;

/// How long a connection waits for another process's lock on the file before it fails
/// with "database is locked".
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Opens (creating if needed) the database at `path` and brings its schema up to date.
/// Refuses a SQLite file that is not chessgraph's instead of adding tables to it.
pub fn open(path: &Path) -> Result<Connection> {
    refuse_directory(path)?;
    let conn = Connection::open(path)?;
    // Before the first read: another process may be creating the same file right now.
    conn.busy_timeout(BUSY_TIMEOUT)?;
    check_ours(&conn, path)?;
    configure(&conn)?;
    migrate(&conn)?;
    let id: i32 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    if id != APPLICATION_ID {
        conn.pragma_update(None, "application_id", APPLICATION_ID)?;
    }
    Ok(conn)
}

/// Opens the existing database at `path` for reading only: nothing is created, migrated
/// or written, so a read-only file or directory works (a directory that cannot hold the
/// WAL's side files is opened immutable).
pub fn open_read_only(path: &Path) -> Result<Connection> {
    open_reader(path, false)
}

/// Opens the existing database at `path` for a command that reads it and exits: as
/// [`open_read_only`], but a writable file is opened read-write and query-only, so that
/// closing the last connection checkpoints the WAL and removes its `-wal` and `-shm`
/// files, which a read-only connection cannot do.
pub fn open_query_only(path: &Path) -> Result<Connection> {
    open_reader(path, true)
}

/// [`open_read_only`], or with `query_only` [`open_query_only`].
fn open_reader(path: &Path, query_only: bool) -> Result<Connection> {
    use rusqlite::OpenFlags;
    refuse_directory(path)?;
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI;
    let dir_writable = path
        .parent()
        .map(|d| {
            if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            }
        })
        .and_then(|d| std::fs::metadata(d).ok())
        .is_some_and(|m| !m.permissions().readonly() && dir_accepts_files(path));
    let writable = query_only && std::fs::metadata(path).is_ok_and(|m| !m.permissions().readonly());
    let conn = if dir_writable && writable {
        let read_write = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_URI;
        let conn = Connection::open_with_flags(path, read_write)?;
        conn.pragma_update(None, "query_only", true)?;
        conn
    } else if dir_writable {
        Connection::open_with_flags(path, flags)?
    } else {
        Connection::open_with_flags(immutable_uri(path), flags)?
    };
    conn.busy_timeout(BUSY_TIMEOUT)?;
    functions::register(&conn)?;
    check_ours(&conn, path)?;
    let version = schema_version(&conn)?;
    let known = MIGRATIONS.len() as i64;
    if version > known {
        return Err(Error::SchemaTooNew {
            found: version,
            known,
        });
    }
    if version < known {
        return Err(Error::SchemaTooOld {
            path: path.to_owned(),
            found: version,
            known,
        });
    }
    // An interrupted bulk import leaves rows unchecked for duplicates: a read-only
    // connection cannot settle them, so it refuses to read positions that may be doubled.
    if let Some(u) = import::unfinished(&conn)?.into_iter().next() {
        return Err(Error::UnfinishedImport {
            db: path.to_owned(),
            file: u.path,
            line: u.line,
        });
    }
    Ok(conn)
}

/// The SQLite URI that opens `path` immutable: `?`, `#` and `%` in a file name would end
/// the path or start an escape, so every byte but the unreserved ones and `/` is
/// percent-encoded; an absolute path gets the empty authority (`file:///…`).
fn immutable_uri(path: &Path) -> String {
    use std::fmt::Write;
    let bytes = path.as_os_str().as_encoded_bytes();
    let mut uri = String::from(if bytes.first() == Some(&b'/') {
        "file://"
    } else {
        "file:"
    });
    for &b in bytes {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(char::from(b));
        } else {
            let _ = write!(uri, "%{b:02X}");
        }
    }
    uri.push_str("?immutable=1");
    uri
}

/// Whether a file can be created beside `path` (SQLite's `-wal`/`-shm` files).
fn dir_accepts_files(path: &Path) -> bool {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => std::path::PathBuf::from("."),
    };
    let probe = dir.join(format!(".chessgraph-probe-{}", std::process::id()));
    match std::fs::File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            true
        }
        Err(_) => false,
    }
}

/// Refuses a database that is not chessgraph's: one with tables but neither chessgraph's
/// application id nor (for files made before the id was set) chessgraph's schema.
fn check_ours(conn: &Connection, path: &Path) -> Result<()> {
    // One read transaction: the mark and the tables seen in the same state of the file,
    // not before and after another process's first migration.
    // (rolled back when dropped: it only reads).
    let snapshot = conn.unchecked_transaction()?;
    check_ours_snapshot(&snapshot, path)
}

/// [`check_ours`] inside its read transaction.
fn check_ours_snapshot(conn: &Connection, path: &Path) -> Result<()> {
    let id: i32 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    if id == APPLICATION_ID {
        return Ok(());
    }
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    if tables.is_empty() {
        return Ok(()); // a new or empty file: chessgraph's from now on
    }
    let version = schema_version(conn)?;
    let ours = id == 0
        && version > 0
        && ["positions", "sources", "split_meta"]
            .iter()
            .all(|t| tables.iter().any(|n| n == t));
    if ours {
        return Ok(()); // made by a chessgraph from before the application id
    }
    let mut shown: Vec<&str> = tables.iter().map(String::as_str).take(5).collect();
    if tables.len() > 5 {
        shown.push("…");
    }
    Err(Error::NotOurs {
        path: path.to_owned(),
        tables: shown.join(", "),
    })
}

/// A directory is not a database: SQLite would say "disk I/O error".
fn refuse_directory(path: &Path) -> Result<()> {
    if path.is_dir() {
        return Err(crate::Error::DatabaseIsDirectory {
            path: path.to_owned(),
        });
    }
    Ok(())
}

/// Opens an in-memory database with the full schema (tests, scratch work).
pub fn open_in_memory() -> Result<Connection> {
    let conn = Connection::open_in_memory()?;
    configure(&conn)?;
    migrate(&conn)?;
    Ok(conn)
}

fn configure(conn: &Connection) -> Result<()> {
    // Foreign keys in the schema document the relations; they are not enforced, since
    // checking one per edge row would cost a lookup per insert (SQLite's own default,
    // which rusqlite's bundled build turns around: set here explicitly).
    conn.pragma_update(None, "foreign_keys", false)?;
    functions::register(conn)?;
    // Larger pages suit the bulk tables (edges); only takes effect on a new file.
    conn.pragma_update(None, "page_size", 16_384)?;
    // WAL keeps readers working during an import; NORMAL sync is crash-safe in WAL mode
    // (a power cut may lose the last commits, never consistency).
    set_wal(conn)?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "cache_size", -262_144)?; // 256 MiB
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    // Let the sorter use a second core when building indexes.
    conn.pragma_update(None, "threads", 2)?;
    Ok(())
}

/// Switches the file to WAL. The switch needs the file to itself and SQLite answers
/// "database is locked" at once, without the busy timeout, while another connection reads
/// it (several processes opening one new file): so it is tried again for as long as that
/// timeout.
fn set_wal(conn: &Connection) -> Result<()> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            done => return Ok(done?),
        }
    }
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
    if version == known {
        return Ok(());
    }
    // Each step takes the write lock first and reads the version again inside it: another
    // process opening the same new file at the same moment (several `datagen` processes)
    // waits, then finds the step done. The first step also marks the file chessgraph's,
    // so that no one sees a half-made schema without the mark.
    loop {
        conn.execute_batch("BEGIN IMMEDIATE")?;
        let step = (|| -> Result<bool> {
            let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
            let Some(sql) = MIGRATIONS.get(version.max(0) as usize) else {
                return Ok(false);
            };
            if version == 0 {
                conn.pragma_update(None, "application_id", APPLICATION_ID)?;
            }
            conn.execute_batch(sql)?;
            conn.pragma_update(None, "user_version", version + 1)?;
            Ok(true)
        })();
        match step {
            Ok(more) => {
                conn.execute_batch("COMMIT")?;
                if !more {
                    return Ok(());
                }
            }
            Err(e) => {
                let _ = conn.execute_batch("ROLLBACK");
                return Err(e);
            }
        }
    }
}

/// Schema version of an open database.
pub fn schema_version(conn: &Connection) -> Result<i64> {
    Ok(conn.pragma_query_value(None, "user_version", |r| r.get(0))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two processes opening one new file at once (several `datagen` runs on a new
    /// database): each gets a working chessgraph database, neither "database is locked"
    /// (SQLite refuses the switch to WAL at once while another connection reads the file)
    /// nor "not chessgraph's" (the schema seen half-made).
    #[test]
    fn two_connections_open_one_new_file_at_once() {
        let dir = tempfile::tempdir().unwrap();
        for round in 0..40 {
            let path = dir.path().join(format!("new-{round}.db"));
            let start = std::sync::Arc::new(std::sync::Barrier::new(2));
            let opener = |path: std::path::PathBuf, start: std::sync::Arc<std::sync::Barrier>| {
                std::thread::spawn(move || {
                    start.wait();
                    open(&path).map(|c| schema_version(&c).unwrap())
                })
            };
            let a = opener(path.clone(), start.clone());
            let b = opener(path.clone(), start);
            for t in [a, b] {
                let version = t
                    .join()
                    .unwrap()
                    .unwrap_or_else(|e| panic!("round {round}: {e:?}"));
                assert_eq!(version, MIGRATIONS.len() as i64);
            }
        }
    }

    /// Every WITHOUT ROWID table declares its key's columns first: SQLite 3.40.0 to 3.41.0
    /// report false NULL errors from `integrity_check` otherwise.
    #[test]
    fn without_rowid_tables_declare_their_key_first() {
        let conn = open_in_memory().unwrap();
        let tables: Vec<String> = conn
            .prepare(
                "SELECT name FROM sqlite_master WHERE type = 'table' \
                 AND lower(sql) LIKE '%without rowid%'",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert!(tables.len() >= 5, "{tables:?}");
        for table in tables {
            let pk: Vec<i64> = conn
                .prepare(&format!(
                    "SELECT pk FROM pragma_table_info('{table}') ORDER BY cid"
                ))
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            let keys = pk.iter().filter(|&&k| k > 0).count();
            assert!(
                pk[..keys].iter().all(|&k| k > 0),
                "{table}: key columns not first ({pk:?})"
            );
        }
    }

    /// What a client without chessgraph's functions must be able to run — integrity
    /// checks, VACUUM, REINDEX, deletes from the tables — touches the tables' indexes,
    /// triggers and definitions (CHECK, DEFAULT, generated columns): none calls one.
    #[test]
    fn no_table_needs_a_chessgraph_function() {
        let conn = open_in_memory().unwrap();
        let views: Vec<String> = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'view'")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let mut stmt = conn
            .prepare(
                "SELECT type, name, tbl_name, lower(sql) FROM sqlite_master \
                 WHERE sql IS NOT NULL AND type IN ('table', 'index', 'trigger')",
            )
            .unwrap();
        let objects: Vec<(String, String, String, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert!(objects.len() > 20, "{}", objects.len());
        for (kind, name, table, sql) in objects {
            // Triggers on views run only when a client writes through the view.
            if kind == "trigger" && views.contains(&table) {
                continue;
            }
            // Comments (`-- …` to the end of a line) are kept in the schema, not run.
            let code: String = sql
                .lines()
                .map(|l| l.split("--").next().unwrap_or(""))
                .collect::<Vec<_>>()
                .join(" ");
            let sql: String = code.split_whitespace().collect();
            for f in functions::NAMES {
                assert!(!sql.contains(&format!("{f}(")), "{kind} {name} calls {f}");
            }
        }
    }

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
    fn every_connection_has_the_position_functions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        drop(open(&path).unwrap());
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        for conn in [open(&path).unwrap(), open_read_only(&path).unwrap()] {
            let fen: String = conn
                .query_row("SELECT board_fen(pack_fen(?1))", [start], |r| r.get(0))
                .unwrap();
            assert_eq!(fen, start);
        }
    }

    #[test]
    fn immutable_uri_keeps_odd_file_names() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a?b.db", "c#d.db", "e%41f.db", "g h.db"] {
            let path = dir.path().join(name);
            drop(open(&path).unwrap());
            let flags =
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI;
            let conn = Connection::open_with_flags(immutable_uri(&path), flags).unwrap();
            assert_eq!(conn.path(), Some(path.to_str().unwrap()), "{name}");
            assert_eq!(schema_version(&conn).unwrap(), MIGRATIONS.len() as i64);
        }
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
