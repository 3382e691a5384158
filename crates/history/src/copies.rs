//! A run kept once: an import refused when the history holds its result
//! already (imported results carry a UUID made from their content, so the
//! same document twice has the same one), and what `sync` is about to
//! copy, said before it copies. Both only look at what the store holds.

use model::RunRecord;
use std::path::Path;
use store::{Store, StoreError};

/// Why files cannot be imported as they are: a result the history holds
/// already (naming its run id), or one result given twice; `None` when
/// every result is new. `files` holds each file with its results' UUIDs.
pub fn imported_before(
    files: &[(&Path, &[String])],
    store: &Store,
) -> Result<Option<String>, StoreError> {
    let mut seen: Vec<(&str, &Path)> = Vec::new();
    for (path, uuids) in files {
        for uuid in uuids.iter() {
            if let Some((_, first)) = seen.iter().find(|(u, _)| u == uuid) {
                return Ok(Some(format!(
                    "{} holds the same result as {}: give it once (or --again to keep a copy \
                     of each)",
                    path.display(),
                    first.display()
                )));
            }
            seen.push((uuid, path));
            if let Some(id) = store.id_of_uuid(uuid)? {
                return Ok(Some(format!(
                    "{} was imported before: its result is run {id} in {} (`diskbench show \
                     {id}`); --again keeps another copy",
                    path.display(),
                    store.path().display()
                )));
            }
        }
    }
    Ok(None)
}

/// What a sync is about to copy: how many runs, their ids and when they
/// started, e.g. "3 runs to copy (ids 4 to 9, started 2026-11-20 10:00:00
/// to 2026-11-27 16:50:02 UTC)".
pub fn copy_text(runs: &[RunRecord]) -> String {
    let (Some(first), Some(last)) = (
        runs.iter().min_by_key(|r| r.result.started_unix_ms),
        runs.iter().max_by_key(|r| r.result.started_unix_ms),
    ) else {
        return "no run to copy".into();
    };
    let ids = (
        runs.iter().map(|r| r.id).min(),
        runs.iter().map(|r| r.id).max(),
    );
    let ids = match ids {
        (Some(a), Some(b)) if a != b => format!("ids {a} to {b}"),
        (Some(a), _) => format!("id {a}"),
        _ => String::new(),
    };
    match runs.len() {
        1 => format!(
            "1 run to copy ({ids}, started {} UTC)",
            dates::format_utc(first.result.started_unix_ms)
        ),
        n => format!(
            "{n} runs to copy ({ids}, started {} to {} UTC)",
            dates::format_utc(first.result.started_unix_ms),
            dates::format_utc(last.result.started_unix_ms)
        ),
    }
}
