//! What can go wrong with the history database, each said so that the user
//! knows what to do next. SQLite's own codes are mapped to these in
//! [`classify`], so "database is locked" or "file is not a database" never
//! reaches a user without the path and the fix.

use rusqlite::ErrorCode;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// How to pick another database, repeated in most messages.
const ELSEWHERE: &str = "or choose another database with --db PATH (or DISKBENCH_DB)";

#[derive(Debug, Error)]
pub enum StoreError {
    #[error("no home directory to keep the history in: set DISKBENCH_DB or XDG_DATA_HOME, or pass --db PATH")]
    NoHome,

    #[error("cannot create {dir} for the history database: {source}; make it writable, {ELSEWHERE}", dir = .dir.display())]
    CreateDir {
        dir: PathBuf,
        source: std::io::Error,
    },

    #[error("no history at {path}: nothing was ever saved there, and reading does not create it; check the path, {ELSEWHERE}", path = .path.display())]
    NoHistory { path: PathBuf },

    #[error("cannot create the history database {path}: its directory {dir} does not exist; create it first (mkdir -p {dir}), {ELSEWHERE}", path = .path.display(), dir = .dir.display())]
    NoDir { path: PathBuf, dir: PathBuf },

    #[error("cannot open the history database {path}: {message}; check that its directory exists and is writable, {ELSEWHERE}", path = .path.display())]
    Open { path: PathBuf, message: String },

    #[error("the history database {path} is read-only ({message}); make it and its directory writable, {ELSEWHERE}", path = .path.display())]
    ReadOnly { path: PathBuf, message: String },

    #[error("{path} is not a diskbench history database: it is not an SQLite file, or it is damaged ({message}); move it aside (a new one is then created), {ELSEWHERE}", path = .path.display())]
    NotADatabase { path: PathBuf, message: String },

    #[error("{path} is a database of another program (it has the tables {tables}); diskbench leaves it alone: {ELSEWHERE}", path = .path.display())]
    Foreign { path: PathBuf, tables: String },

    #[error("the history database {path} has schema version {found}, written by a newer diskbench (this one knows versions up to {supported}); the file was not changed: upgrade diskbench, {ELSEWHERE}", path = .path.display())]
    Newer {
        path: PathBuf,
        found: i64,
        supported: i64,
    },

    #[error("the history database {path} is locked: another process held it for more than {waited_ms} ms; retry when it is done, {ELSEWHERE}", path = .path.display())]
    Locked { path: PathBuf, waited_ms: u64 },

    #[error("the disk holding the history database {path} is full; free some space, {ELSEWHERE}", path = .path.display())]
    Full { path: PathBuf },

    #[error("no run {id} in {path}: see `diskbench history`", path = .path.display())]
    NoSuchRun { id: i64, path: PathBuf },

    #[error("run {id} in {path} holds a result this diskbench cannot read ({reason}); it may come from another diskbench version: `diskbench rm {id}` removes it", path = .path.display())]
    BadRecord {
        id: i64,
        path: PathBuf,
        #[source]
        reason: RecordError,
    },

    #[error("could not encode the run for the history: {0}")]
    Encode(#[from] serde_json::Error),

    #[error("--db {url} is not a PostgreSQL URL diskbench can use: {problem}; write it as postgresql://USER@HOST[:PORT]/DATABASE[?sslmode=verify-full&sslrootcert=FILE]")]
    BadUrl { url: String, problem: UrlProblem },

    #[error("cannot reach the PostgreSQL history {server}: {reason}; start the server or check the host and port in --db (or DISKBENCH_DB)")]
    Unreachable { server: String, reason: String },

    #[error("the PostgreSQL history {server} refused the password of user {user}; give the right one in PGPASSWORD, ~/.pgpass (chmod 600) or the URL{ignored}", ignored = ignored_pgpass.as_ref().map(|f| format!(" ({} is readable by others, so its passwords were not used: chmod 600 {})", f.display(), f.display())).unwrap_or_default())]
    Auth {
        server: String,
        user: String,
        /// A password file passed over because others may read it.
        ignored_pgpass: Option<PathBuf>,
    },

    #[error("the PostgreSQL history {server} does not let this client in ({message}); add a line for this host and user to the server's pg_hba.conf")]
    NotAllowed { server: String, message: String },

    #[error("the PostgreSQL server of {server} has no database {dbname}; create it first (createdb {dbname}) or name another in --db")]
    NoDatabase { server: String, dbname: String },

    #[error("the PostgreSQL history {server} refused: {message}; this role may lack the right (a writer made by `diskbench db grant-writer` may only save runs)")]
    Denied { server: String, message: String },

    #[error("TLS with the PostgreSQL history {server} failed: {reason}; check sslmode and sslrootcert in --db (verify-full needs the server's CA certificate and a certificate for its host name; a server without TLS needs ssl = on in postgresql.conf)")]
    Tls { server: String, reason: String },

    #[error("the PostgreSQL history {server}: {message}")]
    Postgres { server: String, message: String },

    #[error("{what} needs a PostgreSQL history (--db postgresql://USER@HOST/DB), not the file {path}", path = .path.display())]
    NotPostgres { what: &'static str, path: PathBuf },

    #[error("the history database {path}: {source}", path = .path.display())]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
}

/// Why a stored row cannot be turned back into a run: the words go inside
/// [`StoreError::BadRecord`]'s message, the JSON decoder's error is kept.
#[derive(Debug, Error)]
pub enum RecordError {
    #[error("unknown kind '{0}'")]
    UnknownKind(String),
    #[error("its result JSON does not decode: {0}")]
    Json(#[source] serde_json::Error),
}

/// Turns an SQLite error on `path` into the variant that says what to do.
pub(crate) fn classify(path: &Path, waited_ms: u64, e: rusqlite::Error) -> StoreError {
    let path = path.to_path_buf();
    let message = e.to_string();
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            StoreError::Locked { path, waited_ms }
        }
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => {
            StoreError::NotADatabase { path, message }
        }
        Some(ErrorCode::ReadOnly) => StoreError::ReadOnly { path, message },
        Some(ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => {
            StoreError::Open { path, message }
        }
        Some(ErrorCode::DiskFull) => StoreError::Full { path },
        _ => StoreError::Sqlite { path, source: e },
    }
}

/// What is wrong with a `--db` URL (or a `PG*` variable that fills it in);
/// `StoreError::BadUrl` shows it after the URL without its password.
#[derive(Debug, Error, PartialEq)]
pub enum UrlProblem {
    #[error("it must start with postgresql:// or postgres://")]
    Scheme,
    #[error("'%' must start an escape such as %40 in '{0}'")]
    Escape(String),
    #[error("'{0}' does not decode to UTF-8")]
    NotUtf8(String),
    #[error("an IPv6 address must be closed with ']'")]
    OpenIpv6,
    #[error("'{0}' is not a port (1 to 65535)")]
    Port(String),
    #[error("connect_timeout={0} is not a number of seconds")]
    Timeout(String),
    #[error("the parameter '{0}' has no value (key=value)")]
    NoValue(String),
    #[error("sslmode={0} is not one of disable, allow, prefer, require, verify-ca, verify-full")]
    SslMode(String),
    #[error("PGSSLMODE={0} is not an sslmode")]
    EnvSslMode(String),
    #[error(
        "diskbench does not know the parameter '{0}' (it knows sslmode, sslrootcert, \
         connect_timeout, host, port, user, password, dbname, application_name)"
    )]
    UnknownParameter(String),
    #[error("no user: put it in the URL (postgresql://USER@HOST/DB) or set PGUSER")]
    NoUser,
    #[error(
        "sslmode={0} needs the CA certificate that signed the server's: add \
         sslrootcert=FILE to the URL (or sslrootcert=system for the system's CAs)"
    )]
    NoRootCertificate(&'static str),
    #[error("cannot read sslrootcert {}: {reason}", path.display())]
    RootCertificateUnread {
        path: PathBuf,
        errno: Option<i32>,
        reason: String,
    },
    #[error("sslrootcert {} is not a PEM certificate: {reason}", path.display())]
    RootCertificateNotPem { path: PathBuf, reason: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_path_and_the_fix() {
        let newer = StoreError::Newer {
            path: "/h/db".into(),
            found: 7,
            supported: 1,
        };
        let text = newer.to_string();
        assert!(
            text.contains("/h/db") && text.contains("version 7"),
            "{text}"
        );
        assert!(
            text.contains("upgrade diskbench") && text.contains("--db"),
            "{text}"
        );
        let missing = StoreError::NoSuchRun {
            id: 4,
            path: "/h/db".into(),
        };
        assert_eq!(
            missing.to_string(),
            "no run 4 in /h/db: see `diskbench history`"
        );
    }
}
