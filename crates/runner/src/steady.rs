//! fio's `steadystate` (`ss`): while a job runs, its per-second IOPS,
//! bandwidth or mean completion latency over the last `ss_dur` seconds
//! (after `ss_ramp`) is judged once a second, and the job stops as soon as
//! the window meets the limit.
//!
//! fio's two kinds of criterion: `iops`/`bw`/`lat` take the largest
//! deviation of one measurement from the window's mean;
//! `iops_slope`/`bw_slope`/`lat_slope` take the least-squares slope (per
//! measurement). A measurement's latency is the mean completion latency of
//! all its I/Os, every clone's (fio 3.42's `lat` and `lat_slope`). Either is compared with the limit as
//! it is, or as a percentage of the window's mean. The workers publish
//! their seconds to the runner's thread, which does all of this: nothing
//! is added to the I/O path but one flag check.

use model::{SeriesPoint, SteadyMetric, SteadyStateResult, SteadyStateSpec};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// One second (or measurement) of a job: clones reported, I/Os, bytes and
/// the sum of the completion latencies.
#[derive(Clone, Copy, Debug, Default)]
struct Second {
    clones: u32,
    ios: u64,
    bytes: u64,
    clat_ns: u64,
}

impl Second {
    /// The mean completion latency of its I/Os (0 without any).
    fn lat_ns(&self) -> u64 {
        self.clat_ns.checked_div(self.ios).unwrap_or(0)
    }
}

/// One job's watch over its seconds, summed over its clones.
pub(crate) struct SteadyWatch {
    spec: SteadyStateSpec,
    clones: u32,
    /// Per second of the measured phase, summed over the clones that reported it.
    seconds: Vec<Second>,
    /// Set when the window met the limit: the job's workers stop.
    pub stop: Arc<AtomicBool>,
    verdict: Option<SteadyStateResult>,
}

impl SteadyWatch {
    pub fn new(spec: SteadyStateSpec, clones: u32) -> SteadyWatch {
        SteadyWatch {
            spec,
            clones: clones.max(1),
            seconds: Vec::new(),
            stop: Arc::new(AtomicBool::new(false)),
            verdict: None,
        }
    }

    /// Adds one clone's finished second (a partial last second is ignored).
    pub fn add(&mut self, p: &SeriesPoint) {
        if p.duration_ms < 1000 {
            return;
        }
        let i = (p.start_ms / 1000) as usize;
        if self.seconds.len() <= i {
            self.seconds.resize(i + 1, Second::default());
        }
        let s = &mut self.seconds[i];
        s.clones += 1;
        s.ios += p.ios();
        s.bytes += p.bytes();
        s.clat_ns += p.clat_ns;
    }

    /// Judges the latest complete window; stops the job when it is steady.
    pub fn judge(&mut self) {
        if self.verdict.as_ref().is_some_and(|v| v.attained) {
            return;
        }
        let ramp = self.spec.ramp.as_secs() as usize;
        let complete = self
            .seconds
            .iter()
            .take_while(|s| s.clones >= self.clones)
            .count();
        // `ss_interval`: the window is a whole number of measurements of
        // `step` seconds, judged as each measurement completes; each
        // measurement is its seconds' mean, so the units stay per second
        // (and its latency the mean of all its I/Os').
        let step = (self.spec.interval.as_secs() as usize).max(1);
        let window = (self.spec.duration.as_secs() as usize / step).max(1) * step;
        if complete < ramp + window || !(complete - ramp).is_multiple_of(step) {
            return;
        }
        let measurements: Vec<Second> = self.seconds[complete - window..complete]
            .chunks(step)
            .map(|c| {
                let sum = |f: fn(&Second) -> u64| c.iter().map(f).sum::<u64>();
                Second {
                    clones: self.clones,
                    ios: sum(|s| s.ios) / step as u64,
                    bytes: sum(|s| s.bytes) / step as u64,
                    clat_ns: sum(|s| s.clat_ns) / step as u64,
                }
            })
            .collect();
        let verdict = judge(&self.spec, &measurements);
        if verdict.attained {
            self.stop.store(true, Ordering::Relaxed);
        }
        self.verdict = Some(verdict);
    }

    /// The verdict for the JSON: the last window judged, or, when the job
    /// ended before a whole window, one of zeros: a zero for each
    /// measurement of the window, as fio 3.33 gives (`ss_ramp` longer than
    /// the run: `ss_dur=10` gives ten zeros, which tools average).
    pub fn result(&self) -> SteadyStateResult {
        let step = self.spec.interval.as_secs().max(1);
        let measurements = (self.spec.duration.as_secs() / step).max(1) as usize;
        self.verdict.clone().unwrap_or_else(|| SteadyStateResult {
            ss: ss_text(&self.spec),
            duration_s: self.spec.duration.as_secs(),
            percent: self.spec.percent,
            iops: vec![0; measurements],
            bw: vec![0; measurements],
            ..SteadyStateResult::default()
        })
    }
}

fn ss_text(spec: &SteadyStateSpec) -> String {
    let unit = if spec.percent { "%" } else { "" };
    format!("{}:{:.6}{unit}", spec.metric.fio_name(), spec.limit)
}

fn judge(spec: &SteadyStateSpec, window: &[Second]) -> SteadyStateResult {
    let iops: Vec<u64> = window.iter().map(|s| s.ios).collect();
    let bw: Vec<u64> = window.iter().map(|s| s.bytes).collect();
    let lat: Vec<u64> = window.iter().map(Second::lat_ns).collect();
    let mean = |v: &[u64]| v.iter().sum::<u64>() as f64 / v.len().max(1) as f64;
    let (iops_mean, bw_mean, lat_mean) = (mean(&iops), mean(&bw), mean(&lat));
    let (values, m) = match spec.metric {
        SteadyMetric::Iops | SteadyMetric::IopsSlope => (&iops, iops_mean),
        SteadyMetric::Bw | SteadyMetric::BwSlope => (&bw, bw_mean),
        SteadyMetric::Lat | SteadyMetric::LatSlope => (&lat, lat_mean),
    };
    let (mut max_deviation, mut slope) = (0.0, 0.0);
    let measure = match spec.metric {
        SteadyMetric::Iops | SteadyMetric::Bw | SteadyMetric::Lat => {
            max_deviation = values
                .iter()
                .map(|&v| (v as f64 - m).abs())
                .fold(0.0, f64::max);
            max_deviation
        }
        SteadyMetric::IopsSlope | SteadyMetric::BwSlope | SteadyMetric::LatSlope => {
            slope = least_squares_slope(values);
            // Signed, as fio prints it; judged by its size.
            slope
        }
    };
    let criterion = match (spec.percent, m > 0.0) {
        (true, true) => measure / m * 100.0,
        (true, false) => f64::INFINITY,
        (false, _) => measure,
    };
    SteadyStateResult {
        ss: ss_text(spec),
        duration_s: spec.duration.as_secs(),
        attained: criterion.abs() <= spec.limit,
        criterion,
        percent: spec.percent,
        max_deviation,
        slope,
        iops_mean,
        bw_mean,
        iops,
        bw,
        lat_mean,
        lat: match spec.metric {
            SteadyMetric::Lat | SteadyMetric::LatSlope => lat,
            _ => Vec::new(),
        },
    }
}

/// The slope of the least-squares line through `(i, v[i])`, per second.
fn least_squares_slope(v: &[u64]) -> f64 {
    let n = v.len() as f64;
    if n < 2.0 {
        return 0.0;
    }
    let x_mean = (n - 1.0) / 2.0;
    let y_mean = v.iter().sum::<u64>() as f64 / n;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, &y) in v.iter().enumerate() {
        let dx = i as f64 - x_mean;
        sxy += dx * (y as f64 - y_mean);
        sxx += dx * dx;
    }
    sxy / sxx
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn spec(metric: SteadyMetric, limit: f64, percent: bool) -> SteadyStateSpec {
        SteadyStateSpec {
            metric,
            limit,
            percent,
            duration: Duration::from_secs(5),
            ramp: Duration::from_secs(1),
            interval: Duration::from_secs(1),
        }
    }

    fn feed(w: &mut SteadyWatch, iops: &[u64]) {
        for (i, &n) in iops.iter().enumerate() {
            w.add(&SeriesPoint {
                start_ms: i as u64 * 1000,
                duration_ms: 1000,
                read_ios: n,
                read_bytes: n * 4096,
                ..SeriesPoint::default()
            });
            w.judge();
        }
    }

    #[test]
    fn a_job_that_ends_before_a_window_gives_a_window_of_zeros() {
        let mut w = SteadyWatch::new(spec(SteadyMetric::Iops, 5.0, true), 1);
        feed(&mut w, &[1000, 1000]);
        let r = w.result();
        assert!(!r.attained, "{r:?}");
        // ss_dur=5: five measurements, none made.
        assert_eq!((r.iops, r.bw), (vec![0; 5], vec![0; 5]));
    }

    #[test]
    fn a_flat_window_stops_the_job_and_a_drop_does_not() {
        let mut w = SteadyWatch::new(spec(SteadyMetric::Iops, 5.0, true), 1);
        feed(&mut w, &[9000, 1000, 1010, 990, 1005, 995, 1000]);
        let r = w.result();
        assert!(r.attained && w.stop.load(Ordering::Relaxed), "{r:?}");
        // The ramp second (9000) is left out; the first whole window wins.
        assert_eq!(r.iops, [1000, 1010, 990, 1005, 995]);
        assert_eq!(r.max_deviation, 10.0);
        assert!((r.criterion - 1.0).abs() < 1e-9);
        assert_eq!(r.ss, "iops:5.000000%");

        let mut w = SteadyWatch::new(spec(SteadyMetric::IopsSlope, 2.0, true), 1);
        feed(&mut w, &[2000, 2000, 1800, 1600, 1400, 1200, 1000]);
        let r = w.result();
        assert!(!r.attained && !w.stop.load(Ordering::Relaxed), "{r:?}");
        assert_eq!(r.slope, -200.0);
        assert!(r.criterion < -2.0, "signed, as fio prints it: {r:?}");
    }

    #[test]
    fn a_second_counts_once_every_clone_reported_it_and_absolute_limits_work() {
        let mut w = SteadyWatch::new(spec(SteadyMetric::Bw, 4096.0 * 30.0, false), 2);
        let one = |i: u64, n: u64| SeriesPoint {
            start_ms: i * 1000,
            duration_ms: 1000,
            write_ios: n,
            write_bytes: n * 4096,
            ..SeriesPoint::default()
        };
        for i in 0..6 {
            w.add(&one(i, 500));
            w.judge();
            // Not judged: the window of zeros of a job without a verdict.
            assert!(
                w.result().iops.iter().all(|&n| n == 0),
                "half of second {i} is not judged"
            );
            w.add(&one(i, 500 + i));
        }
        w.judge();
        let r = w.result();
        assert_eq!(r.iops.len(), 5);
        assert!(r.attained, "{r:?}");
        assert_eq!(r.ss, "bw:122880.000000");
    }

    #[test]
    fn latency_criteria_judge_each_measurements_mean_completion_latency() {
        // 1000 I/Os a second; the mean latency of seconds 1.. is 100 us
        // give or take 3 us (the ramp second, 500 us, is left out).
        let lat_us = [500, 100, 103, 97, 100, 102, 100];
        let mut w = SteadyWatch::new(spec(SteadyMetric::Lat, 5.0, true), 1);
        for (i, &us) in lat_us.iter().enumerate() {
            w.add(&SeriesPoint {
                start_ms: i as u64 * 1000,
                duration_ms: 1000,
                read_ios: 1000,
                read_bytes: 1000 * 4096,
                clat_ns: 1000 * us * 1000,
                ..SeriesPoint::default()
            });
            w.judge();
        }
        let r = w.result();
        assert!(r.attained, "{r:?}");
        assert_eq!(r.lat, [100_000, 103_000, 97_000, 100_000, 102_000]);
        assert_eq!(r.lat_mean, 100_400.0);
        assert!(
            (r.criterion - 3400.0 / 100_400.0 * 100.0).abs() < 1e-9,
            "{r:?}"
        );
        assert_eq!(r.ss, "lat:5.000000%");
        // A latency that climbs 10% a second is not steady, by either criterion.
        for metric in [SteadyMetric::Lat, SteadyMetric::LatSlope] {
            let mut w = SteadyWatch::new(spec(metric, 5.0, true), 1);
            for i in 0..7u64 {
                w.add(&SeriesPoint {
                    start_ms: i * 1000,
                    duration_ms: 1000,
                    read_ios: 1000,
                    clat_ns: 1000 * (100_000 + i * 10_000),
                    ..SeriesPoint::default()
                });
                w.judge();
            }
            let r = w.result();
            assert!(!r.attained && !w.stop.load(Ordering::Relaxed), "{r:?}");
            if metric == SteadyMetric::LatSlope {
                assert_eq!(r.slope, 10_000.0);
            }
        }
    }

    #[test]
    fn ss_interval_judges_means_of_whole_measurements() {
        // Seconds alternate 900/1100: each second deviates 10% from the
        // mean, each two-second measurement not at all.
        let alternating = [900, 1100, 900, 1100, 900, 1100, 900];
        let mut w = SteadyWatch::new(spec(SteadyMetric::Iops, 5.0, true), 1);
        feed(&mut w, &alternating);
        assert!(!w.result().attained, "{:?}", w.result());

        let mut two = spec(SteadyMetric::Iops, 5.0, true);
        two.duration = Duration::from_secs(4);
        two.interval = Duration::from_secs(2);
        let mut w = SteadyWatch::new(two, 1);
        feed(&mut w, &alternating);
        let r = w.result();
        assert!(r.attained, "{r:?}");
        assert_eq!(r.iops, [1000, 1000], "two measurements of two seconds each");
    }
}
