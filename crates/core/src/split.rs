//! The train/valid/test split's definition: a position's part is a pure function of its
//! split key (its game's tags when it came from a PGN game, else its normalized FEN) and
//! a seed and proportions. The bucket is `splitmix64(fnv1a64("{seed}:{key}")) % 100`;
//! buckets below `train_pct` are train, the next `valid_pct` are valid, the rest test
//! (`scripts/golden/fit.py` reimplements this for FEN keys). The store keeps the seed and
//! proportions and computes each position's part in its `splits` view with these
//! functions.

use crate::chess::fnv::Fnv1a64;
use crate::chess::rng::mix64;

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
