//! One shared PostgreSQL history for many machines, end to end with the
//! real binary and a throwaway server (`testbed::postgres`): fifty writers
//! from several simulated hosts at once, the history commands on the
//! server, the server killed in the middle of a soak, and what a user sees
//! when the server cannot be reached.
//!
//! A simulated host is a diskbench process in its own UTS and mount
//! namespaces (`unshare`, root only) with its own hostname and its own
//! /etc/machine-id bound over the real one: the host facts come from the
//! same files as on a real machine.

mod common;
use common::*;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use testbed::postgres::PgServer;

/// A quick fio-style run on the null engine: no disk, the history is what
/// is tested.
/// With `--diskbench-checks`: `diskbench fio` says where it saved a run
/// only when asked (or on a terminal), and these tests read that line.
const QUICK: &str =
    "fio --diskbench-checks --name=q --ioengine=null --rw=randread --bs=4k --size=1m --time_based --runtime=1s";

fn server() -> Option<PgServer> {
    PgServer::start(false).map_err(testbed::skip).ok()
}

/// `diskbench ARGS` as host `host` (machine id from `host`), run from `dir`.
fn as_host(host: &str, dir: &Path, args: &str) -> Command {
    let id_file = dir.join(format!("machine-id-{host}"));
    let id = format!(
        "{:0>32}",
        host.bytes().map(|b| format!("{b:02x}")).collect::<String>()
    );
    // Written once, before the host's first process: rewriting it while
    // another process of the host reads it would give that one half an id.
    if !id_file.exists() {
        std::fs::write(&id_file, format!("{}\n", &id[id.len() - 32..])).unwrap();
    }
    let bin = assert_cmd::cargo::cargo_bin("diskbench");
    let script = format!(
        "hostname {host} && mount --bind {} /etc/machine-id && exec {} {args}",
        id_file.display(),
        bin.display()
    );
    let mut c = Command::new("unshare");
    c.args(["--uts", "--mount", "sh", "-c", &script])
        .current_dir(dir)
        .env("DISKBENCH_DB", TEST_DB)
        .env("XDG_DATA_HOME", TEST_DATA_HOME);
    c
}

fn can_simulate_hosts() -> bool {
    if !is_root() {
        testbed::skip("simulating hosts needs root (unshare --uts --mount)");
        return false;
    }
    if Command::new("unshare").arg("--version").output().is_err() {
        testbed::skip("unshare (util-linux) is missing");
        return false;
    }
    true
}

fn psql_count(pg: &PgServer, db: &str, sql: &str) -> u64 {
    pg.psql(db, sql).unwrap().parse().unwrap()
}

#[test]
fn fifty_writers_on_five_hosts_lose_nothing_and_compare_by_host() {
    let Some(pg) = server() else { return };
    if !can_simulate_hosts() {
        return;
    }
    let db = pg.create_db("fleet").unwrap();
    let url = pg.url(&db);
    let dir = real_dir();
    let hosts = ["aws-1", "aws-2", "do-1", "gcp-1", "hetzner-1"];
    let started = Instant::now();
    let children: Vec<(bool, std::process::Child)> = (0..50)
        .map(|i| {
            let host = hosts[i % hosts.len()];
            let soak = i < 8;
            let runs = if soak { " --runs 2" } else { "" };
            let args = format!("{QUICK}{runs} --db {url} --label writer={i}");
            let child = as_host(host, dir.path(), &args)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            (soak, child)
        })
        .collect();
    for (_, child) in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        assert!(
            stderr_of(&out).contains("saved as run"),
            "{}",
            stderr_of(&out)
        );
    }
    let elapsed = started.elapsed();
    eprintln!("50 writers (8 soaks of 2 runs, 42 single runs) took {elapsed:?} in all");
    // Every run there once, no run left live, every soak run with its series.
    assert_eq!(psql_count(&pg, &db, "SELECT count(*) FROM runs"), 58);
    assert_eq!(
        psql_count(&pg, &db, "SELECT count(DISTINCT run_uuid) FROM runs"),
        58
    );
    assert_eq!(
        psql_count(
            &pg,
            &db,
            "SELECT count(*) FROM runs WHERE live_host IS NOT NULL"
        ),
        0
    );
    assert_eq!(psql_count(&pg, &db, "SELECT count(*) FROM live_series"), 0);
    let machines = pg
        .psql(
            &db,
            "SELECT host_name, host_machine_id, count(*) FROM runs GROUP BY 1, 2",
        )
        .unwrap();
    assert_eq!(machines.lines().count(), 5, "{machines}");
    let series = pg
        .psql(
            &db,
            "SELECT min(json_array_length((result_json::json)->'jobs'->0->'series')) FROM runs",
        )
        .unwrap();
    assert!(series.parse::<u64>().unwrap() >= 1, "series: {series}");

    // The history commands read the server as they read a file.
    let history = diskbench()
        .args(["history", "--db", &url])
        .output()
        .unwrap();
    assert!(history.status.success(), "{}", stderr_of(&history));
    assert!(stdout_of(&history).contains("writer=49"));
    let show = diskbench()
        .args(["show", "1", "--db", &url])
        .output()
        .unwrap();
    assert!(show.status.success(), "{}", stderr_of(&show));
    let export = diskbench()
        .args(["export", "2", "--db", &url])
        .output()
        .unwrap();
    assert!(json_of(&export)["result"]["host"]["hostname"].is_string());
    let compare = diskbench()
        .args(["compare", "--by", "host", "--db", &url])
        .output()
        .unwrap();
    let table = stdout_of(&compare);
    assert!(compare.status.success(), "{}", stderr_of(&compare));
    for host in hosts {
        assert_eq!(
            table
                .lines()
                .take_while(|l| !l.starts_with("± is"))
                .filter(|l| l.contains(&format!("{host} (")))
                .count(),
            1,
            "one row for {host}:\n{table}"
        );
    }
    assert!(table.contains("IOPS"), "{table}");
    let html = dir.path().join("fleet.html");
    let report = diskbench()
        .args(["report", "--by", "host", "--db", &url, "-o"])
        .arg(&html)
        .output()
        .unwrap();
    assert!(report.status.success(), "{}", stderr_of(&report));
    let svg = dir.path().join("hosts.svg");
    let chart = diskbench()
        .args(["chart", "--by", "host", "--db", &url, "-o"])
        .arg(&svg)
        .output()
        .unwrap();
    assert!(chart.status.success(), "{}", stderr_of(&chart));
    assert!(svg.is_file());
    // fio's JSON of run 3, imported back: a run of its own.
    let fio_json = dir.path().join("run3.json");
    let export = diskbench()
        .args(["export", "3", "--format", "fio-json", "--db", &url])
        .output()
        .unwrap();
    std::fs::write(&fio_json, &export.stdout).unwrap();
    let import = diskbench()
        .args(["import", "--db", &url])
        .arg(&fio_json)
        .output()
        .unwrap();
    assert!(import.status.success(), "{}", stderr_of(&import));
    let rm = diskbench()
        .args(["rm", "1", "--db", &url])
        .output()
        .unwrap();
    assert!(rm.status.success(), "{}", stderr_of(&rm));
    assert_eq!(psql_count(&pg, &db, "SELECT count(*) FROM runs"), 58);
}

/// Waits until `text` appears in the file `log`.
fn wait_for(log: &Path, text: &str, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if std::fs::read_to_string(log).is_ok_and(|s| s.contains(text)) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn a_soak_outlives_its_server_and_every_run_arrives_once_after_sync() {
    let Some(pg) = server() else { return };
    let db = pg.create_db("fault").unwrap();
    let url = pg.url(&db);
    let dir = real_dir();
    let data = dir.path().join("xdg");
    std::fs::create_dir(&data).unwrap();
    let log = dir.path().join("stderr");
    let runs = 6;
    let mut soak = Command::new(assert_cmd::cargo::cargo_bin("diskbench"))
        .args(QUICK.split_whitespace())
        .args(["--runs", &runs.to_string(), "--db", &url])
        .current_dir(dir.path())
        .env("XDG_DATA_HOME", &data)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    assert!(wait_for(&log, "saved as run 1 ", Duration::from_secs(30)));
    // In the middle of run 2: the server dies, and is back two runs later.
    std::thread::sleep(Duration::from_millis(500));
    pg.kill().unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    pg.start_again().unwrap();
    let status = soak.wait().unwrap();
    let said = std::fs::read_to_string(&log).unwrap();
    assert_eq!(status.code(), Some(1), "a save failed: {said}");
    assert!(said.contains("kept as run"), "{said}");
    assert!(
        said.contains("diskbench sync --to postgresql://postgres@127.0.0.1"),
        "{said}"
    );
    assert!(!said.contains(testbed::postgres::PASSWORD), "{said}");

    let local = data.join("diskbench/history.sqlite3");
    let sync = diskbench()
        .args(["sync", "--to", &url, "--db"])
        .arg(&local)
        .output()
        .unwrap();
    assert!(sync.status.success(), "{}", stderr_of(&sync));
    // Again, as a host whose DISKBENCH_DB is the server: the local history
    // is then the default file, where the soak kept its runs.
    let again = diskbench()
        .args(["sync", "--to", &url])
        .env("DISKBENCH_DB", &url)
        .env("XDG_DATA_HOME", &data)
        .output()
        .unwrap();
    assert!(
        stdout_of(&again).starts_with("0 runs copied"),
        "{}",
        stdout_of(&again)
    );
    assert_eq!(psql_count(&pg, &db, "SELECT count(*) FROM runs"), runs);
    assert_eq!(
        psql_count(&pg, &db, "SELECT count(DISTINCT soak_run) FROM runs"),
        runs
    );
    assert_eq!(
        psql_count(
            &pg,
            &db,
            "SELECT count(*) FROM runs WHERE live_host IS NOT NULL"
        ),
        0
    );

    // And back: the shared history pulled into a fresh file for offline work.
    let copy = dir.path().join("copy.sqlite3");
    let pull = diskbench()
        .args(["sync", "--from", &url, "--db"])
        .arg(&copy)
        .output()
        .unwrap();
    assert!(pull.status.success(), "{}", stderr_of(&pull));
    let history = diskbench()
        .arg("history")
        .arg("--db")
        .arg(&copy)
        .output()
        .unwrap();
    assert_eq!(
        stdout_of(&history)
            .lines()
            .filter(|l| l.contains("fio"))
            .count() as u64,
        runs,
        "{}",
        stdout_of(&history)
    );
}

#[test]
fn an_unreachable_server_keeps_the_figures_locally_and_exits_1() {
    let dir = real_dir();
    let data = dir.path().join("xdg");
    std::fs::create_dir(&data).unwrap();
    let run = |db: &str| -> Output {
        Command::new(assert_cmd::cargo::cargo_bin("diskbench"))
            .args(QUICK.split_whitespace())
            .args(["--db", db])
            .current_dir(dir.path())
            .env("XDG_DATA_HOME", &data)
            .output()
            .unwrap()
    };
    // Port 1: nothing listens there.
    let out = run("postgresql://bench:s3cret@127.0.0.1:1/fleet");
    let said = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(stdout_of(&out).contains("iops") || stdout_of(&out).contains("IOPS"));
    assert!(
        said.contains("cannot reach") && said.contains("kept as run 1"),
        "{said}"
    );
    assert!(!said.contains("s3cret"), "{said}");
    let out = run("postgresql://bench:s3cret@127.0.0.1:99999/fleet");
    let said = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("not a port") && said.contains("kept as run 2"),
        "{said}"
    );
    assert!(!said.contains("s3cret"), "{said}");
    // Nor is it in the history, nor in what it exports.
    let local = data.join("diskbench/history.sqlite3");
    for id in ["1", "2"] {
        let export = diskbench()
            .args(["export", id, "--db"])
            .arg(&local)
            .output()
            .unwrap();
        assert!(export.status.success(), "{}", stderr_of(&export));
        assert!(stdout_of(&export).contains("127.0.0.1"));
        assert!(!stdout_of(&export).contains("s3cret"));
    }
    let raw = std::fs::read(&local).unwrap();
    assert!(!raw.windows(6).any(|w| w == b"s3cret"));
    // Reading from a URL that cannot be read: a usage error, with the fix.
    let out = diskbench()
        .args(["history", "--db", "postgresql://bench:s3cret@db:port/fleet"])
        .output()
        .unwrap();
    let said = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("not a port") && said.contains("postgresql://USER@HOST"),
        "{said}"
    );
    assert!(!said.contains("s3cret"), "{said}");
}

#[test]
fn grant_writer_prints_the_grants_and_refuses_a_file() {
    let out = diskbench()
        .args(["db", "grant-writer", "bench_writer"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let sql = stdout_of(&out);
    assert!(
        sql.contains("GRANT INSERT, UPDATE ON runs TO \"bench_writer\""),
        "{sql}"
    );
    assert!(!sql.contains("DELETE ON runs"), "{sql}");
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("h.sqlite3");
    diskbench()
        .args(["fio", "--name=t", "--ioengine=null", "--size=1m", "--db"])
        .arg(&file)
        .assert()
        .success();
    let out = diskbench()
        .args(["db", "grant-writer", "bench_writer", "--apply", "--db"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("needs a PostgreSQL history"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn a_server_back_before_the_run_ends_takes_the_run_itself() {
    let Some(pg) = server() else { return };
    let db = pg.create_db("back").unwrap();
    let url = pg.url(&db);
    let dir = real_dir();
    let run = Command::new(assert_cmd::cargo::cargo_bin("diskbench"))
        .args(QUICK.replace("runtime=1s", "runtime=4s").split_whitespace())
        .args(["--db", &url])
        .current_dir(dir.path())
        .env("XDG_DATA_HOME", dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once the run's live row is on the server, the server goes away for a second.
    let until = Instant::now() + Duration::from_secs(10);
    while pg.psql(&db, "SELECT count(*) FROM runs").ok().as_deref() != Some("1") {
        assert!(Instant::now() < until, "no live row on the server");
        std::thread::sleep(Duration::from_millis(100));
    }
    pg.kill().unwrap();
    std::thread::sleep(Duration::from_secs(1));
    pg.start_again().unwrap();
    let out = run.wait_with_output().unwrap();
    let said = stderr_of(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("saved as run 1 in postgresql://"), "{said}");
    assert!(!said.contains("kept as run"), "{said}");
    assert_eq!(
        psql_count(
            &pg,
            &db,
            "SELECT count(*) FROM runs WHERE live_host IS NULL"
        ),
        1
    );
}

/// `sync --to URL` sent every local run. It now says what it will copy
/// (how many, their ids and when they started) before copying, and run
/// ids and the history's filters (`--label`, `--since`, ...) choose them.
#[test]
fn sync_says_what_it_copies_and_copies_what_was_chosen() {
    let Some(pg) = server() else { return };
    let url = pg.url(&pg.create_db("chosen").unwrap());
    let dir = real_dir();
    let local = dir.path().join("local.sqlite3");
    let fixture = |name: &str| format!("{}/../../fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    for (name, disk) in [
        ("fio-3.33-randrw.json", "a"),
        ("fio-3.41-randread.json", "a"),
        ("fio-3.33-trimwrite.json", "b"),
    ] {
        let out = diskbench()
            .args([
                "import",
                &fixture(name),
                "--label",
                &format!("disk={disk}"),
                "--db",
            ])
            .arg(&local)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
    }
    let sync = |extra: &[&str]| {
        let out = diskbench()
            .args(["sync", "--to", &url])
            .args(extra)
            .arg("--db")
            .arg(&local)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        stderr_of(&out)
    };
    let said = sync(&["--label", "disk=a"]);
    assert!(
        said.contains("2 runs to copy (ids 1 to 2, started "),
        "{said}"
    );
    assert_eq!(
        psql_count(&pg, &url_db(&url), "SELECT count(*) FROM runs"),
        2
    );
    let said = sync(&["3"]);
    assert!(said.contains("1 run to copy (id 3, started "), "{said}");
    let said = sync(&[]);
    assert!(said.contains("no run to copy"), "{said}");
    assert_eq!(
        psql_count(&pg, &url_db(&url), "SELECT count(*) FROM runs"),
        3
    );
}

/// The database name at the end of a URL.
fn url_db(url: &str) -> String {
    url.rsplit('/')
        .next()
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_string()
}
