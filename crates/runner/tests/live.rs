//! The live hook's latencies and its sharing by several listeners: what a
//! metrics endpoint reads while a run goes on.

use diskbench_runner as runner;
use model::{EngineKind, JobSpec, LivePoint, RwMode};
use runner::{run, LiveFn, LiveUpdate, RunOptions};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Two clones of a null-engine random read, timed.
fn timed_job(ms: u64) -> JobSpec {
    let mut j = JobSpec::new("t");
    j.engine = EngineKind::Null;
    j.rw = RwMode::RandRead;
    j.iodepth = 2;
    j.size_bytes = Some(1 << 20);
    j.time_based = true;
    j.runtime = Some(Duration::from_millis(ms));
    j.numjobs = 2;
    j
}

/// (clone, start_ms, read I/Os) of one second, from a point or a histogram.
type Second = (u32, u64, u64);

/// Each finished second's latency histogram holds exactly the I/Os of its
/// series point: the same second, the same clone, the same count.
#[test]
fn live_latencies_are_each_seconds_own_ios() {
    let points: Arc<Mutex<Vec<Second>>> = Arc::default();
    let latencies: Arc<Mutex<Vec<Second>>> = Arc::default();
    let (p, l) = (Arc::clone(&points), Arc::clone(&latencies));
    let opts = RunOptions {
        live: Some(Box::new(move |u: &LiveUpdate| {
            let point = |x: &LivePoint| (x.clone, x.point.start_ms, x.point.read_ios);
            p.lock().unwrap().extend(u.points.iter().map(point));
            l.lock().unwrap().extend(
                u.latencies
                    .iter()
                    .map(|x| (x.clone, x.start_ms, x.lat[0].count() + x.lat[1].count())),
            );
            for x in u.latencies {
                assert_eq!(x.lat[1].count(), 0, "a read job wrote");
                assert!(x.lat[0].min() > 0, "a latency of 0 ns");
            }
        })),
        live_latency: true,
        ..RunOptions::default()
    };
    let out = run(&[vec![timed_job(2300)]], &opts);
    assert!(out.failure.is_none(), "{:?}", out.failure);
    let mut points = points.lock().unwrap().clone();
    let mut latencies = latencies.lock().unwrap().clone();
    points.sort_unstable();
    latencies.sort_unstable();
    // Two full seconds for each of two clones; the partial last one comes only with the result.
    assert_eq!(points.len(), 4, "{points:?}");
    assert_eq!(latencies, points);
    assert!(points.iter().all(|&(_, _, ios)| ios > 0), "{points:?}");
}

/// Without `live_latency` the hook gets its points and no latencies (and
/// the workers copy no histogram).
#[test]
fn live_latencies_only_when_asked() {
    let seen: Arc<Mutex<(usize, usize)>> = Arc::default();
    let sink = Arc::clone(&seen);
    let opts = RunOptions {
        live: Some(Box::new(move |u: &LiveUpdate| {
            let mut s = sink.lock().unwrap();
            s.0 += u.points.len();
            s.1 += u.latencies.len();
        })),
        ..RunOptions::default()
    };
    let out = run(&[vec![timed_job(1200)]], &opts);
    assert!(out.failure.is_none(), "{:?}", out.failure);
    let (points, latencies) = *seen.lock().unwrap();
    assert!(points >= 2, "{points} points");
    assert_eq!(latencies, 0);
}

/// Every hook given to `fan_out` sees every update.
#[test]
fn fanned_out_hooks_each_see_every_second() {
    let counts: Vec<Arc<Mutex<u64>>> = (0..2).map(|_| Arc::default()).collect();
    let hooks: Vec<LiveFn> = counts
        .iter()
        .map(|c| {
            let c = Arc::clone(c);
            Box::new(move |u: &LiveUpdate| {
                *c.lock().unwrap() += u.points.iter().map(|p| p.point.read_ios).sum::<u64>();
            }) as LiveFn
        })
        .collect();
    assert!(runner::fan_out(Vec::new()).is_none());
    let opts = RunOptions {
        live: runner::fan_out(hooks),
        ..RunOptions::default()
    };
    let out = run(&[vec![timed_job(1200)]], &opts);
    assert!(out.failure.is_none(), "{:?}", out.failure);
    let (a, b) = (*counts[0].lock().unwrap(), *counts[1].lock().unwrap());
    assert!(a > 0, "the first hook saw nothing");
    assert_eq!(a, b);
}
