//! The same bytes as fio: deterministic jobs (sequential, or random with
//! `randrepeat`) run in fio 3.33 and in `diskbench fio`, and their counts
//! compared: each job's `io_kbytes` and `total_ios` per direction, the jobs
//! and groups, and the files laid out (their number and sizes).
//!
//! The jobs use the null engine (no device, so they take milliseconds)
//! except where the files themselves are compared. Jobs whose split
//! depends on fio's own random generator (the read/write choice of
//! `rwmixread`, the block sizes drawn by `bssplit`/`bsrange`) cannot match
//! I/O for I/O, since diskbench draws with its own generator: for them the
//! total bytes are exact and the split is within a few percent.

mod common;
use common::*;
use std::path::Path;

/// fio's and diskbench's counts for `args`; `None` (skipped) without fio.
fn both(dir: &Path, args: &str) -> Option<(IoCounts, IoCounts)> {
    let fio = real_fio_json_in(dir, args)?;
    let ours = fio_in(dir, args);
    assert!(
        ours.status.success(),
        "diskbench fio {args}: {}",
        stderr_of(&ours)
    );
    Some((io_counts(&fio), io_counts(&json_of(&ours))))
}

/// Runs each job in both and returns the ones whose counts differ.
fn differences(jobs: &[&str]) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for job in jobs {
        let dir = real_dir();
        let (fio, ours) = both(dir.path(), job)?;
        if fio != ours {
            out.push(format!(
                "{job}\n   fio:       {fio:?}\n   diskbench: {ours:?}"
            ));
        }
    }
    Some(out)
}

const NULL: &str = "--ioengine=null --size=1m";

/// Sequential jobs: every count is fio's.
const SEQUENTIAL: &[&str] = &[
    "--rw=read",
    "--rw=write --bs=8k",
    "--rw=read --bs=12k",
    "--rw=read --io_size=3m",
    "--rw=read --io_size=1500k",
    "--rw=read --io_size=1m --loops=2",
    "--rw=read --loops=3",
    "--rw=read --number_ios=100",
    "--rw=read --number_ios=300 --loops=2",
    "--rw=read --number_ios=1000",
    "--rw=read --offset=256k",
    "--rw=read --offset=256k --io_size=2m",
    "--rw=read --offset=900k",
    "--rw=read --offset=1000k --bs=16k",
    "--rw=write --offset=1m",
    "--rw=read --numjobs=3",
    "--rw=read --numjobs=2 --group_reporting",
    "--rw=read --iodepth=8",
    "--rw=write --fsync=4",
    "--rw=read --blockalign=8k",
    "--rw=write --bs=4k,16k",
];

/// Several files and jobs: how `size` is split, `filesize`, groups.
const FILES_AND_GROUPS: &[&str] = &[
    "--rw=read --nrfiles=4",
    "--rw=read --nrfiles=3",
    "--rw=read --nrfiles=3 --filesize=128k",
    "--rw=read --nrfiles=4 --filesize=100k",
    "--rw=read --nrfiles=4 --filesize=256k --size=512k",
    "--rw=read --nrfiles=2 --filesize=256k --offset=64k",
    "--rw=read --nrfiles=3 --offset=64k",
    "--rw=write --nrfiles=5 --io_size=3m",
    "--rw=randread --nrfiles=3 --randrepeat=1",
    "--size=1000k --rw=read --nrfiles=3",
    "--size=100k --rw=read --bs=16k",
    "--size=64k --rw=read --bs=16k --loops=5 --numjobs=2",
    "--name=w --rw=write --name=r --rw=read --stonewall --bs=8k",
    // group_reporting on every job: one entry for the group, named for its
    // first job.
    "--name=a --rw=read --group_reporting --name=b --rw=write --numjobs=2 --group_reporting",
    // On one job: its clones join the entry before them, another job's.
    "--name=a --rw=read --group_reporting --name=b --rw=write --numjobs=2 \
     --name=d --rw=write --numjobs=2 --group_reporting",
];

/// Random jobs with `randrepeat`: each offset once per pass, so the counts are fio's.
const RANDOM: &[&str] = &[
    "--rw=randread --randrepeat=1",
    "--rw=randwrite --bs=16k --randrepeat=1",
    "--rw=randwrite --loops=2 --randrepeat=1",
    "--rw=randread --norandommap --randrepeat=1",
    "--rw=randwrite --bs=64k --io_size=5m --randrepeat=1",
    "--rw=randread --bs=8k --io_size=512k --randrepeat=1",
    "--rw=randread --number_ios=50 --randseed=42 --randrepeat=1",
];

fn with_null(jobs: &[&str]) -> Vec<String> {
    jobs.iter()
        .map(|j| match j.starts_with("--name=") {
            true => format!("{NULL} {j}"),
            false => format!("--name=a {NULL} {j}"),
        })
        .collect()
}

fn assert_same(jobs: &[&str]) {
    let jobs = with_null(jobs);
    let refs: Vec<&str> = jobs.iter().map(String::as_str).collect();
    let Some(diff) = differences(&refs) else {
        return;
    };
    assert!(
        diff.is_empty(),
        "{} of {} jobs differ:\n{}",
        diff.len(),
        refs.len(),
        diff.join("\n")
    );
}

#[test]
fn sequential_jobs_count_fios_bytes() {
    assert_same(SEQUENTIAL);
}

#[test]
fn files_and_groups_count_fios_bytes() {
    assert_same(FILES_AND_GROUPS);
}

#[test]
fn random_jobs_with_randrepeat_count_fios_bytes() {
    assert_same(RANDOM);
}

/// The null engine with `filesize=` and no `size=`: fio sizes its files by
/// `filesize` (fio's own suite runs its offset checks this way).
const NULL_BY_FILESIZE: &[&str] = &[
    "--name=a --ioengine=null --filesize=1m --rw=read",
    "--name=a --ioengine=null --filesize=1m --rw=randread --randrepeat=1",
    "--name=a --ioengine=null --filesize=128k --nrfiles=3 --rw=write",
    "--name=a --ioengine=null --filesize=256k --rw=read --loops=2 --bs=8k",
];

#[test]
fn null_engine_takes_its_size_from_filesize_as_fio() {
    let Some(diff) = differences(NULL_BY_FILESIZE) else {
        return;
    };
    assert!(diff.is_empty(), "{}", diff.join("\n"));
}

/// Neither `size=` nor `filesize=`: fio has nothing to size the null
/// engine's files by and fails the job; so does diskbench, saying which to give.
#[test]
fn null_engine_without_any_size_fails_as_fio() {
    let dir = real_dir();
    let args = "--name=a --ioengine=null --rw=read";
    let Some(fio) = real_fio_in(dir.path(), &args.split_whitespace().collect::<Vec<_>>()) else {
        return;
    };
    assert!(!fio.status.success(), "fio ran {args}");
    let ours = fio_in(dir.path(), args);
    assert!(!ours.status.success(), "diskbench ran {args}");
    assert!(
        stderr_of(&ours).contains("filesize="),
        "{}",
        stderr_of(&ours)
    );
}

/// Jobs whose read/write split or block sizes come from fio's generator.
const DRAWN: &[&str] = &[
    "--rw=randrw --rwmixread=70 --randrepeat=1",
    "--rw=rw --rwmixread=30",
    "--rw=randrw --number_ios=100 --randrepeat=1",
    "--rw=rw --bs=4k,16k",
    "--rw=randread --bssplit=4k/50:64k/50 --randrepeat=1",
    "--rw=read --bsrange=4k-16k",
    "--rw=randrw --bssplit=4k/30:8k/70 --randrepeat=1",
];

#[test]
fn drawn_splits_keep_fios_totals() {
    for job in with_null(DRAWN) {
        let dir = real_dir();
        let Some((fio, ours)) = both(dir.path(), &job) else {
            return;
        };
        assert_eq!(fio.len(), ours.len(), "{job}");
        for (f, o) in fio.iter().zip(&ours) {
            let kib = |c: &(String, u64, u64, u64, u64, u64)| c.2 + c.4;
            let ios = |c: &(String, u64, u64, u64, u64, u64)| c.3 + c.5;
            let near = |a: u64, b: u64, share: f64| a.abs_diff(b) as f64 <= share * a.max(b) as f64;
            // The whole size is done: every byte, whichever way it was split
            // (a block drawn too big for the end of the file can fall short by one).
            assert!(
                near(kib(f), kib(o), 0.01),
                "{job}: fio {f:?}, diskbench {o:?}"
            );
            // The read share within a tenth of the bytes.
            assert!(
                f.2.abs_diff(o.2) <= kib(f) / 10,
                "{job}: fio {f:?}, diskbench {o:?}"
            );
            assert!(
                near(ios(f), ios(o), 0.2),
                "{job}: fio {f:?}, diskbench {o:?}"
            );
        }
    }
}

/// Every regular file under `dir` (diskbench's are in its own subdirectory),
/// as sorted sizes; diskbench's ownership mark is left out.
fn file_sizes(dir: &Path) -> Vec<u64> {
    let mut sizes = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                todo.push(path);
            } else if !entry
                .file_name()
                .to_string_lossy()
                .starts_with(".diskbench")
            {
                sizes.push(meta.len());
            }
        }
    }
    sizes.sort_unstable();
    sizes
}

#[test]
fn files_laid_out_are_fios() {
    let jobs = [
        "--size=1m --nrfiles=3",
        "--size=1m --nrfiles=3 --filesize=128k",
        "--size=512k --nrfiles=4 --filesize=256k",
        "--size=1m --nrfiles=2 --filesize=256k --offset=64k",
        "--size=1m --offset=256k",
        "--size=256k --nrfiles=2 --numjobs=2",
    ];
    for job in jobs {
        let args = format!("--name=a --rw=read --directory=. {job}");
        let fio_dir = real_dir();
        let fio = std::process::Command::new("fio")
            .current_dir(fio_dir.path())
            .args(args.split_whitespace())
            .output();
        let Ok(fio) = fio else {
            testbed::skip("fio is not installed (apt-get install fio)");
            return;
        };
        assert!(fio.status.success(), "fio {args}: {}", stderr_of(&fio));
        let fios = file_sizes(fio_dir.path());
        // diskbench removes its files at the end: look while the job runs.
        let dir = real_dir();
        let slow = format!("{args} --time_based --runtime=3 --rate_iops=20");
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("diskbench"))
            .env("DISKBENCH_DB", TEST_DB)
            .current_dir(dir.path())
            .args(["fio", "--no-save", "--minimal"])
            .args(slow.split_whitespace())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut ours = Vec::new();
        for _ in 0..50 {
            std::thread::sleep(std::time::Duration::from_millis(100));
            ours = file_sizes(dir.path());
            if ours == fios {
                break;
            }
        }
        let status = child.wait().unwrap();
        assert!(status.success(), "diskbench fio {slow}");
        assert_eq!(ours, fios, "{job}: diskbench's files vs fio's");
    }
}

/// Time-based jobs over a small file wrap around to its start: paced by a
/// rate, the I/Os of a run are the rate times the runtime in both, and
/// many times the file's blocks.
#[test]
fn time_based_jobs_wrap_around_as_fios() {
    let jobs = [
        "--rw=read --size=64k --rate_iops=200",
        "--rw=randwrite --size=32k --bs=8k --rate_iops=100 --randrepeat=1",
    ];
    for job in jobs {
        let args = format!("--name=a --ioengine=null --time_based --runtime=2 {job}");
        let dir = real_dir();
        let Some((fio, ours)) = both(dir.path(), &args) else {
            return;
        };
        let ios = |c: &IoCounts| c[0].3 + c[0].5;
        let (f, o) = (ios(&fio), ios(&ours));
        assert!(o > 4 * 16, "{job}: {o} I/Os, the file wrapped around");
        assert!(
            f.abs_diff(o) * 100 <= 3 * f,
            "{job}: fio {f} I/Os, diskbench {o}"
        );
    }
}

/// A time-based read job with `verify=` reads one pass over its size on
/// an asynchronous engine and ends, as fio 3.33 runs it (a time-based
/// randread after a time-based randwrite then checks blocks the writer's
/// first pass wrote); on a synchronous engine it reads until its runtime.
#[test]
fn a_time_based_verified_read_on_an_asynchronous_engine_reads_one_pass_as_fio() {
    let written = "--filename=f --size=256k --bs=4k --verify=crc32c --name=w --rw=write";
    for (engine, one_pass) in [("libaio", true), ("posixaio", true), ("psync", false)] {
        let args = format!(
            "{written} --name=r --stonewall --rw=randread --time_based --runtime=1 \
             --ioengine={engine} --iodepth=4"
        );
        // Each in a directory of its own: diskbench would not overwrite
        // the file fio wrote without --allow-overwrite.
        let (fio_dir, our_dir) = (real_dir(), real_dir());
        let Some(fio) = real_fio_json_in(fio_dir.path(), &args) else {
            return;
        };
        let ours = fio_in(our_dir.path(), &args);
        assert!(ours.status.success(), "{args}: {}", stderr_of(&ours));
        let (fio, ours) = (io_counts(&fio), io_counts(&json_of(&ours)));
        let reads = |c: &IoCounts| c[1].3;
        let (f, o) = (reads(&fio), reads(&ours));
        match one_pass {
            true => assert!(f == 64 && o == 64, "{engine}: fio {f} reads, diskbench {o}"),
            false => assert!(f > 640 && o > 640, "{engine}: fio {f} reads, diskbench {o}"),
        }
    }
}

/// Syncs as fio counts them, on a real file: `fsync=N`, `fdatasync=N` and
/// `sync_file_range=...:N` sync before the write that follows every N (so
/// none after a job's last write, unless its size ends in a piece shorter
/// than a block, which fio asks for after it), each sync's latency is kept (`lat_ns.N`),
/// and `total_ios` counts only fsyncs. The normal output shows them as
/// fio's does: the block etcd's disk check reads its fdatasync p99 from.
#[test]
fn syncs_count_as_fios() {
    let jobs = [
        "--fsync=4",
        "--fdatasync=4",
        "--sync_file_range=write:4",
        "--fsync=4 --end_fsync=1",
        "--fdatasync=1 --bs=2300 --size=230000",
        // A size that ends in a piece shorter than a block: fio asks for
        // it, finds it too short, and syncs the last write on the way.
        "--fdatasync=1 --bs=2300 --size=231000",
        "--fdatasync=1 --bs=4k --size=18k",
        // Between loops fio syncs twice: at the loop's end and after
        // reopening the file for the next.
        "--fdatasync=1 --size=16k --loops=3",
        "--fdatasync=1 --size=18k --loops=2",
        "--fsync=2 --size=16k --loops=3",
        "--fsync=3 --size=16k --loops=3",
    ];
    let counts = |doc: &serde_json::Value| {
        let job = &doc["jobs"][0];
        [
            job["sync"]["total_ios"].as_u64(),
            job["sync"]["lat_ns"]["N"].as_u64(),
            job["write"]["total_ios"].as_u64(),
        ]
    };
    for job in jobs {
        let dir = real_dir();
        let args = format!("--name=t --rw=write --size=1m --bs=4k {job}");
        let Some(fio) = real_fio_json_in(dir.path(), &args) else {
            return;
        };
        let ours = fio_ok_in(dir.path(), &args);
        assert_eq!(counts(&ours), counts(&fio), "{args}");
        assert!(counts(&ours)[1] > Some(0), "{args}: {ours}");
    }
    let dir = real_dir();
    let etcd = "--name=etcd --rw=write --ioengine=sync --fdatasync=1 --size=220k --bs=2300";
    let out = fio_text_in(dir.path(), etcd);
    let text = stdout_of(&out);
    assert!(
        text.contains("\n  fsync/fdatasync/sync_file_range:\n    sync (")
            && text.contains("\n    sync percentiles (")
            && text.contains("99.00th=["),
        "{text}"
    );
}

/// The device counts the ramp's I/O too: the check that a device was shared
/// (its counters beyond the job's I/O) holds them against all the job did,
/// the ramp included. A ramp of half the job's time used to read as a
/// third of the device's work being another's.
#[test]
fn the_ramps_io_is_not_taken_for_anothers_on_the_device() {
    let dir = real_dir();
    let file = dir.path().join("f");
    let args = format!(
        "--name=r --filename={} --size=16m --rw=randread --bs=4k --ioengine=psync \
         --direct=1 --ramp_time=1 --runtime=1 --time_based --output-format=json",
        file.display()
    );
    let doc = fio_ok_in(dir.path(), &args);
    let measured = doc["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    assert!(measured > 0, "{doc}");
    let warnings = doc["diskbench"]["warnings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    // Another program may really share the device here; then the warning
    // must count the ramp's I/O as the job's.
    for w in warnings.iter().filter(|w| w["kind"] == "device_shared") {
        let job_ios = w["job_ios"].as_u64().unwrap();
        assert!(
            job_ios > measured + measured / 4,
            "the job's I/O held against the device lacks the ramp's: {job_ios} vs {measured} measured: {w}"
        );
    }
}
