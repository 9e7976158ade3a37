//! SQL functions every connection has: a position's packed bytes ([`crate::chess::packed`])
//! and its FEN, each computed from the other, so queries can read and write positions in
//! either form.
//!
//! - `pack_fen(fen)`: the packed bytes of a FEN (4 or 6 fields; castling rights the board
//!   cannot have are dropped, as on import); an unparsable FEN is an error naming it.
//! - `board_fen(bytes)`: the normalized 4-field FEN (`positions.fen`'s form) of packed
//!   bytes; bytes that no packing wrote are an error.
//!
//! Both are deterministic, so they may be used in indexes, views and generated columns;
//! NULL gives NULL.

use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, Error as SqlError};

use crate::chess::fen::{Leniency, normalized_fen, parse};
use crate::chess::packed::{pack, unpack};

fn user_error(message: String) -> SqlError {
    SqlError::UserFunctionError(message.into())
}

fn pack_fen(ctx: &Context<'_>) -> rusqlite::Result<Value> {
    match ctx.get_raw(0) {
        ValueRef::Null => Ok(Value::Null),
        ValueRef::Text(text) => {
            let fen = std::str::from_utf8(text).map_err(|e| user_error(e.to_string()))?;
            let pos = parse(fen, Leniency::DropCastling)
                .map_err(|e| user_error(format!("pack_fen({fen:?}): {e}")))?;
            Ok(Value::Blob(pack(&pos)))
        }
        _ => Err(user_error("pack_fen: expected a FEN text".into())),
    }
}

fn board_fen(ctx: &Context<'_>) -> rusqlite::Result<Value> {
    match ctx.get_raw(0) {
        ValueRef::Null => Ok(Value::Null),
        ValueRef::Blob(bytes) => {
            let pos = unpack(bytes).map_err(|e| user_error(format!("board_fen: {e}")))?;
            Ok(Value::Text(normalized_fen(&pos)))
        }
        _ => Err(user_error(
            "board_fen: expected packed bytes (a blob)".into(),
        )),
    }
}

/// Registers the functions on `conn`.
pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8
        | FunctionFlags::SQLITE_DETERMINISTIC
        | FunctionFlags::SQLITE_INNOCUOUS;
    conn.create_scalar_function("pack_fen", 1, flags, pack_fen)?;
    conn.create_scalar_function("board_fen", 1, flags, board_fen)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fen_and_packed_bytes_round_trip_in_sql() {
        let conn = Connection::open_in_memory().unwrap();
        register(&conn).unwrap();
        for (fen, normalized) in [
            (
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -",
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6",
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6",
            ),
            // A castling right the board cannot have is dropped, as on import.
            (
                "4k3/8/8/8/8/8/8/4K2R w KQ - 3 40",
                "4k3/8/8/8/8/8/8/4K2R w K -",
            ),
        ] {
            let back: String = conn
                .query_row("SELECT board_fen(pack_fen(?1))", [fen], |r| r.get(0))
                .unwrap();
            assert_eq!(back, normalized, "{fen}");
            let len: i64 = conn
                .query_row("SELECT length(pack_fen(?1))", [fen], |r| r.get(0))
                .unwrap();
            assert!((9..=25).contains(&len), "{fen}: {len}");
        }
        let null: Option<String> = conn
            .query_row("SELECT board_fen(pack_fen(NULL))", [], |r| r.get(0))
            .unwrap();
        assert_eq!(null, None);
    }

    #[test]
    fn bad_input_is_an_sql_error_not_a_panic() {
        let conn = Connection::open_in_memory().unwrap();
        register(&conn).unwrap();
        for (sql, what) in [
            ("SELECT pack_fen('not a fen')", "not a fen"),
            ("SELECT pack_fen(42)", "expected a FEN"),
            ("SELECT board_fen(x'00')", "bytes, expected"),
            ("SELECT board_fen('text')", "expected packed bytes"),
        ] {
            let e = conn
                .query_row(sql, [], |r| r.get::<_, Value>(0))
                .unwrap_err()
                .to_string();
            assert!(e.contains(what), "{sql}: {e}");
        }
    }
}
