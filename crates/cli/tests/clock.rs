//! What is inside a job's clock. fio runs a job's final sync (`end_fsync`,
//! `fsync_on_close`) inside its measured I/O phase, so a buffered write is
//! timed to the disk, not to the page cache. The check here is the kernel's
//! own timing: strace's timestamps of the first data write and of the end
//! of the final fsync bound the span the job must report as its runtime.

mod common;
use common::*;
use std::process::Command as StdCommand;

/// (start, duration) in seconds of each traced call named `call`.
fn calls(trace: &str, call: &str) -> Vec<(f64, f64)> {
    trace
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let _pid = words.next()?;
            let start: f64 = words.next()?.parse().ok()?;
            let rest: String = words.collect::<Vec<_>>().join(" ");
            if !rest.starts_with(&format!("{call}(")) {
                return None;
            }
            let took = rest.rsplit_once('<')?.1.trim_end_matches('>');
            Some((start, took.parse().ok()?))
        })
        .collect()
}

#[test]
fn the_final_sync_is_inside_the_runtime() {
    if StdCommand::new("strace").arg("-V").output().is_err() {
        testbed::skip("needs strace (apt-get install strace)");
        return;
    }
    let dir = real_dir();
    let trace = dir.path().join("trace.txt");
    let file = dir.path().join("f");
    let out = StdCommand::new("strace")
        .args(["-f", "-ttt", "-T", "-e", "trace=pwrite64,fsync", "-o"])
        .arg(&trace)
        .arg(env!("CARGO_BIN_EXE_diskbench"))
        .args(["fio", "--name=w", "--rw=write", "--bs=1m", "--size=64m"])
        .args(["--end_fsync=1", "--output-format=json", "--no-save"])
        .arg(format!("--filename={}", file.display()))
        .env("DISKBENCH_DB", TEST_DB)
        .output()
        .unwrap();
    if !out.status.success() && stderr_of(&out).contains("ptrace") {
        testbed::skip(format!("strace cannot trace here: {}", stderr_of(&out)));
        return;
    }
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let trace = std::fs::read_to_string(&trace).unwrap();
    let writes = calls(&trace, "pwrite64");
    let syncs = calls(&trace, "fsync");
    assert_eq!(writes.len(), 64, "{trace}");
    let (sync_start, sync_took) = *syncs.last().expect("an fsync");
    let span = sync_start + sync_took - writes[0].0;
    let runtime = doc["jobs"][0]["diskbench"]["runtime_ns"].as_f64().unwrap() / 1e9;
    assert!(
        runtime >= 0.95 * span,
        "the job reports {runtime:.3} s, but from its first write to the end of its \
         fsync {span:.3} s passed (the fsync alone took {sync_took:.3} s)"
    );
    let bw = doc["jobs"][0]["write"]["bw_bytes"].as_f64().unwrap();
    assert!(bw <= 1.05 * (64 << 20) as f64 / span, "{bw} B/s");
}
