//! `chessgraph rate evaluator|policy`: measuring against the stored labels; one file per
//! kind.

pub mod evaluator;
#[cfg(feature = "cnn")]
pub mod policy;

use std::path::Path;

/// What `rate` measures against the stored labels.
#[derive(clap::Subcommand)]
pub enum Rate {
    /// Evaluators (built-in, files, NNUE or value networks, stored by `tune`) on positions from a file or the database, static and after quiescence: Kendall τ, Pearson, RMSE and Texel loss against the labels.
    Evaluator(evaluator::Args),
    /// Policy networks on the split: top-1/top-3 agreement with the stored best move and, with an engine, τ of its evaluation after the network's move.
    #[cfg(feature = "cnn")]
    Policy(policy::Args),
}

impl Rate {
    /// Runs the `rate` subcommand asked for.
    pub fn run(self, db_path: &Path) -> anyhow::Result<()> {
        match self {
            Rate::Evaluator(args) => evaluator::run(db_path, args),
            #[cfg(feature = "cnn")]
            Rate::Policy(args) => policy::run(db_path, args),
        }
    }
}
