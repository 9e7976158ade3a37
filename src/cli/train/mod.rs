//! `chessgraph train nnue|cnn|selfplay|moves`: each writes a model file that a player or
//! an evaluator loads; one file per kind.

#[cfg(feature = "cnn")]
pub mod cnn;
pub mod moves;
pub mod nnue;
#[cfg(feature = "cnn")]
pub mod selfplay;

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
    nnue: Option<nnue::Args>,
}

/// What `train` trains: each writes a model file that a player or an evaluator loads.
#[derive(clap::Subcommand)]
enum Train {
    /// An NNUE (768 or 2,304 inputs → H → 1, optional output buckets) on the database's labelled positions, on the CPU: the network file every evaluator flag takes.
    Nnue(nnue::Args),
    /// One of the studies' convolutional networks (cnn-study, cnn-eval, resnet-policy, policy-value) with candle on the CPU: the model file.
    #[cfg(feature = "cnn")]
    Cnn(cnn::Args),
    /// A policy/value network by self-play: it plays itself with PUCT and learns from its games, generation after generation; writes each generation's network, games and samples.
    #[cfg(feature = "cnn")]
    Selfplay(selfplay::Args),
    /// The PUC-Rio study's move classifier: logistic regression of "the winner played this legal move" on 192 board/from/to columns; accuracy, AUC and top-1 move accuracy; stored in the fits, written with --out for `--player logistic:model=FILE`.
    Moves(moves::Args),
}

impl TrainArgs {
    /// Runs the `train` subcommand asked for (`train nnue` when none is named).
    pub fn run(self, db_path: &Path) -> anyhow::Result<()> {
        match (self.what, self.nnue) {
            (Some(Train::Nnue(args)), _) | (None, Some(args)) => nnue::run(db_path, args),
            #[cfg(feature = "cnn")]
            (Some(Train::Cnn(args)), _) => cnn::run(db_path, args),
            #[cfg(feature = "cnn")]
            (Some(Train::Selfplay(args)), _) => selfplay::run(args),
            (Some(Train::Moves(args)), _) => moves::run(db_path, args),
            // Without a subcommand, `--out` is required: clap has refused the line already.
            (None, None) => anyhow::bail!(
                "say what to train: `chessgraph train nnue|cnn|selfplay|moves` (see `chessgraph train --help`)"
            ),
        }
    }
}
