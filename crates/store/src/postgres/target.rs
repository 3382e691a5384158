//! A PostgreSQL URL read the way libpq reads it, so a URL that works with
//! `psql` works with `--db`: `postgresql://` or `postgres://`, the
//! user, password, host, port and database in their usual places, the
//! `PG*` environment variables for what the URL leaves out, `sslmode`
//! (`disable`, `allow`, `prefer`, `require`, `verify-ca`, `verify-full`)
//! and `sslrootcert`, and a password from the URL, `PGPASSWORD` or
//! `~/.pgpass` (`PGPASSFILE`), in that order.
//!
//! The password is kept only here and handed to the driver: `Display` and
//! `Debug` leave it out, and so does every error made from a URL, so it is
//! never printed, stored in the history or put in a message.

use crate::error::UrlProblem;
use crate::postgres::pgpass::Wanted;
use crate::StoreError;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How much TLS the connection insists on, as libpq's `sslmode` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Allow,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    fn parse(text: &str) -> Option<SslMode> {
        Some(match text {
            "disable" => SslMode::Disable,
            "allow" => SslMode::Allow,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Allow => "allow",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }
}

/// A PostgreSQL history's address and credentials.
#[derive(Clone, PartialEq, Eq)]
pub struct PgTarget {
    pub user: String,
    password: Option<String>,
    /// A host name or address, or the directory of a Unix socket.
    pub host: String,
    pub port: u16,
    pub dbname: String,
    pub sslmode: SslMode,
    /// The CA certificate(s) the server's certificate must chain to; `None`
    /// with `sslrootcert=system`, or when no verification is asked for.
    pub sslrootcert: Option<PathBuf>,
    pub connect_timeout: Duration,
    /// A password file that was not read because others may read it: said
    /// in the error when the server then asks for a password.
    pub(crate) ignored_pgpass: Option<PathBuf>,
}

/// Whether `--db` names a PostgreSQL database rather than a file.
pub fn is_url(text: &str) -> bool {
    text.starts_with("postgresql://") || text.starts_with("postgres://")
}

/// The URL as it may be shown: its password, if any, left out.
pub fn redact(url: &str) -> String {
    let (head, query) = url
        .split_once('?')
        .map_or((url, None), |(h, q)| (h, Some(q)));
    let scheme_end = head.find("://").map_or(0, |i| i + 3);
    let authority_end = head[scheme_end..]
        .find('/')
        .map_or(head.len(), |i| scheme_end + i);
    let mut out = head[..scheme_end].to_string();
    let authority = &head[scheme_end..authority_end];
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            out.push_str(userinfo.split(':').next().unwrap_or_default());
            out.push('@');
            out.push_str(host);
        }
        None => out.push_str(authority),
    }
    out.push_str(&head[authority_end..]);
    if let Some(q) = query {
        let kept: Vec<&str> = q
            .split('&')
            .filter(|p| !p.starts_with("password="))
            .collect();
        if !kept.is_empty() {
            out.push('?');
            out.push_str(&kept.join("&"));
        }
    }
    out
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn decode(text: &str) -> Result<String, UrlProblem> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| UrlProblem::Escape(text.to_string()))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| UrlProblem::NotUtf8(text.to_string()))
}

impl PgTarget {
    /// Reads `url`; what it leaves out comes from the `PG*` variables and
    /// libpq's defaults.
    pub fn parse(url: &str) -> Result<PgTarget, StoreError> {
        PgTarget::parse_inner(url).map_err(|problem| StoreError::BadUrl {
            url: redact(url),
            problem,
        })
    }

    fn parse_inner(url: &str) -> Result<PgTarget, UrlProblem> {
        let rest = url
            .strip_prefix("postgresql://")
            .or_else(|| url.strip_prefix("postgres://"))
            .ok_or(UrlProblem::Scheme)?;
        let (rest, query) = rest.split_once('?').map_or((rest, ""), |(r, q)| (r, q));
        let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
        let (userinfo, hostport) = match authority.rsplit_once('@') {
            Some((u, h)) => (Some(u), h),
            None => (None, authority),
        };
        let (mut user, mut password) = (None, None);
        if let Some(u) = userinfo {
            let (name, pass) = u.split_once(':').map_or((u, None), |(n, p)| (n, Some(p)));
            user = Some(decode(name)?).filter(|n| !n.is_empty());
            password = pass.map(decode).transpose()?;
        }
        let (host, port) = split_host_port(hostport)?;
        let mut host = Some(decode(host)?).filter(|h| !h.is_empty());
        let mut port = port.map(parse_port).transpose()?;
        let mut dbname = Some(decode(path)?).filter(|d| !d.is_empty());
        let mut sslmode = None;
        let mut sslrootcert = None;
        let mut timeout = None;
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| UrlProblem::NoValue(pair.to_string()))?;
            let value = decode(value)?;
            match key {
                "sslmode" => {
                    sslmode = Some(
                        SslMode::parse(&value).ok_or_else(|| UrlProblem::SslMode(value.clone()))?,
                    )
                }
                "sslrootcert" => sslrootcert = Some(value),
                "connect_timeout" => timeout = Some(parse_timeout(&value)?),
                "host" => host = Some(value),
                "port" => port = Some(parse_port(&value)?),
                "user" => user = Some(value),
                "password" => password = Some(value),
                "dbname" => dbname = Some(value),
                "application_name" => {}
                other => return Err(UrlProblem::UnknownParameter(other.to_string())),
            }
        }
        let user = user
            .or_else(|| env("PGUSER"))
            .or_else(|| env("USER"))
            .ok_or(UrlProblem::NoUser)?;
        let host = host.or_else(|| env("PGHOST")).unwrap_or_else(|| {
            let socket = "/var/run/postgresql";
            match Path::new(socket).is_dir() {
                true => socket.into(),
                false => "localhost".into(),
            }
        });
        let port = match port {
            Some(p) => p,
            None => env("PGPORT").map_or(Ok(5432), |p| parse_port(&p))?,
        };
        let dbname = dbname
            .or_else(|| env("PGDATABASE"))
            .unwrap_or_else(|| user.clone());
        let sslmode = match sslmode {
            Some(m) => m,
            None => env("PGSSLMODE").map_or(Ok(SslMode::Prefer), |m| {
                SslMode::parse(&m).ok_or(UrlProblem::EnvSslMode(m))
            })?,
        };
        let timeout = match timeout {
            Some(t) => t,
            None => env("PGCONNECT_TIMEOUT")
                .map_or(Ok(Duration::from_secs(10)), |t| parse_timeout(&t))?,
        };
        let sslrootcert = root_certificate(sslmode, sslrootcert.or_else(|| env("PGSSLROOTCERT")))?;
        let mut target = PgTarget {
            user,
            password: None,
            host,
            port,
            dbname,
            sslmode,
            sslrootcert,
            connect_timeout: timeout,
            ignored_pgpass: None,
        };
        target.password = password.or_else(|| env("PGPASSWORD"));
        if target.password.is_none() {
            use crate::postgres::pgpass::{lookup, PgPass};
            let wanted = Wanted {
                host: &target.host,
                socket: target.is_socket(),
                port: target.port,
                dbname: &target.dbname,
                user: &target.user,
            };
            match lookup(wanted) {
                PgPass::Found(p) => target.password = Some(p),
                PgPass::Ignored(file) => target.ignored_pgpass = Some(file),
                PgPass::None => {}
            }
        }
        Ok(target)
    }

    /// The password: the URL's (decoded), else `PGPASSWORD`'s, else
    /// `~/.pgpass`'s; for a command that passes it on to other processes
    /// by another way than the URL (`kube run`'s Secret).
    pub fn password(&self) -> Option<&str> {
        self.password.as_deref()
    }

    /// Whether the host is a Unix socket's directory.
    pub fn is_socket(&self) -> bool {
        self.host.starts_with('/')
    }
}

/// The CA file verification uses: the one named, else libpq's
/// `~/.postgresql/root.crt`; `system` means the system's CAs. Without
/// verification (`require` and below) only a file named explicitly is used.
fn root_certificate(mode: SslMode, named: Option<String>) -> Result<Option<PathBuf>, UrlProblem> {
    match named.as_deref() {
        Some("system") => return Ok(None),
        Some(file) => return Ok(Some(PathBuf::from(file))),
        None => {}
    }
    if !matches!(mode, SslMode::VerifyCa | SslMode::VerifyFull) {
        return Ok(None);
    }
    let default = env("HOME").map(|h| PathBuf::from(h).join(".postgresql/root.crt"));
    match default.filter(|p| p.is_file()) {
        Some(p) => Ok(Some(p)),
        None => Err(UrlProblem::NoRootCertificate(mode.name())),
    }
}

fn split_host_port(hostport: &str) -> Result<(&str, Option<&str>), UrlProblem> {
    if let Some(rest) = hostport.strip_prefix('[') {
        let (host, after) = rest.split_once(']').ok_or(UrlProblem::OpenIpv6)?;
        return Ok((host, after.strip_prefix(':')));
    }
    Ok(hostport
        .split_once(':')
        .map_or((hostport, None), |(h, p)| (h, Some(p))))
}

fn parse_port(text: &str) -> Result<u16, UrlProblem> {
    text.parse::<u16>()
        .ok()
        .filter(|p| *p > 0)
        .ok_or_else(|| UrlProblem::Port(text.to_string()))
}

fn parse_timeout(text: &str) -> Result<Duration, UrlProblem> {
    text.parse::<u64>()
        .map(Duration::from_secs)
        .map_err(|_| UrlProblem::Timeout(text.to_string()))
}

impl fmt::Display for PgTarget {
    /// `postgresql://USER@HOST:PORT/DB`, never the password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let host = match (self.is_socket(), self.host.contains(':')) {
            (true, _) => String::new(),
            (false, true) => format!("[{}]:{}", self.host, self.port),
            (false, false) => format!("{}:{}", self.host, self.port),
        };
        write!(f, "postgresql://{}@{host}/{}", self.user, self.dbname)?;
        if self.is_socket() {
            write!(f, "?host={}&port={}", self.host, self.port)?;
        }
        Ok(())
    }
}

impl fmt::Debug for PgTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgTarget")
            .field("url", &self.to_string())
            .field("password", &self.password.as_ref().map(|_| "(hidden)"))
            .field("sslmode", &self.sslmode)
            .field("sslrootcert", &self.sslrootcert)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_is_left_out_wherever_it_was() {
        assert_eq!(
            redact("postgresql://bench:s3cr@t@db.example:5433/fleet?sslmode=require"),
            "postgresql://bench@db.example:5433/fleet?sslmode=require"
        );
        assert_eq!(
            redact("postgres://db/fleet?password=s3cret&sslmode=disable"),
            "postgres://db/fleet?sslmode=disable"
        );
        let t = PgTarget::parse("postgresql://u:p%40ss@h:1/d?sslmode=disable").unwrap();
        assert_eq!(t.password(), Some("p@ss"));
        assert_eq!(t.to_string(), "postgresql://u@h:1/d");
        assert!(!format!("{t:?}").contains("p@ss"));
    }
}
