//! SIGINT, SIGTERM and SIGHUP stop a run at once: partial results are
//! printed, no test directory is left (`diskbench fio` leaves its files
//! under fio's names, as fio does; `run` removes them), and the status is
//! fio's 128 for `diskbench fio`, whichever signal and however many (130,
//! 143 for SIGTERM, for diskbench's own commands).
//! "At once" is read from the run's own figures (the job measured far less
//! than its 60 s runtime), never from a wall clock: the machine is shared.

mod common;
use common::*;
use std::time::Duration;

#[test]
fn each_stop_signal_ends_the_run_cleanly() {
    for (signal, status) in [("INT", 128), ("TERM", 128), ("HUP", 128)] {
        let dir = real_dir();
        let target = format!("--directory={}", dir.path().display());
        let args = [
            "fio",
            "--name=s",
            "--rw=randread",
            "--bs=4k",
            "--size=8m",
            "--direct=1",
            "--ioengine=io_uring",
            "--runtime=60",
            "--time_based",
            "--output-format=json",
            &target,
        ];
        let (out, _) = interrupt(args, Duration::from_millis(1200), &[signal]);
        assert_eq!(
            out.status.code(),
            Some(status),
            "SIG{signal}: {}",
            stderr_of(&out)
        );
        let doc = json_of(&out);
        assert!(doc["jobs"][0]["read"]["total_ios"].as_u64().unwrap() > 0);
        assert!(
            doc["error"].is_string(),
            "SIG{signal}: the JSON says the run was cut short"
        );
        assert_eq!(doc["partial"], true, "SIG{signal}");
        // The signal cut the job short: it measured less than the 60 s it
        // was given (a run that ignored the signal would report 60000 ms).
        let runtime = doc["jobs"][0]["read"]["runtime"].as_u64().unwrap();
        assert!(runtime < 60_000, "SIG{signal}: the job ran {runtime} ms");
        let left: Vec<_> = entries(dir.path())
            .into_iter()
            .filter(|p| p.is_dir())
            .collect();
        assert!(left.is_empty(), "SIG{signal} left {left:?}");
    }
}

/// A second Ctrl-C stops at once (while the first is still being handled,
/// or during a long layout) and still removes the test directory.
#[test]
fn a_second_ctrl_c_exits_at_once_and_still_removes_the_files() {
    let dir = real_dir();
    let target = format!("--directory={}", dir.path().display());
    let args = [
        "fio",
        "--name=s",
        "--rw=randread",
        "--bs=4k",
        "--size=64m",
        "--direct=1",
        "--ioengine=psync",
        "--runtime=60",
        "--time_based",
        &target,
    ];
    let (out, _) = interrupt(args, Duration::from_millis(1500), &["INT", "INT"]);
    assert_eq!(out.status.code(), Some(128), "{}", stderr_of(&out));
    let left: Vec<_> = entries(dir.path())
        .into_iter()
        .filter(|p| p.is_dir())
        .collect();
    assert!(left.is_empty(), "the second Ctrl-C left {left:?}");
}

/// A reader that goes away mid-run (`diskbench run --runs 3 | head`) ends
/// the run as it ends `cat` (141, 128 + SIGPIPE), and the test files go
/// with it: before, SIGPIPE killed the process where it stood and left a
/// 16 MiB test file behind.
#[test]
fn a_closed_stdout_mid_run_removes_the_test_files() {
    use std::io::{BufRead, BufReader};
    let dir = real_dir();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("diskbench"))
        .env("DISKBENCH_DB", TEST_DB)
        .args(["run", "--quick", "--size=16m", "--runs=3", "--no-save"])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // Read up to the first run's line ("run 1/3 at ...: IOPS ..."): the
    // second run is under way, and its line will meet the closed pipe. (The
    // table comes only after the last run, when the files are gone anyway.)
    let first_run = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.starts_with("run 1/3"));
    assert!(first_run.is_some(), "the first run printed no line");
    drop(lines);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(141), "{status:?}");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// A reader of stderr that goes away (`diskbench run 2>&1 >/dev/null | head
/// -c1`) stops no run: what stderr carries is for a person, so the run goes
/// on, is saved as what it was (ok, not killed) and exits 0, quietly.
/// Before, the first warning after the pipe closed panicked: exit 101, the
/// run left in the history as killed.
#[test]
fn a_closed_stderr_keeps_the_run_and_exits_quietly() {
    let dir = real_dir();
    let db = tempfile::tempdir().unwrap();
    let db = db.path().join("h.sqlite3");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("diskbench"))
        .args(["run", "--size=16m", "--runtime=300ms", "--ramp=0"])
        .arg("--db")
        .arg(&db)
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Close the read end at once: every write to stderr meets a closed pipe
    // (the too-short warning of a 300 ms test is one, always).
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{status:?}");
    let out = diskbench()
        .args(["history", "--format", "json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let rows = json_of(&out);
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["status"], "ok", "{rows:?}");
}
