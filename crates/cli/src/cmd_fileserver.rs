//! `diskbench fileserver`: not built yet.

use crate::outcome::Exit;
use clap::Args;

#[derive(Args)]
pub struct FileserverArgs {}

pub fn run(_args: FileserverArgs) -> anyhow::Result<Exit> {
    anyhow::bail!("diskbench fileserver is not built yet")
}
