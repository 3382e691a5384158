//! `diskbench ping` (ioping): its request count, its
//! summary and JSON, its safety rules for writes, its bad input and its
//! signals. Every run is short (`-c 5 -i 0`, small working sets).

mod common;
use common::*;
use std::path::Path;
use std::process::Command as StdCommand;
use std::time::Duration;

fn ping(args: &[&str], target: &Path) -> std::process::Output {
    diskbench()
        .arg("ping")
        .args(args)
        .arg(target)
        .output()
        .unwrap()
}

/// Lines of ioping's per-request form.
fn request_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.contains(": request=")).collect()
}

#[test]
fn ping_makes_count_requests_the_first_a_warmup() {
    let dir = real_dir();
    let out = ping(&["-c", "5", "-i", "0"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    let lines = request_lines(&text);
    assert_eq!(lines.len(), 5, "{text}");
    assert!(lines[0].starts_with("4 KiB <<< "), "{text}");
    assert!(lines[0].ends_with("(warmup)"), "{text}");
    assert!(lines[1].contains("request=2 time="), "{text}");
    assert!(!lines[1].contains("warmup"), "{text}");
    assert!(
        text.contains(" ioping statistics ---\n4 requests completed in "),
        "{text}"
    );
    assert!(text.contains("\ngenerated 5 requests in "), "{text}");
    assert!(text.contains("\nmin/avg/max/mdev = "), "{text}");
    assert!(text.contains("\np50/p90/p99/p99.9 = "), "{text}");
    assert!(
        text.contains("request 1 was a warmup, not counted"),
        "{text}"
    );
    assert!(text.contains("direct I/O"), "ext4 takes O_DIRECT: {text}");
    assert!(
        entries(dir.path()).is_empty(),
        "the temporary file was left"
    );
}

#[test]
fn ping_json_summary_has_its_keys_and_ordered_latencies() {
    let dir = real_dir();
    let out = ping(&["-c", "6", "-i", "0", "-S", "64k", "--json"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let s = &doc["summary"];
    for key in [
        "count",
        "min_ns",
        "avg_ns",
        "max_ns",
        "mdev_ns",
        "iops",
        "bytes_per_sec",
        "percentiles",
    ] {
        assert!(!s[key].is_null(), "summary lacks {key}: {s}");
    }
    assert_eq!(s["count"], 5);
    let (min, avg, max) = (
        s["min_ns"].as_f64().unwrap(),
        s["avg_ns"].as_f64().unwrap(),
        s["max_ns"].as_f64().unwrap(),
    );
    assert!(0.0 < min && min <= avg && avg <= max, "{s}");
    let p50 = s["percentiles"]["50.000000"].as_f64().unwrap();
    let p999 = s["percentiles"]["99.900000"].as_f64().unwrap();
    assert!(min <= p50 && p50 <= p999 && p999 <= max, "{s}");
    let iops = s["iops"].as_f64().unwrap();
    assert!(
        (iops - 1e9 / avg).abs() / iops < 1e-6,
        "ioping's iops is 1/avg: {s}"
    );
    assert_eq!(s["generated"]["count"], 6);
    let requests = doc["requests"].as_array().unwrap();
    assert_eq!(requests.len(), 6);
    assert_eq!(requests[0]["notice"], "warmup");
    for r in requests {
        let off = r["offset_bytes"].as_u64().unwrap();
        assert!(
            off % 4096 == 0 && off < 65536,
            "offset {off} outside -S 64k"
        );
    }
    assert_eq!(doc["io"]["mode"], "direct");
    assert_eq!(doc["io"]["work_size_bytes"], 65536);
}

#[test]
fn ping_linear_goes_in_order_and_wraps() {
    let dir = real_dir();
    let args = [
        "-L", "-s", "16k", "-S", "64k", "-c", "6", "-i", "0", "--json",
    ];
    let out = ping(&args, dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let offsets: Vec<u64> = json_of(&out)["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["offset_bytes"].as_u64().unwrap() / 1024)
        .collect();
    assert_eq!(offsets, [0, 16, 32, 48, 0, 16]);
}

#[test]
fn ping_quiet_prints_only_the_summary() {
    let dir = real_dir();
    let out = ping(&["-q", "-c", "5", "-i", "0"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    assert!(request_lines(&text).is_empty(), "{text}");
    assert!(text.starts_with("\n--- "), "{text}");
    assert!(text.contains("4 requests completed"), "{text}");
}

#[test]
fn ping_batch_prints_iopings_raw_line() {
    let dir = real_dir();
    let out = ping(&["-B", "-c", "4", "-i", "0"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    let fields: Vec<u64> = text
        .split_whitespace()
        .map(|f| f.parse().unwrap())
        .collect();
    assert_eq!(fields.len(), 10, "{text}");
    assert_eq!((fields[0], fields[8]), (3, 4), "{text}");
    assert!(fields[4] <= fields[5] && fields[5] <= fields[6], "{text}");
}

#[test]
fn ping_interval_spaces_requests() {
    let dir = real_dir();
    let out = ping(&["-c", "3", "-i", "200ms", "--json"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    // Three requests 200 ms apart, by ping's own clock from the first.
    let spread = json_of(&out)["summary"]["generated"]["time_ns"]
        .as_u64()
        .unwrap();
    assert!(spread >= 400_000_000, "{spread} ns");
    let rapid = ping(&["-R", "-w", "300ms", "--json"], dir.path());
    assert_eq!(rapid.status.code(), Some(0), "{}", stderr_of(&rapid));
    let doc = json_of(&rapid);
    assert!(doc["requests"].is_null(), "-R is quiet");
    assert!(doc["summary"]["generated"]["count"].as_u64().unwrap() > 10);
    assert_eq!(doc["io"]["work_size_bytes"], 64 << 20);
}

#[test]
fn ping_write_uses_its_own_file_and_leaves_nothing() {
    let dir = real_dir();
    let mine = dir.path().join("mine.dat");
    std::fs::write(&mine, b"the user's data").unwrap();
    let out = ping(&["-W", "-c", "5", "-i", "0"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    assert_eq!(request_lines(&text).len(), 5);
    assert!(text.contains("4 KiB >>> "), "{text}");
    assert!(text.contains(" KiB written, "), "{text}");
    assert!(text.contains("fdatasync after each write"), "{text}");
    assert_eq!(entries(dir.path()), std::slice::from_ref(&mine));
    assert_eq!(std::fs::read(&mine).unwrap(), b"the user's data");
}

#[test]
fn ping_never_writes_a_users_file_without_www() {
    let dir = real_dir();
    let file = dir.path().join("data.bin");
    let pattern: Vec<u8> = (0..(256u32 << 10)).map(|i| (i % 251) as u8).collect();
    std::fs::write(&file, &pattern).unwrap();
    for flags in [&["-W"][..], &["-WW"], &["-W", "-C"]] {
        let args: Vec<&str> = flags
            .iter()
            .copied()
            .chain(["-c", "3", "-i", "0"])
            .collect();
        let out = ping(&args, &file);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {}", stderr_of(&out));
        let err = stderr_of(&out);
        assert!(
            err.contains("-WWW") && err.contains("--allow-destructive"),
            "{err}"
        );
        assert!(request_lines(&stdout_of(&out)).is_empty());
    }
    let out = ping(&["-c", "3", "-i", "0"], &file);
    assert_eq!(
        out.status.code(),
        Some(0),
        "reading is fine: {}",
        stderr_of(&out)
    );
    assert_eq!(
        std::fs::read(&file).unwrap(),
        pattern,
        "the file was written"
    );
    // The refusal is what kept it intact: -WWW, as ioping asks, writes.
    let out = ping(&["-WWW", "-c", "3", "-i", "0"], &file);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_ne!(std::fs::read(&file).unwrap(), pattern);
    assert_eq!(entries(dir.path()), [file]);
}

#[test]
fn ping_bad_input_exits_2_and_says_how_to_fix_it() {
    let dir = real_dir();
    let missing = dir.path().join("nowhere");
    let cases: [(&[&str], &Path, &str); 7] = [
        (&["-s", "4x"], dir.path(), "unknown suffix 'x'"),
        (&["-s", "0"], dir.path(), "greater than zero"),
        (
            &["-i", "5 parsecs"],
            dir.path(),
            "-i: '5 parsecs' is not a time",
        ),
        (&["-c", "1.5"], dir.path(), "whole number"),
        (&["-D", "-s", "100"], dir.path(), "not a multiple of"),
        (&["-s", "2m", "-S", "1m"], dir.path(), "too big"),
        (&[], &missing, "does not exist"),
    ];
    for (args, target, wanted) in cases {
        let out = ping(args, target);
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(wanted), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let out = ping(&["-s", "4x", "--json"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(json_of(&out)["error"].as_str().unwrap().contains("'4x'"));
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn ping_modes_direct_by_default_else_iopings_non_cached_or_cached() {
    let dir = real_dir();
    let mode = |args: &[&str]| {
        let mut all = vec!["-c", "3", "-i", "0", "--json"];
        all.extend_from_slice(args);
        let out = ping(&all, dir.path());
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr_of(&out));
        (json_of(&out)["io"]["mode"].clone(), stderr_of(&out))
    };
    assert_eq!(mode(&[]).0, "direct");
    // 1000 bytes cannot be read with O_DIRECT: ioping's own method, said so.
    let (m, err) = mode(&["-s", "1000"]);
    assert_eq!(m, "non-cached");
    assert!(err.contains("posix_fadvise DONTNEED"), "{err}");
    assert_eq!(mode(&["-C"]).0, "cached");
    assert_eq!(mode(&["-D", "-C"]).0, "direct");
}

#[test]
fn ping_ctrl_c_prints_the_summary_so_far() {
    let dir = real_dir();
    let target = dir.path().display().to_string();
    let interval = Duration::from_secs(20);
    let before = Duration::from_millis(800);
    let (out, after) = interrupt(["ping", "-i", "20s", &target], before, &["INT"]);
    // The signal cuts the sleep after the first request short, as it cuts
    // ioping's: the command ended before the sleep it was given, which it
    // began after the first request, so a sleep slept to its end would
    // make it last longer than the interval.
    assert!(before + after < interval, "{:?}", before + after);
    assert_eq!(out.status.code(), Some(130), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    assert_eq!(request_lines(&text).len(), 1, "{text}");
    assert!(text.contains("0 requests completed"), "{text}");
    assert!(text.contains("ioping statistics"), "{text}");
    assert!(stderr_of(&out).contains("interrupted"));
    assert!(
        entries(dir.path()).is_empty(),
        "the temporary file was left"
    );
}

#[test]
fn ping_refuses_to_write_a_block_device() {
    if !is_root() {
        testbed::skip("needs root for a loop device");
        return;
    }
    let dir = real_dir();
    let image = dir.path().join("disk.img");
    let pattern: Vec<u8> = (0..(4u32 << 20)).map(|i| (i % 251) as u8).collect();
    std::fs::write(&image, &pattern).unwrap();
    let attached = StdCommand::new("losetup")
        .args(["-f", "--show"])
        .arg(&image)
        .output()
        .unwrap();
    if !attached.status.success() {
        testbed::skip("no free loop device");
        return;
    }
    let device = String::from_utf8_lossy(&attached.stdout).trim().to_string();
    let detach = || {
        let _ = StdCommand::new("losetup").args(["-d", &device]).status();
    };
    let refused = ping(&["-WWW", "-c", "3", "-i", "0"], Path::new(&device));
    let read = ping(&["-c", "3", "-i", "0", "-D"], Path::new(&device));
    detach();
    assert_eq!(refused.status.code(), Some(2), "{}", stderr_of(&refused));
    assert!(stderr_of(&refused).contains("--allow-destructive"));
    assert_eq!(
        std::fs::read(&image).unwrap(),
        pattern,
        "the device was written"
    );
    assert_eq!(read.status.code(), Some(0), "{}", stderr_of(&read));
    assert!(
        stdout_of(&read).contains("(block device 4 MiB)"),
        "{}",
        stdout_of(&read)
    );
}
