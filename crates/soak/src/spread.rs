//! What each job's runs came to across a soak: the lowest, the median and
//! the highest IOPS, MB/s and p99 completion latency. The table printed at
//! the end is the last run's only, and the cliff and steady-state verdicts
//! speak of IOPS; this says how far apart the runs were, which a soak is
//! run to learn. The recovery run is left out, as from the verdicts. Each
//! job's median IOPS also gets its 95% interval, from order statistics
//! (no assumption of normality, see `analysis::stats`), and its range as a
//! share of the median, once there are enough runs for one.

use analysis::cliff::{median, sorted};
use model::{JobResult, RunResult};
use serde_json::{json, Value};

/// The lowest, median and highest of one figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub min: f64,
    pub median: f64,
    pub max: f64,
}

impl Spread {
    fn of(values: &[f64]) -> Spread {
        let v = sorted(values);
        Spread {
            min: v.first().copied().unwrap_or(0.0),
            median: median(&v),
            max: v.last().copied().unwrap_or(0.0),
        }
    }

    fn json(&self, decimals: i32) -> Value {
        let r = |x: f64| (x * 10f64.powi(decimals)).round() / 10f64.powi(decimals);
        json!({"min": r(self.min), "median": r(self.median), "max": r(self.max)})
    }
}

/// One job across the runs.
#[derive(Clone, Debug, PartialEq)]
pub struct JobSpread {
    pub name: String,
    pub runs: usize,
    pub iops: Spread,
    pub mb_per_sec: Spread,
    pub p99_latency_us: Spread,
    /// The runs' IOPS summarised: median, its 95% interval, range.
    pub iops_summary: Option<analysis::stats::Summary>,
}

/// One run's figures of one job.
#[derive(Clone, Copy)]
struct RunFigures {
    iops: f64,
    mb_per_sec: f64,
    p99_latency_us: f64,
}

impl RunFigures {
    fn of(job: &JobResult) -> RunFigures {
        let secs = job.runtime_ns as f64 / 1e9;
        let per_sec = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
        let mut clat = job.read.clat.clone();
        clat.merge(&job.write.clat);
        RunFigures {
            iops: per_sec(job.total_ios() as f64),
            mb_per_sec: per_sec((job.read.bytes + job.write.bytes) as f64) / 1e6,
            p99_latency_us: clat.percentile(99.0) as f64 / 1e3,
        }
    }
}

/// The runs so far, by job, in the order the jobs first ran.
#[derive(Default)]
pub struct SpreadTracker {
    jobs: Vec<(String, Vec<RunFigures>)>,
}

impl SpreadTracker {
    pub fn add(&mut self, result: &RunResult) {
        for job in &result.jobs {
            let figures = RunFigures::of(job);
            match self.jobs.iter_mut().find(|(name, _)| *name == job.name) {
                Some((_, runs)) => runs.push(figures),
                None => self.jobs.push((job.name.clone(), vec![figures])),
            }
        }
    }

    pub fn spreads(&self) -> Vec<JobSpread> {
        self.jobs
            .iter()
            .map(|(name, runs)| {
                let of =
                    |f: fn(&RunFigures) -> f64| Spread::of(&runs.iter().map(f).collect::<Vec<_>>());
                JobSpread {
                    name: name.clone(),
                    runs: runs.len(),
                    iops: of(|r| r.iops),
                    mb_per_sec: of(|r| r.mb_per_sec),
                    p99_latency_us: of(|r| r.p99_latency_us),
                    iops_summary: analysis::stats::Summary::of(
                        &runs.iter().map(|r| r.iops).collect::<Vec<_>>(),
                    ),
                }
            })
            .collect()
    }
}

/// Whether every job's median IOPS is known within `pct` percent: its 95%
/// interval's half-width at most that share of the median (`--ci`). False
/// while any job has too few runs for an interval.
pub fn precise(spreads: &[JobSpread], pct: f64) -> bool {
    !spreads.is_empty()
        && spreads.iter().all(|s| {
            s.iops_summary
                .and_then(|m| m.half_width_pct())
                .is_some_and(|h| h <= pct)
        })
}

/// The text block: one line per job.
pub fn text(spreads: &[JobSpread]) -> String {
    if spreads.is_empty() {
        return String::new();
    }
    let width = spreads
        .iter()
        .map(|s| s.name.len())
        .max()
        .unwrap_or(0)
        .max(3);
    let mut out = format!(
        "\nAcross the runs (min / median / max):\n  {:<width$}  {:>5}  {:>28}  {:>28}  {:>31}\n",
        "job", "runs", "IOPS", "MB/s", "p99 clat (us)"
    );
    for s in spreads {
        let three =
            |sp: &Spread, d: usize| format!("{:.d$} / {:.d$} / {:.d$}", sp.min, sp.median, sp.max);
        out.push_str(&format!(
            "  {:<width$}  {:>5}  {:>28}  {:>28}  {:>31}\n",
            s.name,
            s.runs,
            three(&s.iops, 0),
            three(&s.mb_per_sec, 1),
            three(&s.p99_latency_us, 1),
        ));
    }
    let medians: Vec<String> = spreads
        .iter()
        .filter(|s| s.runs > 1)
        .filter_map(|s| {
            Some(format!(
                "  {:<width$}  {}\n",
                s.name,
                s.iops_summary?.text(0)
            ))
        })
        .collect();
    if !medians.is_empty() {
        out.push_str(
            "Median IOPS with its 95% interval (order statistics, no normality assumed):\n",
        );
        out.push_str(&medians.concat());
    }
    out
}

/// A job's `across_runs` object in the soak's JSON.
pub fn to_json(s: &JobSpread) -> Value {
    json!({
        "runs": s.runs,
        "iops": s.iops.json(1),
        "mb_per_sec": s.mb_per_sec.json(3),
        "p99_clat_us": s.p99_latency_us.json(3),
        "iops_median_ci95": s.iops_summary.and_then(|m| m.interval).map(|(lo, hi)| [lo, hi]),
        "iops_range_pct": s.iops_summary.map(|m| m.range_pct()),
    })
}

/// The terse line: `diskbench-soak-spread;1;NAME;RUNS;` then min, median
/// and max of IOPS, of MB/s and of p99 clat in µs.
pub fn terse(s: &JobSpread) -> String {
    let three = |sp: &Spread| format!("{:.1};{:.1};{:.1}", sp.min, sp.median, sp.max);
    let three3 = |sp: &Spread| format!("{:.3};{:.3};{:.3}", sp.min, sp.median, sp.max);
    format!(
        "diskbench-soak-spread;1;{};{};{};{};{}\n",
        s.name,
        s.runs,
        three(&s.iops),
        three3(&s.mb_per_sec),
        three3(&s.p99_latency_us)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of one job that did `ios` 4 KiB reads in one second, each in `lat_us`.
    fn run(ios: u64, lat_us: u64) -> RunResult {
        let spec = &fio::parse_args(["--name=j", "--size=1m"].map(String::from))
            .unwrap()
            .jobs[0];
        let mut job = JobResult::empty(spec, 0, spec.numjobs.max(1));
        job.runtime_ns = 1_000_000_000;
        job.read.ios = ios;
        job.read.bytes = ios * 4096;
        job.read.clat.record_n(lat_us * 1000, ios);
        RunResult {
            jobs: vec![job],
            ..Default::default()
        }
    }

    #[test]
    fn each_job_gets_the_lowest_median_and_highest_of_its_runs() {
        let mut t = SpreadTracker::default();
        for (ios, lat) in [(3000, 100), (1000, 900), (2000, 300), (2500, 200)] {
            t.add(&run(ios, lat));
        }
        let s = &t.spreads()[0];
        assert_eq!((s.name.as_str(), s.runs), ("j", 4));
        assert_eq!(
            (s.iops.min, s.iops.median, s.iops.max),
            (1000.0, 2250.0, 3000.0)
        );
        assert!((s.mb_per_sec.max - 3000.0 * 4096.0 / 1e6).abs() < 1e-9);
        assert!(s.p99_latency_us.min < s.p99_latency_us.max, "{s:?}");
        let text = text(&t.spreads());
        assert!(text.contains("1000 / 2250 / 3000"), "{text}");
        assert!(
            text.contains("2250 (too few for a 95% CI (needs 6), range 88.9%, 4 repeats)"),
            "{text}"
        );
        for (ios, lat) in [(2100, 100), (2200, 100), (2300, 100)] {
            t.add(&run(ios, lat));
        }
        let s7 = &t.spreads()[0];
        let (lo, hi) = s7.iops_summary.unwrap().interval.unwrap();
        assert!(lo <= 2200.0 && hi >= 2200.0 && lo >= 1000.0 && hi <= 3000.0);
        assert!(to_json(s7)["iops_median_ci95"].is_array());
        // 1000..3000 around 2200 is far from 3%; seven runs of one figure are exact.
        assert!(!precise(&t.spreads(), 3.0));
        assert!(!precise(&[], 3.0));
        let mut steady = SpreadTracker::default();
        for _ in 0..5 {
            steady.add(&run(2000, 100));
        }
        assert!(
            !precise(&steady.spreads(), 3.0),
            "five runs give no interval"
        );
        steady.add(&run(2010, 100));
        assert!(precise(&steady.spreads(), 3.0));
        assert_eq!(to_json(s)["iops"]["median"], 2250.0);
        assert!(terse(s).starts_with("diskbench-soak-spread;1;j;4;1000.0;2250.0;3000.0;"));
    }
}
