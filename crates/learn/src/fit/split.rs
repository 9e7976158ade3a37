//! The train/valid/test split shared by every tool that learns from the database.
//!
//! Positions are split by game where the game is known: consecutive positions of one game
//! are near-duplicates with near-equal labels and the same result, so a position-level split
//! would let a game's neighbours leak from training into the held-out parts. The key of a
//! position is its game ([`game_key`]: the game's tags, start position and line in its file)
//! when it came from (or was later matched in) a PGN game, otherwise its normalized FEN.
//! The part is a pure function of that key and a seed, so it does not depend on import order
//! or row ids. The bucket is `splitmix64(fnv1a64("{seed}:{key}")) % 100`; buckets below
//! `train_pct` are train, the next `valid_pct` are valid, the rest test
//! (`scripts/golden/fit.py` reimplements this for FEN keys).
//!
//! The definition is the core's ([`chessgraph_core::split`]); the store's `splits` view
//! computes each position's part with it from the seed in `split_meta`, so a position whose
//! game becomes known later (a CSV imported before the PGN of its games) moves to its
//! game's part.

use chessgraph_core::Error as CoreError;
use rusqlite::Connection;

use chessgraph_core::data::GameResult;
use chessgraph_store::Result;
use chessgraph_store::labels::LabelChoice;

pub use chessgraph_core::split::{Part, SplitMeta, bucket, bucket_u64, game_key};
pub use chessgraph_store::split::meta;

/// One stored position with the label a [`LabelChoice`] picks, its game result and part.
#[derive(Clone, Debug)]
pub struct LabelledRow {
    /// Normalized FEN.
    pub fen: String,
    /// Chosen centipawn label (White's view), if any.
    pub eval_cp: Option<i64>,
    /// Chosen mate label (White's view), if any.
    pub mate: Option<i64>,
    /// The game's result, when known.
    pub result: Option<GameResult>,
    /// Its part of the split.
    pub part: Part,
    /// The best move stored for it (UCI), when one is.
    pub best_move: Option<String>,
}

/// Every position, by id, with the label `labels` picks, its result and its split part
/// (parts of new positions are stored first): what the learning tools read.
pub fn labelled_rows(conn: &Connection, labels: &LabelChoice) -> Result<Vec<LabelledRow>> {
    labelled_rows_from(conn, labels, &[])
}

/// [`labelled_rows`] of the positions first stored by the sources `sources` selects, each
/// a source id or the beginning of source paths (all sources when empty); a selector that
/// matches no source is an error.
pub fn labelled_rows_from(
    conn: &Connection,
    labels: &LabelChoice,
    sources: &[String],
) -> Result<Vec<LabelledRow>> {
    let mut out = Vec::new();
    for_each_labelled_row(conn, labels, sources, |row| {
        out.push(row);
        Ok(())
    })?;
    Ok(out)
}

/// Rows a reader of [`for_each_labelled_row`] gathers before turning them into what it
/// keeps (in parallel): its FENs are held for one such chunk only.
pub const CHUNK_ROWS: usize = 1 << 16;

/// The rows of [`labelled_rows_from`], by id, handed to `f` one at a time as the query
/// reads them: what a tool reads tens of millions of positions through, holding only what
/// it makes of each (a first error of `f` stops the reading and is returned).
pub fn for_each_labelled_row(
    conn: &Connection,
    labels: &LabelChoice,
    sources: &[String],
    mut f: impl FnMut(LabelledRow) -> Result<()>,
) -> Result<()> {
    labels.check(conn)?;
    let filter = source_filter(conn, sources)?;
    let sql = labels.sql();
    let mut stmt = conn.prepare(&format!(
        "SELECT p.fen, {}, {}, p.result, s.part, {} \
         FROM positions p JOIN splits s ON s.position_id = p.id{}{filter} ORDER BY p.id",
        sql.eval_cp, sql.mate, sql.best_move, sql.joins
    ))?;
    let mut q = stmt.query(rusqlite::params_from_iter(labels.params()))?;
    while let Some(r) = q.next()? {
        let result: Option<String> = r.get(3)?;
        let part: String = r.get(4)?;
        f(LabelledRow {
            fen: r.get(0)?,
            eval_cp: r.get(1)?,
            mate: r.get(2)?,
            result: result.as_deref().and_then(GameResult::parse),
            part: Part::parse(&part).ok_or_else(|| CoreError::Stored {
                what: "splits".into(),
                why: format!("unknown part {part:?}"),
            })?,
            best_move: r.get(5)?,
        })?;
    }
    Ok(())
}

/// The `WHERE` clause selecting the positions of `sources` (empty when none are named); a
/// selector that matches no source is an error.
fn source_filter(conn: &Connection, sources: &[String]) -> Result<String> {
    let mut ids = Vec::new();
    for sel in sources {
        let matched: Vec<i64> = conn
            .prepare(
                "SELECT id FROM sources WHERE CAST(id AS TEXT) = ?1 OR substr(path, 1, length(?1)) = ?1",
            )?
            .query_map([sel], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        if matched.is_empty() {
            return Err(CoreError::Invalid(format!(
                "no source is {sel:?} or has a path starting with it (`chessgraph stats` lists them)"
            ))
            .into());
        }
        ids.extend(matched);
    }
    if ids.is_empty() {
        return Ok(String::new());
    }
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    Ok(format!(" WHERE p.source_id IN ({})", list.join(",")))
}

/// A database of the committed fixture's 2,000 labelled positions, for the tests of the
/// tools that read them.
#[cfg(test)]
pub(crate) fn fixture_db() -> Connection {
    let mut conn = chessgraph_store::open_in_memory().unwrap();
    chessgraph_store::import::import_file(
        &mut conn,
        &chessgraph_testkit::repo_root().join("tests/fixtures/positions-2000.csv"),
        &chessgraph_store::import::ImportOptions::default(),
        &indicatif::ProgressBar::hidden(),
    )
    .unwrap();
    conn
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_store as db;
    use rusqlite::params;

    const META: SplitMeta = SplitMeta {
        seed: 1,
        train_pct: 80,
        valid_pct: 10,
        test_pct: 10,
    };

    #[test]
    fn bucket_is_stable() {
        // Fixed values: changing the hash would silently move positions between parts in
        // existing databases. The same numbers are in scripts/golden/fit.py's self-check.
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        assert_eq!(bucket(start, 1), bucket(start, 1));
        assert_eq!(
            [
                bucket(start, 1),
                bucket(start, 2),
                bucket("8/8/8/8/8/8/8/8 w - -", 1)
            ],
            [45, 62, 55]
        );
    }

    #[test]
    fn proportions_follow_meta() {
        let mut counts = [0usize; 3];
        for i in 0..20_000 {
            let fen = format!("8/8/8/8/8/8/8/{i} w - -");
            counts[META.part_of(&fen) as usize] += 1;
        }
        // 80/10/10 within a few standard errors (sd of the train share ≈ 0.28 %).
        assert!((15_700..16_300).contains(&counts[0]), "{counts:?}");
        assert!((1_850..2_150).contains(&counts[1]), "{counts:?}");
        assert!((1_850..2_150).contains(&counts[2]), "{counts:?}");
        // Another seed reshuffles.
        let moved = (0..1000)
            .filter(|i| {
                let fen = format!("8/8/8/8/8/8/8/{i} w - -");
                META.part_of(&fen) != META.with_seed(7).part_of(&fen)
            })
            .count();
        assert!(moved > 200, "{moved}");
    }

    #[test]
    fn the_view_gives_each_position_the_part_of_its_fen() {
        let conn = db::open_in_memory().unwrap();
        assert_eq!(meta(&conn).unwrap(), META);
        conn.execute_batch(
            "INSERT INTO sources (id, path, format, compression, pov, started_at)
                 VALUES (1, 't', 'csv', 'none', 'white', '2024-01-01');",
        )
        .unwrap();
        for i in 0..200 {
            conn.execute(
                "INSERT INTO positions (fen, fen_input, source_id, line) VALUES (?1, 'x', 1, ?2)",
                params![chessgraph_testkit::test_fen(i), i],
            )
            .unwrap();
        }
        let mut stmt = conn
            .prepare("SELECT p.fen, s.part FROM positions p JOIN splits s ON s.position_id = p.id")
            .unwrap();
        let rows: Vec<(String, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(rows.len(), 200);
        for (fen, part) in &rows {
            assert_eq!(Part::parse(part), Some(META.part_of(fen)), "{fen}");
        }
        assert!(rows.iter().any(|(_, p)| p != "train"), "all 200 in train");
        // Another seed in split_meta moves positions at once.
        conn.execute("UPDATE split_meta SET seed = 7", []).unwrap();
        let moved: i64 = conn
            .query_row(
                "SELECT count(*) FROM positions p JOIN splits s ON s.position_id = p.id \
                 WHERE s.part <> split_part(p.fen, 1, 80, 10)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(moved > 20, "{moved}");
    }

    #[test]
    fn positions_of_one_game_share_its_part() {
        let conn = db::open_in_memory().unwrap();
        conn.execute_batch(
            "INSERT INTO sources (id, path, format, compression, pov, started_at)
                 VALUES (1, 't', 'pgn', 'none', 'white', '2024-01-01');",
        )
        .unwrap();
        // Twelve games of ten positions each: every game's positions in one part.
        for g in 0..12 {
            conn.execute(
                "INSERT INTO games (id, source_id, line, white, black, start_fen) VALUES (?1, 1, ?2, 'A', 'B', NULL)",
                params![g + 1, 100 * g + 1],
            )
            .unwrap();
            for k in 0..10 {
                let fen = chessgraph_testkit::test_fen(10 * g as usize + k as usize);
                conn.execute(
                    "INSERT INTO positions (fen, fen_input, source_id, line, game_id, ply) VALUES (?1, ?1, 1, ?2, ?3, ?4)",
                    params![fen, 100 * g + 1, g + 1, k],
                )
                .unwrap();
            }
        }
        let parts_per_game: i64 = conn
            .query_row(
                "SELECT max(n) FROM (SELECT count(DISTINCT s.part) AS n FROM positions p \
                 JOIN splits s ON s.position_id = p.id GROUP BY p.game_id)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(parts_per_game, 1);
        let want = META.part_of(&game_key(1, Some("A"), Some("B"), None, None, None));
        let got: String = conn
            .query_row("SELECT part FROM splits WHERE position_id = 1", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(Part::parse(&got), Some(want));
        // A CSV position whose game is learned later moves to the game's part.
        conn.execute(
            "INSERT INTO positions (id, fen, fen_input, source_id, line) VALUES (1000, ?1, 'late', 1, 5)",
            [chessgraph_testkit::test_fen(500)],
        )
        .unwrap();
        let alone: String = conn
            .query_row(
                "SELECT part FROM splits WHERE position_id = 1000",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(
            Part::parse(&alone),
            Some(META.part_of(&chessgraph_testkit::test_fen(500)))
        );
        conn.execute("UPDATE positions SET game_id = 1 WHERE id = 1000", [])
            .unwrap();
        let got: String = conn
            .query_row(
                "SELECT part FROM splits WHERE position_id = 1000",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(Part::parse(&got), Some(want));
    }
}
