//! `chessgraph export data|evaluator|bullet`: files for other programs; one file per kind.

pub mod bullet;
#[cfg(feature = "parquet")]
pub mod data;
pub mod evaluator;

use std::path::Path;

/// What `export` writes.
#[derive(clap::Subcommand)]
pub enum Export {
    /// The tables (positions, features, edges, labels, splits) as Parquet files for DuckDB, Polars, Spark.
    #[cfg(feature = "parquet")]
    Data(data::Args),
    /// An evaluator file: a built-in, one stored by `tune`, or a stored linear fit (--fit N).
    Evaluator(evaluator::Args),
    /// Training data for the bullet trainer: every labelled position with a game result (datagen's self-play), 32 bytes each, shuffled.
    Bullet(bullet::Args),
}

impl Export {
    /// Runs the `export` subcommand asked for.
    pub fn run(self, db_path: &Path) -> anyhow::Result<()> {
        match self {
            #[cfg(feature = "parquet")]
            Export::Data(args) => data::run(db_path, args),
            Export::Evaluator(args) => evaluator::run(db_path, args),
            Export::Bullet(args) => bullet::run(db_path, args),
        }
    }
}
