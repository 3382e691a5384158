//! Accuracy against a device whose limit is known exactly:
//! ../shared/testbed/throttled-disk. A run on it must report what was set.
//! Skips, with the reason, where the machine lacks root, loop devices or cgroups.

mod common;
use common::*;
use std::path::PathBuf;
use std::process::Command as StdCommand;

fn testbed() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testbed/throttled-disk")
}

struct Testbed {
    name: String,
    device: String,
    _dir: tempfile::TempDir,
}

impl Testbed {
    fn up(name: &str, limits: &[&str]) -> Option<Testbed> {
        let tool = testbed();
        if !tool.exists() {
            eprintln!("skipped: {} is missing", tool.display());
            return None;
        }
        let check = StdCommand::new(&tool).arg("check").output().ok()?;
        if !check.status.success() {
            eprintln!("skipped: {}", String::from_utf8_lossy(&check.stderr).trim());
            return None;
        }
        let _ = StdCommand::new(&tool).args(["down", name]).output();
        let dir = real_dir();
        let out = StdCommand::new(&tool)
            .args(["up", name, "--size", "512M", "--dir"])
            .arg(dir.path())
            .args(limits)
            .output()
            .ok()?;
        assert!(
            out.status.success(),
            "testbed up: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let state: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        Some(Testbed {
            name: name.to_string(),
            device: state["device"].as_str().unwrap().to_string(),
            _dir: dir,
        })
    }

    fn run(&self, job: &[&str]) -> serde_json::Value {
        let out = StdCommand::new(testbed())
            .env("DISKBENCH_DB", TEST_DB)
            .args(["exec", &self.name, "--"])
            .arg(assert_cmd::cargo::cargo_bin("diskbench"))
            .args([
                "fio",
                "--name=gt",
                "--direct=1",
                "--runtime=5",
                "--time_based",
                "--output-format=json",
            ])
            .arg(format!("--filename={}", self.device))
            .args(job)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        json_of(&out)
    }
}

impl Drop for Testbed {
    fn drop(&mut self) {
        let _ = StdCommand::new(testbed())
            .args(["down", &self.name])
            .output();
    }
}

fn within(measured: f64, expected: f64, pct: f64) -> bool {
    (measured - expected).abs() / expected * 100.0 <= pct
}

#[test]
fn reports_the_iops_limit_and_the_bandwidth_limit() {
    let name = format!("gt-{}", std::process::id());
    let Some(tb) = Testbed::up(&name, &["--riops", "2000"]) else {
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

    let out = StdCommand::new(testbed())
        .args([
            "set",
            &tb.name,
            "--riops",
            "0",
            "--rbps",
            &(50u64 << 20).to_string(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // libaio and psync, not io_uring: on this kernel the cgroup-v1 throttle
    // charges io_uring's 1 MiB direct reads twice (its io_service_bytes shows
    // exactly double the bytes read), so an io_uring reader really gets half
    // the set rate, and fio's io_uring engine shows the same.
    for engine in ["libaio", "psync"] {
        let ioengine = format!("--ioengine={engine}");
        let doc = tb.run(&["--rw=read", "--bs=1m", "--iodepth=8", &ioengine]);
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
    let (credits, seconds) = (bucket.credits.to_string(), bucket.seconds.to_string());
    let mut child = StdCommand::new(testbed())
        .args(["bucket", &tb.name])
        .args(["--burst", "2000", "--baseline", "500"])
        .args([
            "--credits",
            &credits,
            "--cap",
            &credits,
            "--seconds",
            &seconds,
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let doc = tb.run(job);
    let _ = child.kill();
    let _ = child.wait();
    doc
}

#[test]
fn finds_the_burst_bucket_cliff_and_its_size() {
    let name = format!("gtb-{}", std::process::id());
    let Some(tb) = Testbed::up(&name, &[]) else {
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
    let at = c["at_seconds"].as_f64().unwrap();
    assert!(
        (at - 10.0).abs() <= 1.5,
        "cliff at {at} s, the bucket ran dry at 10 s"
    );
    assert!(
        within(c["before_iops"].as_f64().unwrap(), 2000.0, 5.0),
        "{c}"
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
    let Some(tb) = Testbed::up(&name, &["--riops", "1500"]) else {
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

/// Issue 6 across runs: the bucket runs dry after 15 s of I/O in a soak
/// of 6-second runs, so in the middle of run 3; `--until-throttled` stops
/// once the cliff is confirmed, and `--recovery-check` idles 6 s (3,000
/// credits at the 500/s baseline) and measures what came back. The gaps
/// between runs refill the bucket a little (500 credits a second), so the
/// truth about *when* is the I/O count before the cliff.
#[test]
fn a_soak_names_the_run_of_the_cliff_stops_there_and_measures_the_recovery() {
    let name = format!("gts-{}", std::process::id());
    let Some(tb) = Testbed::up(&name, &[]) else {
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

/// Issue 6, steady state (SNIA rounds, one run each): a constant limit is
/// steady within the first window, and `--until-steady` stops there; a
/// bucket that runs dry inside the window is not steady.
#[test]
fn steady_state_on_a_constant_limit_and_not_while_the_bucket_drains() {
    let name = format!("gtss-{}", std::process::id());
    let Some(tb) = Testbed::up(&name, &["--riops", "1500"]) else {
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
    let Some(tb) = Testbed::up(&name, &[]) else {
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
