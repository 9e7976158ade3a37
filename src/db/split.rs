//! The train/valid/test split's definition: a position's part is a pure function of its
//! split key (its game's tags when it came from a PGN game, else its normalized FEN) and
//! the seed and proportions in `split_meta`. The `splits` view computes it with the SQL
//! functions `game_key` and `split_part` (registered in `functions.rs`); the learning
//! tools read it through the view (their module, `fit::split`, explains why games are
//! kept together).

use rusqlite::Connection;

use crate::chess::fnv::Fnv1a64;
use crate::chess::rng::mix64;
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
        u32::try_from(v).map_err(|_| Error::Stored {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A percentage the schema forbids (stored past its checks) is corruption, not the
    /// user's fault.
    #[test]
    fn a_corrupt_split_is_stored_data() {
        let conn = crate::db::open_in_memory().unwrap();
        assert_eq!(meta(&conn).unwrap().train_pct, 80);
        conn.execute_batch(
            "PRAGMA ignore_check_constraints = ON; \
             UPDATE split_meta SET train_pct = -5, valid_pct = 105 WHERE id = 1;",
        )
        .unwrap();
        let e = meta(&conn).unwrap_err();
        assert!(matches!(e, Error::Stored { .. }) && !e.is_users(), "{e:?}");
        assert!(e.to_string().contains("bad percentage -5"), "{e}");
    }
}
