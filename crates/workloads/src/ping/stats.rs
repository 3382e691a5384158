//! ioping's statistics, kept as ioping keeps them (min, avg, max and mdev
//! of the counted requests; iops as `1 / avg`; warmup requests shown but not
//! counted; `fast`/`slow` marks against the average so far), plus a
//! histogram for the percentiles ioping lacks.

use super::units::NS_PER_SEC;
use model::Histogram;

/// Why a request is marked, as ioping marks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notice {
    /// Among the first `-a` requests: shown, not counted.
    Warmup,
    /// Under half the average so far (after 5 counted requests).
    Fast,
    /// Over twice the average so far.
    Slow,
}

impl Notice {
    pub fn name(self) -> &'static str {
        match self {
            Notice::Warmup => "warmup",
            Notice::Fast => "fast",
            Notice::Slow => "slow",
        }
    }
}

/// ioping's statistics, and a histogram for the percentiles it lacks.
#[derive(Clone, Debug)]
pub struct PingStats {
    pub size_bytes: u64,
    /// Requests made, warmup included (ioping's `generated`).
    pub requests: u64,
    /// Counted requests' times.
    pub histogram: Histogram,
    pub sum_ns: u128,
    /// Wall time from the first request's start to the end.
    pub load_ns: u64,
}

impl PingStats {
    pub(crate) fn new(size_bytes: u64) -> PingStats {
        PingStats {
            size_bytes,
            requests: 0,
            histogram: Histogram::new(),
            sum_ns: 0,
            load_ns: 0,
        }
    }

    /// Counts (or not) one request, and says how ioping would mark it.
    pub(crate) fn add(&mut self, index: u64, ns: u64, warmup: u64) -> Option<Notice> {
        self.requests += 1;
        if index <= warmup {
            return Some(Notice::Warmup);
        }
        self.histogram.record(ns);
        self.sum_ns += ns as u128;
        let valid = self.histogram.count();
        let avg = (self.sum_ns / valid as u128) as u64;
        if valid <= 5 {
            None
        } else if ns.saturating_mul(2) < avg {
            Some(Notice::Fast)
        } else if ns > avg.saturating_mul(2) {
            Some(Notice::Slow)
        } else {
            None
        }
    }

    /// Counted requests.
    pub fn count(&self) -> u64 {
        self.histogram.count()
    }
    /// ioping's iops: counted requests per second of their own time (1 / avg).
    pub fn iops(&self) -> f64 {
        if self.sum_ns == 0 {
            0.0
        } else {
            NS_PER_SEC as f64 * self.count() as f64 / self.sum_ns as f64
        }
    }
    pub fn bytes_per_sec(&self) -> f64 {
        self.iops() * self.size_bytes as f64
    }
    /// Requests per second of wall time, warmup and intervals included.
    pub fn load_iops(&self) -> f64 {
        if self.load_ns == 0 {
            0.0
        } else {
            NS_PER_SEC as f64 * self.requests as f64 / self.load_ns as f64
        }
    }
    pub fn load_bytes_per_sec(&self) -> f64 {
        self.load_iops() * self.size_bytes as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ping_stats_skip_warmup_and_mark_outliers() {
        let mut s = PingStats::new(4096);
        assert_eq!(s.add(1, 1_000_000, 1), Some(Notice::Warmup));
        for i in 2..=7 {
            assert_eq!(s.add(i, 100_000, 1), None);
        }
        assert_eq!(s.add(8, 1_000_000, 1), Some(Notice::Slow));
        assert_eq!(s.add(9, 10_000, 1), Some(Notice::Fast));
        assert_eq!(s.requests, 9);
        assert_eq!(s.count(), 8);
        assert_eq!(s.histogram.min(), 10_000);
        let iops = 1e9 * 8.0 / (600_000.0 + 1_010_000.0);
        assert!((s.iops() - iops).abs() < 1e-6);
    }
}
