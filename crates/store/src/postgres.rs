//! The history in a PostgreSQL database, for many machines writing into
//! one place: `--db postgresql://USER@HOST/DB`. The tables and migrations
//! are SQLite's (translated by `dialect`); the version lives in a one-row
//! table, `diskbench_schema`, and an upgrade runs under an advisory lock in
//! one transaction, so fifty hosts starting at once upgrade it once.
//!
//! The client is the `postgres` crate with TLS from `native-tls` (the
//! system's OpenSSL); `sslmode` and `sslrootcert` mean what they mean to
//! libpq ([`target`]). Every driver error is turned into a
//! [`StoreError`] that names the server (never the password) and the fix.

mod pgpass;
mod target;

pub use crate::error::UrlProblem;
pub use target::{is_url, redact as redact_url, PgTarget, SslMode};

use crate::backend::{Backend, Tx};
use crate::dialect::{pg_cell, Cell, Dialect};
use crate::schema::{fill_run_uuids, APPLICATION_ID, LATEST_VERSION, MIGRATIONS};
use crate::{Result, StoreError};
use postgres::error::SqlState;
use postgres::{Client, IsolationLevel};
use std::path::PathBuf;
use std::time::Duration;

pub(crate) struct Postgres {
    client: Client,
    target: PgTarget,
}

impl Postgres {
    /// Connects and brings the schema to this diskbench's version.
    pub(crate) fn connect(target: &PgTarget) -> Result<Postgres> {
        let mut config = postgres::Config::new();
        config
            .user(&target.user)
            .dbname(&target.dbname)
            .port(target.port)
            .application_name("diskbench")
            .connect_timeout(target.connect_timeout)
            // A server that vanished mid-soak is noticed within a minute.
            .keepalives(true)
            .keepalives_idle(Duration::from_secs(30));
        match target.is_socket() {
            true => config.host_path(&target.host),
            false => config.host(&target.host),
        };
        if let Some(password) = target.password() {
            config.password(password);
        }
        let client = match tls(target)? {
            None => config
                .ssl_mode(postgres::config::SslMode::Disable)
                .connect(postgres::NoTls),
            Some((mode, connector)) => config.ssl_mode(mode).connect(connector),
        }
        .map_err(|e| classify(target, e))?;
        let mut pg = Postgres {
            client,
            target: target.clone(),
        };
        pg.prepare()?;
        Ok(pg)
    }

    fn err(&self, e: postgres::Error) -> StoreError {
        classify(&self.target, e)
    }

    /// The schema version, 0 for a database without diskbench's tables.
    fn version(&mut self) -> Result<i64> {
        let exists = self
            .client
            .query_one("SELECT to_regclass('diskbench_schema') IS NOT NULL", &[])
            .map_err(|e| self.err(e))?
            .get::<_, bool>(0);
        if !exists {
            return Ok(0);
        }
        let row = self
            .client
            .query_opt("SELECT version FROM diskbench_schema", &[])
            .map_err(|e| self.err(e))?;
        Ok(row.map_or(0, |r| r.get::<_, i64>(0)))
    }

    /// Refuses a database of a newer diskbench, creates or upgrades ours.
    /// Hosts starting at once queue on a session advisory lock taken before
    /// the upgrade's transaction, so each looks at the tables only once the
    /// one before it has committed (inside one transaction, a lock taken
    /// late would leave it looking at the catalog as it was before).
    fn prepare(&mut self) -> Result<()> {
        let version = self.version()?;
        if version > LATEST_VERSION {
            return Err(newer(&self.target, version));
        }
        if version == LATEST_VERSION {
            return Ok(());
        }
        self.client
            .execute("SELECT pg_advisory_lock($1)", &[&APPLICATION_ID])
            .map_err(|e| classify(&self.target, e))?;
        let upgraded = self.upgrade();
        let unlocked = self
            .client
            .execute("SELECT pg_advisory_unlock($1)", &[&APPLICATION_ID]);
        upgraded?;
        unlocked.map_err(|e| classify(&self.target, e))?;
        Ok(())
    }

    /// Brings the schema to [`LATEST_VERSION`] in one transaction (under
    /// the advisory lock of [`Postgres::prepare`]).
    fn upgrade(&mut self) -> Result<()> {
        let target = self.target.clone();
        let err = |e| classify(&target, e);
        let mut tx = self.client.transaction().map_err(err)?;
        let row = tx
            .query_one(
                "SELECT to_regclass('diskbench_schema') IS NOT NULL, to_regclass('runs') IS NOT NULL",
                &[],
            )
            .map_err(err)?;
        let (ours, runs): (bool, bool) = (row.get(0), row.get(1));
        let version = match ours {
            true => tx
                .query_opt("SELECT version FROM diskbench_schema", &[])
                .map_err(err)?
                .map_or(0, |r| r.get::<_, i64>(0)),
            false if runs => {
                return Err(StoreError::Foreign {
                    path: PathBuf::from(target.to_string()),
                    tables: "runs, without diskbench_schema".into(),
                })
            }
            false => {
                tx.batch_execute(
                    "CREATE TABLE diskbench_schema (version BIGINT NOT NULL, application_id BIGINT NOT NULL);
                     INSERT INTO diskbench_schema VALUES (0, 0);",
                )
                .map_err(err)?;
                0
            }
        };
        if version > LATEST_VERSION {
            return Err(newer(&target, version));
        }
        if version == LATEST_VERSION {
            return Ok(());
        }
        for step in &MIGRATIONS[version.max(0) as usize..] {
            tx.batch_execute(&Dialect::Postgres.ddl(step))
                .map_err(err)?;
        }
        tx.execute(
            "UPDATE diskbench_schema SET version = $1, application_id = $2",
            &[&LATEST_VERSION, &APPLICATION_ID],
        )
        .map_err(err)?;
        let mut tx = PgTx {
            tx,
            target: &target,
        };
        fill_run_uuids(&mut tx)?;
        Box::new(tx).commit()
    }
}

fn newer(target: &PgTarget, found: i64) -> StoreError {
    StoreError::Newer {
        path: PathBuf::from(target.to_string()),
        found,
        supported: LATEST_VERSION,
    }
}

/// The driver's TLS mode and connector for `target.sslmode`; `None` for no
/// TLS at all (`disable`, and Unix sockets, as in libpq).
fn tls(
    target: &PgTarget,
) -> Result<
    Option<(
        postgres::config::SslMode,
        postgres_native_tls::MakeTlsConnector,
    )>,
> {
    use postgres::config::SslMode as Driver;
    if target.sslmode == SslMode::Disable || target.is_socket() {
        return Ok(None);
    }
    let mut builder = native_tls::TlsConnector::builder();
    if let Some(file) = &target.sslrootcert {
        let bad = |problem| StoreError::BadUrl {
            url: target.to_string(),
            problem,
        };
        let pem = std::fs::read(file).map_err(|e| {
            bad(UrlProblem::RootCertificateUnread {
                path: file.clone(),
                errno: e.raw_os_error(),
                reason: e.to_string(),
            })
        })?;
        let cert = native_tls::Certificate::from_pem(&pem).map_err(|e| {
            bad(UrlProblem::RootCertificateNotPem {
                path: file.clone(),
                reason: e.to_string(),
            })
        })?;
        builder
            .add_root_certificate(cert)
            .disable_built_in_roots(true);
    }
    // As libpq: `require` checks the chain only when a root certificate was
    // named; `verify-ca` checks the chain, `verify-full` the name too.
    let (mode, chain, name) = match target.sslmode {
        SslMode::Allow | SslMode::Prefer => (Driver::Prefer, false, false),
        SslMode::Require => (Driver::Require, target.sslrootcert.is_some(), false),
        SslMode::VerifyCa => (Driver::Require, true, false),
        SslMode::VerifyFull | SslMode::Disable => (Driver::Require, true, true),
    };
    builder
        .danger_accept_invalid_certs(!chain)
        .danger_accept_invalid_hostnames(!name);
    let connector = builder.build().map_err(|e| StoreError::Tls {
        server: target.to_string(),
        reason: e.to_string(),
    })?;
    Ok(Some((
        mode,
        postgres_native_tls::MakeTlsConnector::new(connector),
    )))
}

/// The driver's error as the [`StoreError`] that says what to do. The
/// driver's messages hold the user and database, never the password.
fn classify(target: &PgTarget, e: postgres::Error) -> StoreError {
    let server = target.to_string();
    let chain = {
        let mut text = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            let s_text = s.to_string();
            if !text.contains(&s_text) {
                text = format!("{text}: {s_text}");
            }
            source = s.source();
        }
        text
    };
    if let Some(db) = e.as_db_error() {
        let code = db.code();
        if *code == SqlState::INVALID_PASSWORD {
            return StoreError::Auth {
                server,
                user: target.user.clone(),
                ignored_pgpass: target.ignored_pgpass.clone(),
            };
        }
        if *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION {
            return StoreError::NotAllowed {
                server,
                message: db.message().to_string(),
            };
        }
        if *code == SqlState::INVALID_CATALOG_NAME {
            return StoreError::NoDatabase {
                server,
                dbname: target.dbname.clone(),
            };
        }
        if *code == SqlState::INSUFFICIENT_PRIVILEGE {
            return StoreError::Denied {
                server,
                message: db.message().to_string(),
            };
        }
        if [
            SqlState::ADMIN_SHUTDOWN,
            SqlState::CRASH_SHUTDOWN,
            SqlState::CANNOT_CONNECT_NOW,
        ]
        .contains(code)
        {
            return StoreError::Unreachable {
                server,
                reason: db.message().to_string(),
            };
        }
        return StoreError::Postgres {
            server,
            message: db.message().to_string(),
        };
    }
    // The server asked for a password and none was given (the driver's
    // own error, before any is sent).
    if chain.contains("password missing") {
        return StoreError::Auth {
            server,
            user: target.user.clone(),
            ignored_pgpass: target.ignored_pgpass.clone(),
        };
    }
    if chain.contains("TLS") || chain.contains("certificate") || chain.contains("SSL") {
        return StoreError::Tls {
            server,
            reason: chain,
        };
    }
    if e.is_closed() || chain.contains("connection closed") || chain.contains("unexpected EOF") {
        return StoreError::Unreachable {
            server,
            reason: "the connection was lost".into(),
        };
    }
    StoreError::Unreachable {
        server,
        reason: chain,
    }
}

impl Backend for Postgres {
    fn begin(&mut self, write: bool) -> Result<Box<dyn Tx + '_>> {
        // A reader sees one snapshot: a run saved whole meanwhile is seen
        // either live or saved, never half of each.
        let level = match write {
            true => IsolationLevel::ReadCommitted,
            false => IsolationLevel::RepeatableRead,
        };
        let tx = self
            .client
            .build_transaction()
            .isolation_level(level)
            .start()
            .map_err(|e| classify(&self.target, e))?;
        Ok(Box::new(PgTx {
            tx,
            target: &self.target,
        }))
    }
}

struct PgTx<'a> {
    tx: postgres::Transaction<'a>,
    target: &'a PgTarget,
}

fn refs(params: &[Cell]) -> Vec<&(dyn postgres::types::ToSql + Sync)> {
    params
        .iter()
        .map(|c| c as &(dyn postgres::types::ToSql + Sync))
        .collect()
}

impl Tx for PgTx<'_> {
    fn execute(&mut self, sql: &str, params: &[Cell]) -> Result<u64> {
        let sql = Dialect::Postgres.statement(sql);
        self.tx
            .execute(sql.as_ref(), &refs(params))
            .map_err(|e| classify(self.target, e))
    }

    fn query(&mut self, sql: &str, params: &[Cell]) -> Result<Vec<Vec<Cell>>> {
        let sql = Dialect::Postgres.statement(sql);
        let rows = self
            .tx
            .query(sql.as_ref(), &refs(params))
            .map_err(|e| classify(self.target, e))?;
        rows.iter()
            .map(|row| (0..row.len()).map(|i| pg_cell(row, i)).collect())
            .collect::<Result<Vec<Vec<Cell>>, _>>()
            .map_err(|e| classify(self.target, e))
    }

    fn commit(self: Box<Self>) -> Result<()> {
        let target = self.target;
        self.tx.commit().map_err(|e| classify(target, e))
    }
}

/// The SQL that makes `role` a writer: it may save runs (with their labels
/// and live series) and nothing else: not read other runs' results, not
/// change a run once saved, not remove any. Row security limits its updates
/// to rows still live and its deletes to the live series and labels of
/// those (it can read the per-second series of runs still going on, nothing
/// else); other roles keep every right they had.
pub fn grant_writer_sql(role: &str) -> String {
    let r = format!("\"{}\"", role.replace('"', "\"\""));
    format!(
        "GRANT SELECT ON diskbench_schema TO {r};
GRANT SELECT (id, run_uuid, live_host) ON runs TO {r};
GRANT INSERT, UPDATE ON runs TO {r};
GRANT SELECT (run_id), INSERT, DELETE ON labels TO {r};
GRANT SELECT, INSERT, UPDATE, DELETE ON live_series TO {r};
GRANT USAGE ON SEQUENCE runs_id_seq TO {r};
ALTER TABLE runs ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS diskbench_everyone ON runs;
CREATE POLICY diskbench_everyone ON runs USING (true) WITH CHECK (true);
DROP POLICY IF EXISTS diskbench_writer_live_only ON runs;
CREATE POLICY diskbench_writer_live_only ON runs AS RESTRICTIVE FOR UPDATE TO {r}
    USING (live_host IS NOT NULL) WITH CHECK (true);
ALTER TABLE labels ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS diskbench_everyone ON labels;
CREATE POLICY diskbench_everyone ON labels USING (true) WITH CHECK (true);
DROP POLICY IF EXISTS diskbench_writer_live_only ON labels;
CREATE POLICY diskbench_writer_live_only ON labels AS RESTRICTIVE FOR DELETE TO {r}
    USING (run_id IN (SELECT id FROM runs WHERE live_host IS NOT NULL));
ALTER TABLE live_series ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS diskbench_everyone ON live_series;
CREATE POLICY diskbench_everyone ON live_series USING (true) WITH CHECK (true);
DROP POLICY IF EXISTS diskbench_writer_live_only ON live_series;
CREATE POLICY diskbench_writer_live_only ON live_series AS RESTRICTIVE FOR ALL TO {r}
    USING (run_id IN (SELECT id FROM runs WHERE live_host IS NOT NULL));
"
    )
}
