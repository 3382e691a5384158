//! fio's `sync=`: the job's files are opened O_SYNC (`sync`, `1`) or
//! O_DSYNC (`dsync`), so each write returns once it is stable, as
//! PostgreSQL's `open_sync` and `open_datasync` WAL methods write (what
//! `diskbench fit postgres` compares). strace shows the flag on the open
//! of the job's file; a value fio does not know is a usage error.

mod common;
use common::*;
use std::process::Command as StdCommand;

/// The flags of each open of `name` in an strace of `fio` with `sync`.
fn opens_with(sync: &str) -> Option<Vec<String>> {
    if StdCommand::new("strace").arg("-V").output().is_err() {
        testbed::skip("needs strace (apt-get install strace)");
        return None;
    }
    let dir = real_dir();
    let trace = dir.path().join("trace.txt");
    let out = StdCommand::new("strace")
        .args(["-f", "-e", "trace=openat", "-o"])
        .arg(&trace)
        .arg(env!("CARGO_BIN_EXE_diskbench"))
        .args(["fio", "--name=sw", "--rw=write", "--bs=8k", "--size=256k"])
        .arg(format!("--sync={sync}"))
        .args(["--output-format=json", "--no-save"])
        .arg(format!("--directory={}", dir.path().display()))
        .env("DISKBENCH_DB", TEST_DB)
        .output()
        .unwrap();
    if !out.status.success() && stderr_of(&out).contains("ptrace") {
        testbed::skip(format!("strace cannot trace here: {}", stderr_of(&out)));
        return None;
    }
    assert!(out.status.success(), "{}", stderr_of(&out));
    let trace = std::fs::read_to_string(&trace).unwrap();
    Some(
        trace
            .lines()
            .filter(|l| l.contains("sw.0.0") && l.contains("O_RDWR"))
            .map(str::to_string)
            .collect(),
    )
}

#[test]
fn sync_dsync_and_none_open_the_files_as_asked() {
    let Some(dsync) = opens_with("dsync") else {
        return;
    };
    assert!(
        !dsync.is_empty() && dsync.iter().all(|l| l.contains("O_DSYNC")),
        "{dsync:?}"
    );
    let Some(sync) = opens_with("sync") else {
        return;
    };
    // strace names O_SYNC as O_SYNC (it holds O_DSYNC's bit too).
    assert!(
        !sync.is_empty() && sync.iter().all(|l| l.contains("O_SYNC")),
        "{sync:?}"
    );
    let Some(none) = opens_with("none") else {
        return;
    };
    assert!(
        !none.is_empty() && none.iter().all(|l| !l.contains("SYNC")),
        "{none:?}"
    );
}

#[test]
fn a_sync_value_fio_does_not_know_is_a_usage_error_naming_the_values() {
    let dir = real_dir();
    let out = fio_in(dir.path(), "--name=sw --rw=write --size=64k --sync=fsync");
    // fio exits 1 on a value it cannot parse ("failed parsing sync=...").
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("dsync"), "{}", stderr_of(&out));
}
