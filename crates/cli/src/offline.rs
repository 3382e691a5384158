//! Offline first, for a history on a PostgreSQL server: a run whose server
//! cannot be reached (down, a wrong password, the network gone mid-soak)
//! is kept in the local SQLite history, marked for that server, and said
//! so; the next save that reaches the server sends it there, as
//! `diskbench sync --to` does. Run UUIDs make every copy happen once.

use crate::args::DbArgs;
use crate::outcome::Exit;
use model::RunRecord;
use store::{Create, Store};

/// Whether `--db` (or `$DISKBENCH_DB`) names a PostgreSQL server.
pub fn is_server(db: &DbArgs) -> bool {
    db.path()
        .ok()
        .and_then(|p| p.to_str().map(store::is_url))
        .unwrap_or(false)
}

/// The server's URL as it may be shown (no password), or the text given
/// when it does not parse.
fn server_name(db: &DbArgs) -> String {
    let given = db
        .path()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    match store::PgTarget::parse(&given) {
        Ok(target) => target.to_string(),
        Err(_) => "the PostgreSQL history named by --db".into(),
    }
}

/// The local history that keeps runs for a server: the XDG default.
fn open_local(create: Create) -> anyhow::Result<Store> {
    let (path, dirs) = store::local_default()?;
    let create = match create {
        Create::Nothing => Create::Nothing,
        _ => dirs,
    };
    Ok(Store::open_as(path, create, store::DEFAULT_BUSY_TIMEOUT)?)
}

/// Keeps `record` locally after the server refused it with `error`, and
/// says so. The save failed, so the exit is 1; the figures are safe.
pub fn keep_locally(record: &RunRecord, db: &DbArgs, error: &anyhow::Error) -> Exit {
    let server = server_name(db);
    eprintln!("diskbench: not saved in {server}: {error:#}");
    match open_local(Create::FileAndDirs).and_then(|mut local| {
        let id = local.keep_for(record, &server)?;
        Ok((id, local.path().to_path_buf()))
    }) {
        Ok((id, path)) => eprintln!(
            "diskbench: kept as run {id} in the local history {}; `diskbench sync --to {server}` \
             sends it there (so does the next run saved there)",
            path.display()
        ),
        Err(e) => {
            eprintln!("diskbench: not kept locally either: {e:#}; the results above are complete")
        }
    }
    Exit::Runtime
}

/// After a save that reached `server`: sends the runs kept locally for it.
/// A failure here is said and left for the next time.
pub fn send_pending(server: &mut Store) {
    let Some(name) = server.server().map(|t| t.to_string()) else {
        return;
    };
    let Ok(mut local) = open_local(Create::Nothing) else {
        return;
    };
    let sent = local.pending(&name).and_then(|runs| {
        if runs.is_empty() {
            return Ok(0);
        }
        server.merge(&runs)?;
        let ids: Vec<i64> = runs.iter().map(|r| r.id).collect();
        local.sent(&ids)?;
        Ok(ids.len())
    });
    match sent {
        Ok(0) => {}
        Ok(n) => eprintln!(
            "sent {n} run{} kept in {} while {name} was unreachable",
            if n == 1 { "" } else { "s" },
            local.path().display()
        ),
        Err(e) => eprintln!("diskbench: the runs kept locally for {name} stay there: {e:#}"),
    }
}
