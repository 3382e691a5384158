//! `latency_target` in the runner, on the null engine, whose I/Os take
//! next to nothing: every window passes, so the search doubles from depth
//! 1 to `iodepth`, finds it there, starts the figures afresh and ends the
//! job one window later (fio's way), long before its runtime; with
//! `latency_run` it goes on to the runtime. The depth found is the job's
//! `latency_depth`. Real devices, and fio beside, are in the CLI's
//! `fio_latency_target` test.

use diskbench_runner as runner;
use model::{EngineKind, JobSpec, LatencyTarget, RwMode};
use runner::{run, RunOptions};
use std::time::Duration;

const MS: u64 = 1_000_000;

fn job(keep_running: bool) -> JobSpec {
    let mut j = JobSpec::new("lat");
    j.engine = EngineKind::Null;
    j.rw = RwMode::RandRead;
    j.iodepth = 16;
    j.size_bytes = Some(1 << 20);
    j.time_based = true;
    j.runtime = Some(Duration::from_secs(2));
    j.latency_target = LatencyTarget {
        target: Duration::from_millis(5),
        window: Duration::from_millis(100),
        percentile: 99.0,
        keep_running,
    };
    j
}

#[test]
fn a_target_every_depth_meets_settles_on_iodepth_and_ends_after_one_more_window() {
    let out = run(&[vec![job(false)]], &RunOptions::default());
    assert!(out.failure.is_none(), "{:?}", out.failure);
    let j = &out.result.jobs[0];
    assert_eq!(j.latency_depth, Some(16));
    // 1, 2, 4, 8, 16 and 16 again: five windows, then the figures restart
    // for the last one, which is all the job reports.
    let ms = j.runtime_ns / MS;
    assert!((100..1000).contains(&ms), "{ms} ms");
    assert!(j.read.ios > 0);
    // No warning that the queue was not kept: the search sets it.
    let shallow = out
        .result
        .warnings
        .iter()
        .any(|w| matches!(w, model::Warning::DepthNotKept { .. }));
    assert!(!shallow, "{:?}", out.result.warnings);
}

#[test]
fn latency_run_keeps_the_job_to_its_runtime_and_a_job_without_a_target_has_no_depth() {
    let out = run(&[vec![job(true)]], &RunOptions::default());
    let j = &out.result.jobs[0];
    assert_eq!(j.latency_depth, Some(16));
    assert!(j.runtime_ns / MS >= 2000, "{}", j.runtime_ns / MS);
    let mut plain = job(false);
    plain.latency_target = LatencyTarget::default();
    plain.runtime = Some(Duration::from_millis(200));
    let out = run(&[vec![plain]], &RunOptions::default());
    assert_eq!(out.result.jobs[0].latency_depth, None);
}
