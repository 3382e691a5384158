//! A run killed with SIGKILL leaves its test directory; the next run in the
//! same place removes it (and only it). (`diskbench run` makes such a
//! directory; `diskbench fio` makes its files under fio's names and leaves
//! them, as fio does.)

mod common;
use common::*;
use std::process::Command as StdCommand;
use std::time::Duration;

#[test]
fn the_next_run_removes_what_a_killed_run_left() {
    let dir = real_dir();
    let keep = dir.path().join("diskbench-notes");
    std::fs::create_dir(&keep).unwrap();
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("diskbench"))
        .args(["run", "--quick", "--no-save", "--size=8m", "--runtime=30s"])
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Killed once its directory is there (a loaded machine may take a
    // while to start it), and a little into its I/O.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while entries(dir.path()).len() < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(
        entries(dir.path()).len(),
        2,
        "the killed run left its directory"
    );

    let out = diskbench()
        .args([
            "run",
            "--quick",
            "--no-save",
            "--size=1m",
            "--runtime=100ms",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("left by a diskbench that was killed"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(entries(dir.path()), vec![keep]);
}
