//! `diskbench gobonniego`: not built yet.

use crate::outcome::Exit;

pub fn run(_args: Vec<String>) -> anyhow::Result<Exit> {
    anyhow::bail!("diskbench gobonniego is not built yet")
}
