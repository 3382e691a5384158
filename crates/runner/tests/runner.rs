//! The runner, driven by the null engine (no timing noise, no files) and by
//! the sync engine on tmpfs and on a real directory.

use diskbench_runner as runner;
use model::{EngineKind, FileTarget, JobSpec, RwMode};
use runner::{run, RunError, RunOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

fn null_job(rw: RwMode, depth: u32) -> JobSpec {
    let mut j = JobSpec::new("t");
    j.engine = EngineKind::Null;
    j.rw = rw;
    j.iodepth = depth;
    j.size_bytes = Some(1 << 20);
    j
}

fn real_dir() -> PathBuf {
    std::env::var_os("DISKBENCH_TEST_DIR").map_or_else(std::env::temp_dir, PathBuf::from)
}

#[test]
fn size_based_null_job_does_exactly_size_times_loops() {
    let mut j = null_job(RwMode::RandRead, 8);
    j.loops = 3;
    let out = run(&[vec![j]], &RunOptions::default());
    assert!(out.failure.is_none(), "{:?}", out.failure);
    let job = &out.result.jobs[0];
    assert_eq!(job.read.ios, 3 * 256);
    assert_eq!(job.read.bytes, 3 << 20);
    assert_eq!(job.write.ios, 0);
    assert_eq!(job.read.clat.count(), 3 * 256);
    assert_eq!(job.read.slat.as_ref().unwrap().count(), 3 * 256);
}

#[test]
fn time_based_null_job_runs_for_its_runtime_and_keeps_a_series() {
    let mut j = null_job(RwMode::RandRw, 4);
    j.rwmix_read_pct = 70;
    j.time_based = true;
    j.runtime = Some(Duration::from_millis(2300));
    let out = run(&[vec![j]], &RunOptions::default());
    let job = &out.result.jobs[0];
    // Its whole runtime, and (by its own series: a point a second) not
    // into a fourth second.
    let ms = job.runtime_ns / 1_000_000;
    assert!(ms >= 2300, "runtime {ms} ms");
    assert_eq!(job.series.len(), 3, "{:?}", job.series);
    assert_eq!(job.series[0].duration_ms, 1000);
    let series_ios: u64 = job.series.iter().map(|p| p.read_ios + p.write_ios).sum();
    assert_eq!(series_ios, job.total_ios());
    let share = job.read.ios as f64 / job.total_ios() as f64;
    assert!((0.68..0.72).contains(&share), "{share}");
}

#[test]
fn clones_are_separate_entries_unless_group_reporting() {
    let mut j = null_job(RwMode::Write, 1);
    j.numjobs = 3;
    let out = run(&[vec![j.clone()]], &RunOptions::default());
    assert_eq!(out.result.jobs.len(), 3);
    j.group_reporting = true;
    let out = run(&[vec![j]], &RunOptions::default());
    assert_eq!(out.result.jobs.len(), 1);
    assert_eq!(out.result.jobs[0].clones, 3);
    assert_eq!(out.result.jobs[0].write.ios, 3 * 256);
}

#[test]
fn ramp_time_is_not_measured() {
    let mut j = null_job(RwMode::Read, 1);
    j.time_based = true;
    j.ramp_time = Duration::from_millis(500);
    j.runtime = Some(Duration::from_millis(500));
    let out = run(&[vec![j]], &RunOptions::default());
    let ms = out.result.jobs[0].runtime_ns / 1_000_000;
    assert!((500..700).contains(&ms), "measured {ms} ms");
}

#[test]
fn a_stop_request_ends_the_run_with_partial_results() {
    let mut j = null_job(RwMode::RandRead, 1);
    j.time_based = true;
    j.runtime = Some(Duration::from_secs(60));
    let opts = RunOptions::default();
    let stop = opts.stop.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        stop.store(true, Ordering::Relaxed);
    });
    let out = run(&[vec![j]], &opts);
    t.join().unwrap();
    assert!(matches!(out.failure, Some(RunError::Interrupted)));
    assert!(out.result.interrupted);
    assert!(out.result.jobs[0].read.ios > 0);
}

fn file_job(dir: &Path, rw: RwMode, direct: bool) -> JobSpec {
    let mut j = JobSpec::new("f");
    j.rw = rw;
    j.direct = direct;
    j.size_bytes = Some(4 << 20);
    j.target = FileTarget::Generated {
        directory: dir.to_path_buf(),
        nrfiles: 2,
        shared: None,
    };
    j
}

fn leftovers(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect()
}

#[test]
fn generated_files_are_laid_out_read_and_removed() {
    for (dir, direct) in [(PathBuf::from("/dev/shm"), false), (real_dir(), true)] {
        let dir = tempfile::tempdir_in(dir).unwrap();
        let out = run(
            &[vec![file_job(dir.path(), RwMode::Read, direct)]],
            &RunOptions::default(),
        );
        assert!(out.failure.is_none(), "{:?}", out.failure);
        let job = &out.result.jobs[0];
        assert_eq!(job.read.bytes, 4 << 20);
        assert_eq!(job.engine, EngineKind::Sync);
        assert!(job.read.slat.is_none());
        assert!(
            leftovers(dir.path()).is_empty(),
            "{:?}",
            leftovers(dir.path())
        );
    }
}

#[test]
fn unaligned_direct_io_is_a_usage_error_and_leaves_nothing() {
    let dir = tempfile::tempdir_in(real_dir()).unwrap();
    let mut j = file_job(dir.path(), RwMode::RandRead, true);
    j.bs_bytes = 1000;
    j.size_bytes = Some(1_000_000);
    let out = run(&[vec![j]], &RunOptions::default());
    match out.failure {
        Some(RunError::Usage(msg)) => assert!(msg.contains("bs=1000"), "{msg}"),
        other => panic!("expected a usage error, got {other:?}"),
    }
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn missing_directory_and_too_large_size_are_refused_early() {
    let mut j = file_job(Path::new("/no/such/dir"), RwMode::Read, false);
    let out = run(&[vec![j.clone()]], &RunOptions::default());
    let f = out.result.failure.expect("a failure");
    assert_eq!(f.kind, model::FailureKind::Usage);
    assert!(f.message.contains("does not exist"), "{}", f.message);
    // The place and the OS's word for it (ENOENT) are kept.
    assert_eq!(
        (f.path.as_deref(), f.errno),
        (Some("/no/such/dir"), Some(2))
    );
    let dir = tempfile::tempdir_in("/dev/shm").unwrap();
    j.target = FileTarget::Generated {
        directory: dir.path().into(),
        nrfiles: 1,
        shared: None,
    };
    j.size_bytes = Some(1 << 50);
    let out = run(&[vec![j]], &RunOptions::default());
    let place = dir.path().display().to_string();
    assert!(
        matches!(out.failure, Some(RunError::Place { ref message, ref path, .. })
            if message.contains("free") && *path == dir.path()),
        "{:?}",
        out.failure
    );
    assert_eq!(out.result.failure.and_then(|f| f.path), Some(place));
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn a_named_file_is_kept_and_writes_land_in_it() {
    let dir = tempfile::tempdir_in("/dev/shm").unwrap();
    let path = dir.path().join("mine.dat");
    let mut j = JobSpec::new("w");
    j.rw = RwMode::Write;
    j.size_bytes = Some(1 << 20);
    j.fsync_every = 16;
    j.end_fsync = true;
    j.target = FileTarget::Named(path.clone());
    let out = run(&[vec![j]], &RunOptions::default());
    assert!(out.failure.is_none(), "{:?}", out.failure);
    let data = std::fs::read(&path).unwrap();
    assert_eq!(data.len(), 1 << 20);
    assert!(data.iter().filter(|&&b| b == 0).count() < data.len() / 100);
}

#[test]
fn every_submit_batch_size_does_the_same_io() {
    for batch in [0, 1, 3, 8] {
        let mut j = null_job(RwMode::RandRw, 8);
        j.iodepth_batch_submit = batch;
        let out = run(&[vec![j]], &RunOptions::default());
        let job = &out.result.jobs[0];
        assert_eq!(job.total_ios(), 256, "batch {batch}");
        let slat =
            job.read.slat.as_ref().unwrap().count() + job.write.slat.as_ref().unwrap().count();
        assert_eq!(slat, 256, "batch {batch}");
    }
}

/// The live hook sees every full second as it closes (a soak's
/// series reach the history while the run goes on), with the groups that
/// already ended complete in the snapshot.
#[test]
fn live_points_are_the_series_as_it_happens() {
    use std::sync::{Arc, Mutex};
    let mut j = null_job(RwMode::RandRead, 2);
    j.time_based = true;
    j.runtime = Some(Duration::from_millis(2300));
    j.numjobs = 2;
    j.group_reporting = true;
    let seen: Arc<Mutex<Vec<(usize, model::LivePoint)>>> = Arc::default();
    let sink = Arc::clone(&seen);
    let opts = RunOptions {
        live: Some(Box::new(move |u: &runner::LiveUpdate| {
            assert_eq!(u.jobs.len(), 1);
            let mut s = sink.lock().unwrap();
            s.extend(u.points.iter().map(|p| (u.result.jobs.len(), *p)));
        })),
        ..RunOptions::default()
    };
    let out = run(&[vec![j.clone()], vec![j]], &opts);
    assert!(out.failure.is_none(), "{:?}", out.failure);
    let seen = seen.lock().unwrap();
    for (g, job) in out.result.jobs.iter().enumerate() {
        let mine: Vec<_> = seen.iter().filter(|(_, p)| p.group == g as u32).collect();
        // Two full seconds per clone; the last, partial one comes only with the result.
        assert_eq!(mine.len(), 4, "{mine:?}");
        assert!(mine.iter().all(|(done, _)| *done == g), "{mine:?}");
        for (i, full) in job.series.iter().take(2).enumerate() {
            let sum: u64 = mine
                .iter()
                .filter(|(_, p)| p.point.start_ms == i as u64 * 1000)
                .map(|(_, p)| p.point.read_ios)
                .sum();
            assert_eq!(sum, full.read_ios, "second {i} of group {g}");
        }
    }
}

/// A soak passes one workspace to every run: the file a read job needs is
/// laid out by the first run only (its modification time stays), and it is
/// removed when the workspace goes.
#[test]
fn runs_in_one_workspace_lay_out_once_and_clean_up_at_the_end() {
    let dir = tempfile::tempdir_in(real_dir()).unwrap();
    let job = file_job(dir.path(), RwMode::RandRead, true);
    let mut ws = runner::Workspace::default();
    let first = runner::run_in(&[vec![job.clone()]], &RunOptions::default(), &mut ws);
    assert!(first.failure.is_none(), "{:?}", first.failure);
    let files = |d: &Path| -> Vec<PathBuf> {
        leftovers(d)
            .into_iter()
            .flat_map(|sub| leftovers(&sub))
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("f."))
            })
            .collect()
    };
    let laid = files(dir.path());
    assert_eq!(laid.len(), 2, "nrfiles=2: {laid:?}");
    let mtime = || std::fs::metadata(&laid[0]).unwrap().modified().unwrap();
    let before = mtime();
    std::thread::sleep(Duration::from_millis(20));
    let second = runner::run_in(&[vec![job]], &RunOptions::default(), &mut ws);
    assert!(second.failure.is_none(), "{:?}", second.failure);
    assert_eq!(second.result.jobs[0].read.bytes, 4 << 20);
    assert_eq!(mtime(), before, "the second run laid the file out again");
    drop(ws);
    assert!(leftovers(dir.path()).is_empty());
}
