//! `diskbench fit`: the listing, bad input, the JSON, and the verdict on a
//! device whose write limit is known exactly (the testbed: a loop device
//! behind a cgroup throttle, with an ext4 file system on it). Each of the
//! etcd WAL check's appends is followed by fdatasync, which must write the
//! appended page through the throttle before it returns, so at a limit of
//! L writes per second no more than L syncs end a second: their mean is at
//! least 1/L, and the p99 above it. 40 writes/s put the p99 at 25 ms or
//! more, 2.5x etcd's 10 ms at least: not fit. (Measured here: ext4 issues
//! about 3 writes per sync, the page, its journal and a flush, and the
//! throttle lets them through in 100 ms slices, so the syncs are 0.2 ms to
//! 150 ms with a mean of 50 ms, 2/L.) 20,000 writes/s, more than the
//! device does here, hold no sync back: fit. The image is in memory, so that the disk under it adds
//! nothing to the limit; ext4 without a journal, so that a sync is its
//! page and a flush, not a wait for the journal's thread too.

mod common;
use common::*;
use std::process::Command as StdCommand;
use std::sync::Mutex;

/// The tests that measure take turns: a p99 of syncs is a figure of the
/// scheduler as much as of the disk, and a test measuring beside another
/// on a 2-core machine can push it past 10 ms by itself.
static MEASURING: Mutex<()> = Mutex::new(());

fn take_turn() -> std::sync::MutexGuard<'static, ()> {
    MEASURING.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn without_a_workload_it_lists_them_with_their_sources() {
    let out = diskbench().arg("fit").output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    for name in ["etcd", "postgres", "wal-group-commit", "kafka"] {
        assert!(text.contains(name), "{text}");
    }
    assert!(
        text.contains("< 10 ms") && text.contains("https://"),
        "{text}"
    );
}

#[test]
fn an_unknown_workload_is_a_usage_error_listing_the_workloads() {
    let dir = real_dir();
    let out = diskbench()
        .args(["fit", "mysql"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(
        err.contains("'mysql'") && err.contains("etcd, postgres"),
        "{err}"
    );
    assert!(entries(dir.path()).is_empty(), "nothing is written");
}

#[test]
fn the_json_holds_each_verdict_its_figure_and_source_and_the_run_is_kept() {
    let _turn = take_turn();
    let dir = real_dir();
    let db = dir.path().join("history.sqlite3");
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let out = diskbench()
        .args([
            "fit",
            "kafka",
            "--json",
            "--runtime",
            "1s",
            "--label",
            "disk=test",
        ])
        .arg(&work)
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    assert_eq!(doc["workload"], "kafka");
    let reqs = doc["requirements"].as_array().unwrap();
    assert_eq!(reqs.len(), 2);
    for r in reqs {
        assert_eq!(r["verdict"], "no_limit", "{r}");
        assert!(r["measured"]["value"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["source"]["url"].as_str().unwrap().starts_with("https://"));
    }
    assert!(entries(&work).is_empty(), "the test files are removed");
    // Kept as a run of kind fit, with its label, and shown as printed.
    let listed = diskbench()
        .args(["history", "--label", "disk=test", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(stdout_of(&listed).contains("fit"), "{}", stdout_of(&listed));
    let shown = diskbench()
        .args(["show", "1", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(
        stdout_of(&shown).contains("append throughput"),
        "{}{}",
        stdout_of(&shown),
        stderr_of(&shown)
    );
}

/// An ext4 file system on a throttled testbed, mounted; unmounted when dropped.
struct Throttled {
    tb: testbed::Testbed,
    mount: tempfile::TempDir,
}

impl Throttled {
    fn up(name: &str, write_iops: u64) -> Option<Throttled> {
        if let Err(why) = testbed::Testbed::available() {
            testbed::skip(why);
            return None;
        }
        let limits = testbed::Limits {
            write_iops,
            ..Default::default()
        };
        // The image in memory: the syncs then wait for the throttle only,
        // not for the flushes of the disk under /tmp that others share.
        let shm = std::path::Path::new("/dev/shm");
        let tb =
            testbed::Testbed::up_in(shm, name, limits).unwrap_or_else(|e| panic!("testbed: {e}"));
        let run = |cmd: &mut StdCommand| {
            let out = cmd.output().unwrap();
            assert!(out.status.success(), "{cmd:?}: {}", stderr_of(&out));
        };
        run(StdCommand::new("mkfs.ext4").args(["-q", "-F", "-O", "^has_journal", tb.device()]));
        let mount = tempfile::tempdir().unwrap();
        run(StdCommand::new("mount").arg(tb.device()).arg(mount.path()));
        Some(Throttled { tb, mount })
    }

    /// `fit etcd --json` inside the throttle.
    fn fit_etcd(&self) -> serde_json::Value {
        let out = self
            .tb
            .command(assert_cmd::cargo::cargo_bin("diskbench"))
            .args(["fit", "etcd", "--json", "--no-save", "--runtime", "4s"])
            .arg(self.mount.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        json_of(&out)
    }

    fn set(&self, write_iops: u64) {
        let limits = testbed::Limits {
            write_iops,
            ..Default::default()
        };
        self.tb.set(limits).unwrap();
    }
}

impl Drop for Throttled {
    fn drop(&mut self) {
        let _ = StdCommand::new("umount").arg(self.mount.path()).status();
    }
}

fn wal(doc: &serde_json::Value) -> &serde_json::Value {
    let reqs = doc["requirements"].as_array().unwrap();
    reqs.iter()
        .find(|r| r["check"] == "etcd-wal")
        .unwrap_or_else(|| panic!("{doc}"))
}

#[test]
fn a_write_limit_that_breaks_etcds_rule_is_not_fit_by_its_margin_and_one_that_keeps_it_is_fit() {
    let _turn = take_turn();
    let name = format!("fit-{}", std::process::id());
    let Some(fs) = Throttled::up(&name, 40) else {
        return;
    };
    // 40 writes/s: at most 40 syncs a second, so the p99 is 25 ms or more;
    // a second is far more than the throttle's slices could add.
    let slow = fs.fit_etcd();
    let w = wal(&slow);
    assert_eq!(w["verdict"], "not_fit", "{w}");
    let p99_ms = w["measured"]["value"].as_f64().unwrap() / 1e6;
    let ratio = w["ratio"].as_f64().unwrap();
    assert!(
        (25.0..=1000.0).contains(&p99_ms),
        "p99 {p99_ms} ms where the limit keeps every sync's mean at 25 ms or more"
    );
    assert!((ratio - p99_ms / 10.0).abs() < 1e-9, "{ratio} vs {p99_ms}");
    let syncs = w["measured"]["count"].as_f64().unwrap();
    assert!(
        syncs <= 40.0 * 4.5 + 40.0,
        "{syncs} syncs in 4 s at 40 writes/s"
    );
    assert_eq!(slow["fit"], false);

    // 20,000 writes/s: more than this device does unthrottled here (about
    // 3 writes per sync, 2,500 syncs/s), so the throttle never holds a sync
    // back. (At 2,000 it binds, and lets writes through in bursts between
    // waits of up to its 100 ms slice: p99 88 ms, not fit.)
    fs.set(20_000);
    let quick = fs.fit_etcd();
    let w = wal(&quick);
    if w["verdict"] != "fit" {
        // A machine busy enough to keep the syncs' threads waiting for a
        // CPU breaks the rule by itself (seen here at a load of 13 on 2
        // cores: p99 8 to 24 ms with no limit at all). Only then is the
        // limit not to blame, and the test says so instead of passing.
        fs.set(0);
        let free = fs.fit_etcd();
        let f = wal(&free);
        assert_eq!(
            f["verdict"], "not_fit",
            "20,000 writes/s broke a rule the device keeps without a limit: {w}"
        );
        testbed::skip(format!(
            "fit at 20,000 writes/s not shown: this machine breaks etcd's rule with no limit \
             at all (p99 {} ms), so it is too busy to tell",
            f["measured"]["value"].as_f64().unwrap_or(0.0) / 1e6
        ));
        return;
    }
    assert!(w["ratio"].as_f64().unwrap() < 1.0, "{w}");
    assert_eq!(quick["requirements"][0]["sure"], true, "{w}");
}

#[test]
fn writes_that_each_wait_for_their_sync_get_no_page_cache_warning() {
    let _turn = take_turn();
    let dir = real_dir();
    let warned = |extra: &str| {
        let doc = fio_ok_in(
            dir.path(),
            &format!("--name=w --rw=write --bs=4k --size=64k {extra}"),
        );
        doc["diskbench"]["warnings"]
            .to_string()
            .contains("page cache")
    };
    assert!(
        warned(""),
        "buffered writes the cache absorbs are warned of"
    );
    assert!(
        !warned("--fdatasync=1"),
        "each write waits for its fdatasync"
    );
    assert!(!warned("--sync=dsync"), "each write is O_DSYNC");
    assert!(
        warned("--fdatasync=4"),
        "three writes in four are left in the cache"
    );
}

/// Fit at minute 1, and still fit once the burst ran out? A soak of
/// etcd's checks (5 runs of 2 s per check, a run every 4 s) on a device
/// with no limit for its first 5 s, then 40 writes/s (not fit, as above):
/// run 1 is fit, run 2 meets the cliff, and the soak says which run
/// stopped being fit, and its time.
///
/// The cliff comes at a fixed time, not after a count of I/Os as the
/// testbed's burst bucket would place it: the checks are time-bound, so
/// the I/Os a run spends follow this machine's speed, and under CI's load
/// one soak's runs spent from 6,995 syncs down to 1,749, so that a bucket
/// of "two runs' worth", counted on a run before, lasted past the fifth
/// run. (A burst limit low enough to spend its credits at a known rate is
/// no fix: a binding limit lets writes through in bursts between waits of
/// up to 100 ms, and breaks etcd's rule by itself.)
#[test]
fn a_soak_names_the_run_where_the_burst_ended_and_etcd_stopped_being_fit() {
    let _turn = take_turn();
    let name = format!("fitsoak-{}", std::process::id());
    let Some(fs) = Throttled::up(&name, 0) else {
        return;
    };
    let cliff = std::time::Duration::from_secs(5);
    let out = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(cliff);
            fs.set(40);
        });
        fs.tb
            .command(assert_cmd::cargo::cargo_bin("diskbench"))
            .args(["fit", "etcd", "--json", "--no-save", "--runtime", "2s"])
            .args(["--runs", "5"])
            .arg(fs.mount.path())
            .output()
            .unwrap()
    });
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let windows = doc["windows"].as_array().unwrap();
    assert_eq!(windows.len(), 5, "{doc}");
    let first = &windows[0]["report"];
    if first["fit"] != true {
        // Run 1 ends before the cliff: only the machine can have broken
        // the rule (seen at a load of 13 on 2 cores with no limit at all).
        let syncs = wal(first)["measured"]["count"].as_u64().unwrap_or(0);
        assert!(syncs > 400, "run 1 was held to 40 writes/s: {doc}");
        testbed::skip(format!(
            "run 1 not fit before the cliff ({syncs} syncs): too busy to tell"
        ));
        return;
    }
    for late in &windows[2..] {
        let syncs = wal(&late["report"])["measured"]["count"].as_u64().unwrap();
        assert!(syncs <= 140, "{syncs} syncs in 2 s at 40 writes/s: {doc}");
        assert_eq!(late["report"]["fit"], false, "{doc}");
    }
    let s = &doc["stopped_being_fit"];
    let run = s["run"].as_u64().unwrap_or_else(|| panic!("{doc}"));
    assert_eq!(run, 2, "the cliff came 5 s in, during run 2: {s}");
    let at = s["at_s"].as_f64().unwrap();
    let started = windows[run as usize - 1]["at_s"].as_f64().unwrap();
    assert!(at > 0.0 && at == started, "{s}");
    assert!(s["broken"].to_string().contains("the limit"), "{s}");
    assert_eq!(doc["fit_throughout"], false);
    assert!(doc["soak"].is_string(), "{doc}");
}

/// `--volume` beside each requirement: a sync-bound rule gets the volume's
/// IOPS (and the least mean sync they allow), a throughput rule its MB/s,
/// and the JSON carries both; gp2 promises 3 IOPS a GiB, and no latency.
#[test]
fn with_a_volume_each_requirement_carries_the_promise_about_its_figure() {
    let _turn = take_turn();
    let dir = real_dir();
    let out = diskbench()
        .args(["fit", "kafka", "--json", "--no-save", "--runtime", "1s"])
        .args(["--volume", "aws:gp2:100GiB"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let reqs = doc["requirements"].as_array().unwrap();
    let of = |figure: &str| {
        reqs.iter()
            .find(|r| r["figure"] == figure)
            .unwrap_or_else(|| panic!("{doc}"))["volume"]
            .clone()
    };
    let sync = of("sync_p99");
    assert_eq!(sync["of"], "iops", "{sync}");
    assert_eq!(sync["volume"], "aws:gp2:100GiB");
    let baseline = sync["baseline"].as_f64().unwrap();
    assert_eq!(baseline, 300.0, "{sync}");
    assert!(sync["burst"].as_f64().unwrap() > baseline, "{sync}");
    assert_eq!(sync["least_sync_ns"].as_f64().unwrap(), 1e9 / baseline);
    assert!(sync["latency"].is_null(), "{sync}");
    let mb = of("write_mb_s");
    assert_eq!(mb["of"], "throughput", "{mb}");
    assert!(mb["baseline"].as_f64().unwrap() > 1e6, "{mb}");
    assert!(mb.get("least_sync_ns").is_none(), "{mb}");
}

/// pg_test_fsync rewrites its one 8 kB block again and again without
/// dropping the page cache; fio's default (invalidate=1) drops it each
/// time a job wraps around its file, which for a one-block file is before
/// every write: a system call pg_test_fsync does not make, inside the
/// time of each op. fit's PostgreSQL checks make it at most once a check
/// (when the file is opened), not once a write. Counted with strace.
#[test]
fn the_postgres_checks_do_not_drop_the_page_cache_before_each_write() {
    let _turn = take_turn();
    if StdCommand::new("strace").arg("-V").output().is_err() {
        testbed::skip("strace is not installed");
        return;
    }
    let dir = real_dir();
    let log = dir.path().join("strace.log");
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let out = StdCommand::new("strace")
        .args(["-f", "-e", "trace=fadvise64,pwrite64,write", "-o"])
        .arg(&log)
        .arg(assert_cmd::cargo::cargo_bin("diskbench"))
        .args(["fit", "postgres", "--json", "--no-save", "--runtime", "1s"])
        .arg(&work)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let writes: f64 = doc["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["measured"]["count"].as_f64().unwrap())
        .sum();
    let trace = std::fs::read_to_string(&log).unwrap();
    let drops = trace
        .lines()
        .filter(|l| l.contains("fadvise64(") && l.contains("POSIX_FADV_DONTNEED"))
        .count();
    assert!(writes >= 20.0, "{writes} writes: {doc}");
    // Each check may drop the cache when it opens its file (and its
    // worker once more); not once a write.
    assert!(
        drops <= 4 * 4,
        "{drops} page cache drops for {writes} writes of 4 checks"
    );
}
