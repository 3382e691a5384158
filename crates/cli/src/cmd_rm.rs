//! `diskbench rm RUN...`: removes runs from the history, all of them or
//! (when one id is unknown) none.

use crate::args::DbArgs;
use crate::outcome::Exit;
use clap::Args;

#[derive(Args)]
pub struct RmArgs {
    /// The ids of the runs to remove (see `diskbench history`)
    #[arg(value_name = "RUN", required = true, value_parser = crate::selection::parse_run_id)]
    ids: Vec<i64>,
    #[command(flatten)]
    db: DbArgs,
}

pub fn run(args: RmArgs) -> anyhow::Result<Exit> {
    let mut store = crate::save::open(&args.db)?;
    store.remove(&args.ids)?;
    let ids: Vec<String> = args.ids.iter().map(i64::to_string).collect();
    println!(
        "removed run{} {} from {}",
        if ids.len() == 1 { "" } else { "s" },
        ids.join(", "),
        store.path().display()
    );
    Ok(Exit::Ok)
}
