//! `diskbench ping`: not built yet.

use crate::outcome::Exit;
use clap::Args;

#[derive(Args)]
pub struct PingArgs {}

pub fn run(_args: PingArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("diskbench ping is not built yet")
}
