//! `chessgraph import`.

use std::path::Path;

/// Arguments of `chessgraph import`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `chessgraph import`.
pub fn run(_db: &Path, _args: Args) -> anyhow::Result<()> {
    anyhow::bail!("import: being written")
}
