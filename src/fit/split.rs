//! The train/valid/test split shared by every tool that learns from the database.
//!
//! The part of a position is a pure function of its normalized FEN and a seed, so it does not
//! depend on import order or row ids: the same position lands in the same part in every
//! database made with the same seed. The bucket is
//! `splitmix64(fnv1a64("{seed}:{fen}")) % 100`; buckets below `train_pct` are train, the next
//! `valid_pct` are valid, the rest test (`scripts/golden_fit.py` reimplements this).
//!
//! The `splits` table materializes the parts for the seed stored in `split_meta` so SQL can
//! join on it; [`ensure`] fills it for positions that lack a row.

use rusqlite::{Connection, params};

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

    /// The part of the position with normalized FEN `fen`.
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
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.to_string().bytes().chain([b':']).chain(fen.bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    // FNV's low bits mix poorly; the splitmix64 finalizer spreads every input bit.
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    h
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

/// Assigns a part to every position without a `splits` row; returns how many it assigned.
pub fn ensure(conn: &Connection) -> Result<usize> {
    let meta = meta(conn)?;
    let tx = conn.unchecked_transaction()?;
    let mut added = 0;
    {
        let mut missing = tx.prepare(
            "SELECT p.id, p.fen FROM positions p \
             WHERE NOT EXISTS (SELECT 1 FROM splits s WHERE s.position_id = p.id)",
        )?;
        let mut insert = tx.prepare("INSERT INTO splits (position_id, part) VALUES (?1, ?2)")?;
        let mut rows = missing.query([])?;
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            let fen: String = row.get(1)?;
            insert.execute(params![id, meta.part_of(&fen).as_str()])?;
            added += 1;
        }
    }
    tx.commit()?;
    Ok(added)
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
        // existing databases. The same numbers are in scripts/golden_fit.py's self-check.
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
                 VALUES (1, 'a', 'a', 1, 1), (2, 'b', 'b', 1, 2);",
        )
        .unwrap();
        assert_eq!(ensure(&conn).unwrap(), 2);
        assert_eq!(ensure(&conn).unwrap(), 0);
        conn.execute(
            "INSERT INTO positions (id, fen, fen_input, source_id, line) VALUES (3, 'c', 'c', 1, 3)",
            [],
        )
        .unwrap();
        assert_eq!(ensure(&conn).unwrap(), 1);
        let part: String = conn
            .query_row("SELECT part FROM splits WHERE position_id = 3", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(Part::parse(&part), Some(META.part_of("c")));
    }
}
