//! fio's trim modes end to end: counted as fio 3.33 counts them, with a
//! real effect (the blocks of a trimmed file are freed, a loop device's
//! trims reach its image), and guarded as writes (`--readonly`, a user's
//! file, a device).
//!
//! fio 3.33's own trims of a regular file go through BLKDISCARD and fail
//! (ENOTTY: later fio punches holes, as diskbench does), so fio runs the
//! comparison jobs with its `falloc` engine, whose trims punch holes;
//! diskbench runs them with that engine and with its default (psync).

mod common;
use common::*;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Per direction (read, write, trim): `io_kbytes` and `total_ios`.
type Counts = [(u64, u64); 3];

fn counts(doc: &serde_json::Value) -> Counts {
    let job = &doc["jobs"][0];
    ["read", "write", "trim"].map(|dir| {
        let n = |key: &str| job[dir][key].as_u64().expect("a count");
        (n("io_kbytes"), n("total_ios"))
    })
}

/// fio's counts for `args` run in `dir`; `None` (skipped) without fio.
fn fio_counts(dir: &Path, args: &str) -> Option<Counts> {
    real_fio_json_in(dir, args).map(|doc| counts(&doc))
}

/// Allocated bytes of `path` (st_blocks are 512-byte units).
fn allocated(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().blocks() * 512
}

/// A file of `bytes` of data (no holes), on disk.
fn data_file(path: &Path, bytes: u32) -> Vec<u8> {
    let content: Vec<u8> = (0..bytes).map(|i| (i % 251) as u8 + 1).collect();
    std::fs::write(path, &content).unwrap();
    std::fs::File::open(path).unwrap().sync_all().unwrap();
    content
}

#[test]
fn trims_are_counted_as_fio_counts_them() {
    const JOB: &str = "--name=t --filename=f --size=4m --bs=64k";
    for rw in ["trim", "trimwrite", "randtrim", "randtrimwrite"] {
        let args = format!("{JOB} --rw={rw} --ioengine=falloc");
        let Some(fio) = fio_counts(real_dir().path(), &args) else {
            return;
        };
        let falloc = counts(&fio_ok_in(real_dir().path(), &args));
        eprintln!("rw={rw} (read, write, trim KiB and I/Os): fio {fio:?}, diskbench {falloc:?}");
        assert_eq!(falloc, fio, "rw={rw}, falloc");
        // Every engine trims synchronously; the async ones keep their
        // writes in flight meanwhile (trimwrite at depth 8).
        for engine in ["psync", "io_uring --iodepth=8", "libaio --iodepth=8"] {
            let ours = fio_ok_in(
                real_dir().path(),
                &format!("{JOB} --rw={rw} --ioengine={engine}"),
            );
            assert_eq!(counts(&ours), fio, "rw={rw}, {engine}");
        }
        // 4 MiB of 64 KiB blocks: 64 trims, and for trimwrite 64 writes too.
        assert_eq!(fio[2], (4096, 64), "rw={rw}");
        let writes = if rw.ends_with("write") {
            (4096, 64)
        } else {
            (0, 0)
        };
        assert_eq!((fio[0], fio[1]), ((0, 0), writes), "rw={rw}");
    }
}

#[test]
fn trim_counts_follow_number_ios_numjobs_and_block_ranges() {
    const JOB: &str = "--name=t --filename=f --size=1m --bs=64k --ioengine=falloc";
    for extra in [
        "--rw=trim --number_ios=10",
        "--rw=randtrimwrite --number_ios=10",
        "--rw=trimwrite --numjobs=2 --group_reporting",
        "--rw=trim --bs=4k,16k",
    ] {
        let args = format!("{JOB} {extra}");
        let Some(fio) = fio_counts(real_dir().path(), &args) else {
            return;
        };
        let ours = counts(&fio_ok_in(real_dir().path(), &args));
        eprintln!("{extra}: fio {fio:?}, diskbench {ours:?}");
        assert_eq!(ours, fio, "{extra}");
    }
}

#[test]
fn a_trim_job_frees_the_blocks_of_a_file_it_may_change() {
    let dir = real_dir();
    let file = dir.path().join("data.bin");
    let content = data_file(&file, 4 << 20);
    let before = allocated(&file);
    assert!(before >= 4 << 20, "{before}");
    let args = format!(
        "--name=t --filename={} --size=4m --bs=64k --rw=trim",
        file.display()
    );
    // A trim destroys data as a write does: a user's file needs --allow-overwrite.
    let out = fio_in(dir.path(), &args);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("--allow-overwrite"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(allocated(&file), before);
    assert!(
        std::fs::read(&file).unwrap() == content,
        "a refused job trimmed"
    );

    let doc = fio_ok_in(dir.path(), &format!("{args} --allow-overwrite"));
    assert_eq!(counts(&doc)[2], (4096, 64));
    let after = allocated(&file);
    eprintln!("allocated bytes: {before} before the trims, {after} after");
    assert!(after < before / 2, "{before} -> {after}");
    let meta = std::fs::metadata(&file).unwrap();
    assert_eq!(meta.len(), 4 << 20, "a trim keeps the length");
    assert!(std::fs::read(&file).unwrap().iter().all(|&b| b == 0));
}

#[test]
fn readonly_refuses_a_trim_job() {
    let dir = real_dir();
    let file = dir.path().join("data.bin");
    data_file(&file, 1 << 20);
    let before = allocated(&file);
    let out = fio_in(
        dir.path(),
        &format!(
            "--readonly --allow-overwrite --name=t --filename={} --size=1m --rw=randtrim",
            file.display()
        ),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(err.contains("job 't' trims (rw=randtrim)"), "{err}");
    assert!(
        err.contains("--readonly refuses every write and trim"),
        "{err}"
    );
    assert_eq!(allocated(&file), before);
}

#[test]
fn randtrim_on_a_loop_device_discards_its_blocks() {
    let dir = real_dir();
    let image = dir.path().join("disk.img");
    data_file(&image, 16 << 20);
    let before = allocated(&image);
    if std::process::Command::new("losetup")
        .arg("--version")
        .output()
        .is_err()
    {
        testbed::skip("losetup is not installed");
        return;
    }
    let Some(dev) = Loop::attach(&image) else {
        testbed::skip("needs root and a free loop device");
        return;
    };
    let args = format!(
        "--name=t --filename={} --size=8m --bs=64k --rw=randtrim",
        dev.device
    );
    let out = fio_in(dir.path(), &args);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("--allow-destructive"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(allocated(&image), before);

    let doc = fio_ok_in(dir.path(), &format!("{args} --allow-destructive"));
    assert_eq!(counts(&doc)[2], (8192, 128));
    drop(dev);
    // The loop driver turns a discard into a hole in its image.
    let after = allocated(&image);
    eprintln!("loop image allocated bytes: {before} before, {after} after trimming 8 MiB");
    assert!(after <= before - (7 << 20), "{before} -> {after}");
}

#[test]
fn a_time_based_trim_job_has_per_second_samples() {
    // Trims have their place in the per-second series: fio's bw_* and
    // iops_* sample figures, the normal output's bw/iops lines and terse
    // v4's trim samples come from it, and the depth kept (Little's law)
    // counts the time each trim took.
    let dir = real_dir();
    let job = "--name=t --rw=randtrim --size=16m --runtime=2 --time_based";
    let doc = fio_ok_in(dir.path(), job);
    let j = &doc["jobs"][0];
    let t = &j["trim"];
    assert_eq!(t["iops_samples"], 2, "{t}");
    let (iops, mean) = (
        t["iops"].as_f64().unwrap(),
        t["iops_mean"].as_f64().unwrap(),
    );
    assert!(
        iops > 0.0 && (mean - iops).abs() / iops < 0.25,
        "{iops} vs {mean}"
    );
    assert!(t["bw_min"].as_u64().unwrap() > 0, "{t}");
    let kept = j["diskbench"]["mean_depth"].as_f64().unwrap();
    assert!(
        (0.5..=1.01).contains(&kept),
        "a synchronous trim loop keeps up to 1: {kept}"
    );
    let out = diskbench()
        .current_dir(dir.path())
        .args(["fio", "--no-save", "--minimal", "--terse-version=4"])
        .args(job.split_whitespace())
        .output()
        .unwrap();
    let line = stdout_of(&out);
    let fields: Vec<&str> = line.trim_end().split(';').collect();
    // The trim block starts after 5 + 2 x 41 fields; its bw min is 36 on.
    assert_ne!(fields[5 + 82 + 36], "0", "{line}");
}

/// The `(direction, bs, offset)` columns of each line of a log.
fn log_columns(path: &Path) -> Vec<(u64, u64, u64)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|line| {
            let v: Vec<u64> = line.split(',').map(|f| f.trim().parse().unwrap()).collect();
            (v[2], v[3], v[4])
        })
        .collect()
}

/// fio logs each trim as direction 2, at the block it trims; in `trimwrite`
/// the write of the same block follows it. Sequential, so line for line
/// the same as fio's, in the bandwidth, latency and histogram logs.
#[test]
fn trims_are_logged_as_fio_logs_them() {
    const JOB: &str = "--name=t --ioengine=null --filesize=64k --log_offset=1 --per_job_logs=0 \
                       --write_bw_log=b --write_lat_log=l --write_hist_log=h --log_hist_msec=1000";
    for rw in ["trim", "trimwrite"] {
        let args = format!("{JOB} --rw={rw}");
        let fio_dir = real_dir();
        let Some(_) = real_fio_json_in(fio_dir.path(), &args) else {
            return;
        };
        let dir = real_dir();
        fio_ok_in(dir.path(), &args);
        for log in ["b_bw.log", "l_clat.log", "l_lat.log"] {
            let (fio, ours) = (
                log_columns(&fio_dir.path().join(log)),
                log_columns(&dir.path().join(log)),
            );
            assert!(fio.iter().any(|l| l.0 == 2), "rw={rw} {log}: fio {fio:?}");
            assert_eq!(ours, fio, "rw={rw} {log}");
        }
        // The histogram log: trims have lines of their own (direction 2);
        // fio 3.33 drops a last partial interval, which diskbench writes, so
        // fio's directions are among ours.
        let dirs = |d: &Path| -> Vec<String> {
            let text = std::fs::read_to_string(d.join("h_clat_hist.log")).unwrap();
            let mut dirs: Vec<String> = text
                .lines()
                .map(|l| l.split(',').nth(1).unwrap().trim().to_string())
                .collect();
            dirs.sort();
            dirs.dedup();
            dirs
        };
        let (fio, ours) = (dirs(fio_dir.path()), dirs(dir.path()));
        assert!(
            ours.contains(&"2".to_string()),
            "rw={rw} hist log: {ours:?}"
        );
        assert!(
            fio.iter().all(|d| ours.contains(d)),
            "rw={rw}: fio {fio:?}, diskbench {ours:?}"
        );
    }
}

/// A third part of the sizes is the trims' (`bs=4k,4k,8k`: 8 KiB trims),
/// and in `randtrimwrite` the write that follows a trim has its size: the
/// counts are fio's. (Sequential `trimwrite` with a third part of its own
/// is left out: fio 3.33 then writes smaller blocks than it trims, against
/// its HOWTO's "the same blocks will be written to"; and so is `randtrim`
/// with a trim size above the others': fio's random map then counts in the
/// smallest size of all directions and ends the job early.)
#[test]
fn trims_take_the_third_part_of_bs_as_fio() {
    const JOB: &str = "--name=t --ioengine=null --size=256k --randrepeat=1";
    for extra in [
        "--rw=trim --bs=4k,4k,8k",
        "--rw=randtrimwrite --bs=4k,4k,8k --norandommap",
        "--rw=trim --bsrange=1k-1k,2k-2k,8k-8k",
        "--rw=trim --bs=16k,16k,",
    ] {
        let args = format!("{JOB} {extra}");
        let Some(fio) = fio_counts(real_dir().path(), &args) else {
            return;
        };
        let ours = counts(&fio_ok_in(real_dir().path(), &args));
        assert_eq!(ours, fio, "{extra}: (read, write, trim KiB and I/Os)");
    }
}
