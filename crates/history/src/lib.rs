//! Keeping runs in the history, the same way for every measuring command:
//! the record a run is saved as (its labels, prices and the command line
//! without a password), the live copy written while it goes on
//! ([`live`]), the final save that completes that copy ([`save`]), and,
//! for a history on a PostgreSQL server, keeping a run locally when the
//! server cannot take it ([`offline`]); a result imported once, and what
//! a sync will copy ([`copies`]).
//!
//! The database itself is the `store` crate's; this crate decides what is
//! written when. It prints nothing: what went wrong comes back as a
//! `store::StoreError` (or, for the live writer, is handed to the caller's
//! callback once), and the `diskbench` binary says it.

pub mod copies;
pub mod live;
pub mod offline;

use model::{JobResult, Prices, RunKind, RunRecord, RunResult, WorkloadReport};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use store::{Store, StoreError};

pub use live::{LiveWriter, Written};

/// Where runs are kept and what the user says about them: the history
/// named by `--db` (`None`: `$DISKBENCH_DB` or the default file), and the
/// labels and prices each record carries.
#[derive(Clone, Debug, Default)]
pub struct Keeping {
    pub db: Option<PathBuf>,
    pub labels: BTreeMap<String, String>,
    pub prices: Prices,
}

impl Keeping {
    /// The record of a run of `kind`.
    pub fn record(&self, kind: RunKind, result: RunResult) -> RunRecord {
        RunRecord {
            id: 0,
            kind,
            labels: self.labels.clone(),
            prices: self.prices,
            result,
            soak: None,
            state: Default::default(),
            uuid: String::new(),
        }
    }
}

/// Opens the history to save runs in: the file is created if needed, its
/// directory only at the default place.
pub fn open(named: Option<&Path>) -> Result<Store, StoreError> {
    let (path, create) = store::locate(named)?;
    Store::open_as(path, create, store::DEFAULT_BUSY_TIMEOUT)
}

/// Opens the history to read or edit it: nothing is created.
pub fn open_existing(named: Option<&Path>) -> Result<Store, StoreError> {
    let (path, _) = store::locate(named)?;
    Store::open_as(path, store::Create::Nothing, store::DEFAULT_BUSY_TIMEOUT)
}

/// diskbench's command line as runs keep it, with the password of a
/// PostgreSQL URL (`--db postgresql://user:secret@...`) left out: the
/// history, its exports and reports never hold a password.
pub fn command_line() -> Vec<String> {
    std::env::args()
        .map(|arg| match arg.find("postgres") {
            Some(at) if store::is_url(&arg[at..]) => {
                format!("{}{}", &arg[..at], store::redact_url(&arg[at..]))
            }
            _ => arg,
        })
        .collect()
}

/// True when the run measured nothing worth keeping: it failed before any
/// I/O. A command that measures in its own terms (`workload`) decides that
/// itself.
pub fn nothing_measured(result: &RunResult) -> bool {
    if result.workload.is_some() {
        return false;
    }
    let no_io = result.jobs.iter().all(|j| j.total_ios() == 0);
    no_io && (result.jobs.is_empty() || result.error.is_some())
}

/// Saves `record` whole: over the live row the writer left in `live`
/// (under the same id), or as a new run. The live writer's connection may
/// be one the server dropped during the run; a server that is back takes
/// the run on a new connection. Returns the run's id and the open history.
pub fn save(
    record: &RunRecord,
    live: Written,
    named: Option<&Path>,
) -> Result<(i64, Store), StoreError> {
    let store = match live.store {
        Some(store) => Ok(store),
        None => open(named),
    };
    let finish = |mut store: Store| -> Result<(i64, Store), StoreError> {
        let id = match live.id {
            Some(id) => store.finish_live(id, record)?,
            None => store.save(record)?,
        };
        Ok((id, store))
    };
    match store.and_then(finish) {
        Err(_) if offline::is_server(named) => open(named).and_then(finish),
        saved => saved,
    }
}

/// What a command that measures in its own terms (ping, meta, fileserver,
/// gobonniego) hands over to be saved: its output, and the fio-shaped jobs
/// its work has, if any (see [`model::WorkloadReport`]).
pub struct Workload {
    pub kind: RunKind,
    /// What was measured: the directory, file or device named.
    pub target: PathBuf,
    pub started_unix_ms: u64,
    pub text: String,
    pub document: serde_json::Value,
    pub jobs: Vec<JobResult>,
    /// Why it stopped early, as it said on stderr.
    pub error: Option<String>,
    pub interrupted: bool,
}

impl Workload {
    pub fn result(self) -> RunResult {
        RunResult {
            schema_version: model::result::SCHEMA_VERSION,
            tool_version: runner::TOOL_VERSION.to_string(),
            command_line: command_line(),
            started_unix_ms: self.started_unix_ms,
            finished_unix_ms: dates::now_ms(),
            host: runner::probe::host(),
            targets: vec![runner::probe::target(&self.target)],
            jobs: self.jobs,
            error: self.error,
            interrupted: self.interrupted,
            workload: Some(WorkloadReport {
                command: self.kind.name().to_string(),
                text: self.text,
                document: self.document,
            }),
            ..RunResult::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_carries_the_labels_and_prices_given() {
        let keeping = Keeping {
            db: None,
            labels: [("provider".to_string(), "aws".to_string())].into(),
            prices: Prices {
                per_month: Some(12.0),
                ..Prices::default()
            },
        };
        let r = keeping.record(RunKind::Fio, RunResult::default());
        assert_eq!(r.kind, RunKind::Fio);
        assert_eq!(r.labels["provider"], "aws");
        assert_eq!(r.prices.per_month, Some(12.0));
        assert_eq!((r.id, r.soak.is_none(), r.uuid.as_str()), (0, true, ""));
    }

    #[test]
    fn a_run_that_failed_before_any_io_measured_nothing() {
        let mut failed = RunResult {
            error: Some("no such device".into()),
            ..RunResult::default()
        };
        assert!(nothing_measured(&RunResult::default()));
        assert!(nothing_measured(&failed));
        failed.workload = Some(WorkloadReport {
            command: "ping".into(),
            text: String::new(),
            document: serde_json::Value::Null,
        });
        assert!(!nothing_measured(&failed), "a workload decides for itself");
    }

    #[test]
    fn a_missing_history_is_not_created_to_be_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("none.sqlite3");
        assert!(open_existing(Some(&path)).is_err());
        assert!(!path.exists(), "reading never creates the file");
        let store = open(Some(&path)).unwrap();
        assert_eq!(store.path(), path);
        assert!(!offline::is_server(Some(&path)));
        assert!(offline::is_server(Some(Path::new(
            "postgresql://u@127.0.0.1:1/db"
        ))));
    }
}
