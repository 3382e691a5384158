//! fio's `latency_target` in a job, against a device whose speed is known:
//! the testbed's loop device behind a 4000 read IOPS throttle, so an I/O
//! waits QD / 4000 s on average (Little's law: 250 us at QD1, 20 ms at
//! QD80). The search must settle, window by window, on a depth whose
//! latency stays under the target: for 20 ms at p99, at most 80 (of the
//! 128 allowed), and above 1 in one of three runs at least. The throttle
//! lets I/Os through in slices of about 100 ms, so past a few I/Os in
//! flight p99 is some of a slice's wait and the depth found is small and
//! varies from run to run (3 or 4 here, in fio and diskbench alike). The
//! target is far above what depth 1 takes: a 3 ms target was met at
//! depth 2 on a quiet machine, but with the test binaries beside it the
//! scheduler's delays put depth 1's p99 at 8 ms, so the search stayed at 1
//! for the whole runtime. A target below what one I/O takes keeps depth 1
//! for the whole runtime, as fio does, and with `latency_percentile=100`
//! fails the job at its first I/O, as fio does (ETIMEDOUT). Each case runs
//! in real fio too, inside the same throttle, when fio is installed.
//! Skips, with the reason, where the machine cannot hold a testbed.

mod common;
use common::*;
use serde_json::Value;
use std::process::Output;
use std::sync::{Mutex, MutexGuard};
use testbed::Limits;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
const LIMIT_IOPS: u64 = 4000;

fn testbed(name: &str) -> Option<(testbed::Testbed, MutexGuard<'static, ()>)> {
    if let Err(why) = testbed::Testbed::available() {
        testbed::skip(why);
        return None;
    }
    let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let limits = Limits {
        read_iops: LIMIT_IOPS,
        ..Limits::default()
    };
    let tb = testbed::Testbed::up(name, limits).unwrap_or_else(|e| panic!("testbed up: {e}"));
    Some((tb, turn))
}

/// The job, on the testbed's device: 4 KiB random reads, libaio, direct,
/// iodepth 128, time-based, with `extra`.
fn job(tb: &testbed::Testbed, extra: &str) -> Vec<String> {
    format!(
        "--name=t --filename={} --size=64m --rw=randread --bs=4k --ioengine=libaio --direct=1 \
         --iodepth=128 --output-format=json {extra}",
        tb.device()
    )
    .split_whitespace()
    .map(str::to_string)
    .collect()
}

fn diskbench_in(tb: &testbed::Testbed, args: &[String]) -> Output {
    tb.command(assert_cmd::cargo::cargo_bin("diskbench"))
        .env("DISKBENCH_DB", TEST_DB)
        .args(["fio", "--no-save"])
        .args(args)
        .output()
        .unwrap()
}

/// Real fio's output for the same job, or `None` (said) when it is missing.
fn fio_in_testbed(tb: &testbed::Testbed, args: &[String]) -> Option<Output> {
    match tb.command("fio").args(args).output() {
        Ok(out) if !out.stdout.is_empty() || out.status.success() => Some(out),
        _ => {
            testbed::skip("fio is not installed (apt-get install fio)");
            None
        }
    }
}

/// The JSON in fio's output (fio prints error lines before it).
fn json_in(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    let start = text.find('{').unwrap_or_else(|| panic!("no JSON: {text}"));
    serde_json::from_str(&text[start..]).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// `latency_depth`, `latency_target`, `latency_window`, `latency_percentile`
/// and `job_runtime` of the first job.
fn latency_keys(doc: &Value) -> (u64, u64, u64, f64, u64) {
    let j = &doc["jobs"][0];
    let int = |k: &str| j[k].as_u64().unwrap_or_else(|| panic!("{k}: {j}"));
    (
        int("latency_depth"),
        int("latency_target"),
        int("latency_window"),
        j["latency_percentile"].as_f64().unwrap(),
        int("job_runtime"),
    )
}

#[test]
fn a_20ms_p99_target_settles_on_a_depth_whose_latency_is_under_it() {
    let name = format!("lat-target-{}", std::process::id());
    let Some((tb, _turn)) = testbed(&name) else {
        return;
    };
    let args = job(
        &tb,
        "--latency_target=20ms --latency_window=1s --latency_percentile=99 --runtime=30 \
         --time_based",
    );
    // The throttle's slices make p99 noisy: a window at depth 2 can miss
    // the target and the search then settles on 1. Up to three runs, so
    // that one settles above 1.
    let mut depths = Vec::new();
    for _ in 0..3 {
        let depth = settle(&tb, &args);
        depths.push(depth);
        if depth > 1 {
            break;
        }
    }
    assert!(depths.iter().any(|&d| d > 1), "depths found: {depths:?}");
    // The normal output's line, as fio prints it.
    let mut normal: Vec<String> = args
        .iter()
        .filter(|a| !a.starts_with("--output-format"))
        .cloned()
        .collect();
    normal.push("--runtime=10".into());
    let text = stdout_of(&diskbench_in(&tb, &normal));
    let line = text
        .lines()
        .find(|l| {
            l.trim_start()
                .starts_with("latency   : target=20000000, window=1000000,")
        })
        .unwrap_or_else(|| panic!("no latency line\n{text}"));
    assert!(line.contains("percentile=99.00%, depth="), "{line}");

    // fio, the same job in the same throttle.
    let Some(fio) = fio_in_testbed(&tb, &args) else {
        return;
    };
    let (fio_depth, ..) = latency_keys(&json_in(&fio));
    eprintln!("latency_target=20ms p99: depth {depths:?} (diskbench), {fio_depth} (fio)");
    assert!((1..=80).contains(&fio_depth), "fio found {fio_depth}");
}

/// One run of the 20 ms job: checks what every run must show and returns
/// the depth found.
fn settle(tb: &testbed::Testbed, args: &[String]) -> u64 {
    let out = diskbench_in(tb, args);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let (depth, target, window, percentile, runtime_ms) = latency_keys(&doc);
    // fio's units: the target in ns, the window in us.
    assert_eq!((target, window, percentile), (20_000_000, 1_000_000, 99.0));
    // Little's law: past QD80 the mean alone is over 20 ms, and a p99
    // under 20 ms has a mean under it.
    assert!((1..=80).contains(&depth), "depth {depth}");
    // Settled: the figures are the last window's, and the job ended then,
    // long before its runtime.
    assert!(runtime_ms < 30_000, "{runtime_ms} ms: never settled");
    let read = &doc["jobs"][0]["read"];
    let mean_lat_us = read["lat_ns"]["mean"].as_f64().unwrap() / 1e3;
    assert!(
        mean_lat_us <= 20_000.0 * 1.1,
        "mean lat {mean_lat_us} us at depth {depth}"
    );
    // The throttle serves 4000 IOPS at any depth; a 1 s window is off by
    // up to a slice (about 100 ms) at each end, and at depth 1 a loaded
    // machine's late refills leave it idle now and then (3,100 seen).
    let iops = read["iops"].as_f64().unwrap();
    assert!((2500.0..=5000.0).contains(&iops), "{iops} IOPS");
    depth
}

#[test]
fn a_target_below_one_io_at_a_time_keeps_depth_1_or_fails_at_100_percent() {
    let name = format!("lat-below-{}", std::process::id());
    let Some((tb, _turn)) = testbed(&name) else {
        return;
    };
    // A read through the loop device takes at least about 10 us.
    let below = "--latency_target=2us --latency_window=500ms --runtime=3 --time_based";
    let args = job(&tb, &format!("{below} --latency_percentile=99"));
    let out = diskbench_in(&tb, &args);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let (depth, target, _, percentile, runtime_ms) = latency_keys(&json_of(&out));
    assert_eq!((depth, target, percentile), (1, 2000, 99.0));
    // Nothing to settle on: the whole runtime, at depth 1.
    assert!(runtime_ms >= 2900, "{runtime_ms} ms");
    let fio = fio_in_testbed(&tb, &args);
    if let Some(fio) = &fio {
        let (fio_depth, _, _, _, fio_ms) = latency_keys(&json_in(fio));
        assert_eq!(fio_depth, 1);
        assert!(fio_ms >= 2900, "fio ran {fio_ms} ms");
    }

    // Every I/O must meet it: the first one fails the job, as in fio.
    let args = job(&tb, below);
    let out = diskbench_in(&tb, &args);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let (depth, ..) = latency_keys(&doc);
    assert_eq!(depth, 1);
    assert_eq!(doc["jobs"][0]["read"]["total_ios"], 1, "{doc}");
    let err = stderr_of(&out);
    assert!(
        err.contains("over latency_target") && err.contains("latency_percentile=100"),
        "{err}"
    );
    if fio.is_some() {
        let fio = fio_in_testbed(&tb, &args).unwrap();
        let doc = json_in(&fio);
        assert_eq!(doc["jobs"][0]["error"], 110, "fio: ETIMEDOUT\n{doc}");
        assert_eq!(doc["jobs"][0]["read"]["total_ios"], 1);
    }
}
