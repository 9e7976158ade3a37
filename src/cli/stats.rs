//! `chessgraph stats`.

use std::path::Path;

/// Arguments of `chessgraph stats`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `chessgraph stats`.
pub fn run(_db: &Path, _args: Args) -> anyhow::Result<()> {
    anyhow::bail!("stats: being written")
}
