//! The history: every run diskbench measures (or imports) kept in an
//! embedded SQLite database, so results outlive the terminal and runs of
//! many days, disks and clouds can be compared later.
//!
//! SQLite because it needs no server and one file is easy to copy; WAL mode
//! and a busy timeout because several diskbench processes may finish at the
//! same moment and none of them may lose its run; a versioned schema
//! ([`schema`]) because the file outlives the program that made it.
//!
//! A run is stored as its full `model::RunResult` in JSON (which carries the
//! merged latency histograms of every job, so percentiles over many runs are
//! computed from histograms) plus columns for what people filter and group
//! by: host and target facts, labels (in their own table) and prices.
//!
//! A run is also written while it goes on (module `live`: its row first, its
//! per-second series every second or so, the whole result at its end), so
//! a long soak that is killed keeps all but its last few seconds.

mod error;
mod live;
mod record;
pub mod schema;

pub use error::{RecordError, StoreError};
pub use live::FOREIGN_SILENCE_MS;
pub use schema::{APPLICATION_ID, LATEST_VERSION};

use error::classify;
use model::{RunKind, RunRecord};
use rusqlite::{Connection, OpenFlags, TransactionBehavior};
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

/// An open history database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    waited_ms: u64,
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
/// at a path the user gave (`--db` or `$DISKBENCH_DB`).
pub fn locate(named: Option<&Path>) -> Result<(PathBuf, Create)> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(path) = named {
        return Ok((path.to_path_buf(), Create::File));
    }
    if let Some(db) = var("DISKBENCH_DB") {
        return Ok((PathBuf::from(db), Create::File));
    }
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

    /// Opens the database at `path`, creating what `create` allows when it
    /// is not there.
    pub fn open_as(
        path: impl AsRef<Path>,
        create: Create,
        busy_timeout: Duration,
    ) -> Result<Store> {
        let path = path.as_ref().to_path_buf();
        let missing = |p: &Path| {
            std::fs::metadata(p).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        };
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        match (create, dir) {
            (Create::Nothing, _) if missing(&path) => return Err(StoreError::NoHistory { path }),
            (Create::File, Some(dir)) if missing(dir) => {
                let dir = dir.to_path_buf();
                return Err(StoreError::NoDir { path, dir });
            }
            (Create::FileAndDirs, Some(dir)) => {
                std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
                    dir: dir.to_path_buf(),
                    source,
                })?
            }
            _ => {}
        }
        if path.is_dir() {
            return Err(StoreError::Open {
                path,
                message: "it is a directory".into(),
            });
        }
        // SQLite answers BUSY at once, without its busy handler, while several
        // connections race to switch a new file to WAL or to migrate it; so the
        // whole preparation is retried until the same timeout runs out.
        let deadline = std::time::Instant::now() + busy_timeout;
        loop {
            match Store::try_open(&path, create, busy_timeout) {
                Err(StoreError::Locked { .. }) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                other => return other,
            }
        }
    }

    fn try_open(path: &Path, create: Create, busy_timeout: Duration) -> Result<Store> {
        let waited_ms = busy_timeout.as_millis() as u64;
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if create != Create::Nothing {
            flags |= OpenFlags::SQLITE_OPEN_CREATE;
        }
        let mut conn =
            Connection::open_with_flags(path, flags).map_err(|e| classify(path, waited_ms, e))?;
        conn.busy_timeout(busy_timeout)
            .map_err(|e| classify(path, waited_ms, e))?;
        schema::prepare(&mut conn, path, waited_ms)?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            waited_ms,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, e: rusqlite::Error) -> StoreError {
        classify(&self.path, self.waited_ms, e)
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
        let path = self.path.clone();
        let waited_ms = self.waited_ms;
        let err = |e| classify(&path, waited_ms, e);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        let mut ids = Vec::with_capacity(rows.len());
        for (row, rec) in rows.iter().zip(records) {
            let id = row.insert(&tx).map_err(err)?;
            record::insert_labels(&tx, id, &rec.labels).map_err(err)?;
            ids.push(id);
        }
        tx.commit().map_err(err)?;
        Ok(ids)
    }

    /// The run with this id.
    pub fn get(&self, id: i64) -> Result<RunRecord> {
        let filter = format!("WHERE id = {id}");
        self.query(&filter, &[])?
            .pop()
            .ok_or_else(|| StoreError::NoSuchRun {
                id,
                path: self.path.clone(),
            })
    }

    /// The runs that pass `filter`, oldest id first.
    pub fn list(&self, filter: &Filter) -> Result<Vec<RunRecord>> {
        let mut clauses = Vec::new();
        let mut params: Vec<rusqlite::types::Value> = Vec::new();
        if let Some(soak) = &filter.soak {
            clauses.push("soak_id = ?".to_string());
            params.push(soak.clone().into());
        }
        if let Some(kind) = filter.kind {
            clauses.push("kind = ?".to_string());
            params.push(kind.name().to_string().into());
        }
        if let Some(since) = filter.since_unix_ms {
            clauses.push("started_unix_ms >= ?".to_string());
            params.push(record::to_i64(since).into());
        }
        if let Some(until) = filter.until_unix_ms {
            clauses.push("started_unix_ms <= ?".to_string());
            params.push(record::to_i64(until).into());
        }
        for (key, value) in &filter.labels {
            clauses.push(
                "EXISTS (SELECT 1 FROM labels l WHERE l.run_id = runs.id AND l.key = ? AND l.value = ?)"
                    .to_string(),
            );
            params.push(key.clone().into());
            params.push(value.clone().into());
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
    fn query(&self, filter: &str, params: &[rusqlite::types::Value]) -> Result<Vec<RunRecord>> {
        let tx = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        let sql = format!("SELECT {} FROM runs {filter} ORDER BY id", record::COLUMNS);
        let mut stmt = tx.prepare(&sql).map_err(|e| self.err(e))?;
        let raw = stmt
            .query_map(rusqlite::params_from_iter(params), record::Raw::from_row)
            .map_err(|e| self.err(e))?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(|e| self.err(e))?;
        drop(stmt);
        let records = raw
            .into_iter()
            .map(|r| {
                let id = r.id;
                let labels = record::labels_of(&tx, id).map_err(|e| self.err(e))?;
                let points = match r.live {
                    Some(_) => live::points_of(&tx, id).map_err(|e| self.err(e))?,
                    None => Vec::new(),
                };
                r.into_record(labels, &points)
                    .map_err(|reason| StoreError::BadRecord {
                        id,
                        path: self.path.clone(),
                        reason,
                    })
            })
            .collect::<Result<Vec<_>>>()?;
        tx.commit().map_err(|e| self.err(e))?;
        Ok(records)
    }

    /// Removes runs (and their labels and live series) in one transaction. Every id must
    /// exist: if one does not, nothing is removed.
    pub fn remove(&mut self, ids: &[i64]) -> Result<()> {
        let path = self.path.clone();
        let waited_ms = self.waited_ms;
        let err = |e| classify(&path, waited_ms, e);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        let mut unique = ids.to_vec();
        unique.sort_unstable();
        unique.dedup();
        for id in unique {
            tx.execute("DELETE FROM labels WHERE run_id = ?1", [id])
                .map_err(err)?;
            tx.execute("DELETE FROM live_series WHERE run_id = ?1", [id])
                .map_err(err)?;
            let removed = tx
                .execute("DELETE FROM runs WHERE id = ?1", [id])
                .map_err(err)?;
            if removed == 0 {
                // Dropping `tx` rolls back the ids removed before this one.
                return Err(StoreError::NoSuchRun { id, path });
            }
        }
        tx.commit().map_err(err)?;
        Ok(())
    }

    /// How many runs the database holds.
    pub fn count(&self) -> Result<u64> {
        self.conn
            .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get::<_, i64>(0))
            .map(|n| n.max(0) as u64)
            .map_err(|e| self.err(e))
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
