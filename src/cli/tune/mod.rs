//! `chessgraph tune evaluator|spsa`: tuning by the data (`tune evaluator`, Texel's method
//! on the stored positions; plain `tune` as before) or by games (`tune spsa`, any UCI
//! engine's spin options).

pub mod evaluator;
pub mod spsa;

use std::path::Path;

/// Arguments of `chessgraph tune`: what to tune, or (without a subcommand) the options of
/// `tune evaluator`, as `tune` took them before it had subcommands.
#[derive(clap::Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    mut_args(|a| a.hide(true)),
    after_help = "`chessgraph tune [OPTIONS]`, without a subcommand, is `tune evaluator [OPTIONS]`."
)]
pub struct TuneArgs {
    #[command(subcommand)]
    what: Option<Tune>,
    #[command(flatten)]
    evaluator: evaluator::Args,
}

/// What `tune` tunes.
#[derive(clap::Subcommand)]
enum Tune {
    /// Texel-tune the tapered evaluator (material, PSTs, mobility, king safety, pawns) on the stored positions; stored in the database, written with --out.
    Evaluator(evaluator::Args),
    /// Tune a UCI engine's spin options by SPSA over games (as OpenBench does): the options in OpenBench's input lines, the history as CSV and PNG in --out, resumable.
    Spsa(spsa::Args),
}

impl TuneArgs {
    /// Runs the `tune` subcommand asked for (`tune evaluator` when none is named).
    pub fn run(self, db_path: &Path) -> anyhow::Result<()> {
        match self.what {
            Some(Tune::Evaluator(args)) => evaluator::run(db_path, args),
            Some(Tune::Spsa(args)) => spsa::run(db_path, args),
            // Every option of `tune evaluator` has a default: plain `tune` runs it.
            None => evaluator::run(db_path, self.evaluator),
        }
    }
}
