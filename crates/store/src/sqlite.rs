//! The history in an embedded SQLite file: no server, one file easy to
//! copy. WAL mode and a busy timeout because several diskbench processes
//! may finish at the same moment and none of them may lose its run.

use crate::backend::{Backend, Tx};
use crate::dialect::Cell;
use crate::error::{classify, StoreError};
use crate::schema::{fill_run_uuids, APPLICATION_ID, LATEST_VERSION, MIGRATIONS};
use crate::{Create, Result};
use rusqlite::{Connection, OpenFlags, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub(crate) struct Sqlite {
    conn: Connection,
    path: PathBuf,
    waited_ms: u64,
}

impl Sqlite {
    /// Opens the database at `path`, creating what `create` allows when it
    /// is not there.
    pub(crate) fn open(path: &Path, create: Create, busy_timeout: Duration) -> Result<Sqlite> {
        let path = path.to_path_buf();
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
            match Sqlite::try_open(&path, create, busy_timeout) {
                Err(StoreError::Locked { .. }) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                other => return other,
            }
        }
    }

    fn try_open(path: &Path, create: Create, busy_timeout: Duration) -> Result<Sqlite> {
        let waited_ms = busy_timeout.as_millis() as u64;
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if create != Create::Nothing {
            flags |= OpenFlags::SQLITE_OPEN_CREATE;
        }
        let mut conn =
            Connection::open_with_flags(path, flags).map_err(|e| classify(path, waited_ms, e))?;
        conn.busy_timeout(busy_timeout)
            .map_err(|e| classify(path, waited_ms, e))?;
        prepare(&mut conn, path, waited_ms)?;
        Ok(Sqlite {
            conn,
            path: path.to_path_buf(),
            waited_ms,
        })
    }
}

impl Backend for Sqlite {
    fn begin(&mut self, write: bool) -> Result<Box<dyn Tx + '_>> {
        let behavior = match write {
            true => TransactionBehavior::Immediate,
            false => TransactionBehavior::Deferred,
        };
        let tx = self
            .conn
            .transaction_with_behavior(behavior)
            .map_err(|e| classify(&self.path, self.waited_ms, e))?;
        Ok(Box::new(SqliteTx {
            tx,
            path: &self.path,
            waited_ms: self.waited_ms,
        }))
    }
}

pub(crate) struct SqliteTx<'a> {
    pub(crate) tx: rusqlite::Transaction<'a>,
    pub(crate) path: &'a Path,
    pub(crate) waited_ms: u64,
}

impl SqliteTx<'_> {
    fn err(&self, e: rusqlite::Error) -> StoreError {
        classify(self.path, self.waited_ms, e)
    }
}

impl Tx for SqliteTx<'_> {
    fn execute(&mut self, sql: &str, params: &[Cell]) -> Result<u64> {
        let mut stmt = self.tx.prepare_cached(sql).map_err(|e| self.err(e))?;
        let n = stmt
            .execute(rusqlite::params_from_iter(params))
            .map_err(|e| self.err(e))?;
        Ok(n as u64)
    }

    fn query(&mut self, sql: &str, params: &[Cell]) -> Result<Vec<Vec<Cell>>> {
        let mut stmt = self.tx.prepare_cached(sql).map_err(|e| self.err(e))?;
        let width = stmt.column_count();
        let rows = stmt
            .query_map(rusqlite::params_from_iter(params), |row| {
                (0..width)
                    .map(|i| row.get::<_, rusqlite::types::Value>(i).map(Cell::from))
                    .collect::<rusqlite::Result<Vec<Cell>>>()
            })
            .map_err(|e| self.err(e))?
            .collect::<rusqlite::Result<Vec<_>>>();
        rows.map_err(|e| self.err(e))
    }

    fn commit(self: Box<Self>) -> Result<()> {
        let (path, waited_ms) = (self.path, self.waited_ms);
        self.tx.commit().map_err(|e| classify(path, waited_ms, e))
    }
}

/// Checks that the file at `path` is ours (or empty), refuses one from a
/// newer diskbench without changing it, switches to WAL and upgrades it.
pub(crate) fn prepare(
    conn: &mut Connection,
    path: &Path,
    waited_ms: u64,
) -> Result<(), StoreError> {
    let err = |e| classify(path, waited_ms, e);
    // Reading the header first: a file that is not a database fails here,
    // and a newer one is refused before WAL mode could rewrite its header.
    let (version, tables) = read_state(conn).map_err(err)?;
    check_version(path, version)?;
    let app_id: i64 = conn
        .pragma_query_value(None, "application_id", |r| r.get(0))
        .map_err(err)?;
    if app_id != 0 && app_id != APPLICATION_ID {
        return Err(StoreError::Foreign {
            path: path.to_path_buf(),
            tables: format!("(application_id {app_id:#x})"),
        });
    }
    if version == 0 && !tables.is_empty() {
        return Err(foreign(path, &tables));
    }
    // WAL: readers never block the writer, and writers queue on the lock
    // (for up to the busy timeout) instead of failing.
    let _mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
        .map_err(err)?;
    conn.pragma_update(None, "synchronous", "FULL")
        .map_err(err)?;
    conn.pragma_update(None, "foreign_keys", "ON")
        .map_err(err)?;
    if version < LATEST_VERSION {
        upgrade(conn, path, waited_ms).map_err(|e| match e {
            Upgrade::Store(s) => s,
            Upgrade::Sqlite(e) => err(e),
        })?;
    }
    Ok(())
}

fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
}

fn check_version(path: &Path, version: i64) -> Result<(), StoreError> {
    if version > LATEST_VERSION {
        return Err(StoreError::Newer {
            path: path.to_path_buf(),
            found: version,
            supported: LATEST_VERSION,
        });
    }
    Ok(())
}

enum Upgrade {
    Store(StoreError),
    Sqlite(rusqlite::Error),
}

impl From<rusqlite::Error> for Upgrade {
    fn from(e: rusqlite::Error) -> Self {
        Upgrade::Sqlite(e)
    }
}

/// The version and the tables, read in one transaction so that they agree
/// even while another process is creating the schema.
fn read_state(conn: &mut Connection) -> rusqlite::Result<(i64, Vec<String>)> {
    let tx = conn.transaction()?;
    let version = user_version(&tx)?;
    let tables = table_names(&tx)?;
    tx.commit()?;
    Ok((version, tables))
}

fn table_names(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?
        .query_map([], |r| r.get(0))?
        .collect()
}

/// A version-0 file with tables belongs to another program (a new or empty
/// file becomes a history).
fn foreign(path: &Path, tables: &[String]) -> StoreError {
    StoreError::Foreign {
        path: path.to_path_buf(),
        tables: tables.join(", "),
    }
}

/// Applies the missing steps in one write transaction. Another process may
/// have upgraded the file while this one waited for the lock, so the
/// version is read again inside the transaction.
fn upgrade(conn: &mut Connection, path: &Path, waited_ms: u64) -> Result<(), Upgrade> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version = user_version(&tx)?;
    check_version(path, version).map_err(Upgrade::Store)?;
    if version == 0 {
        let tables = table_names(&tx)?;
        if !tables.is_empty() {
            return Err(Upgrade::Store(foreign(path, &tables)));
        }
    }
    for step in &MIGRATIONS[version.max(0) as usize..] {
        tx.execute_batch(&crate::dialect::Dialect::Sqlite.ddl(step))?;
    }
    tx.pragma_update(None, "user_version", LATEST_VERSION)?;
    tx.pragma_update(None, "application_id", APPLICATION_ID)?;
    let mut tx = SqliteTx {
        tx,
        path,
        waited_ms,
    };
    fill_run_uuids(&mut tx).map_err(Upgrade::Store)?;
    Box::new(tx).commit().map_err(Upgrade::Store)?;
    Ok(())
}
