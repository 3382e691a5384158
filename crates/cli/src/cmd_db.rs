//! `diskbench db grant-writer ROLE`: the GRANTs (and row security) that let
//! a role save runs into a shared PostgreSQL history and do nothing else:
//! it cannot read others' results, change a saved run or remove one.
//! Printed for a DBA to review and run, or applied with `--apply` by the
//! tables' owner.

use crate::args::DbArgs;
use crate::outcome::Exit;
use clap::{Args, Subcommand};

#[derive(Args)]
pub struct DbCommand {
    #[command(subcommand)]
    what: DbWhat,
}

#[derive(Subcommand)]
enum DbWhat {
    /// Print (or --apply) the GRANTs of a role that may only save runs
    GrantWriter(GrantArgs),
}

#[derive(Args)]
struct GrantArgs {
    /// The PostgreSQL role (it must exist: CREATE ROLE name LOGIN PASSWORD '...')
    role: String,
    /// Run the statements on the history named by --db (as the tables' owner)
    #[arg(long)]
    apply: bool,
    #[command(flatten)]
    db: DbArgs,
}

pub fn run(cmd: DbCommand) -> anyhow::Result<Exit> {
    let DbWhat::GrantWriter(args) = cmd.what;
    if args.role.is_empty() {
        eprintln!("diskbench db grant-writer: the role name is empty");
        return Ok(Exit::Usage);
    }
    if !args.apply {
        print!("{}", store::grant_writer_sql(&args.role));
        return Ok(Exit::Ok);
    }
    let mut store = crate::save::open(&args.db)?;
    store.grant_writer(&args.role)?;
    println!(
        "{} may now save runs in {} (and not read, change or remove others')",
        args.role,
        store.path().display()
    );
    Ok(Exit::Ok)
}
