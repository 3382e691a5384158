//! A throwaway PostgreSQL server for the tests of the shared history: the
//! machine's own server binaries (Debian's `postgresql` package puts them in
//! `/usr/lib/postgresql/VERSION/bin`) run a fresh cluster in a temporary
//! directory, on a free port of 127.0.0.1, with a password for its
//! superuser and, when asked, TLS with a certificate made on the spot by
//! `openssl`. As root (CI) the server runs as the `postgres` user, which
//! PostgreSQL requires. Dropping it stops the server and removes it all.
//!
//! [`PgServer::start`] says why it cannot run (no server binaries, no
//! `postgres` user) so that the test can call [`crate::skip`] with it.

use crate::error::TestbedError;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The superuser's name and password in every throwaway cluster.
pub const SUPERUSER: &str = "postgres";
pub const PASSWORD: &str = "throwaway-Secret-9";

pub struct PgServer {
    bin: PathBuf,
    dir: PathBuf,
    pub port: u16,
    /// The server's certificate (its own CA), when it speaks TLS.
    pub cert: Option<PathBuf>,
    as_postgres: bool,
}

/// The newest installed server's binaries.
fn server_bin() -> Option<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin)
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

fn checked(what: &str, out: std::io::Result<Output>) -> Result<Output, TestbedError> {
    let out = out.map_err(TestbedError::io(what))?;
    if !out.status.success() {
        return Err(TestbedError::refused(
            format!("{what} failed"),
            format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        ));
    }
    Ok(out)
}

/// The server [`PgServer::shared`] hands out while some test holds it.
static SHARED: std::sync::Mutex<std::sync::Weak<PgServer>> =
    std::sync::Mutex::new(std::sync::Weak::new());

impl PgServer {
    /// One server (without TLS) for the tests of a test binary that run at
    /// the same time, each in a database of its own ([`PgServer::fresh_db`]):
    /// started by the first, stopped when the last one drops it.
    pub fn shared() -> Result<std::sync::Arc<PgServer>, TestbedError> {
        let mut slot = SHARED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(server) = slot.upgrade() {
            return Ok(server);
        }
        let server = std::sync::Arc::new(PgServer::start(false)?);
        *slot = std::sync::Arc::downgrade(&server);
        Ok(server)
    }

    /// A new empty database with a name no other test of this process
    /// uses; returns its URL ([`PgServer::url`]).
    pub fn fresh_db(&self) -> Result<String, TestbedError> {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = self.create_db(&format!("t{}_{n}", std::process::id()))?;
        Ok(self.url(&name))
    }

    /// Starts a fresh cluster (with TLS when `tls`); `Err` says what is
    /// missing.
    pub fn start(tls: bool) -> Result<PgServer, TestbedError> {
        let bin = server_bin().ok_or_else(|| {
            TestbedError::unavailable(
                "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (apt-get install \
                 postgresql)",
            )
        })?;
        let as_postgres = is_root();
        if as_postgres && !Path::new("/usr/sbin/runuser").exists() {
            return Err(TestbedError::unavailable(
                "running as root needs runuser to start PostgreSQL as postgres",
            ));
        }
        let dir = std::env::temp_dir().join(format!(
            "diskbench-pg-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        std::fs::create_dir_all(&dir).map_err(TestbedError::io(dir.display().to_string()))?;
        let mut server = PgServer {
            bin,
            dir,
            port: free_port().map_err(TestbedError::io("no free port"))?,
            cert: None,
            as_postgres,
        };
        server.init(tls)?;
        server.start_again()?;
        Ok(server)
    }

    /// A command run as the server's user.
    fn command(&self, program: &Path) -> Command {
        match self.as_postgres {
            true => {
                let mut c = Command::new("runuser");
                c.args(["-u", "postgres", "--"]).arg(program);
                c
            }
            false => Command::new(program),
        }
    }

    fn init(&mut self, tls: bool) -> Result<(), TestbedError> {
        let pwfile = self.dir.join("pw");
        std::fs::write(&pwfile, PASSWORD)?;
        if tls {
            let (key, cert) = (self.dir.join("server.key"), self.dir.join("server.crt"));
            checked(
                "openssl req",
                Command::new("openssl")
                    .args([
                        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    ])
                    .args(["-subj", "/CN=localhost"])
                    .args(["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
                    .arg("-keyout")
                    .arg(&key)
                    .arg("-out")
                    .arg(&cert)
                    .output(),
            )?;
            self.cert = Some(cert);
        }
        if self.as_postgres {
            checked(
                "chown",
                Command::new("chown")
                    .args(["-R", "postgres:postgres"])
                    .arg(&self.dir)
                    .output(),
            )?;
        }
        if let Some(key) = self.cert.as_ref().map(|_| self.dir.join("server.key")) {
            checked("chmod", Command::new("chmod").arg("600").arg(key).output())?;
        }
        checked(
            "initdb",
            self.command(&self.bin.join("initdb"))
                .arg("-D")
                .arg(self.dir.join("data"))
                .args([
                    "-U",
                    SUPERUSER,
                    "--auth-local=trust",
                    "--auth-host=scram-sha-256",
                ])
                .arg(format!("--pwfile={}", pwfile.display()))
                .args(["--no-sync", "-E", "UTF8", "--locale=C"])
                .output(),
        )?;
        Ok(())
    }

    /// Starts the server (again, after [`PgServer::kill`]).
    pub fn start_again(&self) -> Result<(), TestbedError> {
        let mut options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off",
            self.port,
            self.dir.display()
        );
        if let Some(cert) = &self.cert {
            options.push_str(&format!(
                " -c ssl=on -c ssl_cert_file={} -c ssl_key_file={}",
                cert.display(),
                self.dir.join("server.key").display()
            ));
        }
        checked(
            "pg_ctl start",
            self.command(&self.bin.join("pg_ctl"))
                .arg("-D")
                .arg(self.dir.join("data"))
                .arg("-o")
                .arg(options)
                .arg("-l")
                .arg(self.dir.join("log"))
                .args(["-w", "-t", "60", "start"])
                .output(),
        )?;
        Ok(())
    }

    /// Stops the server at once, as a crash or a pulled cable would.
    pub fn kill(&self) -> Result<(), TestbedError> {
        checked(
            "pg_ctl stop",
            self.command(&self.bin.join("pg_ctl"))
                .arg("-D")
                .arg(self.dir.join("data"))
                .args(["-m", "immediate", "-w", "stop"])
                .output(),
        )?;
        Ok(())
    }

    /// Runs SQL as the superuser in database `db`.
    pub fn psql(&self, db: &str, sql: &str) -> Result<String, TestbedError> {
        self.psql_handle().psql(db, sql)
    }

    /// What runs psql against this server, for another thread.
    pub fn psql_handle(&self) -> Psql {
        Psql {
            bin: self.bin.clone(),
            port: self.port,
        }
    }

    /// A new empty database; returns its name.
    pub fn create_db(&self, name: &str) -> Result<String, TestbedError> {
        self.psql("postgres", &format!("CREATE DATABASE \"{name}\""))?;
        Ok(name.to_string())
    }

    /// The URL of database `db` as the superuser, password included, TLS off.
    pub fn url(&self, db: &str) -> String {
        format!(
            "postgresql://{SUPERUSER}:{PASSWORD}@127.0.0.1:{}/{db}?sslmode=disable",
            self.port
        )
    }

    /// The URL of `db` without a password and without sslmode.
    pub fn bare_url(&self, user: &str, db: &str) -> String {
        format!("postgresql://{user}@127.0.0.1:{}/{db}", self.port)
    }
}

/// psql as the superuser of one server (see [`PgServer::psql_handle`]).
#[derive(Clone)]
pub struct Psql {
    bin: PathBuf,
    port: u16,
}

impl Psql {
    /// Runs SQL in database `db`; its output without alignment.
    pub fn psql(&self, db: &str, sql: &str) -> Result<String, TestbedError> {
        let out = checked(
            "psql",
            Command::new(self.bin.join("psql"))
                .args(["-h", "127.0.0.1", "-U", SUPERUSER, "-d", db])
                .arg("-p")
                .arg(self.port.to_string())
                .args(["-v", "ON_ERROR_STOP=1", "-tA", "-c", sql])
                .env("PGPASSWORD", PASSWORD)
                .env("PGSSLMODE", "disable")
                .output(),
        )?;
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let _ = self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
