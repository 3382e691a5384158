//! `diskbench meta`: not built yet.

use crate::outcome::Exit;
use clap::Args;

#[derive(Args)]
pub struct MetaArgs {}

pub fn run(_args: MetaArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("diskbench meta is not built yet")
}
