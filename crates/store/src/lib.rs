//! The history: every run diskbench measures (or imports) kept in a
//! database, so results outlive the terminal and runs of many days, disks,
//! clouds and machines can be compared later.
//!
//! Two databases, one history: an embedded SQLite file (`sqlite`: no
//! server, one file easy to copy), or PostgreSQL (`postgres`) when many
//! machines write into one place. [`Store`] is written once over the
//! `backend` traits, in SQL both understand (`dialect` holds what differs),
//! with one versioned schema ([`schema`]) because the data outlives the
//! program that made it. Runs carry global ids (UUIDs) so that `sync`
//! copies each run between histories exactly once.
//!
//! A run is stored as its full `model::RunResult` in JSON (which carries the
//! merged latency histograms of every job, so percentiles over many runs are
//! computed from histograms) plus columns for what people filter and group
//! by: host and target facts, labels (in their own table) and prices.
//!
//! A run is also written while it goes on (module `live`: its row first, its
//! per-second series every second or so, the whole result at its end), so
//! a long soak that is killed keeps all but its last few seconds.

mod backend;
mod dialect;
mod error;
mod live;
mod live_row;
mod postgres;
mod record;
pub mod schema;
mod sqlite;
mod sync;

pub use error::{RecordError, StoreError};
pub use live_row::FOREIGN_SILENCE_MS;
pub use postgres::{grant_writer_sql, is_url, redact_url, PgTarget};
pub use record::new_uuid;
pub use schema::{APPLICATION_ID, LATEST_VERSION};
pub use sync::{missing_among, Merged};

use backend::{Backend, Tx};
use model::{RunKind, RunRecord};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a writer waits for another process's transaction to finish.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(10);

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Which runs [`Store::list`] returns; every condition given must hold.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filter {
    /// `key=value` pairs: a run must carry every one of them.
    pub labels: Vec<(String, String)>,
    /// Runs that started at or after this time (Unix ms).
    pub since_unix_ms: Option<u64>,
    /// Runs that started at or before this time (Unix ms).
    pub until_unix_ms: Option<u64>,
    pub kind: Option<RunKind>,
    /// Only the runs of this soak (`model::SoakRef::id`).
    pub soak: Option<String>,
}

/// An open history: an SQLite file or a PostgreSQL database.
pub struct Store {
    backend: RefCell<Box<dyn Backend>>,
    /// The file's path, or the server's URL without its password.
    path: PathBuf,
    /// Where runs go that were meant for PostgreSQL and could not get
    /// there; `None` for an SQLite history.
    server: Option<PgTarget>,
}

/// What opening a database may create when it is not there yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Create {
    /// For reading: nothing; a missing file is [`StoreError::NoHistory`].
    Nothing,
    /// For writing to a path the user named: the file, in a directory that
    /// must exist ([`StoreError::NoDir`] otherwise), so a typo in `--db`
    /// never leaves a tree of directories behind.
    File,
    /// For writing to the default place ([`locate`]): the file and its
    /// directories (`~/.local/share/diskbench` on a first run).
    FileAndDirs,
}

/// The database used when none is named: `$DISKBENCH_DB`, else
/// `$XDG_DATA_HOME/diskbench/history.sqlite3`, else
/// `~/.local/share/diskbench/history.sqlite3`.
pub fn default_path() -> Result<PathBuf> {
    Ok(locate(None)?.0)
}

/// The database at `named` (`--db`), else at [`default_path`], with what a
/// writer may create there: its directories only at the XDG default, never
/// at a path the user gave (`--db` or `$DISKBENCH_DB`). A PostgreSQL URL
/// comes back as it is (see [`is_url`]).
pub fn locate(named: Option<&Path>) -> Result<(PathBuf, Create)> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(path) = named {
        return Ok((path.to_path_buf(), Create::File));
    }
    if let Some(db) = var("DISKBENCH_DB") {
        return Ok((PathBuf::from(db), Create::File));
    }
    local_default()
}

/// The local SQLite history at its XDG place, whatever `--db` and
/// `$DISKBENCH_DB` say: where runs meant for an unreachable PostgreSQL are
/// kept until `diskbench sync` sends them.
pub fn local_default() -> Result<(PathBuf, Create)> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let data = match var("XDG_DATA_HOME") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(var("HOME").ok_or(StoreError::NoHome)?).join(".local/share"),
    };
    let path = data.join("diskbench").join("history.sqlite3");
    Ok((path, Create::FileAndDirs))
}

impl Store {
    /// Opens the database at `path` to write to it, creating the file (not
    /// its directory) if needed, upgrading an older schema in place.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        Store::open_as(path, Create::File, DEFAULT_BUSY_TIMEOUT)
    }

    /// [`Store::open`] with another wait for a locked database.
    pub fn open_with_timeout(path: impl AsRef<Path>, busy_timeout: Duration) -> Result<Store> {
        Store::open_as(path, Create::File, busy_timeout)
    }

    /// Opens the database at `path` (or at the PostgreSQL URL `path` holds),
    /// creating what `create` allows when it is not there. A PostgreSQL
    /// database must exist; its tables are created as a file's are.
    pub fn open_as(
        path: impl AsRef<Path>,
        create: Create,
        busy_timeout: Duration,
    ) -> Result<Store> {
        let path = path.as_ref();
        if let Some(url) = path.to_str().filter(|p| is_url(p)) {
            let target = PgTarget::parse(url)?;
            let backend = postgres::Postgres::connect(&target)?;
            return Ok(Store {
                backend: RefCell::new(Box::new(backend)),
                path: PathBuf::from(target.to_string()),
                server: Some(target),
            });
        }
        let backend = sqlite::Sqlite::open(path, create, busy_timeout)?;
        Ok(Store {
            backend: RefCell::new(Box::new(backend)),
            path: path.to_path_buf(),
            server: None,
        })
    }

    /// The file's path, or the PostgreSQL server's URL without a password.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The PostgreSQL server this history is on, `None` for a file.
    pub fn server(&self) -> Option<&PgTarget> {
        self.server.as_ref()
    }

    /// Runs `f` in one transaction, committed when it returns `Ok`.
    fn transaction<T>(&self, write: bool, f: impl FnOnce(&mut dyn Tx) -> Result<T>) -> Result<T> {
        let mut backend = self.backend.borrow_mut();
        let mut tx = backend.begin(write)?;
        let out = f(&mut *tx)?;
        tx.commit()?;
        Ok(out)
    }

    /// Saves one run; returns its id. `record.id` is ignored.
    pub fn save(&mut self, record: &RunRecord) -> Result<i64> {
        let ids = self.save_all(std::slice::from_ref(record))?;
        Ok(ids[0])
    }

    /// Saves several runs in one transaction: all of them or none.
    pub fn save_all(&mut self, records: &[RunRecord]) -> Result<Vec<i64>> {
        let rows = records
            .iter()
            .map(record::Row::of)
            .collect::<Result<Vec<_>, _>>()?;
        self.transaction(true, |tx| {
            let mut ids = Vec::with_capacity(rows.len());
            for (row, rec) in rows.iter().zip(records) {
                let id = row.insert(tx, None)?;
                record::insert_labels(tx, id, &rec.labels)?;
                ids.push(id);
            }
            Ok(ids)
        })
    }

    /// The run with this id.
    pub fn get(&self, id: i64) -> Result<RunRecord> {
        self.query("WHERE id = ?1", &[id.into()])?
            .pop()
            .ok_or_else(|| StoreError::NoSuchRun {
                id,
                path: self.path.clone(),
            })
    }

    /// The runs that pass `filter`, oldest id first.
    pub fn list(&self, filter: &Filter) -> Result<Vec<RunRecord>> {
        let mut clauses = Vec::new();
        let mut params: Vec<dialect::Cell> = Vec::new();
        // Each `?` of a clause becomes the number of its value.
        let mut clause = |sql: &str, values: Vec<dialect::Cell>| {
            let mut parts = sql.split('?');
            let mut numbered = parts.next().unwrap_or_default().to_string();
            for (part, value) in parts.zip(values) {
                params.push(value);
                numbered.push_str(&format!("?{}{part}", params.len()));
            }
            clauses.push(numbered);
        };
        if let Some(soak) = &filter.soak {
            clause("soak_id = ?", vec![soak.as_str().into()]);
        }
        if let Some(kind) = filter.kind {
            clause("kind = ?", vec![kind.name().into()]);
        }
        if let Some(since) = filter.since_unix_ms {
            clause("started_unix_ms >= ?", vec![record::to_i64(since).into()]);
        }
        if let Some(until) = filter.until_unix_ms {
            clause("started_unix_ms <= ?", vec![record::to_i64(until).into()]);
        }
        for (key, value) in &filter.labels {
            clause(
                "EXISTS (SELECT 1 FROM labels l WHERE l.run_id = runs.id AND l.key = ? AND l.value = ?)",
                vec![key.as_str().into(), value.as_str().into()],
            );
        }
        let filter = if clauses.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", clauses.join(" AND "))
        };
        self.query(&filter, &params)
    }

    /// The runs `filter` selects, read in one transaction so that a run
    /// saved whole meanwhile is seen either live or saved, never half.
    fn query(&self, filter: &str, params: &[dialect::Cell]) -> Result<Vec<RunRecord>> {
        let path = self.path.clone();
        self.transaction(false, |tx| {
            let sql = format!("SELECT {} FROM runs {filter} ORDER BY id", record::COLUMNS);
            let raw: Vec<record::Raw> = tx
                .query(&sql, params)?
                .iter()
                .map(|r| record::Raw::from_cells(r))
                .collect();
            raw.into_iter()
                .map(|r| {
                    let id = r.id;
                    let labels = record::labels_of(tx, id)?;
                    let points = match r.live {
                        Some(_) => live::points_of(tx, id)?,
                        None => Vec::new(),
                    };
                    r.into_record(labels, &points)
                        .map_err(|reason| StoreError::BadRecord {
                            id,
                            path: path.clone(),
                            reason,
                        })
                })
                .collect()
        })
    }

    /// Removes runs (and their labels and live series) in one transaction. Every id must
    /// exist: if one does not, nothing is removed.
    pub fn remove(&mut self, ids: &[i64]) -> Result<()> {
        let mut unique = ids.to_vec();
        unique.sort_unstable();
        unique.dedup();
        let path = self.path.clone();
        self.transaction(true, |tx| {
            for id in unique {
                for table in ["labels", "live_series", "pending_sync"] {
                    tx.execute(
                        &format!("DELETE FROM {table} WHERE run_id = ?1"),
                        &[id.into()],
                    )?;
                }
                if tx.execute("DELETE FROM runs WHERE id = ?1", &[id.into()])? == 0 {
                    // Returning before the commit rolls back the ids removed before this one.
                    return Err(StoreError::NoSuchRun { id, path });
                }
            }
            Ok(())
        })
    }

    /// How many runs the database holds.
    pub fn count(&self) -> Result<u64> {
        self.transaction(false, |tx| {
            let rows = tx.query("SELECT COUNT(*) FROM runs", &[])?;
            Ok(rows.first().and_then(|r| r[0].int()).unwrap_or(0).max(0) as u64)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The only test here that touches the environment, so no other test races it.
    #[test]
    fn default_path_follows_the_environment() {
        let saved: Vec<_> = ["DISKBENCH_DB", "XDG_DATA_HOME", "HOME"]
            .iter()
            .map(|v| (v, std::env::var_os(v)))
            .collect();
        std::env::set_var("DISKBENCH_DB", "/x/my.db");
        std::env::set_var("XDG_DATA_HOME", "/xdg");
        std::env::set_var("HOME", "/home/u");
        assert_eq!(default_path().unwrap(), PathBuf::from("/x/my.db"));
        std::env::remove_var("DISKBENCH_DB");
        assert_eq!(
            default_path().unwrap(),
            PathBuf::from("/xdg/diskbench/history.sqlite3")
        );
        std::env::set_var("XDG_DATA_HOME", "");
        assert_eq!(
            default_path().unwrap(),
            PathBuf::from("/home/u/.local/share/diskbench/history.sqlite3")
        );
        std::env::remove_var("HOME");
        assert!(matches!(default_path(), Err(StoreError::NoHome)));
        // Only the XDG default may have its directories created.
        std::env::set_var("XDG_DATA_HOME", "/xdg");
        assert_eq!(locate(None).unwrap().1, Create::FileAndDirs);
        assert_eq!(locate(Some(Path::new("h.db"))).unwrap().1, Create::File);
        std::env::set_var("DISKBENCH_DB", "/x/my.db");
        assert_eq!(locate(None).unwrap().1, Create::File);
        for (name, value) in saved {
            match value {
                Some(v) => std::env::set_var(name, v),
                None => std::env::remove_var(name),
            }
        }
    }
}
