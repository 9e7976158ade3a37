//! `chessgraph analyze`.

use std::path::Path;

/// Arguments of `chessgraph analyze`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `chessgraph analyze`.
pub fn run(_db: &Path, _args: Args) -> anyhow::Result<()> {
    anyhow::bail!("analyze: being written")
}
