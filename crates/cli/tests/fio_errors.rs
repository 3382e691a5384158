//! fio's error options and a job that fills its filesystem, against fio
//! 3.33 where it has them: `fill_device` writes until ENOSPC, which ends the
//! job without error (on a tmpfs of 8 MiB made by the test, the bytes
//! written and the I/Os are fio's, and the file fills the filesystem);
//! `ignore_error`/`continue_on_error` go on past the errors they name and
//! count them (fio's `total_err`, `first_error`, and the failed I/Os in
//! `total_ios`); injected errors (`--inject-fault`, which fio lacks) are
//! counted exactly; `dedupe_global` shares duplicate blocks between two
//! jobs' files as fio's does; `create_on_open` with an asynchronous engine
//! reads a file that is still short.

mod common;
use common::*;
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;

/// The surface-scan example on a small filesystem: a write phase that fills
/// it (buffered: tmpfs), then a phase that reads and verifies it.
const SURFACE_SCAN: &str = "[global]
thread
bs=64k
ioengine=sync
verify=meta
verify_pattern=0xaa555aa5
verify_interval=512

[write-phase]
filename=datafile.tmp
rw=write
fill_device=1
do_verify=0

[verify-phase]
stonewall
create_serialize=0
filename=datafile.tmp
rw=read
do_verify=1
";

/// Per job: the counts, and the error.
fn counts(doc: &Value) -> (IoCounts, Vec<Value>) {
    let errors = doc["jobs"].as_array().expect("jobs");
    (
        io_counts(doc),
        errors.iter().map(|j| j["error"].clone()).collect(),
    )
}

/// `job` in a file of its own (outside `dir`, whose free space counts).
fn job_file(job: &str) -> (tempfile::TempDir, String) {
    let home = real_dir();
    let path = home.path().join("job.fio");
    std::fs::write(&path, job).unwrap();
    (home, path.display().to_string())
}

/// `job` run by diskbench in `dir`.
fn ours(dir: &Path, job: &str) -> std::process::Output {
    let (_home, path) = job_file(job);
    diskbench()
        .current_dir(dir)
        .args(["fio", "--no-save", "--output-format=json", &path])
        .output()
        .unwrap()
}

/// fio 3.33's document for `job` run in `dir`, its files removed after.
fn theirs(dir: &Path, job: &str) -> Option<(std::process::ExitStatus, Value)> {
    let (_home, path) = job_file(job);
    let out = real_fio_json_status(dir, &[&path]);
    empty(dir);
    out
}

/// fio's and diskbench's documents for `job` in `dir`, both successful.
fn both(dir: &Path, job: &str) -> Option<(Value, Value)> {
    let (status, fio) = theirs(dir, job)?;
    assert!(status.success(), "fio: {job}");
    let out = ours(dir, job);
    assert!(out.status.success(), "{}", stderr_of(&out));
    Some((fio, json_of(&out)))
}

fn empty(dir: &Path) {
    for f in entries(dir) {
        std::fs::remove_file(f).unwrap();
    }
}

#[test]
fn fill_device_writes_until_the_filesystem_is_full_as_fio_does() {
    let Some(m) = Mount::new("tmpfs", "size=8m") else {
        return;
    };
    // Without a size (the free space), and with one larger than the disk.
    for job in [
        SURFACE_SCAN.to_string(),
        SURFACE_SCAN.replace("fill_device=1", "fill_fs=1\nsize=12m"),
    ] {
        let Some((fio, doc)) = both(m.path(), &job) else {
            return;
        };
        // fio: 8,192 KiB in 128 writes and the write that found no space
        // (129 I/Os), no error; then 8,192 KiB read back in 128 reads.
        assert_eq!(counts(&doc), counts(&fio), "{job}");
        assert_eq!(doc["jobs"][0]["write"]["io_kbytes"], 8192);
        let file = std::fs::metadata(m.path().join("datafile.tmp")).unwrap();
        assert_eq!(file.len(), 8 << 20, "the file fills the filesystem");
        let verify = &doc["jobs"][1]["verify"];
        assert_eq!(verify["checked"], 16384, "every 512-byte chunk: {verify}");
        assert_eq!(verify["bad"], 0);
        assert!(
            doc["jobs"][0].get("total_err").is_none(),
            "no errors counted"
        );
        empty(m.path());
    }
    // Free space that is not a whole number of blocks (a 4 KiB file there):
    // the last write is short, and fio counts it and the rest it writes
    // again (which finds no space) as two I/Os, and none of its bytes.
    let other = |dir: &Path| std::fs::write(dir.join("other"), [7u8; 4096]).unwrap();
    other(m.path());
    let Some((_, fio)) = theirs(m.path(), SURFACE_SCAN) else {
        return;
    };
    other(m.path());
    let out = ours(m.path(), SURFACE_SCAN);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    assert_eq!(counts(&doc), counts(&fio));
    assert_eq!(doc["jobs"][0]["write"]["total_ios"], 129);
    assert_eq!(doc["jobs"][0]["write"]["io_kbytes"], 8128);
    empty(m.path());
    // A job that reads: its file laid out over the free space, then read.
    let read = "[r]\nfilename=f\nrw=read\nbs=64k\nfill_device=1\n";
    let Some((fio, doc)) = both(m.path(), read) else {
        return;
    };
    assert_eq!(counts(&doc), counts(&fio));
    assert_eq!(doc["jobs"][0]["read"]["io_kbytes"], 8192);
}

/// Writing 12 MiB to 8 MiB: the last 64 writes fail with ENOSPC.
const PAST_ENOSPC: &str = "[w]
filename=f
rw=write
bs=64k
size=12m
ioengine=psync
error_dump=0
";

#[test]
fn ignore_error_goes_on_past_enospc_and_counts_it_as_fio_does() {
    let Some(m) = Mount::new("tmpfs", "size=8m") else {
        return;
    };
    for options in [
        "continue_on_error=write\nignore_error=,ENOSPC",
        // A list given is enough (fio 3.33), and names may be numbers.
        "ignore_error=,28",
    ] {
        let job = format!("{PAST_ENOSPC}{options}\n");
        let Some((fio, doc)) = both(m.path(), &job) else {
            return;
        };
        // fio: error 28 (the first), 8,192 KiB written, 192 writes of which
        // 64 failed.
        assert_eq!(counts(&doc), counts(&fio), "{options}");
        for key in ["total_err", "first_error"] {
            assert_eq!(doc["jobs"][0][key], fio["jobs"][0][key], "{key}");
        }
        assert_eq!(doc["jobs"][0]["total_err"], 64);
        empty(m.path());
    }
    // ENOSPC is not one of the errors continue_on_error goes on past alone:
    // fio fails at the first; diskbench refuses the job before writing, as
    // any job that does not fit.
    let job = format!("{PAST_ENOSPC}continue_on_error=write\n");
    let Some((status, _)) = theirs(m.path(), &job) else {
        return;
    };
    assert!(!status.success());
    let out = ours(m.path(), &job);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("free"), "{}", stderr_of(&out));
}

/// 256 writes of 4 KiB, every 10th from the 5th failing with EIO: 26.
fn injected(dir: &Path, extra: &[&str]) -> std::process::Output {
    diskbench()
        .current_dir(dir)
        .args(["fio", "--no-save", "--output-format=json", "--name=w"])
        .args(["--rw=write", "--bs=4k", "--size=1m", "--filename=f"])
        .args(["--inject-fault", "eio@write:5/10"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn continue_on_error_counts_every_error_it_goes_on_past() {
    let dir = real_dir();
    for options in [
        &["--continue_on_error=write"][..],
        &["--continue_on_error=io"],
        &["--continue_on_error=1"],
        &["--ignore_error=,EIO"],
        &["--ignore_error=,5:28"],
    ] {
        let out = injected(dir.path(), options);
        assert!(out.status.success(), "{options:?}: {}", stderr_of(&out));
        let job = &json_of(&out)["jobs"][0];
        assert_eq!(job["total_err"], 26, "{options:?}");
        assert_eq!(job["first_error"], 5, "{options:?}");
        assert_eq!(job["error"], 5, "fio's error is the first one's errno");
        assert_eq!(job["write"]["total_ios"], 256, "{options:?}");
        assert_eq!(job["write"]["io_kbytes"], (256 - 26) * 4, "{options:?}");
        // error_dump=1, fio's default: each error on stderr.
        let err = stderr_of(&out);
        assert_eq!(
            err.matches("continued past: write of 4096 bytes").count(),
            26
        );
    }
    let quiet = injected(dir.path(), &["--continue_on_error=write", "--error_dump=0"]);
    assert!(!stderr_of(&quiet).contains("continued past"));
    // Not a write error it goes on past: the job fails at the first.
    for options in [
        &["--continue_on_error=read"][..],
        &["--continue_on_error=none"],
        &["--continue_on_error=verify"],
        &["--ignore_error=,ENOSPC"],
    ] {
        let out = injected(dir.path(), options);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{options:?}: {}",
            stderr_of(&out)
        );
    }
}

#[test]
fn continue_on_error_verify_counts_bad_chunks_instead_of_failing() {
    let dir = real_dir();
    let run = |extra: &[&str]| {
        diskbench()
            .current_dir(dir.path())
            .args(["fio", "--no-save", "--output-format=json", "--name=v"])
            .args(["--rw=write", "--bs=4k", "--size=256k", "--filename=f"])
            .args(["--verify=crc32c", "--inject-fault", "bitflip@write:3/20"])
            .args(extra)
            .output()
            .unwrap()
    };
    assert_eq!(run(&[]).status.code(), Some(1));
    let out = run(&["--continue_on_error=verify"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let job = &json_of(&out)["jobs"][0];
    // Writes 3, 23, 43 and 63 of 64 were corrupted: four bad chunks, each
    // counted as fio counts a verify error (EILSEQ).
    assert_eq!(job["verify"]["bad"], 4);
    assert_eq!(job["total_err"], 4);
    assert_eq!(job["first_error"], 84);
}

/// The 4 KiB blocks of each file, hashed, and how many distinct blocks the
/// two files share.
fn distinct_and_shared(a: &Path, b: &Path) -> (usize, usize, usize) {
    use std::hash::{Hash, Hasher};
    let blocks = |p: &Path| -> HashSet<u64> {
        std::fs::read(p)
            .unwrap()
            .chunks(4096)
            .map(|c| {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                c.hash(&mut h);
                h.finish()
            })
            .collect()
    };
    let (a, b) = (blocks(a), blocks(b));
    (a.len(), b.len(), a.intersection(&b).count())
}

#[test]
fn dedupe_global_shares_duplicate_blocks_between_jobs_as_fio_does() {
    // dedupe-global.fio at 16 MiB a job (4,096 blocks).
    let job = |global: u8| {
        format!(
            "--size=16m --bs=4k --rw=write --dedupe_mode=working_set --dedupe_global={global} \
             --dedupe_percentage=50 --dedupe_working_set_percentage=50 \
             --buffer_compress_percentage=50 --name=a --filename=a --name=b --filename=b"
        )
    };
    for global in [1, 0] {
        let args = job(global);
        let dir = real_dir();
        let args: Vec<&str> = args.split_whitespace().collect();
        let Some((status, _)) = real_fio_json_status(dir.path(), &args) else {
            return;
        };
        assert!(status.success());
        let fio = distinct_and_shared(&dir.path().join("a"), &dir.path().join("b"));
        let dir = real_dir();
        let out = fio_in(dir.path(), &args.join(" "));
        assert!(out.status.success(), "{}", stderr_of(&out));
        let ours = distinct_and_shared(&dir.path().join("a"), &dir.path().join("b"));
        // fio 3.33: about 2,700 distinct blocks a file (2,048 unique writes
        // and half the other job's part of the set) and 1,300 in common;
        // without dedupe_global, about 2,048 and none.
        let near = |x: usize, y: usize| x.abs_diff(y) * 100 <= y * 6;
        assert!(
            near(ours.0, fio.0) && near(ours.1, fio.1),
            "{ours:?} vs fio's {fio:?}"
        );
        match global {
            1 => assert!(
                ours.2 > 1000 && near(ours.2, fio.2),
                "shared {ours:?} vs fio's {fio:?}"
            ),
            _ => assert_eq!((ours.2, fio.2), (0, 0)),
        }
    }
}

#[test]
fn create_on_open_reads_a_short_file_with_an_asynchronous_engine() {
    let dir = real_dir();
    let args = "--name=x --filename=f --size=1m --bs=4k --rw=randrw --create_on_open=1 \
                --ioengine=libaio --direct=1";
    let doc = fio_ok_in(dir.path(), args);
    let job = &doc["jobs"][0];
    // fio 3.33 (the same job): 132 reads of 508 KiB, the reads past the end
    // of the file so far counted with the bytes they got (none).
    let (reads, kib) = (
        job["read"]["total_ios"].as_u64().unwrap(),
        job["read"]["io_kbytes"].as_u64().unwrap(),
    );
    assert!(reads > 0 && kib < reads * 4, "{reads} reads of {kib} KiB");
    assert_eq!(job["error"], 0);
    let out = fio_in(dir.path(), &args.replace("libaio", "psync"));
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("create_on_open"));
}

/// `verify_write_sequence=0` with `verify_header_seed=0` (newer fio than
/// 3.33, so checked against diskbench's own counts; fio 3.42 runs this job
/// with no error, and with only the first off fails it with EILSEQ: "bad
/// header rand_seed"): clones writing one file verify each chunk whoever
/// wrote it last, and a corrupted chunk is still caught.
#[test]
fn clones_verify_one_file_with_the_sequence_and_seed_checks_off() {
    let dir = real_dir();
    let job = "--name=x --filename=f --numjobs=4 --rw=randwrite --bs=4k --verify=crc32c \
               --size=1m --ioengine=libaio --iodepth=8 --direct=1";
    let off = "--verify_write_sequence=0 --verify_header_seed=0";
    let doc = fio_ok_in(dir.path(), &format!("{job} {off}"));
    for clone in doc["jobs"].as_array().unwrap() {
        assert_eq!(clone["verify"]["checked"], 256, "{}", clone["verify"]);
        assert_eq!(clone["verify"]["bad"], 0);
    }
    for half in ["", "--verify_write_sequence=0", "--verify_header_seed=0"] {
        let out = fio_in(dir.path(), &format!("{job} {half}"));
        assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
        assert!(stderr_of(&out).contains("verify_write_sequence=0 with verify_header_seed=0"));
    }
    let one = "--name=x --filename=f --rw=randwrite --bs=4k --verify=crc32c --size=1m";
    let out = fio_in(
        dir.path(),
        &format!("{one} {off} --inject-fault bitflip@write:3/50"),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert_eq!(json_of(&out)["jobs"][0]["verify"]["corrupted"], 6);
}
