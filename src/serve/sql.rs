//! The bounds on what a user's SQL condition may take besides time: temporary storage in
//! memory (never a file) and SQLite's heap under a limit, with SQLite's memory accounting
//! turned on for the server's process.

use rusqlite::Connection;

/// The most heap SQLite may hold in the server's process, all connections together
/// (bytes): a user's condition runs with temporary storage in memory
/// ([`with_bounded_storage`]), so a sort, a `DISTINCT` or a materialized subquery never
/// writes a temporary file, and this bounds what it may take in memory instead. A query
/// past it fails (`400`) and its memory is freed.
pub const SQL_HEAP_LIMIT: i64 = 192 << 20;

/// SQLite's heap past which a user's condition stops (bytes, checked every
/// [`chessgraph_store::browse::PROGRESS_STEPS`] steps): below [`SQL_HEAP_LIMIT`] by a reserve
/// far above what a few steps of a few workers can allocate (records are at most 10,000
/// bytes), so the server's own small queries — `/api/info`, a game's evaluator — never
/// find the heap full.
pub const CONDITION_HEAP_LIMIT: i64 = SQL_HEAP_LIMIT - (32 << 20);

/// Runs `f` with `conn`'s temporary storage in memory — a sort, a `DISTINCT` or a
/// materialized subquery never writes a temporary file — and SQLite's heap, process-wide,
/// within [`SQL_HEAP_LIMIT`] (enforced once [`count_sqlite_memory`] has run); the default
/// storage is restored after.
pub fn with_bounded_storage<T>(
    conn: &Connection,
    f: impl FnOnce() -> chessgraph_store::Result<T>,
) -> chessgraph_store::Result<T> {
    // Lowers the limit only: SQLite keeps the smaller of an existing limit and this one.
    let _: i64 = conn.query_row(
        &format!("PRAGMA hard_heap_limit = {SQL_HEAP_LIMIT}"),
        [],
        |r| r.get(0),
    )?;
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    let result = f();
    conn.pragma_update(None, "temp_store", "DEFAULT")?;
    result
}

/// Hands the memory a failed query freed back to the system: the C allocator keeps freed
/// blocks in the arena of the thread that freed them, so without this each worker could
/// keep up to [`SQL_HEAP_LIMIT`] resident after a query that reached it.
pub(super) fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        // SAFETY: glibc's malloc_trim only returns free memory of its arenas to the
        // system; it takes a size and touches no memory of ours.
        unsafe {
            malloc_trim(0);
        }
    }
}

/// Turns SQLite's memory accounting on for this process, so that [`SQL_HEAP_LIMIT`]
/// holds: the build leaves it off (`SQLITE_DEFAULT_MEMSTATUS=0`, for bulk imports'
/// speed). Returns whether SQLite took it.
///
/// # Safety
///
/// It shuts SQLite down and configures it (`sqlite3_shutdown`, `sqlite3_config`), which
/// SQLite forbids while any connection is open or another thread uses SQLite: call it
/// before the process opens its first connection, with no other thread running —
/// `chessgraph serve` does it first thing, before it reads its database.
pub unsafe fn count_sqlite_memory() -> bool {
    use rusqlite::ffi;
    // SAFETY: the caller guarantees no connection is open and no other thread uses
    // SQLite; SQLITE_CONFIG_MEMSTATUS takes the single `int` argument given.
    unsafe {
        if ffi::sqlite3_shutdown() != ffi::SQLITE_OK {
            return false;
        }
        let rc = ffi::sqlite3_config(ffi::SQLITE_CONFIG_MEMSTATUS, 1 as std::ffi::c_int);
        ffi::sqlite3_initialize() == ffi::SQLITE_OK && rc == ffi::SQLITE_OK
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A user's condition runs with temporary storage in memory (no temporary file) under
    /// the heap limit; other statements keep SQLite's default. (The limit holding, which
    /// needs SQLite's memory accounting, is `serve_bounds_the_memory_and_disk_of_a_condition`
    /// in the CLI tests: turning the accounting on is for a process with no connection
    /// open.)
    #[test]
    fn conditions_keep_temporary_storage_in_memory() {
        let conn = Connection::open_in_memory().unwrap();
        let temp = |conn: &Connection| -> i64 {
            conn.query_row("PRAGMA temp_store", [], |r| r.get(0))
                .unwrap()
        };
        let inside = with_bounded_storage(&conn, || Ok(temp(&conn))).unwrap();
        assert_eq!(inside, 2, "temp_store = MEMORY");
        assert_eq!(temp(&conn), 0, "temp_store back to DEFAULT");
        let limit: i64 = conn
            .query_row("PRAGMA hard_heap_limit", [], |r| r.get(0))
            .unwrap();
        assert!(limit > 0 && limit <= SQL_HEAP_LIMIT, "{limit}");
        // A failure inside restores the default too, and says what went wrong.
        let err = with_bounded_storage(&conn, || {
            Err::<(), _>(chessgraph_core::Error::Invalid("boom".into()).into())
        })
        .unwrap_err();
        assert!(err.to_string().contains("boom"));
        assert_eq!(temp(&conn), 0);
    }
}
