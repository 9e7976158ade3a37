//! The database's split: its seed and proportions (the `split_meta` row). The definition
//! of a part is the core's ([`chessgraph_core::split`]); the `splits` view computes it
//! with the SQL functions `game_key` and `split_part` (registered in `functions.rs`); the
//! learning tools read it through the view.

use chessgraph_core::Error as CoreError;
use rusqlite::Connection;

use chessgraph_core::split::SplitMeta;

use crate::Result;

/// Reads the database's split seed and proportions.
pub fn meta(conn: &Connection) -> Result<SplitMeta> {
    let (seed, train, valid, test): (i64, i64, i64, i64) = conn.query_row(
        "SELECT seed, train_pct, valid_pct, test_pct FROM split_meta WHERE id = 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )?;
    let pct = |v: i64| {
        u32::try_from(v).map_err(|_| CoreError::Stored {
            what: "split_meta".into(),
            why: format!("bad percentage {v}"),
        })
    };
    Ok(SplitMeta {
        seed,
        train_pct: pct(train)?,
        valid_pct: pct(valid)?,
        test_pct: pct(test)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    /// A percentage the schema forbids (stored past its checks) is corruption, not the
    /// user's fault.
    #[test]
    fn a_corrupt_split_is_stored_data() {
        let conn = crate::open_in_memory().unwrap();
        assert_eq!(meta(&conn).unwrap().train_pct, 80);
        conn.execute_batch(
            "PRAGMA ignore_check_constraints = ON; \
             UPDATE split_meta SET train_pct = -5, valid_pct = 105 WHERE id = 1;",
        )
        .unwrap();
        let e = meta(&conn).unwrap_err();
        assert!(
            matches!(e, Error::Core(CoreError::Stored { .. })) && !e.is_users(),
            "{e:?}"
        );
        assert!(e.to_string().contains("bad percentage -5"), "{e}");
    }
}
