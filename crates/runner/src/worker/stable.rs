//! The stability stop (`model::StableStop`): a time-based job that may end
//! before its runtime once its figure is known well enough. The worker cuts
//! its measured phase in slices and counts the I/Os and bytes completed in
//! each; after every slice it asks whether the mean slice rate's 95%
//! interval (the rate the job reports, known how well) is within the rule's
//! precision, and stops (`Stop::Stable`) when it is, once the minimum time
//! and I/Os are done. Neighbouring slices are often correlated (a limited
//! disk catches up after a slow slice), so the interval is that of batch
//! means (`analysis::stats::series_mean_interval`), not of single slices. The slices are counted
//! from the recorder's totals at each completion, so nothing is added to
//! the I/O path but one comparison with the next slice boundary.
//!
//! Whatever stops the job, the figures are the whole measured phase's, as
//! for any job: the slices only decide when to stop.

use analysis::stats::series_mean_interval;
use model::{Stability, StableStop};

pub(super) struct StableWatch {
    rule: StableStop,
    /// Where the measured phase started, and where the open slice ends (ns).
    start_ns: u64,
    slice_end_ns: u64,
    /// Totals at the start of the open slice.
    ios_at: u64,
    bytes_at: u64,
    slice_ios: Vec<u64>,
    slice_bytes: Vec<u64>,
    stopped_early: bool,
}

impl StableWatch {
    pub(super) fn new(rule: StableStop, start_ns: u64) -> StableWatch {
        StableWatch {
            rule,
            start_ns,
            slice_end_ns: start_ns + rule.slice_ns.max(1),
            ios_at: 0,
            bytes_at: 0,
            slice_ios: Vec::new(),
            slice_bytes: Vec::new(),
            stopped_early: false,
        }
    }

    /// With the clock at `now_ns` and the measured phase's totals so far:
    /// closes the slices that ended, and says whether the job may stop now.
    pub(super) fn stable(&mut self, now_ns: u64, ios: u64, bytes: u64) -> bool {
        if now_ns < self.slice_end_ns {
            return false;
        }
        // A completion seen after a long silence closes one slice with it
        // and leaves the slices it spanned empty: their rate was zero.
        while now_ns >= self.slice_end_ns + self.rule.slice_ns.max(1) {
            self.slice_ios.push(0);
            self.slice_bytes.push(0);
            self.slice_end_ns += self.rule.slice_ns.max(1);
        }
        self.slice_ios.push(ios - self.ios_at);
        self.slice_bytes.push(bytes - self.bytes_at);
        (self.ios_at, self.bytes_at) = (ios, bytes);
        self.slice_end_ns += self.rule.slice_ns.max(1);
        if now_ns - self.start_ns < self.rule.min_runtime_ns || ios < self.rule.min_ios {
            return false;
        }
        let precise = |counts: &[u64]| {
            let rates: Vec<f64> = counts.iter().map(|&c| c as f64).collect();
            series_mean_interval(&rates)
                .is_some_and(|iv| iv.mean > 0.0 && iv.half_width_pct() <= self.rule.half_width_pct)
        };
        // Both the I/O rate and the byte rate: a job of mixed block sizes
        // can be steady in one and not the other.
        self.stopped_early = precise(&self.slice_ios) && precise(&self.slice_bytes);
        self.stopped_early
    }

    pub(super) fn result(self) -> Stability {
        Stability {
            half_width_pct: self.rule.half_width_pct,
            slice_ns: self.rule.slice_ns,
            slice_ios: self.slice_ios,
            slice_bytes: self.slice_bytes,
            stopped_early: self.stopped_early,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn rule() -> StableStop {
        StableStop {
            half_width_pct: 3.0,
            min_runtime_ns: 2000 * MS,
            min_ios: 500,
            slice_ns: 250 * MS,
            budget_ns: None,
        }
    }

    /// Feeds `per_slice(i)` I/Os of 4 KiB each slice; returns when it said stop.
    fn stop_time(per_slice: impl Fn(u64) -> u64, slices: u64) -> Option<u64> {
        let mut w = StableWatch::new(rule(), 0);
        let mut ios = 0;
        for i in 1..=slices {
            ios += per_slice(i);
            let now = i * 250 * MS;
            if w.stable(now, ios, ios * 4096) {
                return Some(now);
            }
        }
        None
    }

    #[test]
    fn a_steady_rate_stops_at_the_minimum_time() {
        assert_eq!(stop_time(|_| 1000, 40), Some(2000 * MS));
    }

    #[test]
    fn a_noisy_rate_runs_on_and_too_few_ios_never_stop() {
        // 500 to 1500 in no order: the mean is not known within 3%.
        let scattered = |i: u64| 500 + (i * 7919 % 11) * 100;
        assert_eq!(stop_time(scattered, 40), None);
        // Alternating 500 and 1500 is a steady 2000 a pair: known from
        // six pairs (3 s).
        let alternating = |i: u64| if i.is_multiple_of(2) { 500 } else { 1500 };
        assert_eq!(stop_time(alternating, 40), Some(3000 * MS));
        // 10 I/Os a slice: under 500 in the first 2 s, steady after.
        assert_eq!(stop_time(|_| 10, 60), Some(12_500 * MS));
    }

    #[test]
    fn a_silence_counts_as_empty_slices() {
        let mut w = StableWatch::new(rule(), 0);
        assert!(!w.stable(100 * MS, 5, 5));
        assert!(!w.stable(1100 * MS, 10, 10));
        let r = w.result();
        assert_eq!(r.slice_ios, vec![0, 0, 0, 10]);
        assert!(!r.stopped_early);
    }
}
