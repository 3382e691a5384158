//! Offline first, for a history on a PostgreSQL server: a run whose server
//! cannot be reached (down, a wrong password, the network gone mid-soak)
//! is kept in the local SQLite history, marked for that server (and the
//! binary says so); the next save that reaches the server sends it there,
//! as `diskbench sync --to` does. Run UUIDs make every copy happen once.

use model::RunRecord;
use std::path::{Path, PathBuf};
use store::{Create, Store, StoreError};

/// Whether `--db` (`named`, or else `$DISKBENCH_DB`) names a PostgreSQL server.
pub fn is_server(named: Option<&Path>) -> bool {
    store::locate(named)
        .ok()
        .and_then(|(p, _)| p.to_str().map(store::is_url))
        .unwrap_or(false)
}

/// The server's URL as it may be shown (no password), or the text given
/// when it does not parse.
pub fn server_name(named: Option<&Path>) -> String {
    let given = store::locate(named)
        .map(|(p, _)| p.display().to_string())
        .unwrap_or_default();
    match store::PgTarget::parse(&given) {
        Ok(target) => target.to_string(),
        Err(_) => "the PostgreSQL history named by --db".into(),
    }
}

/// The local history that keeps runs for a server: the XDG default.
fn open_local(create: Create) -> Result<Store, StoreError> {
    let (path, dirs) = store::local_default()?;
    let create = match create {
        Create::Nothing => Create::Nothing,
        _ => dirs,
    };
    Store::open_as(path, create, store::DEFAULT_BUSY_TIMEOUT)
}

/// Keeps `record` locally for `server` (see [`server_name`]) after the
/// server refused it: the run's id in the local history and that file, or
/// why it could not be kept there either.
pub fn keep_locally(record: &RunRecord, server: &str) -> Result<(i64, PathBuf), StoreError> {
    let mut local = open_local(Create::FileAndDirs)?;
    let id = local.keep_for(record, server)?;
    Ok((id, local.path().to_path_buf()))
}

/// What [`send_pending`] did: the runs kept locally for `server` sent
/// there (how many, from which file), or why they stay.
pub struct Sent {
    pub server: String,
    pub local: PathBuf,
    pub outcome: Result<usize, StoreError>,
}

/// After a save that reached `server`: sends the runs kept locally for it.
/// `None` when the history is not a server's or there is no local history;
/// a failure is left for the next time.
pub fn send_pending(server: &mut Store) -> Option<Sent> {
    let name = server.server().map(|t| t.to_string())?;
    let mut local = open_local(Create::Nothing).ok()?;
    let outcome = local.pending(&name).and_then(|runs| {
        if runs.is_empty() {
            return Ok(0);
        }
        server.merge(&runs)?;
        let ids: Vec<i64> = runs.iter().map(|r| r.id).collect();
        local.sent(&ids)?;
        Ok(ids.len())
    });
    Some(Sent {
        server: name,
        local: local.path().to_path_buf(),
        outcome,
    })
}
