//! The stability stop: a time-based job given `RunOptions::stable_stop`
//! ends once its rate in short slices is known within the rule's precision,
//! after the rule's minimum time, and never past its runtime. A job paced
//! by `rate_iops` on the null engine has an exact rate, so it stops at the
//! minimum time, or soon after on a loaded machine. Size-based jobs and runs without the rule are not
//! touched.

use diskbench_runner as runner;
use model::job::PerDir;
use model::{EngineKind, JobSpec, RwMode, StableStop};
use runner::{run, RunOptions};
use std::time::Duration;

const MS: u64 = 1_000_000;

fn paced_job(runtime: Duration) -> JobSpec {
    let mut j = JobSpec::new("paced");
    j.engine = EngineKind::Null;
    j.rw = RwMode::RandRead;
    j.iodepth = 4;
    j.size_bytes = Some(1 << 20);
    j.time_based = true;
    j.runtime = Some(runtime);
    j.rate.iops = PerDir::both(2000);
    j
}

fn rule(min_ms: u64) -> StableStop {
    StableStop {
        half_width_pct: 3.0,
        min_runtime_ns: min_ms * MS,
        min_ios: 500,
        slice_ns: 250 * MS,
    }
}

#[test]
fn a_steady_job_stops_at_the_minimum_time_with_its_slices() {
    let opts = RunOptions {
        stable_stop: Some(rule(1500)),
        ..RunOptions::default()
    };
    let out = run(&[vec![paced_job(Duration::from_secs(6))]], &opts);
    assert!(out.failure.is_none(), "{:?}", out.failure);
    let job = &out.result.jobs[0];
    let ms = job.runtime_ns / MS;
    // 1.5 s on a quiet machine. On a loaded one the pacing catches up after
    // a late slice (450 then 550), which the interval of pairs absorbs, so
    // it still stops long before the 6 s runtime.
    assert!((1500..4500).contains(&ms), "stopped after {ms} ms");
    let st = job.stability.as_ref().expect("the slices are kept");
    assert!(st.stopped_early);
    assert!(st.slice_ios.len() >= 6, "{st:?}");
    let mut sorted = st.slice_ios.clone();
    sorted.sort_unstable();
    let median = sorted[sorted.len() / 2];
    assert!(
        (480..=520).contains(&median),
        "2000 IOPS is 500 a slice: {st:?}"
    );
    // The figure is the whole measured phase's, as always.
    let iops = job.read.iops();
    assert!((iops - 2000.0).abs() < 60.0, "{iops}");
}

#[test]
fn without_the_rule_or_without_time_the_job_runs_as_asked() {
    let out = run(
        &[vec![paced_job(Duration::from_millis(2500))]],
        &RunOptions::default(),
    );
    let job = &out.result.jobs[0];
    assert!(job.runtime_ns / MS >= 2500, "{}", job.runtime_ns / MS);
    assert!(job.stability.is_none());
    // A minimum past the runtime: the runtime is the cap.
    let opts = RunOptions {
        stable_stop: Some(rule(5000)),
        ..RunOptions::default()
    };
    let out = run(&[vec![paced_job(Duration::from_millis(2000))]], &opts);
    let job = &out.result.jobs[0];
    let st = job.stability.as_ref().unwrap();
    assert!(!st.stopped_early && (2000..2400).contains(&(job.runtime_ns / MS)));
    // A size-based job ends when its size is done, rule or not.
    let mut sized = paced_job(Duration::from_secs(5));
    sized.time_based = false;
    sized.rate = Default::default();
    let out = run(&[vec![sized]], &opts);
    let job = &out.result.jobs[0];
    assert_eq!(job.read.ios, 256);
    assert!(job.stability.is_none());
}
