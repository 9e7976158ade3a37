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
//! The `splits` table materializes the parts for the seed stored in `split_meta` so SQL can
//! join on it; [`ensure`] fills it for new positions and moves positions whose game became
//! known since (a CSV imported before the PGN of its games).

use rusqlite::{Connection, params};

use crate::chess::fnv::Fnv1a64;
use crate::chess::rng::mix64;
use crate::data::GameResult;
use crate::db::labels::LabelChoice;
use crate::{Error, Result};

/// One of the three parts of the split.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    /// Fitted on.
    Train,
    /// Held out for choosing hyperparameters.
    Valid,
    /// Held out for the final figures.
    Test,
}

impl Part {
    /// The spelling in the `splits` table.
    pub fn as_str(self) -> &'static str {
        match self {
            Part::Train => "train",
            Part::Valid => "valid",
            Part::Test => "test",
        }
    }

    /// Parses the spelling in the `splits` table.
    pub fn parse(s: &str) -> Option<Part> {
        match s {
            "train" => Some(Part::Train),
            "valid" => Some(Part::Valid),
            "test" => Some(Part::Test),
            _ => None,
        }
    }
}

/// Seed and proportions of a split (the `split_meta` row).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SplitMeta {
    /// Seed mixed into every position's hash.
    pub seed: i64,
    /// Percent of positions in the train part.
    pub train_pct: u32,
    /// Percent in the valid part.
    pub valid_pct: u32,
    /// Percent in the test part.
    pub test_pct: u32,
}

impl SplitMeta {
    /// The same proportions with another seed.
    pub fn with_seed(self, seed: i64) -> SplitMeta {
        SplitMeta { seed, ..self }
    }

    /// The part of the position with split key `fen` (its normalized FEN, or its
    /// [`game_key`]).
    pub fn part_of(&self, fen: &str) -> Part {
        let b = bucket(fen, self.seed);
        if b < self.train_pct {
            Part::Train
        } else if b < self.train_pct + self.valid_pct {
            Part::Valid
        } else {
            Part::Test
        }
    }
}

/// The bucket 0..100 of `fen` under `seed`.
pub fn bucket(fen: &str, seed: i64) -> u32 {
    (bucket_u64(fen, seed) % 100) as u32
}

/// A 64-bit hash of `fen` under `seed` (FNV-1a then splitmix64's finalizer): a fixed
/// pseudo-random order of positions, e.g. for deterministic samples.
pub fn bucket_u64(fen: &str, seed: i64) -> u64 {
    let mut h = Fnv1a64::default();
    h.write(format!("{seed}:").as_bytes());
    h.write(fen.as_bytes());
    // FNV's low bits mix poorly; the splitmix64 finalizer spreads every input bit.
    mix64(h.finish())
}

/// Reads the database's split seed and proportions.
pub fn meta(conn: &Connection) -> Result<SplitMeta> {
    let (seed, train, valid, test): (i64, i64, i64, i64) = conn.query_row(
        "SELECT seed, train_pct, valid_pct, test_pct FROM split_meta WHERE id = 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )?;
    let pct = |v: i64| {
        u32::try_from(v).map_err(|_| Error::Invalid(format!("split_meta: bad percentage {v}")))
    };
    Ok(SplitMeta {
        seed,
        train_pct: pct(train)?,
        valid_pct: pct(valid)?,
        test_pct: pct(test)?,
    })
}

/// The split key of a game: its tags, start position and line in its file.
pub fn game_key(
    line: i64,
    white: Option<&str>,
    black: Option<&str>,
    event: Option<&str>,
    date: Option<&str>,
    start_fen: Option<&str>,
) -> String {
    format!(
        "game:{line}|{}|{}|{}|{}|{}",
        white.unwrap_or(""),
        black.unwrap_or(""),
        event.unwrap_or(""),
        date.unwrap_or(""),
        start_fen.unwrap_or("")
    )
}

/// Brings the `splits` table up to date: a part for every new position, and the game's
/// part for positions whose game became known since. Returns how many rows it wrote.
/// A stored part of a position without a game is final: after changing `split_meta`
/// by hand, `DELETE FROM splits` has them computed again.
pub fn ensure(conn: &Connection) -> Result<usize> {
    let meta = meta(conn)?;
    // Read first: a database whose parts are up to date is not written at all (so reading
    // commands work on a read-only file).
    let mut changes: Vec<(i64, Part)> = Vec::new();
    {
        let mut all = conn.prepare(
            "SELECT p.id, p.fen, s.part, g.line, g.white, g.black, g.event, g.date, g.start_fen \
             FROM positions p \
             LEFT JOIN splits s ON s.position_id = p.id \
             LEFT JOIN games g ON g.id = p.game_id \
             WHERE s.part IS NULL OR p.game_id IS NOT NULL",
        )?;
        let mut rows = all.query([])?;
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            let stored: Option<String> = row.get(2)?;
            let game_line: Option<i64> = row.get(3)?;
            let part = match game_line {
                Some(line) => {
                    let text = |i: usize| row.get::<_, Option<String>>(i);
                    let (w, b, e, d, f) = (text(4)?, text(5)?, text(6)?, text(7)?, text(8)?);
                    meta.part_of(&game_key(
                        line,
                        w.as_deref(),
                        b.as_deref(),
                        e.as_deref(),
                        d.as_deref(),
                        f.as_deref(),
                    ))
                }
                None => meta.part_of(&row.get::<_, String>(1)?),
            };
            if stored.as_deref() != Some(part.as_str()) {
                changes.push((id, part));
            }
        }
    }
    if changes.is_empty() {
        return Ok(0);
    }
    if conn.is_readonly(rusqlite::MAIN_DB)? {
        return Err(Error::Invalid(format!(
            "the train/valid/test parts of {} positions are not stored yet and the database \
             is opened read-only: run a writing command (e.g. `chessgraph analyze`) once",
            changes.len()
        )));
    }
    // IMMEDIATE: take the write lock up front, so that another process (a running
    // datagen or import) cannot make this transaction fail half-way.
    let tx = rusqlite::Transaction::new_unchecked(conn, rusqlite::TransactionBehavior::Immediate)?;
    {
        let mut upsert = tx.prepare(
            "INSERT INTO splits (position_id, part) VALUES (?1, ?2) \
             ON CONFLICT (position_id) DO UPDATE SET part = excluded.part",
        )?;
        for (id, part) in &changes {
            upsert.execute(params![id, part.as_str()])?;
        }
    }
    tx.commit()?;
    Ok(changes.len())
}

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
    labels.check(conn)?;
    ensure(conn)?;
    let mut ids = Vec::new();
    for sel in sources {
        let matched: Vec<i64> = conn
            .prepare(
                "SELECT id FROM sources WHERE CAST(id AS TEXT) = ?1 OR substr(path, 1, length(?1)) = ?1",
            )?
            .query_map([sel], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        if matched.is_empty() {
            return Err(Error::Invalid(format!(
                "no source is {sel:?} or has a path starting with it (`chessgraph stats` lists them)"
            )));
        }
        ids.extend(matched);
    }
    let filter = if ids.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = ids.iter().map(i64::to_string).collect();
        format!(" WHERE p.source_id IN ({})", list.join(","))
    };
    let sql = labels.sql();
    let mut stmt = conn.prepare(&format!(
        "SELECT p.fen, {}, {}, p.result, s.part, {} \
         FROM positions p JOIN splits s ON s.position_id = p.id{}{filter} ORDER BY p.id",
        sql.eval_cp, sql.mate, sql.best_move, sql.joins
    ))?;
    let mut out = Vec::new();
    let mut q = stmt.query(rusqlite::params_from_iter(labels.params()))?;
    while let Some(r) = q.next()? {
        let result: Option<String> = r.get(3)?;
        let part: String = r.get(4)?;
        out.push(LabelledRow {
            fen: r.get(0)?,
            eval_cp: r.get(1)?,
            mate: r.get(2)?,
            result: result.as_deref().and_then(GameResult::parse),
            part: Part::parse(&part)
                .ok_or_else(|| Error::Invalid(format!("splits: unknown part {part:?}")))?,
            best_move: r.get(5)?,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db;

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
    fn ensure_fills_only_missing_rows() {
        let conn = db::open_in_memory().unwrap();
        assert_eq!(meta(&conn).unwrap(), META);
        conn.execute_batch(
            "INSERT INTO sources (id, path, format, compression, pov, started_at)
                 VALUES (1, 't', 'csv', 'none', 'white', '2024-01-01');
             INSERT INTO positions (id, fen, fen_input, source_id, line)
                 VALUES (1, '8/8/8/8/8/8/8/K1k5 w - -', 'a', 1, 1),
                        (2, '8/8/8/8/8/8/8/K2k4 w - -', 'b', 1, 2);",
        )
        .unwrap();
        assert_eq!(ensure(&conn).unwrap(), 2);
        assert_eq!(ensure(&conn).unwrap(), 0);
        conn.execute(
            "INSERT INTO positions (id, fen, fen_input, source_id, line) \
             VALUES (3, '8/8/8/8/8/8/8/K3k3 w - -', 'c', 1, 3)",
            [],
        )
        .unwrap();
        assert_eq!(ensure(&conn).unwrap(), 1);
        let part: String = conn
            .query_row("SELECT part FROM splits WHERE position_id = 3", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(
            Part::parse(&part),
            Some(META.part_of("8/8/8/8/8/8/8/K3k3 w - -"))
        );
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
                let fen = db::test_fen(10 * g as usize + k as usize);
                conn.execute(
                    "INSERT INTO positions (fen, fen_input, source_id, line, game_id, ply) VALUES (?1, ?1, 1, ?2, ?3, ?4)",
                    params![fen, 100 * g + 1, g + 1, k],
                )
                .unwrap();
            }
        }
        assert_eq!(ensure(&conn).unwrap(), 120);
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
            [db::test_fen(500)],
        )
        .unwrap();
        assert_eq!(ensure(&conn).unwrap(), 1);
        conn.execute("UPDATE positions SET game_id = 1 WHERE id = 1000", [])
            .unwrap();
        let moved = ensure(&conn).unwrap();
        assert_eq!(moved, usize::from(META.part_of(&db::test_fen(500)) != want));
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
