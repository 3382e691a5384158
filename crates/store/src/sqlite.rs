//! The history in an embedded SQLite file: no server, one file easy to
//! copy. WAL mode and a busy timeout because several diskbench processes
//! may finish at the same moment and none of them may lose its run.

use crate::backend::{Backend, Tx};
use crate::dialect::Cell;
use crate::error::{classify, StoreError};
use crate::{schema, Create, Result};
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
        schema::prepare(&mut conn, path, waited_ms)?;
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
