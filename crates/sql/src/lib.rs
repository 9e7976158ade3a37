//! chessgraph's SQL functions, which every connection chessgraph opens has, and which the
//! SQLite loadable extension (`crates/sqlite-ext`) gives any other client: a position's
//! packed bytes ([`chessgraph_core::chess::packed`]) and its FEN, each computed from the
//! other, so queries can read and write positions in either form, the attack sets and the
//! split. Only rusqlite and the core: no bundled SQLite, no engine.
//!
//! - `pack_fen(fen)`: the packed bytes of a FEN (4 or 6 fields; castling rights the board
//!   cannot have are dropped, as on import); an unparsable FEN is an error naming it.
//! - `board_fen(bytes)`: the normalized 4-field FEN (`positions.fen`'s form) of packed
//!   bytes; bytes that no packing wrote are an error.
//! - `board_key(bytes)`: the 47-bit key of packed bytes ([`chessgraph_core::chess::packed::key`]),
//!   what `position_rows.key` holds (written by the import, in Rust) and is indexed on:
//!   `WHERE key = board_key(pack_fen(?)) AND board = pack_fen(?)` finds a position by
//!   FEN through it.
//! - `board_attacks(bytes, color)`: the squares `color` (`'white'` or `'black'`) attacks,
//!   as a bitboard (a1 = bit 0), the `features.white_attacks` / `black_attacks` columns.
//! - `split_part(key, seed, train_pct, valid_pct)` and `game_key(line, white, black, event,
//!   date, start_fen)`: the split's definition ([`chessgraph_core::split`]), for the `splits` view.
//!
//! All are deterministic; NULL gives NULL. The schema uses them in views only, never in
//! an index, trigger of a table, CHECK or default, so that clients without them can
//! still check and maintain the file.

#![warn(missing_docs)]

use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, Error as SqlError};

use chessgraph_core::chess::packed::{self, key};
use chessgraph_core::split::{SplitMeta, game_key};

fn user_error(message: String) -> SqlError {
    SqlError::UserFunctionError(message.into())
}

fn pack_fen(ctx: &Context<'_>) -> rusqlite::Result<Value> {
    match ctx.get_raw(0) {
        ValueRef::Null => Ok(Value::Null),
        ValueRef::Text(text) => {
            let fen = std::str::from_utf8(text).map_err(|e| user_error(e.to_string()))?;
            let bytes =
                packed::pack_fen(fen).map_err(|e| user_error(format!("pack_fen({fen:?}): {e}")))?;
            Ok(Value::Blob(bytes))
        }
        _ => Err(user_error("pack_fen: expected a FEN text".into())),
    }
}

fn board_fen(ctx: &Context<'_>) -> rusqlite::Result<Value> {
    let Some(bytes) = packed_arg(ctx, 0, "board_fen")? else {
        return Ok(Value::Null);
    };
    let fen = packed::board_fen(bytes).map_err(|e| user_error(format!("board_fen: {e}")))?;
    Ok(Value::Text(fen))
}

/// The packed bytes of argument `i`, or `None` for NULL.
fn packed_arg<'a>(
    ctx: &'a Context<'_>,
    i: usize,
    name: &str,
) -> rusqlite::Result<Option<&'a [u8]>> {
    match ctx.get_raw(i) {
        ValueRef::Null => Ok(None),
        ValueRef::Blob(bytes) => Ok(Some(bytes)),
        _ => Err(user_error(format!(
            "{name}: expected packed bytes (a blob)"
        ))),
    }
}

fn board_key(ctx: &Context<'_>) -> rusqlite::Result<Value> {
    Ok(packed_arg(ctx, 0, "board_key")?.map_or(Value::Null, |b| Value::Integer(key(b))))
}

fn board_attacks(ctx: &Context<'_>) -> rusqlite::Result<Value> {
    let Some(bytes) = packed_arg(ctx, 0, "board_attacks")? else {
        return Ok(Value::Null);
    };
    let color = match ctx.get_raw(1) {
        ValueRef::Text(b"white") => shakmaty::Color::White,
        ValueRef::Text(b"black") => shakmaty::Color::Black,
        _ => {
            return Err(user_error(
                "board_attacks: the color is 'white' or 'black'".into(),
            ));
        }
    };
    let attacked = chessgraph_core::graph::board_attacks(bytes, color)
        .map_err(|e| user_error(format!("board_attacks: {e}")))?;
    Ok(Value::Integer(attacked as i64))
}

/// `split_part(key, seed, train_pct, valid_pct)`: the part (`'train'`, `'valid'`,
/// `'test'`) of split `key` ([`SplitMeta::part_of`]); NULL gives NULL.
fn split_part(ctx: &Context<'_>) -> rusqlite::Result<Option<&'static str>> {
    let Some(key) = ctx.get::<Option<String>>(0)? else {
        return Ok(None);
    };
    let pct = |i: usize| -> rusqlite::Result<u32> {
        u32::try_from(ctx.get::<i64>(i)?)
            .map_err(|_| user_error("split_part: a negative percentage".into()))
    };
    let meta = SplitMeta {
        seed: ctx.get(1)?,
        train_pct: pct(2)?,
        valid_pct: pct(3)?,
        test_pct: 0,
    };
    Ok(Some(meta.part_of(&key).as_str()))
}

/// `game_key(line, white, black, event, date, start_fen)`: the split key of a game
/// ([`game_key`]).
fn sql_game_key(ctx: &Context<'_>) -> rusqlite::Result<String> {
    let text = |i: usize| ctx.get::<Option<String>>(i);
    let (white, black, event) = (text(1)?, text(2)?, text(3)?);
    let (date, start_fen) = (text(4)?, text(5)?);
    Ok(game_key(
        ctx.get(0)?,
        white.as_deref(),
        black.as_deref(),
        event.as_deref(),
        date.as_deref(),
        start_fen.as_deref(),
    ))
}

/// The names of the functions [`register`] registers.
pub const NAMES: [&str; 6] = [
    "pack_fen",
    "board_fen",
    "board_key",
    "board_attacks",
    "split_part",
    "game_key",
];

/// Registers the functions on `conn`.
pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8
        | FunctionFlags::SQLITE_DETERMINISTIC
        | FunctionFlags::SQLITE_INNOCUOUS;
    conn.create_scalar_function("pack_fen", 1, flags, pack_fen)?;
    conn.create_scalar_function("board_fen", 1, flags, board_fen)?;
    conn.create_scalar_function("board_key", 1, flags, board_key)?;
    conn.create_scalar_function("board_attacks", 2, flags, board_attacks)?;
    conn.create_scalar_function("split_part", 4, flags, split_part)?;
    conn.create_scalar_function("game_key", 6, flags, sql_game_key)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_what_register_registers() {
        let conn = Connection::open_in_memory().unwrap();
        register(&conn).unwrap();
        for name in NAMES {
            let n: i64 = conn
                .query_row(
                    "SELECT count(*) FROM pragma_function_list WHERE name = ?1",
                    [name],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(n, 1, "{name}");
        }
    }

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
    fn key_and_attacks_of_packed_bytes() {
        let conn = Connection::open_in_memory().unwrap();
        register(&conn).unwrap();
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        let (k, white, black): (i64, i64, i64) = conn
            .query_row(
                "SELECT board_key(pack_fen(?1)), board_attacks(pack_fen(?1), 'white'), \
                 board_attacks(pack_fen(?1), 'black')",
                [start],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(k, key(&packed::pack(&shakmaty::Chess::default())));
        // Ranks 2 and 3 and every first-rank square but a1 and h1 (graph's own test).
        assert_eq!(white, 0x00ff_ff7e);
        assert_eq!(black as u64, 0x7eff_ff00_0000_0000);
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
            ("SELECT board_key('text')", "expected packed bytes"),
            (
                "SELECT board_attacks(pack_fen('8/8/8/8/8/8/8/K6k w - -'), 'red')",
                "'white' or 'black'",
            ),
        ] {
            let e = conn
                .query_row(sql, [], |r| r.get::<_, Value>(0))
                .unwrap_err()
                .to_string();
            assert!(e.contains(what), "{sql}: {e}");
        }
    }
}
