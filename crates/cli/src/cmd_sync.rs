//! `diskbench sync --to URL` sends the local history's runs that a shared
//! PostgreSQL history lacks; `diskbench sync --from URL` brings a shared
//! history's runs into the local file, for comparing offline. Each run is
//! copied once, by its UUID, however often sync runs. Run ids, `--label`,
//! `--since`, `--until`, `--command` and `--soak` choose which runs of the
//! source are copied (as for `history`), and before copying it says how
//! many runs it will copy and which (their ids and when they started).

use crate::args::DbArgs;
use crate::outcome::Exit;
use clap::Args;
use store::Store;

#[derive(Args)]
#[command(group = clap::ArgGroup::new("way").required(true))]
pub struct SyncArgs {
    /// Send the local runs this PostgreSQL history lacks
    #[arg(long, value_name = "URL", group = "way")]
    to: Option<String>,
    /// Bring this PostgreSQL history's runs into the local one
    #[arg(long, value_name = "URL", group = "way")]
    from: Option<String>,
    /// Which runs of the source to copy (default: every run the other lacks)
    #[command(flatten)]
    selection: crate::selection::Selection,
    /// The local history (a file)
    #[command(flatten)]
    db: DbArgs,
}

pub fn run(args: SyncArgs) -> anyhow::Result<Exit> {
    let url = args
        .to
        .as_deref()
        .or(args.from.as_deref())
        .unwrap_or_default();
    if !store::is_url(url) {
        eprintln!(
            "diskbench sync: '{}' is not a PostgreSQL URL: use postgresql://USER@HOST[:PORT]/DB",
            store::PgTarget::parse(url)
                .map_or_else(|_| "the value given".into(), |t| t.to_string())
        );
        return Ok(Exit::Usage);
    }
    // The local history: --db, else $DISKBENCH_DB unless it names the
    // server (a host that saves there keeps its local runs at the default).
    let (local, create) = match store::locate(args.db.db.as_deref())? {
        (p, _) if p.to_str().is_some_and(store::is_url) && args.db.db.is_none() => {
            store::local_default()?
        }
        (p, _) if p.to_str().is_some_and(store::is_url) => {
            eprintln!("diskbench sync: --db names the local history, a file; the server goes in --to or --from");
            return Ok(Exit::Usage);
        }
        found => found,
    };
    let server = Store::open(url)?;
    let name = server.path().display().to_string();
    let open_local = |create| Store::open_as(&local, create, store::DEFAULT_BUSY_TIMEOUT);
    let (mut from, mut to, local_is_source) = match args.to {
        Some(_) => (open_local(store::Create::Nothing)?, server, true),
        None => (server, open_local(create)?, false),
    };
    let chosen = match args.selection.chooses() {
        false => from.list(&store::Filter::default())?,
        true => match crate::selection::load_or_exit("sync", &args.selection, &from) {
            Ok(runs) => runs,
            Err(exit) => return exit,
        },
    };
    let missing = store::missing_among(chosen, &to.run_uuids()?);
    eprintln!(
        "diskbench sync: {} from {} to {}",
        history::copies::copy_text(&missing),
        from.path().display(),
        to.path().display()
    );
    let merged = to.merge(&missing)?;
    if local_is_source {
        // Whatever was waiting for this server is there now.
        let pending: Vec<i64> = from.pending(&name)?.iter().map(|r| r.id).collect();
        from.sent(&pending)?;
    }
    println!(
        "{} run{} copied from {} to {} ({} completed that were left unfinished there); the others were there already",
        merged.added + merged.completed,
        if merged.added + merged.completed == 1 { "" } else { "s" },
        from.path().display(),
        to.path().display(),
        merged.completed
    );
    Ok(Exit::Ok)
}
