//! How deep the queue really was. A job asks for `iodepth` I/Os in flight,
//! but the tool keeps that many only if it refills each slot as soon as it
//! frees; a benchmark slower than the device keeps fewer and reports the
//! device as slower and its latency as lower than they are. So each job
//! carries what was kept:
//!
//! - fio's three distributions, counted as fio counts them: `level`, the I/Os
//!   submitted by the number in flight once they were (buckets 1, 2, 4, 8,
//!   16, 32, >=64); `submit` and `complete`, the submit calls and the reaps by
//!   the number of I/Os each carried (buckets 0, 1-4, 5-8, 9-16, 17-32,
//!   33-64, >64).
//! - the mean number in flight, by Little's law: the time every measured I/O
//!   held its slot, from being queued to the moment its completion was seen
//!   (its `lat`), over the measured time. Summed over clones, so the mean is per clone,
//!   comparable with `iodepth`.

use serde::{Deserialize, Serialize};

/// The number of buckets of each distribution, as in fio.
pub const DEPTH_BUCKETS: usize = 7;

/// fio's names for the `iodepth_level` buckets.
pub const LEVEL_LABELS: [&str; DEPTH_BUCKETS] = ["1", "2", "4", "8", "16", "32", ">=64"];
/// fio's names for the `iodepth_submit` and `iodepth_complete` buckets.
pub const BATCH_LABELS: [&str; DEPTH_BUCKETS] = ["0", "4", "8", "16", "32", "64", ">=64"];

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DepthStats {
    pub level: [u64; DEPTH_BUCKETS],
    pub submit: [u64; DEPTH_BUCKETS],
    pub complete: [u64; DEPTH_BUCKETS],
    /// The summed time of every measured I/O in flight (ns).
    pub in_flight_ns: u128,
    /// The measured time it is spread over: each clone's runtime, summed (ns).
    pub measured_ns: u128,
}

impl DepthStats {
    /// `n` I/Os handed to the kernel in one call, leaving `in_flight` in flight.
    #[inline]
    pub fn submitted(&mut self, n: u32, in_flight: u32) {
        self.level[level_bucket(in_flight)] += n as u64;
        self.submit[batch_bucket(n)] += 1;
    }

    /// One reap that handled `n` completions.
    #[inline]
    pub fn reaped(&mut self, n: u32) {
        self.complete[batch_bucket(n)] += 1;
    }

    /// The mean number of I/Os in flight per clone, or `None` before any
    /// measured time.
    pub fn mean(&self) -> Option<f64> {
        (self.measured_ns > 0).then(|| self.in_flight_ns as f64 / self.measured_ns as f64)
    }

    pub fn add(&mut self, o: &DepthStats) {
        for (a, b) in [
            (&mut self.level, &o.level),
            (&mut self.submit, &o.submit),
            (&mut self.complete, &o.complete),
        ] {
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        }
        self.in_flight_ns += o.in_flight_ns;
        self.measured_ns += o.measured_ns;
    }

    /// A distribution in percent of its total, as fio prints it: a bucket
    /// with any count shows at least 0.1%.
    pub fn percents(counts: &[u64; DEPTH_BUCKETS]) -> [f64; DEPTH_BUCKETS] {
        let total: u64 = counts.iter().sum();
        counts.map(|c| match (total, c) {
            (0, _) | (_, 0) => 0.0,
            (t, c) => (c as f64 * 100.0 / t as f64).max(0.1),
        })
    }
}

/// fio's bucket for the depth an I/O was submitted at: 1, 2-3, 4-7, ..., >=64.
#[inline]
fn level_bucket(depth: u32) -> usize {
    match depth {
        0..=1 => 0,
        d => (d.ilog2() as usize).min(DEPTH_BUCKETS - 1),
    }
}

/// fio's bucket for a batch of `n`: 0, 1-4, 5-8, 9-16, 17-32, 33-64, >64.
#[inline]
fn batch_bucket(n: u32) -> usize {
    match n {
        0 => 0,
        1..=4 => 1,
        n => ((n - 1).ilog2() as usize).min(DEPTH_BUCKETS - 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_fios() {
        let levels = [
            (1, 0),
            (2, 1),
            (3, 1),
            (4, 2),
            (7, 2),
            (8, 3),
            (31, 4),
            (32, 5),
        ];
        for (depth, bucket) in levels.into_iter().chain([(63, 5), (64, 6), (500, 6)]) {
            assert_eq!(level_bucket(depth), bucket, "depth {depth}");
        }
        let batches = [
            (0, 0),
            (1, 1),
            (4, 1),
            (5, 2),
            (8, 2),
            (9, 3),
            (16, 3),
            (17, 4),
        ];
        for (n, bucket) in batches
            .into_iter()
            .chain([(32, 4), (33, 5), (64, 5), (65, 6)])
        {
            assert_eq!(batch_bucket(n), bucket, "batch {n}");
        }
    }

    #[test]
    fn percents_show_any_count_as_at_least_a_tenth() {
        let p = DepthStats::percents(&[0, 1, 0, 0, 0, 9999, 0]);
        assert_eq!(p[1], 0.1);
        assert!((p[5] - 99.99).abs() < 1e-9);
        assert_eq!(p[0], 0.0);
        assert_eq!(DepthStats::percents(&[0; 7]), [0.0; 7]);
    }

    #[test]
    fn the_mean_is_per_clone_after_merging() {
        let mut a = DepthStats {
            in_flight_ns: 32_000,
            measured_ns: 1_000,
            ..DepthStats::default()
        };
        let b = DepthStats {
            in_flight_ns: 30_000,
            measured_ns: 1_000,
            ..DepthStats::default()
        };
        a.add(&b);
        assert_eq!(a.mean(), Some(31.0));
        assert_eq!(DepthStats::default().mean(), None);
    }
}
