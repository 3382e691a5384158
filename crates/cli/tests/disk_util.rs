//! What the kernel saw (fio's `disk_util`): the block layer's counters of
//! the device under the job, read around its I/O. On a loop device the
//! count is known: psync does one direct 4 KiB random read at a time, and
//! the loop device neither merges nor splits them, so 1024 reads asked are
//! 1024 requests counted. Lowering the device's max_sectors_kb makes the
//! kernel split large I/Os, which the mean request size shows.

mod common;
use common::*;

/// Requests on the device that are not the job's. No udev runs here, but
/// where one does, its blkid probe of a newly attached device (a few reads
/// of the superblock areas) may still be in flight when the job starts.
const FOREIGN_READS: u64 = 32;

/// An 8 MiB image on a real filesystem and a loop device over it.
fn loop_device() -> Option<(tempfile::TempDir, Loop)> {
    let dir = real_dir();
    let image = dir.path().join("disk.img");
    std::fs::File::create(&image).ok()?.set_len(8 << 20).ok()?;
    let dev = Loop::attach(&image)?;
    Some((dir, dev))
}

fn kernel_name(dev: &Loop) -> String {
    dev.device.trim_start_matches("/dev/").to_string()
}

/// 1024 direct 4 KiB random reads, one at a time.
fn known_reads(dev: &Loop, format: &str) -> std::process::Output {
    let out = diskbench()
        .args([
            "fio",
            "--name=known",
            "--rw=randread",
            "--bs=4k",
            "--size=8m",
        ])
        .args([
            "--io_size=4m",
            "--direct=1",
            "--ioengine=psync",
            "--no-save",
        ])
        .arg(format!("--filename={}", dev.device))
        .arg(format!("--output-format={format}"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    out
}

#[test]
fn the_kernel_counts_the_reads_the_job_made() {
    let Some((_dir, dev)) = loop_device() else {
        eprintln!("skipped: needs root and a free loop device");
        return;
    };
    let name = kernel_name(&dev);
    let doc = json_of(&known_reads(&dev, "json"));
    assert_eq!(doc["jobs"][0]["read"]["total_ios"], 1024);
    let keys: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    let at = |k: &str| keys.iter().position(|x| *x == k);
    assert_eq!(at("disk_util"), at("jobs").map(|j| j + 1), "{keys:?}");
    let disks = doc["disk_util"].as_array().expect("disk_util");
    assert_eq!(disks.len(), 1, "a loop device has no slaves: {disks:?}");
    let d = &disks[0];
    assert_eq!(d["name"], name.as_str());
    let reads = d["read_ios"].as_u64().unwrap();
    assert!(
        (1024..=1024 + FOREIGN_READS).contains(&reads),
        "the kernel counted {reads} reads for the job's 1024: {d}"
    );
    assert_eq!(d["write_ios"], 0);
    assert_eq!(
        d["read_merges"], 0,
        "random reads one at a time do not merge"
    );
    let util = d["util"].as_f64().expect("util is a float, as fio's");
    assert!((0.0..=100.0).contains(&util), "util {util}");
    let extras = &doc["diskbench"]["disk_util"][0];
    if reads == 1024 {
        assert_eq!(extras["mean_request_bytes"], 4096, "{extras}");
    }
    // The wall time util divides covers the job's I/O (and the workers'
    // start, a few ms; the bound leaves room for a busy machine). Both are
    // whole milliseconds rounded apart: 47.9 ms of wall shows as 47 beside
    // a runtime of 48.
    let wall = extras["time_ms"].as_u64().unwrap();
    let runtime = doc["jobs"][0]["job_runtime"].as_u64().unwrap();
    assert!(
        wall + 1 >= runtime && wall <= runtime + 200,
        "{wall} ms for {runtime}"
    );

    let text = String::from_utf8_lossy(&known_reads(&dev, "normal").stdout).into_owned();
    let block = format!("\nDisk stats (read/write):\n  {name}: ios=");
    assert!(text.contains(&block), "{text}");
    assert!(text.contains(", in_queue=") && text.trim_end().ends_with('%'));

    let terse = String::from_utf8_lossy(&known_reads(&dev, "terse").stdout).into_owned();
    let fields: Vec<&str> = terse.trim_end().split(';').collect();
    assert_eq!(fields.len(), 121 + 9, "{terse}");
    assert_eq!(fields[121], name);
    assert!(fields[129].ends_with('%'), "{terse}");
}

/// Puts a queue limit back when dropped: a loop device keeps what was
/// written there across detach and attach, and others use these devices.
struct QueueLimit {
    path: std::path::PathBuf,
    was: String,
}

impl QueueLimit {
    fn set(dev: &Loop, limit: &str, value: &str) -> Option<QueueLimit> {
        let path = std::path::Path::new("/sys/block")
            .join(kernel_name(dev))
            .join("queue")
            .join(limit);
        let was = std::fs::read_to_string(&path).ok()?.trim().to_string();
        std::fs::write(&path, value).ok()?;
        Some(QueueLimit { path, was })
    }
}

impl Drop for QueueLimit {
    fn drop(&mut self) {
        let _ = std::fs::write(&self.path, &self.was);
    }
}

fn split_warnings(dev: &Loop, bs: &str) -> Vec<serde_json::Value> {
    let out = diskbench()
        .args(["fio", "--name=big", "--rw=read", "--size=8m", "--direct=1"])
        .args(["--ioengine=psync", "--output-format=json", "--no-save"])
        .arg(format!("--bs={bs}"))
        .arg(format!("--filename={}", dev.device))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let warnings = doc["diskbench"]["warnings"].as_array().unwrap();
    warnings
        .iter()
        .filter(|w| w["kind"] == "requests_split")
        .cloned()
        .collect()
}

#[test]
fn requests_split_by_the_device_are_warned() {
    let Some((_dir, dev)) = loop_device() else {
        eprintln!("skipped: needs root and a free loop device");
        return;
    };
    let name = kernel_name(&dev);
    // 256 KiB fits the loop device's limits (1280 KiB, 128 segments): no split.
    assert_eq!(
        split_warnings(&dev, "256k"),
        Vec::<serde_json::Value>::new()
    );
    let Some(_limit) = QueueLimit::set(&dev, "max_sectors_kb", "64") else {
        eprintln!("skipped: max_sectors_kb of {name} cannot be written");
        return;
    };
    let found = split_warnings(&dev, "1m");
    let [w] = &found[..] else {
        panic!("one requests_split warning expected: {found:?}");
    };
    assert_eq!(w["device"], name.as_str());
    assert_eq!(w["asked_bytes"], 1 << 20);
    // 16 requests of 64 KiB per I/O; a stray small request lowers the mean.
    let received = w["received_bytes"].as_u64().unwrap();
    assert!((60 << 10..=64 << 10).contains(&received), "{w}");
    let message = w["message"].as_str().unwrap();
    for needle in [
        name.as_str(),
        "64.0 KiB",
        "1.0 MiB",
        "max_sectors_kb",
        "max_segments",
    ] {
        assert!(message.contains(needle), "{needle:?} in {message}");
    }
}

#[test]
fn no_block_device_no_disk_util() {
    // The null engine touches no device; fio leaves the key out then.
    let out = diskbench()
        .args([
            "fio",
            "--name=n",
            "--ioengine=null",
            "--size=1m",
            "--rw=read",
        ])
        .args(["--output-format=json", "--no-save"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    assert!(doc.get("disk_util").is_none(), "{doc}");
    let normal = diskbench()
        .args([
            "fio",
            "--name=n",
            "--ioengine=null",
            "--size=1m",
            "--rw=read",
        ])
        .args(["--output-format=normal", "--no-save"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&normal.stdout).contains("Disk stats"));
    // Memory (tmpfs) is on no block device either.
    if let Ok(dir) = tempfile::tempdir_in("/dev/shm") {
        let out = diskbench()
            .args(["fio", "--name=m", "--size=1m", "--rw=read", "--bs=64k"])
            .args(["--output-format=json", "--no-save"])
            .arg(format!("--directory={}", dir.path().display()))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        assert!(json_of(&out).get("disk_util").is_none());
    }
}
