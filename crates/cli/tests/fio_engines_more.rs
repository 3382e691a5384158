//! fio's `mmap` and `posixaio` engines in `diskbench fio`: the same small
//! deterministic jobs (sequential, and random with `randrepeat`) run in
//! fio 3.33 and in diskbench with each engine, their counts compared
//! exactly; posixaio keeps the depth asked on a file of the real disk; and
//! what fio refuses with mmap, diskbench refuses too.

mod common;
use common::*;

/// Per direction (read, write): io_kbytes and total_ios of the first job.
fn counts(doc: &serde_json::Value) -> [u64; 4] {
    let job = &doc["jobs"][0];
    let n = |v: &serde_json::Value| v.as_u64().unwrap_or_else(|| panic!("{v} is not a count"));
    [
        n(&job["read"]["io_kbytes"]),
        n(&job["read"]["total_ios"]),
        n(&job["write"]["io_kbytes"]),
        n(&job["write"]["total_ios"]),
    ]
}

const JOBS: &[&str] = &["--rw=read", "--rw=write", "--rw=randread --randrepeat=1"];

fn same_counts_as_fio(engine: &str) {
    for job in JOBS {
        let args = format!("--name=j --ioengine={engine} --size=8m --bs=4k {job}");
        let dir = real_dir();
        let Some(fio) = real_fio_json_in(dir.path(), &args) else {
            return;
        };
        let dir = real_dir();
        let ours = fio_ok_in(dir.path(), &args);
        assert_eq!(counts(&ours), counts(&fio), "{args}");
        assert_eq!(counts(&ours).iter().sum::<u64>(), 8192 + 2048, "{args}");
        assert_eq!(ours["jobs"][0]["error"], 0, "{args}");
        let name = engine.split_whitespace().next().unwrap();
        assert_eq!(ours["jobs"][0]["job options"]["ioengine"], name, "{args}");
    }
}

#[test]
fn mmap_moves_fios_bytes() {
    same_counts_as_fio("mmap");
}

#[test]
fn posixaio_moves_fios_bytes() {
    same_counts_as_fio("posixaio --iodepth=8");
}

/// posixaio keeps 8 I/Os in flight on a file of the real disk: the mean
/// depth (IOPS x mean latency) is within 10% of iodepth, and no warning
/// says the queue was not kept.
#[test]
fn posixaio_keeps_the_depth_asked() {
    let dir = real_dir();
    let args = "--name=j --ioengine=posixaio --iodepth=8 --rw=randread --direct=1 --size=32m \
                --bs=4k --randrepeat=1";
    let doc = fio_ok_in(dir.path(), args);
    let depth = doc["jobs"][0]["diskbench"]["mean_depth"]
        .as_f64()
        .expect("diskbench.mean_depth");
    assert!((7.2..=8.8).contains(&depth), "mean depth {depth}, asked 8");
    let warnings = doc["diskbench"]["warnings"].to_string();
    assert!(!warnings.contains("iodepth"), "{warnings}");
}

/// A write through a mapping reaches the file: what an mmap job wrote
/// (with end_fsync, msync) is read back by a psync job with verify.
#[test]
fn mmap_writes_reach_the_file() {
    let dir = real_dir();
    let file = dir.path().join("data");
    let common = format!(
        "--name=j --filename={} --size=4m --bs=4k --verify=crc32c",
        file.display()
    );
    let write = format!("{common} --ioengine=mmap --rw=randwrite --end_fsync=1 --do_verify=0");
    fio_ok_in(dir.path(), &write);
    let read = format!("{common} --ioengine=psync --rw=randwrite --verify_only=1");
    let doc = fio_ok_in(dir.path(), &read);
    assert_eq!(doc["jobs"][0]["error"], 0, "{doc}");
    assert_eq!(counts(&doc)[0], 4096, "the whole file was verified");
}

/// fio refuses mmap with direct=1 and blocks smaller than a page ("mmap
/// options dictate a minimum block size"); so does diskbench, by name.
#[test]
fn mmap_refuses_direct_with_blocks_below_a_page() {
    let dir = real_dir();
    let out = fio_in(
        dir.path(),
        "--name=j --ioengine=mmap --rw=randread --size=1m --bs=1k --direct=1",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(err.contains("direct=1") && err.contains("4096"), "{err}");
}
