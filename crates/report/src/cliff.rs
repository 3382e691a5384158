//! The throttling cliff of a job, as the outputs show it: the `cliff`
//! object of the JSON and one plain sentence for people.
//!
//! Within a run the samples are the job's per-second series (IOPS of reads
//! and writes together); a last interval shorter than half a second is left
//! out, as its rate is noise. The cliff second itself is usually a mix of
//! both levels, so the time is refined inside it: a second at rate r spent
//! the share (r - after) / (before - after) of itself at the old level.
//! Across the runs of a soak the runs' series are laid end to end (a run's
//! average would blur a cliff that comes in its middle), and `at_run` names
//! the run the cliff came in.

use analysis::cliff::{level_and_spread, median, sorted};
use analysis::{find_cliff, CliffRules, Sample};
use model::JobResult;
use serde_json::{json, Value};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct CliffReport {
    pub detected: bool,
    pub at_seconds: f64,
    /// 1-based run where the cliff came, for a cliff across runs.
    pub at_run: Option<u32>,
    pub at_io: u64,
    pub before_iops: f64,
    pub after_iops: f64,
    pub before_bytes_per_sec: f64,
    pub after_bytes_per_sec: f64,
    pub drop_pct: f64,
    pub burst_ios: f64,
}

/// One interval of a job: how long, how many I/Os and bytes.
pub(crate) struct Interval {
    pub seconds: f64,
    pub ios: u64,
    pub bytes: u64,
}

impl Interval {
    pub fn rate(&self) -> f64 {
        if self.seconds > 0.0 {
            self.ios as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// The intervals of a series that count: a last one under half a second is
/// noise. Each with the point it came from.
pub(crate) fn intervals(
    series: &[model::SeriesPoint],
) -> impl Iterator<Item = (&model::SeriesPoint, Interval)> {
    series.iter().filter(|p| p.duration_ms >= 500).map(|p| {
        let iv = Interval {
            seconds: p.duration_ms as f64 / 1000.0,
            ios: p.ios(),
            bytes: p.bytes(),
        };
        (p, iv)
    })
}

/// The cliff inside one run, from its per-second series.
pub fn within_run(job: &JobResult) -> CliffReport {
    let iv: Vec<Interval> = intervals(&job.series).map(|(_, i)| i).collect();
    report_for(&iv)
}

/// One run of a job in a soak, for [`across_runs`].
pub struct RunSlice<'a> {
    /// 1-based run number.
    pub run: u32,
    /// When the job's measured phase began, in seconds from the soak's start.
    pub start_s: f64,
    pub job: &'a JobResult,
}

/// The cliff across the runs of a soak: every run's per-second series laid
/// end to end, so a cliff in the middle of a run is found as sharply as in
/// one long run, and `at_run` names the run it came in. `at_seconds` is
/// from the start of the soak (pauses included); `at_io` counts the I/Os of
/// the runs before it.
pub fn across_runs(runs: &[RunSlice]) -> CliffReport {
    let mut iv = Vec::new();
    // For each interval: its run and its start from the soak's start.
    let mut whence = Vec::new();
    for r in runs {
        for (p, i) in intervals(&r.job.series) {
            iv.push(i);
            whence.push((r.run, r.start_s + p.start_ms as f64 / 1000.0));
        }
    }
    let mut c = report_for(&iv);
    if !c.detected {
        return c;
    }
    // `report_for` measured time as the sum of the intervals; put it back
    // on the soak's clock, in the interval where the cliff fell.
    let starts: Vec<f64> = iv
        .iter()
        .scan(0.0, |t, i| {
            let start = *t;
            *t += i.seconds;
            Some(start)
        })
        .collect();
    let k = starts
        .partition_point(|&t| t <= c.at_seconds)
        .saturating_sub(1);
    c.at_seconds = whence[k].1 + (c.at_seconds - starts[k]);
    c.at_run = Some(whence[k].0);
    c
}

fn report_for(iv: &[Interval]) -> CliffReport {
    let samples: Vec<Sample> = iv
        .iter()
        .map(|i| Sample {
            rate: i.rate(),
            seconds: i.seconds,
        })
        .collect();
    let Some(c) = find_cliff(&samples, &CliffRules::default()) else {
        return CliffReport::default();
    };
    let bps = |xs: &[Interval]| {
        let v: Vec<f64> = xs
            .iter()
            .filter(|i| i.seconds > 0.0)
            .map(|i| i.bytes as f64 / i.seconds)
            .collect();
        median(&sorted(&v))
    };
    let refine = refinement(&samples, c.index, c.before, c.after);
    // A first slow second that began fast served some of the burst too.
    let mixed_burst = match refine > 0.0 {
        true => (samples[c.index].rate - c.after).max(0.0) * samples[c.index].seconds,
        false => 0.0,
    };
    CliffReport {
        detected: true,
        at_seconds: c.at_seconds + refine,
        at_run: None,
        at_io: iv[..c.index].iter().map(|i| i.ios).sum(),
        before_iops: c.before,
        after_iops: c.after,
        before_bytes_per_sec: bps(&iv[..c.index]),
        after_bytes_per_sec: bps(&iv[c.index..]),
        drop_pct: c.drop_pct,
        burst_ios: c.burst + mixed_burst,
    }
}

/// Seconds to add to (negative: take from) the boundary at `index`: the
/// share of a mixed boundary second that still ran at the old level.
/// A boundary second counts as mixed only when it lies outside its own
/// level's noise (this many robust spreads), so noise is not mistaken for
/// a partial drop.
const MIXED_SPREADS: f64 = 3.0;

fn refinement(samples: &[Sample], index: usize, before: f64, after: f64) -> f64 {
    let rates: Vec<f64> = samples.iter().map(|s| s.rate).collect();
    let (_, spread_before) = level_and_spread(&rates[..index]);
    let (_, spread_after) = level_and_spread(&rates[index..]);
    let share = |s: &Sample| ((s.rate - after) / (before - after)).clamp(0.0, 1.0);
    let last_fast = &samples[index - 1];
    let first_slow = &samples[index];
    let below_before = before - last_fast.rate > MIXED_SPREADS * spread_before;
    let above_after = first_slow.rate - after > MIXED_SPREADS * spread_after;
    if share(last_fast) < 0.98 && below_before {
        -(1.0 - share(last_fast)) * last_fast.seconds
    } else if share(first_slow) > 0.02 && above_after {
        share(first_slow) * first_slow.seconds
    } else {
        0.0
    }
}

pub fn to_json(c: &CliffReport) -> Value {
    if !c.detected {
        return json!({ "detected": false });
    }
    json!({
        "detected": true,
        "at_seconds": (c.at_seconds * 1000.0).round() / 1000.0,
        "at_run": c.at_run,
        "at_io": c.at_io,
        "before_iops": c.before_iops.round(),
        "after_iops": c.after_iops.round(),
        "before_bytes_per_sec": c.before_bytes_per_sec.round() as u64,
        "after_bytes_per_sec": c.after_bytes_per_sec.round() as u64,
        "drop_pct": (c.drop_pct * 10.0).round() / 10.0,
        "burst_ios": c.burst_ios.round() as u64,
    })
}

/// "Throttled after 3 h 02 m (run 34): 3,634 -> 1,210 IOPS (-67%); burst bucket about 5.4 M I/Os".
pub fn sentence(c: &CliffReport) -> Option<String> {
    if !c.detected {
        return None;
    }
    let run = c.at_run.map(|r| format!(" (run {r})")).unwrap_or_default();
    Some(format!(
        "Throttled after {}{run}: {} -> {} IOPS (-{:.0}%); burst bucket about {} I/Os",
        duration_text(c.at_seconds),
        model::units::thousands(c.before_iops.round() as u64),
        model::units::thousands(c.after_iops.round() as u64),
        c.drop_pct,
        compact_count(c.burst_ios)
    ))
}

fn duration_text(s: f64) -> String {
    let total = s.round() as u64;
    match total {
        _ if s < 60.0 => format!("{s:.1} s"),
        _ if total < 3600 => format!("{} m {:02} s", total / 60, total % 60),
        _ => format!("{} h {:02} m", total / 3600, total % 3600 / 60),
    }
}

fn compact_count(n: f64) -> String {
    match n {
        _ if n >= 1e9 => format!("{:.1} G", n / 1e9),
        _ if n >= 1e6 => format!("{:.1} M", n / 1e6),
        _ if n >= 1e3 => format!("{:.1} K", n / 1e3),
        _ => format!("{n:.0}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil;
    use model::SeriesPoint;

    fn job_with(iops: &[u64], last_ms: u64) -> JobResult {
        let mut job = testutil::sample_run().jobs[0].clone();
        job.series = iops
            .iter()
            .enumerate()
            .map(|(i, &n)| SeriesPoint {
                start_ms: i as u64 * 1000,
                duration_ms: if i + 1 == iops.len() { last_ms } else { 1000 },
                read_ios: n,
                read_bytes: n * 4096,
                ..SeriesPoint::default()
            })
            .collect();
        job
    }

    #[test]
    fn a_bucket_running_out_inside_a_second_is_placed_inside_it() {
        // 9 s at 2000, then a second that ran 0.9 s fast (1850), then 500.
        let mut iops = vec![2000; 9];
        iops.push(1850);
        iops.extend([500; 10]);
        iops.push(7);
        let c = within_run(&job_with(&iops, 20));
        assert!(c.detected);
        assert!((c.at_seconds - 9.9).abs() < 0.05, "{c:?}");
        assert_eq!(c.before_iops, 2000.0);
        assert_eq!(c.after_iops, 500.0);
        assert_eq!(c.before_bytes_per_sec, 2000.0 * 4096.0);
        assert_eq!(c.at_io, 9 * 2000 + 1850);
        assert!((c.burst_ios - (9.0 * 1500.0 + 1350.0)).abs() < 1.0);
        assert_eq!(
            sentence(&c).unwrap(),
            "Throttled after 9.9 s: 2,000 -> 500 IOPS (-75%); burst bucket about 14.8 K I/Os"
        );
        assert_eq!(to_json(&c)["burst_ios"], 14850);
    }

    #[test]
    fn a_steady_job_has_no_cliff() {
        let c = within_run(&job_with(
            &[1000, 1010, 990, 1005, 995, 1000, 1002, 998],
            1000,
        ));
        assert!(!c.detected);
        assert_eq!(to_json(&c), json!({"detected": false}));
        assert_eq!(sentence(&c), None);
    }

    #[test]
    fn across_runs_names_the_run_and_the_time_on_the_soaks_clock() {
        // Six runs of five seconds, 300 s apart; run 4 starts fast and
        // drops after 2.5 s.
        let runs: Vec<JobResult> = [
            vec![3600; 5],
            vec![3650; 5],
            vec![3620; 5],
            vec![3600, 3600, 2400, 1200, 1200],
            vec![1210; 5],
            vec![1190; 5],
        ]
        .iter()
        .map(|iops| job_with(iops, 1000))
        .collect();
        let slices: Vec<RunSlice> = runs
            .iter()
            .enumerate()
            .map(|(i, job)| RunSlice {
                run: i as u32 + 1,
                start_s: i as f64 * 300.0,
                job,
            })
            .collect();
        let c = across_runs(&slices);
        assert_eq!(c.at_run, Some(4), "{c:?}");
        assert!((c.at_seconds - 902.5).abs() < 0.05, "{c:?}");
        assert_eq!(c.at_io, 5 * (3600 + 3650 + 3620) + 7200);
        assert!(sentence(&c).unwrap().contains("(run 4)"));
        assert_eq!(duration_text(3.0 * 3600.0 + 120.0), "3 h 02 m");
    }
}
