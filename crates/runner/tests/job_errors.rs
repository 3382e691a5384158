//! A job's I/O error ends that job only (all its clones), as in fio: the
//! other jobs of its group run their time, later groups run, the run fails
//! at the end with the first job's error. Driven by the null engine with
//! injected faults, so no disk and no timing noise are involved (the CLI's
//! `faults` tests do the same on real files with every engine).

use diskbench_runner as runner;
use model::{EngineKind, FailureKind, FaultRule, JobSpec, RwMode, Warning};
use runner::{run, RunError, RunOptions};
use std::time::Duration;

fn null_job(name: &str, rw: RwMode) -> JobSpec {
    let mut j = JobSpec::new(name);
    j.engine = EngineKind::Null;
    j.rw = rw;
    j.iodepth = 4;
    j.size_bytes = Some(1 << 20);
    j
}

fn with_faults(faults: &[&str]) -> RunOptions {
    RunOptions {
        faults: faults
            .iter()
            .map(|f| FaultRule::parse(f).unwrap())
            .collect(),
        ..RunOptions::default()
    }
}

#[test]
fn a_failed_job_ends_alone_and_the_run_fails_at_the_end() {
    let mut w = null_job("w", RwMode::RandWrite);
    w.numjobs = 3;
    w.group_reporting = true;
    w.time_based = true;
    w.runtime = Some(Duration::from_secs(30));
    let mut r = null_job("r", RwMode::RandRead);
    r.time_based = true;
    r.runtime = Some(Duration::from_millis(1200));
    let later = null_job("later", RwMode::Read);
    let out = run(
        &[vec![w, r], vec![later]],
        &with_faults(&["eio@write:1000"]),
    );
    let e = runtime_error(&out.failure);
    assert!(
        e.starts_with("job 'w': write of 4096 bytes at offset ") && e.contains("os error 5"),
        "{e}"
    );
    assert_eq!(out.result.error.as_deref(), Some(e.as_str()));
    assert!(!out.result.interrupted);
    // The result keeps the facts the message was made from.
    let f = out.result.failure.as_ref().expect("the failure is kept");
    assert_eq!((f.kind, f.errno), (FailureKind::Runtime, Some(5))); // EIO
    assert_eq!(
        (f.job.as_deref(), f.op.as_deref()),
        (Some("w"), Some("write"))
    );
    assert_eq!(f.len, Some(4096));
    let offset = f.offset.expect("the offset is kept");
    assert!(
        e.contains(&format!("at offset {offset} in ")),
        "{e} / {offset}"
    );
    assert_eq!(out.failure.as_ref().and_then(RunError::errno), Some(5));
    let [w, r, later] = &out.result.jobs[..] else {
        panic!("three jobs: {:?}", out.result.jobs.len());
    };
    // The first clone to reach its 1000th write failed and stopped its
    // sister clones (all of them long before the 30 s); the read job
    // beside them ran its whole time.
    assert!(w.error.is_some());
    assert!((999 - 3..3 * 999).contains(&w.write.ios), "{}", w.write.ios);
    assert!(w.runtime_ns < 30_000_000_000, "{} ns", w.runtime_ns);
    assert!(r.error.is_none());
    assert!(r.runtime_ns >= 1_200_000_000, "{} ns", r.runtime_ns);
    assert!(later.error.is_none());
    assert_eq!((later.groupid, later.read.ios), (1, 256));
    assert!(out.result.warnings.contains(&Warning::FaultsInjected {
        faults: vec!["eio@write:1000".into()]
    }));
}

#[test]
fn several_failed_jobs_are_counted_in_the_runs_error() {
    let a = null_job("a", RwMode::Write);
    let b = null_job("b", RwMode::Read);
    let c = null_job("c", RwMode::Write);
    let out = run(
        &[vec![a, b], vec![c]],
        &with_faults(&["enospc@write:7", "short@read:3/5"]),
    );
    let e = runtime_error(&out.failure);
    assert!(e.starts_with("job 'a': write of 4096 bytes"), "{e}");
    // The run's errno is the first failed job's: ENOSPC.
    assert_eq!(out.failure.as_ref().and_then(RunError::errno), Some(28));
    assert!(e.contains("No space left on device"), "{e}");
    assert!(
        e.ends_with("(2 more jobs failed: see each job's error)"),
        "{e}"
    );
    let errors: Vec<&str> = out
        .result
        .jobs
        .iter()
        .map(|j| j.error.as_deref().unwrap_or(""))
        .collect();
    assert!(
        errors[1].contains("job 'b': read of 4096 bytes")
            && errors[1].contains("short read: 2048 of 4096 bytes")
    );
    assert!(errors[2].contains("job 'c': write"), "{errors:?}");
}

#[test]
fn faults_that_lie_do_not_fail_the_run_but_warn() {
    let out = run(
        &[vec![null_job("t", RwMode::RandRw)]],
        &with_faults(&["bitflip@read:1/1", "drop@write:2/3", "misdirect@write:1/7"]),
    );
    assert!(out.failure.is_none(), "{:?}", out.failure);
    assert_eq!(out.result.jobs[0].total_ios(), 256);
    assert!(matches!(
        out.result.warnings[0],
        Warning::FaultsInjected { ref faults } if faults.len() == 3
    ));
}

/// The run's error, which must be a runtime one, as the user reads it.
fn runtime_error(failure: &Option<RunError>) -> String {
    match failure {
        Some(e) if e.kind() == FailureKind::Runtime => e.to_string(),
        other => panic!("a runtime error, not {other:?}"),
    }
}
