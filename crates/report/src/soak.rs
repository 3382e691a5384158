//! What a soak came to, job by job: the throttling cliff across its runs,
//! whether it reached a steady state, and how much came back after idling
//! (`--recovery-check`).
//!
//! The soak loop feeds the tracker each run as it ends, so `--until-throttled`
//! and `--until-steady` can stop on its verdicts. Steady state follows SNIA's
//! PTS: one round is one run, judged on its IOPS over a window of five
//! rounds. The tracker keeps each run's counters and per-second series but
//! not its latency histograms, so a soak of hundreds of runs stays small.

use crate::cliff::{self, CliffReport, RunSlice};
use crate::format::count;
use analysis::cliff::{median, sorted};
use analysis::{steady_state, SteadyRules, SteadyState};
use model::{Histogram, JobResult, RunResult};
use serde_json::{json, Value};

/// A cliff is confirmed (for `--until-throttled`) when the median of the
/// last [`CONFIRMING_SECONDS`] is still below this share of the way from the
/// level after to the level before.
const CONFIRMED_SHARE: f64 = 0.5;
const CONFIRMING_SECONDS: usize = 5;

/// The runs of a soak so far, by job.
#[derive(Default)]
pub struct SoakTracker {
    start_unix_ms: Option<u64>,
    jobs: Vec<JobTrack>,
}

struct JobTrack {
    name: String,
    runs: Vec<TrackedRun>,
}

struct TrackedRun {
    run: u32,
    start_s: f64,
    job: JobResult,
}

/// What came back after `--recovery-check` idled.
#[derive(Clone, Debug, PartialEq)]
pub struct Recovery {
    pub idle_s: f64,
    /// The IOPS of the recovery run's first second.
    pub initial_iops: f64,
    /// The recovery run's IOPS over its whole runtime.
    pub iops: f64,
    /// Where `initial_iops` lies from the level after the cliff (0%) to the
    /// level before it (100%).
    pub recovered_pct: f64,
    /// I/Os served above the after-cliff level in the recovery run: the
    /// burst credits that idling gave back (at least; more if the run ended
    /// before they were spent).
    pub burst_ios: f64,
}

/// One job's verdict over the soak.
#[derive(Clone, Debug, PartialEq)]
pub struct JobVerdict {
    pub name: String,
    pub runs: usize,
    pub cliff: CliffReport,
    /// `None` with fewer runs than SNIA's window.
    pub steady: Option<SteadyState>,
    pub recovery: Option<Recovery>,
    /// A cliff whose last seconds are still down (for `--until-throttled`).
    pub confirmed: bool,
}

/// True when some job has a cliff and its last seconds are still down.
pub fn throttled(verdicts: &[JobVerdict]) -> bool {
    verdicts.iter().any(|v| v.confirmed)
}

/// True when every job is in a steady state.
pub fn steady(verdicts: &[JobVerdict]) -> bool {
    !verdicts.is_empty()
        && verdicts
            .iter()
            .all(|v| v.steady.is_some_and(|s| s.attained))
}

impl SoakTracker {
    /// Adds run `run` (1-based) of the soak.
    pub fn add(&mut self, run: u32, result: &RunResult) {
        let soak_start = *self.start_unix_ms.get_or_insert(result.started_unix_ms);
        let run_start_s = result.started_unix_ms.saturating_sub(soak_start) as f64 / 1000.0;
        // Groups run one after another: a job's measured phase starts after
        // the earlier groups' runtime and its own ramp (layout time is not
        // known, so this is a little early).
        let mut offset_s = 0.0;
        let mut group = None;
        let mut group_runtime_s: f64 = 0.0;
        for job in &result.jobs {
            if group != Some(job.groupid) {
                offset_s += group_runtime_s;
                group_runtime_s = 0.0;
                group = Some(job.groupid);
            }
            let ramp_s = job.spec.ramp_time.as_secs_f64();
            group_runtime_s = group_runtime_s.max(ramp_s + job.runtime_ns as f64 / 1e9);
            let mut kept = job.clone();
            for dir in [&mut kept.read, &mut kept.write] {
                dir.slat = None;
                dir.clat = Histogram::new();
                dir.lat = Histogram::new();
            }
            let tracked = TrackedRun {
                run,
                start_s: run_start_s + offset_s + ramp_s,
                job: kept,
            };
            match self.jobs.iter_mut().find(|t| t.name == job.name) {
                Some(t) => t.runs.push(tracked),
                None => self.jobs.push(JobTrack {
                    name: job.name.clone(),
                    runs: vec![tracked],
                }),
            }
        }
    }

    pub fn verdicts(&self) -> Vec<JobVerdict> {
        self.jobs.iter().map(JobTrack::verdict).collect()
    }

    /// The verdicts with what the recovery run (`result`, after idling
    /// `idle_s`) shows for each job that had a cliff.
    pub fn with_recovery(&self, result: &RunResult, idle_s: f64) -> Vec<JobVerdict> {
        let mut verdicts = self.verdicts();
        for v in verdicts.iter_mut().filter(|v| v.cliff.detected) {
            if let Some(job) = result.jobs.iter().find(|j| j.name == v.name) {
                v.recovery = Some(recovery(&v.cliff, job, idle_s));
            }
        }
        verdicts
    }
}

impl JobTrack {
    fn verdict(&self) -> JobVerdict {
        let slices: Vec<RunSlice> = self
            .runs
            .iter()
            .map(|r| RunSlice {
                run: r.run,
                start_s: r.start_s,
                job: &r.job,
            })
            .collect();
        let rounds: Vec<f64> = self.runs.iter().map(|r| iops(&r.job)).collect();
        let cliff = cliff::across_runs(&slices);
        let last: Vec<f64> = self
            .runs
            .iter()
            .flat_map(|r| rates(&r.job))
            .map(|(rate, _)| rate)
            .collect();
        let tail = &last[last.len().saturating_sub(CONFIRMING_SECONDS)..];
        let confirmed = cliff.detected
            && !tail.is_empty()
            && median(&sorted(tail))
                <= cliff.after_iops + CONFIRMED_SHARE * (cliff.before_iops - cliff.after_iops);
        JobVerdict {
            name: self.name.clone(),
            runs: self.runs.len(),
            cliff,
            steady: steady_state(&rounds, &SteadyRules::default()),
            recovery: None,
            confirmed,
        }
    }
}

fn iops(job: &JobResult) -> f64 {
    match job.runtime_ns {
        0 => 0.0,
        ns => job.total_ios() as f64 / (ns as f64 / 1e9),
    }
}

/// Per-second rates of a job and their lengths (intervals under half a
/// second left out, as for the cliff).
fn rates(job: &JobResult) -> Vec<(f64, f64)> {
    cliff::intervals(&job.series)
        .map(|(_, i)| (i.rate(), i.seconds))
        .collect()
}

fn recovery(c: &CliffReport, job: &JobResult, idle_s: f64) -> Recovery {
    let r = rates(job);
    let initial = r.first().map_or_else(|| iops(job), |&(rate, _)| rate);
    let span = c.before_iops - c.after_iops;
    Recovery {
        idle_s,
        initial_iops: initial,
        iops: iops(job),
        recovered_pct: if span > 0.0 {
            ((initial - c.after_iops) / span * 100.0).max(0.0)
        } else {
            0.0
        },
        burst_ios: r
            .iter()
            .map(|&(rate, s)| (rate - c.after_iops).max(0.0) * s)
            .sum(),
    }
}

/// The `jobs` array of a soak's JSON.
pub fn to_json(verdicts: &[JobVerdict]) -> Value {
    Value::Array(
        verdicts
            .iter()
            .map(|v| {
                json!({
                    "name": v.name,
                    "runs": v.runs,
                    "cliff": cliff::to_json(&v.cliff),
                    "steady_state": steady_json(v.steady.as_ref(), v.runs),
                    "recovery": v.recovery.as_ref().map(|r| json!({
                        "idle_s": r.idle_s,
                        "initial_iops": r.initial_iops.round(),
                        "iops": r.iops.round(),
                        "recovered_pct": (r.recovered_pct * 10.0).round() / 10.0,
                        "burst_ios": r.burst_ios.round() as u64,
                    })),
                })
            })
            .collect(),
    )
}

fn steady_json(s: Option<&SteadyState>, runs: usize) -> Value {
    let rules = SteadyRules::default();
    let mut doc = json!({
        "attained": s.is_some_and(|s| s.attained),
        "rounds": runs,
        "window": rules.window,
        "max_range_pct": rules.max_range_pct,
        "max_slope_pct": rules.max_slope_pct,
    });
    if let Some(s) = s {
        doc["window_first_run"] = json!(s.window_start + 1);
        doc["mean_iops"] = json!(s.mean.round());
        doc["range_pct"] = json!((s.range_pct * 10.0).round() / 10.0);
        doc["slope_pct"] = json!((s.slope_pct * 10.0).round() / 10.0);
    }
    doc
}

/// One line per job (and one more for a recovery), for the end of a soak's
/// text output.
pub fn text(verdicts: &[JobVerdict]) -> String {
    let mut out = String::new();
    for v in verdicts {
        let cliff = cliff::sentence(&v.cliff)
            .unwrap_or_else(|| format!("no cliff over {}", count(v.runs, "run")));
        out.push_str(&format!(
            "  {}: {cliff}; {}.\n",
            v.name,
            steady_sentence(v.steady.as_ref(), v.runs)
        ));
        if let Some(r) = &v.recovery {
            out.push_str(&format!(
                "    after idling {:.0} s: {:.0} IOPS at first ({:.0}% of the way back), {:.0} over the run; about {:.0} I/Os of burst came back.\n",
                r.idle_s, r.initial_iops, r.recovered_pct, r.iops, r.burst_ios
            ));
        }
    }
    out
}

fn steady_sentence(s: Option<&SteadyState>, runs: usize) -> String {
    let rules = SteadyRules::default();
    let w = rules.window;
    match s {
        None => format!("steady state not judged (it needs {w} runs, the soak had {runs})"),
        Some(s) if s.attained => format!(
            "steady state from run {} to {}: {:.0} IOPS, range {:.1}% and slope {:.1}% of the mean",
            s.window_start + 1,
            s.window_start + w,
            s.mean,
            s.range_pct,
            s.slope_pct
        ),
        Some(s) => format!(
            "steady state not attained: the last {w} runs range {:.1}% and drift {:.1}% of their mean (at most {}% and {}%)",
            s.range_pct, s.slope_pct, rules.max_range_pct, rules.max_slope_pct
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil;
    use model::SeriesPoint;

    /// A run of one job at `iops` per second for each second given.
    fn run_at(started_s: u64, iops: &[u64]) -> RunResult {
        let mut r = testutil::sample_run();
        r.jobs.truncate(1);
        r.started_unix_ms = 1_000_000 + started_s * 1000;
        let job = &mut r.jobs[0];
        job.spec.ramp_time = std::time::Duration::ZERO;
        job.series = iops
            .iter()
            .enumerate()
            .map(|(i, &n)| SeriesPoint {
                start_ms: i as u64 * 1000,
                duration_ms: 1000,
                read_ios: n,
                read_bytes: n * 4096,
                ..SeriesPoint::default()
            })
            .collect();
        job.read.ios = iops.iter().sum();
        job.write.ios = 0;
        job.runtime_ns = iops.len() as u64 * 1_000_000_000;
        r
    }

    #[test]
    fn a_bucket_that_runs_dry_in_run_three_is_found_confirmed_and_not_steady() {
        let mut t = SoakTracker::default();
        let runs = [
            vec![2000; 5],
            vec![2000; 5],
            vec![2000, 2000, 1250, 500, 500],
            vec![500; 5],
        ];
        for (i, iops) in runs.iter().enumerate() {
            t.add(i as u32 + 1, &run_at(i as u64 * 6, iops));
            // Run 3 ends with three seconds down: confirmed.
            assert_eq!(throttled(&t.verdicts()), i >= 2, "after run {}", i + 1);
        }
        let v = &t.verdicts()[0];
        assert_eq!(v.cliff.at_run, Some(3), "{v:?}");
        assert!((v.cliff.at_seconds - 14.5).abs() < 0.05, "{v:?}");
        assert_eq!((v.cliff.before_iops, v.cliff.after_iops), (2000.0, 500.0));
        assert!((v.cliff.burst_ios - 18750.0).abs() < 1.0, "{v:?}");
        assert!(!steady(&t.verdicts()), "4 runs are fewer than a window");
        assert!(text(&t.verdicts()).contains("(run 3)"));

        // Idling gave 3 s of burst back.
        let rec = t.with_recovery(&run_at(40, &[2000, 2000, 2000, 500, 500]), 9.0);
        let r = rec[0].recovery.as_ref().expect("a recovery");
        assert_eq!(r.recovered_pct, 100.0);
        assert!((r.burst_ios - 4500.0).abs() < 1.0, "{r:?}");
        let doc = to_json(&rec);
        assert_eq!(doc[0]["recovery"]["burst_ios"], 4500);
        assert_eq!(doc[0]["cliff"]["at_run"], 3);
    }

    #[test]
    fn a_constant_limit_is_steady_and_not_throttled() {
        let mut t = SoakTracker::default();
        for (i, level) in [1500u64, 1510, 1495, 1505, 1500, 1498].iter().enumerate() {
            t.add(i as u32 + 1, &run_at(i as u64 * 6, &[*level; 5]));
        }
        assert!(steady(&t.verdicts()) && !throttled(&t.verdicts()));
        let v = &t.verdicts()[0];
        assert!(!v.cliff.detected);
        let s = v.steady.unwrap();
        assert_eq!(s.window_start, 0);
        let doc = to_json(&t.verdicts());
        assert_eq!(doc[0]["steady_state"]["attained"], true);
        assert_eq!(doc[0]["steady_state"]["window_first_run"], 1);
        assert!(text(&t.verdicts()).contains("steady state from run 1 to 5"));
    }

    #[test]
    fn a_draining_bucket_is_not_steady() {
        let mut t = SoakTracker::default();
        for (i, level) in [3000u64, 2600, 2200, 1800, 1400, 1000].iter().enumerate() {
            t.add(i as u32 + 1, &run_at(i as u64 * 6, &[*level; 5]));
        }
        assert!(!steady(&t.verdicts()));
        assert!(text(&t.verdicts()).contains("not attained"));
    }

    #[test]
    fn one_run_is_one_run() {
        let mut t = SoakTracker::default();
        t.add(1, &run_at(0, &[1500; 5]));
        let line = text(&t.verdicts());
        assert!(line.contains("no cliff over 1 run;"), "{line}");
        assert!(line.contains("(it needs 5 runs, the soak had 1)"), "{line}");
    }
}
