//! fio's `log_compression` and `log_store_compressed` end to end: with
//! `log_compression=N` alone the log is the plain text log (fio compresses
//! in memory only, diskbench writes as it goes), and with
//! `log_store_compressed=1` it is `NAME_bw.log.fz`, which `--inflate-log`
//! (diskbench's, and fio 3.33's own) turns back into the same lines: one
//! per I/O, in order, their offsets one block apart.

mod common;
use common::*;
use std::path::Path;

const JOB: &str = "--name=job --ioengine=null --filesize=64M --bs=128K --rw=write \
                   --write_bw_log=test --per_job_logs=0 --log_offset=1 --log_compression=10K";

/// Each line's offset column (the 5th).
fn offsets(text: &str) -> Vec<u64> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split(',').nth(4).unwrap().trim().parse().unwrap())
        .collect()
}

fn in_order(text: &str) {
    let expected: Vec<u64> = (0..512).map(|i| i * 128 * 1024).collect();
    assert_eq!(offsets(text), expected, "{text}");
}

fn run(dir: &Path, extra: &str) {
    let out = fio_text_in(dir, &format!("{JOB} {extra}"));
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(stderr_of(&out), "");
}

#[test]
fn log_compression_alone_writes_the_plain_log() {
    let dir = real_dir();
    run(dir.path(), "");
    in_order(&std::fs::read_to_string(dir.path().join("test_bw.log")).unwrap());
    assert!(!dir.path().join("test_bw.log.fz").exists());
}

#[test]
fn a_stored_compressed_log_inflates_to_the_lines_in_order() {
    let dir = real_dir();
    run(dir.path(), "--log_store_compressed=1");
    assert!(!dir.path().join("test_bw.log").exists());
    let out = diskbench()
        .current_dir(dir.path())
        .args(["fio", "--inflate-log=test_bw.log.fz"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let ours = stdout_of(&out);
    in_order(&ours);
    // fio reads it as its own.
    if let Some(theirs) = real_fio_in(dir.path(), &["--inflate-log=test_bw.log.fz"]) {
        assert!(theirs.status.success(), "{}", stderr_of(&theirs));
        assert_eq!(stdout_of(&theirs), ours);
    }
}
