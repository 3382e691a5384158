//! The queue depth a job asks for is the depth it gets. On a device faster
//! than the tool (a loop device over a file in /dev/shm), a benchmark that
//! refills its queue slowly keeps fewer I/Os in flight than `iodepth` and
//! reports a shallower queue's figures under the deeper queue's name. The
//! mean depth kept is Little's law, IOPS x mean lat, which the JSON carries
//! as `diskbench.mean_depth`; fio keeps 0.99-1.00 of `iodepth` there.

mod common;
use common::*;

/// A loop device over a sparse file in /dev/shm: reads cost the kernel a
/// few microseconds, so the tool is the limit.
fn fast_device() -> Option<(tempfile::TempDir, Loop)> {
    if !std::path::Path::new("/dev/shm").is_dir() {
        return None;
    }
    let dir = tempfile::tempdir_in("/dev/shm").ok()?;
    let image = dir.path().join("fast.img");
    std::fs::File::create(&image)
        .ok()?
        .set_len(256 << 20)
        .ok()?;
    let dev = Loop::attach(&image)?;
    Some((dir, dev))
}

fn randread(device: &str, iodepth: u32, extra: &[&str]) -> serde_json::Value {
    let out = diskbench()
        .args(["fio", "--name=qd", "--rw=randread", "--bs=4k", "--direct=1"])
        .args(["--ioengine=io_uring", "--runtime=2", "--time_based"])
        .args(["--output-format=json", "--no-save"])
        .arg(format!("--iodepth={iodepth}"))
        .arg(format!("--filename={device}"))
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    json_of(&out)
}

#[test]
fn the_depth_asked_is_kept_on_a_device_faster_than_the_tool() {
    let Some((_dir, dev)) = fast_device() else {
        testbed::skip("needs root, /dev/shm and a free loop device");
        return;
    };
    for (iodepth, bucket) in [(8, "8"), (32, "32"), (64, ">=64")] {
        let doc = randread(&dev.device, iodepth, &[]);
        let job = &doc["jobs"][0];
        let kept = job["diskbench"]["mean_depth"].as_f64().expect("mean_depth");
        assert!(
            kept >= 0.97 * iodepth as f64,
            "QD{iodepth}: kept {kept:.2} in flight (IOPS x mean lat)"
        );
        // The kernel's own count of the device's queue (in_queue over the
        // wall time, iostat's aqu-sz) is a figure the tool did not make.
        // The device can never have had more in flight than the tool kept:
        // the tool's count also spans submission and reaping. (On this
        // device it is far fewer, 9-15 of 32 for fio and diskbench alike:
        // the tool, not the device, is the limit.)
        let disk = &doc["diskbench"]["disk_util"][0];
        let device_depth = disk["mean_queue_depth"].as_f64().expect("mean_queue_depth");
        let in_queue_ms = doc["disk_util"][0]["in_queue"].as_f64().unwrap();
        let time_ms = disk["time_ms"].as_f64().unwrap();
        assert!(
            (device_depth - in_queue_ms / time_ms).abs() < 1e-3,
            "{disk}"
        );
        assert!(
            device_depth > 0.0 && device_depth <= kept * 1.02,
            "QD{iodepth}: the device's own counters say {device_depth:.2} in its queue, \
             more than the {kept:.2} the tool says it kept"
        );
        // fio's distribution: nearly every I/O was submitted at full depth.
        let level = job["iodepth_level"][bucket]
            .as_f64()
            .expect("iodepth_level");
        assert!(level >= 90.0, "QD{iodepth}: {level}% at depth {bucket}");
        let warned = doc["diskbench"]["warnings"]
            .as_array()
            .into_iter()
            .flatten();
        let kinds: Vec<_> = warned.map(|w| w["kind"].clone()).collect();
        assert!(!kinds.iter().any(|k| k == "depth_not_kept"), "{kinds:?}");
    }
}

#[test]
fn the_depth_distributions_reach_every_output_format() {
    let dir = real_dir();
    let file = dir.path().join("f");
    let base = format!(
        "--name=d --filename={} --size=8m --rw=randread --bs=4k --ioengine=io_uring \
         --direct=1 --iodepth=4 --io_size=4m",
        file.display()
    );
    let normal = fio_in(dir.path(), &format!("{base} --output-format=normal"));
    assert!(normal.status.success(), "{}", stderr_of(&normal));
    let text = stdout_of(&normal);
    let depths = text.lines().find(|l| l.starts_with("  IO depths    :"));
    let depths = depths.unwrap_or_else(|| panic!("no IO depths line:\n{text}"));
    // 1,024 I/Os at depth 4: the first three were submitted at 1 to 3.
    assert!(depths.contains(" 4=99."), "{depths}");
    assert!(text.contains("     submit    : 0=0.0%, 4=100.0%"), "{text}");
    // fio's normal output has no line for the depth kept: neither has ours.
    assert!(!text.contains("kept      :"), "{text}");

    let terse = fio_in(dir.path(), &format!("{base} --output-format=terse"));
    let fields: Vec<String> = stdout_of(&terse)
        .trim()
        .split(';')
        .map(String::from)
        .collect();
    // fio's terse v3: the 7 depth fields follow the 5 CPU fields (fields 92-98).
    let level: Vec<&str> = fields[92..99].iter().map(String::as_str).collect();
    assert!(level[2].starts_with("99."), "{level:?}");
    assert_eq!(level[6], "0.0%", "{level:?}");

    let doc = fio_ok_in(dir.path(), &base);
    let job = &doc["jobs"][0];
    for key in ["iodepth_level", "iodepth_submit", "iodepth_complete"] {
        let total: f64 = job[key]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_f64().unwrap())
            .sum();
        assert!((99.0..=101.0).contains(&total), "{key} adds up to {total}");
    }
}

/// A synchronous engine keeps one I/O in flight: the suite's QD8 and QD32
/// tests run at QD1 under QD1 names (each shape once), and say so.
#[test]
fn run_with_psync_names_its_tests_for_the_depth_that_ran() {
    let dir = real_dir();
    let out = diskbench()
        .args(["run", "--quick", "--json", "--no-save", "--engine", "psync"])
        .args(["--size", "4m", "--runtime", "100ms"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(err.contains("queue depth will be capped at 1"), "{err}");
    let doc = json_of(&out);
    let names = job_names(&doc);
    assert_eq!(
        names,
        [
            "seq-read-1m-qd1",
            "seq-write-1m-qd1",
            "rand-read-4k-qd1",
            "rand-write-4k-qd1",
            "mixed-4k-qd1"
        ]
    );
    for j in doc["jobs"].as_array().unwrap() {
        assert_eq!(j["job options"]["iodepth"], "1", "{}", j["jobname"]);
    }
}

#[test]
fn a_sync_job_asking_for_a_deeper_queue_is_warned_about() {
    let dir = real_dir();
    let out = diskbench()
        .args([
            "fio",
            "--name=deep",
            "--rw=randread",
            "--bs=4k",
            "--size=1m",
        ])
        .args(["--ioengine=psync", "--iodepth=8", "--no-save"])
        // diskbench fio keeps its checks off stderr unless asked.
        .arg("--diskbench-checks")
        .arg(format!("--directory={}", dir.path().display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.contains("job 'deep': iodepth=8 with ioengine=psync") && err.contains("capped at 1"),
        "{err}"
    );
}

/// `serialize_overlap=1`: an I/O overlapping one in flight waits for it.
/// A file of two blocks can then have at most two I/Os in flight, whatever
/// `iodepth` (fio 3.33 keeps 1 and 2 there); without it the queue is kept
/// full. Read from fio's depth distribution (`iodepth_level`).
#[test]
fn serialize_overlap_keeps_overlapping_ios_apart() {
    let dir = real_dir();
    let job = |serialize: u8| {
        format!(
            "--name=t --ioengine=libaio --direct=1 --filename={} --size=8k --bs=4k \
             --rw=randwrite --norandommap --iodepth=16 --time_based --runtime=1 \
             --serialize_overlap={serialize}",
            dir.path().join("f").display()
        )
    };
    // The share of submissions made with more than `above` I/Os in flight.
    let deeper = |doc: &serde_json::Value, above: u64| -> f64 {
        let levels = doc["jobs"][0]["iodepth_level"].as_object().unwrap();
        levels
            .iter()
            .filter(|(k, _)| k.trim_start_matches(">=").parse::<u64>().unwrap() > above)
            .map(|(_, v)| v.as_f64().unwrap())
            .sum()
    };
    let out = fio_in(dir.path(), &format!("{} --allow-overwrite", job(1)));
    if !out.status.success() && stderr_of(&out).contains("libaio") {
        testbed::skip("libaio is not usable here");
        return;
    }
    assert!(out.status.success(), "{}", stderr_of(&out));
    let serialized = json_of(&out);
    assert_eq!(
        deeper(&serialized, 2),
        0.0,
        "{}",
        serialized["jobs"][0]["iodepth_level"]
    );
    assert!(
        serialized["jobs"][0]["write"]["total_ios"]
            .as_u64()
            .unwrap()
            > 0
    );
    let free = fio_ok_in(dir.path(), &format!("{} --allow-overwrite", job(0)));
    assert!(
        deeper(&free, 2) > 50.0,
        "{}",
        free["jobs"][0]["iodepth_level"]
    );
}
