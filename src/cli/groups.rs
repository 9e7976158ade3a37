//! The verbs that take what they act on as a second word: `train nnue|cnn|selfplay|moves`,
//! `rate evaluator|policy`, `export data|evaluator`. Each word hands its arguments to the
//! file of that subcommand.

use std::path::Path;

/// Arguments of `chessgraph train`: what to train, or (without a subcommand) the NNUE
/// options of `train nnue`, as `train` took them before it had subcommands.
#[derive(clap::Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    mut_args(|a| a.hide(true)),
    after_help = "`chessgraph train --out FILE [OPTIONS]`, without a subcommand, is `train nnue --out FILE [OPTIONS]`."
)]
pub struct TrainArgs {
    #[command(subcommand)]
    what: Option<Train>,
    #[command(flatten)]
    nnue: Option<super::train::Args>,
}

/// What `train` trains: each writes a model file that a player or an evaluator loads.
#[derive(clap::Subcommand)]
enum Train {
    /// An NNUE (768 or 2,304 inputs → H → 1, optional output buckets) on the database's labelled positions, on the CPU: the network file every evaluator flag takes.
    Nnue(super::train::Args),
    /// One of the studies' convolutional networks (cnn-study, cnn-eval, resnet-policy, policy-value) with candle on the CPU: the model file.
    #[cfg(feature = "cnn")]
    Cnn(super::train_net::Args),
    /// A policy/value network by self-play: it plays itself with PUCT and learns from its games, generation after generation; writes each generation's network, games and samples.
    #[cfg(feature = "cnn")]
    Selfplay(super::selfplay_train::Args),
    /// The PUC-Rio study's move classifier: logistic regression of "the winner played this legal move" on 192 board/from/to columns; accuracy, AUC and top-1 move accuracy; stored in the fits, written with --out for `--player logistic:model=FILE`.
    Moves(super::fit::MovesArgs),
}

impl TrainArgs {
    /// Runs the `train` subcommand asked for (`train nnue` when none is named).
    pub fn run(self, db_path: &Path) -> anyhow::Result<()> {
        match (self.what, self.nnue) {
            (Some(Train::Nnue(args)), _) | (None, Some(args)) => super::train::run(db_path, args),
            #[cfg(feature = "cnn")]
            (Some(Train::Cnn(args)), _) => super::train_net::run(db_path, args),
            #[cfg(feature = "cnn")]
            (Some(Train::Selfplay(args)), _) => super::selfplay_train::run(args),
            (Some(Train::Moves(args)), _) => super::fit::run_moves(db_path, args),
            // Without a subcommand, `--out` is required: clap has refused the line already.
            (None, None) => anyhow::bail!(
                "say what to train: `chessgraph train nnue|cnn|selfplay|moves` (see `chessgraph train --help`)"
            ),
        }
    }
}

/// What `rate` measures against the stored labels.
#[derive(clap::Subcommand)]
pub enum Rate {
    /// Evaluators (built-in, files, NNUE or value networks, stored by `tune`) on positions from a file or the database, static and after quiescence: Kendall τ, Pearson, RMSE and Texel loss against the labels.
    Evaluator(super::eval::Args),
    /// Policy networks on the split: top-1/top-3 agreement with the stored best move and, with an engine, τ of its evaluation after the network's move.
    #[cfg(feature = "cnn")]
    Policy(super::eval_policy::Args),
}

impl Rate {
    /// Runs the `rate` subcommand asked for.
    pub fn run(self, db_path: &Path) -> anyhow::Result<()> {
        match self {
            Rate::Evaluator(args) => super::eval::run(db_path, args),
            #[cfg(feature = "cnn")]
            Rate::Policy(args) => super::eval_policy::run(db_path, args),
        }
    }
}

/// What `export` writes.
#[derive(clap::Subcommand)]
pub enum Export {
    /// The tables (positions, features, edges, labels, splits) as Parquet files for DuckDB, Polars, Spark.
    #[cfg(feature = "parquet")]
    Data(super::export_data::Args),
    /// An evaluator file: a built-in, one stored by `tune`, or a stored linear fit (--fit N).
    Evaluator(super::export_evaluator::Args),
}

impl Export {
    /// Runs the `export` subcommand asked for.
    pub fn run(self, db_path: &Path) -> anyhow::Result<()> {
        match self {
            #[cfg(feature = "parquet")]
            Export::Data(args) => super::export_data::run(db_path, args),
            Export::Evaluator(args) => super::export_evaluator::run(db_path, args),
        }
    }
}
