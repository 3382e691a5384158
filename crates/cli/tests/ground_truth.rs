//! Accuracy against a device whose limit is known exactly: the project's
//! own testbed (`crates/testbed`), a loop device behind a cgroup throttle.
//! A run on it must report what was set. Skips, with the reason, where the
//! machine lacks root, loop devices or a throttle controller. The tests
//! take turns: each measures a rate, and two at once on a 2-core machine
//! would each starve the other's timing.

mod common;
use common::*;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;
use testbed::Limits;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A testbed held with the turn it runs in.
struct Testbed {
    tb: testbed::Testbed,
    _turn: MutexGuard<'static, ()>,
}

impl Testbed {
    /// `None`, with the reason on stderr, where the machine cannot hold one.
    fn up(name: &str, limits: Limits) -> Option<Testbed> {
        if let Err(why) = testbed::Testbed::available() {
            testbed::skip(why);
            return None;
        }
        // A test that failed while holding the turn poisons it; the next
        // test still runs.
        let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let tb = testbed::Testbed::up(name, limits).unwrap_or_else(|e| panic!("testbed up: {e}"));
        Some(Testbed { tb, _turn: turn })
    }

    /// A 5-second direct job on the device.
    fn run(&self, job: &[&str]) -> serde_json::Value {
        let timed = ["--direct=1", "--runtime=5", "--time_based"];
        self.run_as_given(&[&timed[..], job].concat())
    }

    /// `diskbench fio --name=gt` with `job`'s options on the device, inside
    /// the throttle.
    fn run_as_given(&self, job: &[&str]) -> serde_json::Value {
        let out = self
            .tb
            .command(assert_cmd::cargo::cargo_bin("diskbench"))
            .env("DISKBENCH_DB", TEST_DB)
            .args(["fio", "--name=gt", "--output-format=json"])
            .arg(format!("--filename={}", self.tb.device()))
            .args(job)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        json_of(&out)
    }
}

fn riops(n: u64) -> Limits {
    Limits {
        read_iops: n,
        ..Limits::default()
    }
}

fn within(measured: f64, expected: f64, pct: f64) -> bool {
    (measured - expected).abs() / expected * 100.0 <= pct
}

#[test]
fn reports_the_iops_limit_and_the_bandwidth_limit() {
    let name = format!("gt-{}", std::process::id());
    let Some(tb) = Testbed::up(&name, riops(2000)) else {
        return;
    };
    let doc = tb.run(&[
        "--rw=randread",
        "--bs=4k",
        "--iodepth=8",
        "--ioengine=io_uring",
    ]);
    let iops = doc["jobs"][0]["read"]["iops"].as_f64().unwrap();
    assert!(
        within(iops, 2000.0, 2.0),
        "riops=2000 but measured {iops:.1} IOPS"
    );

    let set = tb.tb.set(Limits {
        read_bps: 50 << 20,
        ..Limits::default()
    });
    assert!(set.is_ok(), "{set:?}");
    // libaio and psync, not io_uring: on this kernel the cgroup-v1 throttle
    // charges io_uring's 1 MiB direct reads twice (its io_service_bytes shows
    // exactly double the bytes read), so an io_uring reader really gets half
    // the set rate, and fio's io_uring engine shows the same.
    // A second of ramp: the throttle counts in 100 ms slices and lets a
    // new slice's whole budget through at once, so an idle device starts
    // with a burst of up to 5 MiB, 2% of a 5-second run (measured: 51.06
    // and 51.22 MiB/s some runs, 50.0 +- 0.4 once ramped).
    for engine in ["libaio", "psync"] {
        let ioengine = format!("--ioengine={engine}");
        let doc = tb.run(&[
            "--rw=read",
            "--bs=1m",
            "--iodepth=8",
            "--ramp_time=1",
            &ioengine,
        ]);
        let bw = doc["jobs"][0]["read"]["bw_bytes"].as_f64().unwrap();
        assert!(
            within(bw, (50u64 << 20) as f64, 2.0),
            "{engine}: rbps=50MiB/s but measured {:.2} MiB/s",
            bw / 1048576.0
        );
    }
}

/// The testbed's burst bucket as every test here drives it: 2,000 IOPS
/// while credits last, 500 after, starting full (`--cap` = `--credits`).
struct Bucket {
    credits: u32,
    seconds: u32,
}

/// Runs `job` on the testbed while its burst bucket drains, and returns the
/// job's JSON. The bucket starts full (cap = credits), so nothing drains it
/// before diskbench's I/O begins: the cliff comes `credits / (burst -
/// baseline)` seconds after the start of the measured phase.
fn run_with_bucket(tb: &Testbed, bucket: &Bucket, job: &[&str]) -> serde_json::Value {
    let driver = tb.tb.bucket(testbed::Bucket {
        burst_iops: 2000,
        baseline_iops: 500,
        credits: bucket.credits.into(),
        cap: bucket.credits.into(),
        for_at_most: Some(Duration::from_secs(bucket.seconds.into())),
    });
    std::thread::sleep(Duration::from_millis(1500));
    let doc = tb.run(job);
    let stopped = driver.stop();
    assert!(stopped.is_ok(), "the bucket: {stopped:?}");
    doc
}

#[test]
fn finds_the_burst_bucket_cliff_and_its_size() {
    let name = format!("gtb-{}", std::process::id());
    let Some(tb) = Testbed::up(&name, Limits::default()) else {
        return;
    };
    let bucket = Bucket {
        credits: 15000,
        seconds: 40,
    };
    let doc = run_with_bucket(
        &tb,
        &bucket,
        &[
            "--rw=randread",
            "--bs=4k",
            "--iodepth=8",
            "--ioengine=libaio",
            "--runtime=22",
        ],
    );
    let c = &doc["jobs"][0]["cliff"];
    assert_eq!(c["detected"], true, "{c}");
    // The bucket drains by the I/Os done above the baseline: at 2,000 IOPS
    // it runs dry at 10 s. When the disk under the loop device is busy
    // with other tests' I/O the burst falls short of 2,000 (1,806 was seen)
    // and the credits last longer (11.5 s then): the truth is the time
    // the measured burst rate gives.
    let before = c["before_iops"].as_f64().unwrap();
    assert!((1500.0..=2100.0).contains(&before), "{c}");
    let dry_at = f64::from(bucket.credits) / (before - 500.0);
    let at = c["at_seconds"].as_f64().unwrap();
    assert!(
        (at - dry_at).abs() <= 1.5,
        "cliff at {at} s, the bucket ran dry at {dry_at:.1} s at {before} IOPS"
    );
    assert!(within(c["after_iops"].as_f64().unwrap(), 500.0, 5.0), "{c}");
    assert!(
        within(c["burst_ios"].as_f64().unwrap(), 15000.0, 15.0),
        "{c}"
    );
}

#[test]
fn a_constant_limit_is_not_a_cliff() {
    let name = format!("gtc-{}", std::process::id());
    let Some(tb) = Testbed::up(&name, riops(1500)) else {
        return;
    };
    let doc = tb.run(&[
        "--rw=randread",
        "--bs=4k",
        "--iodepth=8",
        "--ioengine=io_uring",
        "--runtime=15",
    ]);
    assert_eq!(
        doc["jobs"][0]["cliff"]["detected"], false,
        "{}",
        doc["jobs"][0]["cliff"]
    );
}

/// Across runs: the bucket runs dry after 15 s of I/O in a soak
/// of 6-second runs, so in the middle of run 3; `--until-throttled` stops
/// once the cliff is confirmed, and `--recovery-check` idles 6 s (3,000
/// credits at the 500/s baseline) and measures what came back. The gaps
/// between runs refill the bucket a little (500 credits a second), so the
/// truth about *when* is the I/O count before the cliff.
#[test]
fn a_soak_names_the_run_of_the_cliff_stops_there_and_measures_the_recovery() {
    let name = format!("gts-{}", std::process::id());
    let Some(tb) = Testbed::up(&name, Limits::default()) else {
        return;
    };
    let bucket = Bucket {
        credits: 22500,
        seconds: 80,
    };
    let doc = run_with_bucket(
        &tb,
        &bucket,
        &[
            "--rw=randread",
            "--bs=4k",
            "--iodepth=8",
            "--ioengine=libaio",
            "--runtime=6",
            "--until-throttled",
            "--max-duration=60s",
            "--recovery-check=6s",
        ],
    );
    let soak = &doc["soak"];
    let job = &soak["jobs"][0];
    let c = &job["cliff"];
    assert_eq!(c["detected"], true, "{soak}");
    assert_eq!(c["at_run"], 3, "{c}");
    assert!(within(c["at_io"].as_f64().unwrap(), 30_000.0, 15.0), "{c}");
    let run3 = &doc["runs"][2];
    let run3_start = (run3["timestamp_ms"].as_f64().unwrap()
        - doc["runs"][0]["timestamp_ms"].as_f64().unwrap())
        / 1000.0;
    let at = c["at_seconds"].as_f64().unwrap();
    assert!(
        at > run3_start && at < run3_start + 6.0,
        "cliff at {at} s on the soak's clock, run 3 started at {run3_start} s"
    );
    assert!(
        within(c["before_iops"].as_f64().unwrap(), 2000.0, 5.0),
        "{c}"
    );
    assert!(within(c["after_iops"].as_f64().unwrap(), 500.0, 5.0), "{c}");
    assert!(
        within(c["burst_ios"].as_f64().unwrap(), 22500.0, 15.0),
        "{c}"
    );
    assert_eq!(soak["until"]["attained"], true, "{soak}");
    let runs = soak["runs"].as_u64().unwrap();
    assert!(
        (4..=5).contains(&runs),
        "confirmed in run 3 or 4, then the recovery run: {runs} runs"
    );
    let r = &job["recovery"];
    assert_eq!(r["idle_s"], 6.0, "{job}");
    assert!(
        within(r["burst_ios"].as_f64().unwrap(), 3000.0, 25.0),
        "{r}"
    );
    assert!(r["recovered_pct"].as_f64().unwrap() > 80.0, "{r}");
}

/// Steady state (SNIA rounds, one run each): a constant limit is
/// steady within the first window, and `--until-steady` stops there; a
/// bucket that runs dry inside the window is not steady.
#[test]
fn steady_state_on_a_constant_limit_and_not_while_the_bucket_drains() {
    let name = format!("gtss-{}", std::process::id());
    let Some(tb) = Testbed::up(&name, riops(1500)) else {
        return;
    };
    let job = [
        "--rw=randread",
        "--bs=4k",
        "--iodepth=8",
        "--ioengine=libaio",
        "--runtime=2",
    ];
    let doc = tb.run(&[&job[..], &["--until-steady", "--max-duration=60s"]].concat());
    let soak = &doc["soak"];
    let ss = &soak["jobs"][0]["steady_state"];
    assert_eq!(ss["attained"], true, "{soak}");
    assert_eq!(soak["until"]["attained"], true, "{soak}");
    assert_eq!(
        soak["runs"], 5,
        "steady in the first window of 5 runs: {soak}"
    );
    assert!(
        within(ss["mean_iops"].as_f64().unwrap(), 1500.0, 5.0),
        "{ss}"
    );
    drop(tb);

    let name = format!("gtsd-{}", std::process::id());
    let Some(tb) = Testbed::up(&name, Limits::default()) else {
        return;
    };
    let bucket = Bucket {
        credits: 10500,
        seconds: 40,
    };
    let doc = run_with_bucket(&tb, &bucket, &[&job[..], &["--runs=5"]].concat());
    let soak = &doc["soak"];
    assert_eq!(
        soak["jobs"][0]["steady_state"]["attained"], false,
        "the bucket ran dry 7 s into 10: {soak}"
    );
    assert_eq!(soak["jobs"][0]["cliff"]["detected"], true, "{soak}");
    // fio's steadystate over a window that spans the drop: not attained.
    let doc = run_with_bucket(
        &tb,
        &bucket,
        &[
            &job[..4],
            &["--runtime=15", "--ss=iops_slope:5%", "--ss_dur=10"],
        ]
        .concat(),
    );
    let ss = &doc["jobs"][0]["steadystate"];
    assert_eq!(ss["attained"], 0, "the bucket ran dry 7 s in: {ss}");
}

/// Latency by Little's law: at queue depth QD on a device that completes
/// 2,000 I/Os a second, each I/O spends QD/2000 s in the system.
///
/// "In the system" is from the moment the tool queues the I/O to the moment
/// it sees it complete: fio's and diskbench's `lat`. The throttle's clock
/// starts inside the submit call, so part of the submission latency (slat,
/// some 10 us with io_uring) is the device's time too, and `clat` alone is
/// short of the truth by it. Measured here at QD 1, 8, 32 (mean lat, us):
/// fio 3.33 497.3, 3,996, 15,960; diskbench 500.3, 4,003, 15,953; their
/// clat at QD1 486 and 490, 2-3% short, which is why the old check on clat
/// needed 5% at QD1.
///
/// On a loaded machine (CI runs many test binaries on two cores) the tool
/// refills its queue a little late now and then, so fewer I/Os wait on
/// average and each waits less: 15,509 us at QD32 was seen with CPU hogs
/// beside the test, 3.1% short, with the depth kept short by as much. So
/// the latency is held to 6% of the truth and the depth kept to 94% of the
/// depth asked; a tool timing only completions shows itself at QD1 by a
/// clat no shorter than its lat.
#[test]
fn mean_latency_is_the_depth_over_the_iops_limit() {
    let name = format!("gtl-{}", std::process::id());
    let Some(tb) = Testbed::up(&name, riops(2000)) else {
        return;
    };
    for qd in [1u32, 8, 32] {
        let depth = format!("--iodepth={qd}");
        let doc = tb.run(&["--rw=randread", "--bs=4k", "--ioengine=io_uring", &depth]);
        let read = &doc["jobs"][0]["read"];
        let lat_us = read["lat_ns"]["mean"].as_f64().unwrap() / 1e3;
        let clat_us = read["clat_ns"]["mean"].as_f64().unwrap() / 1e3;
        let truth_us = qd as f64 / 2000.0 * 1e6;
        assert!(
            within(lat_us, truth_us, 6.0),
            "QD{qd}: mean lat {lat_us:.0} us, Little's law says {truth_us:.0} us"
        );
        assert!(
            clat_us < lat_us,
            "QD{qd}: clat {clat_us:.0} is not shorter than lat {lat_us:.0}"
        );
        if qd > 1 {
            // Deeper, the submission's share is negligible: clat holds too.
            assert!(
                within(clat_us, truth_us, 6.0),
                "QD{qd}: mean clat {clat_us:.0} us, Little's law says {truth_us:.0} us"
            );
        }
        let kept = doc["jobs"][0]["diskbench"]["mean_depth"].as_f64().unwrap();
        assert!(kept >= 0.94 * qd as f64, "QD{qd}: kept {kept:.2}");
    }
}

/// A buffered write whose final fsync is throttled: the bandwidth is the
/// device's, because the sync is inside the job's clock. (The page cache
/// takes the 256 MiB in a fraction of a second; the fsync, run by the job's
/// own thread and so inside the cgroup, writes it at 30 MiB/s.)
#[test]
fn a_buffered_write_with_end_fsync_reports_the_devices_bandwidth() {
    let name = format!("gtf-{}", std::process::id());
    let limits = Limits {
        write_bps: 30 << 20,
        ..Limits::default()
    };
    let Some(tb) = Testbed::up(&name, limits) else {
        return;
    };
    let doc = tb.run_as_given(&[
        "--rw=write",
        "--bs=1m",
        "--size=256m",
        "--direct=0",
        "--end_fsync=1",
        "--ioengine=psync",
        "--allow-destructive",
    ]);
    // Never faster than the device (before the sync was inside the clock,
    // this job reported the page cache's GB/s); a little slower, by the
    // time the page cache took the data (0.2 s quiet, a second on a loaded
    // machine, against the sync's 8.5 s).
    let bw = doc["jobs"][0]["write"]["bw_bytes"].as_f64().unwrap() / 1048576.0;
    assert!(
        (24.0..=30.9).contains(&bw),
        "wbps=30MiB/s but measured {bw:.2} MiB/s"
    );
}

/// Coordinated omission on a device with an exact limit: asked for more
/// than it can do, a rate-limited job falls further behind its schedule
/// each second. The service time (clat) stays the device's 1 ms; the
/// response time from the schedule grows to seconds. Asked for less, the
/// two agree.
#[test]
fn the_response_time_grows_when_the_rate_is_above_the_devices_limit() {
    let name = format!("gtr-{}", std::process::id());
    let Some(tb) = Testbed::up(&name, riops(1000)) else {
        return;
    };
    let job = |rate: &str| {
        let rate = format!("--rate_iops={rate}");
        let doc = tb.run_as_given(&[
            "--rw=randread",
            "--bs=4k",
            "--direct=1",
            "--ioengine=psync",
            "--runtime=4",
            "--time_based",
            "--lat_percentiles=1",
            &rate,
        ]);
        let job = doc["jobs"][0].clone();
        (
            job["read"].clone(),
            job["diskbench"]["response_ns"]["read"].clone(),
        )
    };
    let (read, response) = job("1500");
    let clat = read["clat_ns"]["mean"].as_f64().unwrap();
    let response_max = response["max"].as_f64().unwrap();
    assert!(
        within(clat, 1e6, 10.0),
        "the service time stays the device's 1 ms: {clat} ns"
    );
    // 500 I/Os a second behind for 4 s: the last ones are ~2 s late.
    assert!(response_max >= 1e9, "response max {response_max} ns");
    // Below it, the worker's median lateness: under 1 ms on a quiet
    // machine, 2.3 ms seen with CPU hogs and other test binaries beside
    // it; 10 ms is still a hundredth of the falling behind above.
    let (read, response) = job("500");
    let p50 = |h: &serde_json::Value| h["percentile"]["50.000000"].as_f64().unwrap();
    let gap = p50(&response) - p50(&read["lat_ns"]);
    assert!(
        gap < 10e6,
        "below the limit, response p50 is {gap} ns above lat p50"
    );
}
