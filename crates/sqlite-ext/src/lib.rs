//! chessgraph's SQL functions as a SQLite loadable extension: `board_fen`,
//! `board_attacks`, `split_part`, `game_key`, `pack_fen` and `board_key`, from the same
//! code the CLI registers ([`chessgraph_sql`]), so that every view of a chessgraph
//! database reads in any SQLite client that can load extensions:
//!
//! ```text
//! sqlite3 chessgraph.db -cmd '.load crates/sqlite-ext/target/release/libchessgraph_sqlite' \
//!     'SELECT fen, eval_cp FROM positions LIMIT 3'
//! ```
//!
//! SQLite looks for the entry point `sqlite3_extension_init` first, so the library loads
//! under any file name.

#![warn(missing_docs)]

use std::os::raw::{c_char, c_int};

use rusqlite::{Connection, ffi};

/// Registers the functions on the connection that loads the extension (not permanently:
/// each connection loads it).
fn init(conn: Connection) -> rusqlite::Result<bool> {
    chessgraph_sql::register(&conn)?;
    Ok(false)
}

/// The entry point SQLite calls when the library is loaded.
///
/// # Safety
///
/// Called by SQLite only, with its connection handle, error-message pointer and API
/// routines, as `sqlite3_load_extension` passes them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sqlite3_extension_init(
    db: *mut ffi::sqlite3,
    pz_err_msg: *mut *mut c_char,
    p_api: *mut ffi::sqlite3_api_routines,
) -> c_int {
    // SAFETY: the arguments are SQLite's own, passed through unchanged; `init` only
    // registers functions, as `extension_init2` requires.
    unsafe { Connection::extension_init2(db, pz_err_msg, p_api, init) }
}
