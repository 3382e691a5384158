//! A log-linear latency histogram: exact below 128 ns, then 128 buckets per
//! power of two, so a bucket is never wider than 1/128 (0.78%) of its values
//! and the midpoint we report is within 0.4% of any value in it.
//!
//! Recording is a leading-zero count, a shift and an increment: cheap enough
//! to run on every I/O of the null engine without being what limits it.
//! Workers keep their own histograms and they are merged at the end, so
//! percentiles of a group (or of many runs, in the history) come from the
//! merged counts, never from averaged percentiles.

use serde::{Deserialize, Serialize};

/// Sub-bucket bits: 2^7 = 128 buckets per power of two.
const SUB_BITS: u32 = 7;
const SUB_COUNT: u64 = 1 << SUB_BITS;
/// Values at or above 2^44 ns (about 4.9 hours) land in the last bucket.
const MAX_MSB: u32 = 43;
pub const BUCKETS: usize = ((MAX_MSB - SUB_BITS + 2) as usize) * SUB_COUNT as usize;

#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    counts: Box<[u64]>,
    n: u64,
    min: u64,
    max: u64,
    sum: u128,
    sum_sq: f64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

#[inline]
pub(crate) fn bucket_of(value: u64) -> usize {
    if value < SUB_COUNT {
        return value as usize;
    }
    let msb = (63 - value.leading_zeros()).min(MAX_MSB);
    let shift = msb - SUB_BITS;
    let mantissa = ((value >> shift) - SUB_COUNT).min(SUB_COUNT - 1);
    ((shift as u64 + 1) * SUB_COUNT + mantissa) as usize
}

/// The smallest value and the width of bucket `index`.
pub(crate) fn bucket_range(index: usize) -> (u64, u64) {
    let index = index as u64;
    if index < SUB_COUNT {
        return (index, 1);
    }
    let shift = index / SUB_COUNT - 1;
    let mantissa = index % SUB_COUNT;
    ((SUB_COUNT + mantissa) << shift, 1 << shift)
}

impl Histogram {
    pub fn new() -> Self {
        Histogram {
            counts: vec![0; BUCKETS].into_boxed_slice(),
            n: 0,
            min: u64::MAX,
            max: 0,
            sum: 0,
            sum_sq: 0.0,
        }
    }

    #[inline]
    pub fn record(&mut self, value_ns: u64) {
        self.counts[bucket_of(value_ns)] += 1;
        self.n += 1;
        self.min = self.min.min(value_ns);
        self.max = self.max.max(value_ns);
        self.sum += value_ns as u128;
        let v = value_ns as f64;
        self.sum_sq += v * v;
    }

    /// Records the same value `times` times (one timestamp for a reaped batch).
    #[inline]
    pub fn record_n(&mut self, value_ns: u64, times: u64) {
        if times == 0 {
            return;
        }
        self.counts[bucket_of(value_ns)] += times;
        self.n += times;
        self.min = self.min.min(value_ns);
        self.max = self.max.max(value_ns);
        self.sum += value_ns as u128 * times as u128;
        let v = value_ns as f64;
        self.sum_sq += v * v * times as f64;
    }

    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += *b;
        }
        self.n += other.n;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
    }

    pub fn count(&self) -> u64 {
        self.n
    }
    /// The exact sum of every value recorded.
    pub fn sum(&self) -> u128 {
        self.sum
    }
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    pub fn min(&self) -> u64 {
        if self.n == 0 {
            0
        } else {
            self.min
        }
    }
    pub fn max(&self) -> u64 {
        self.max
    }
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }
    /// Population standard deviation, as fio prints it.
    pub fn stddev(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let mean = self.mean();
        let var = self.sum_sq / self.n as f64 - mean * mean;
        var.max(0.0).sqrt()
    }

    /// The value below which `pct` percent of the recorded values lie: the
    /// midpoint of the bucket where the cumulative count reaches the rank,
    /// clamped to the exact min and max.
    pub fn percentile(&self, pct: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let rank = ((pct / 100.0) * self.n as f64).ceil().max(1.0) as u64;
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (low, width) = bucket_range(i);
                let mid = low + width / 2;
                return mid.clamp(self.min, self.max);
            }
        }
        self.max
    }

    /// What was recorded after `earlier`, an earlier copy of this
    /// histogram: one second of a run from two snapshots, with nothing
    /// added to the recording itself. Counts and sums are exact; the
    /// interval's own min and max were not kept, so they are the bounds of
    /// its lowest and highest buckets (within 0.78%, and within the whole
    /// histogram's exact min and max).
    pub fn since(&self, earlier: &Histogram) -> Histogram {
        let mut h = Histogram::new();
        for ((d, a), b) in h
            .counts
            .iter_mut()
            .zip(self.counts.iter())
            .zip(earlier.counts.iter())
        {
            *d = a.saturating_sub(*b);
        }
        h.n = self.n.saturating_sub(earlier.n);
        h.sum = self.sum.saturating_sub(earlier.sum);
        h.sum_sq = (self.sum_sq - earlier.sum_sq).max(0.0);
        let lowest = h.counts.iter().position(|&c| c > 0);
        let highest = h.counts.iter().rposition(|&c| c > 0);
        if let (Some(lo), Some(hi)) = (lowest, highest) {
            h.min = bucket_range(lo).0.max(self.min);
            let (low, width) = bucket_range(hi);
            h.max = (low + width - 1).min(self.max);
        }
        h
    }

    /// Non-empty buckets as `(lowest value, count)`, for storage and plots.
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &c)| (bucket_range(i).0, c))
    }
}

/// Stored sparsely: `{"n", "min", "max", "sum", "sum_sq", "buckets": [[low_ns, count], ...]}`.
#[derive(Serialize, Deserialize)]
struct SparseHistogram {
    n: u64,
    min: u64,
    max: u64,
    sum: u128,
    sum_sq: f64,
    buckets: Vec<(u64, u64)>,
}

impl Serialize for Histogram {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        SparseHistogram {
            n: self.n,
            min: self.min(),
            max: self.max,
            sum: self.sum,
            sum_sq: self.sum_sq,
            buckets: self.buckets().collect(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Histogram {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let sparse = SparseHistogram::deserialize(d)?;
        let mut h = Histogram::new();
        // Counts past u64 would overflow here and in the percentiles (fuzz/import_json).
        let too_many = || <D::Error as serde::de::Error>::custom("histogram counts overflow u64");
        let mut total = 0u64;
        for (low, count) in sparse.buckets {
            total = total.checked_add(count).ok_or_else(too_many)?;
            h.counts[bucket_of(low)] += count;
        }
        h.n = sparse.n;
        h.min = if sparse.n == 0 { u64::MAX } else { sparse.min };
        // Stored or imported JSON may say min > max (fuzz/import_json found it).
        h.max = sparse.max.max(sparse.min);
        h.sum = sparse.sum;
        h.sum_sq = sparse.sum_sq;
        Ok(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn since_an_earlier_copy_is_what_came_after_it() {
        let mut h = Histogram::new();
        (1..=1000).for_each(|v| h.record(v * 1000));
        let earlier = h.clone();
        let mut later = Histogram::new();
        for v in [5_000, 7_000, 7_000, 2_000_000] {
            h.record(v);
            later.record(v);
        }
        let d = h.since(&earlier);
        assert_eq!(d.count(), 4);
        assert_eq!(d.sum(), later.sum());
        assert_eq!(
            d.buckets().collect::<Vec<_>>(),
            later.buckets().collect::<Vec<_>>()
        );
        assert!((d.stddev() - later.stddev()).abs() < 1e-6 * later.stddev());
        // min and max: their buckets' bounds, 0.78% wide at most.
        assert!(d.min() <= 5_000 && d.min() as f64 >= 5_000.0 * (1.0 - 1.0 / 128.0));
        assert!(d.max() >= 2_000_000 && d.max() as f64 <= 2_000_000.0 * (1.0 + 1.0 / 128.0));
        for pct in [50.0, 99.0] {
            assert_eq!(d.percentile(pct), later.percentile(pct), "p{pct}");
        }
        assert!(h.since(&h).is_empty() && h.since(&h).percentile(99.0) == 0);
    }

    #[test]
    fn small_values_are_exact() {
        let mut h = Histogram::new();
        for v in 0..128 {
            h.record(v);
        }
        assert_eq!(h.percentile(50.0), 63);
        assert_eq!(h.min(), 0);
        assert_eq!(h.max(), 127);
    }

    #[test]
    fn percentiles_of_a_uniform_spread() {
        let mut h = Histogram::new();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        for p in [1.0, 50.0, 90.0, 99.0, 99.9] {
            let exact = p / 100.0 * 100_000.0 * 1000.0;
            let got = h.percentile(p) as f64;
            assert!((got - exact).abs() / exact < 0.01, "p{p}: {got} vs {exact}");
        }
        assert!((h.mean() - 50_000_500.0).abs() < 1.0);
    }

    #[test]
    fn merge_equals_recording_together() {
        let (mut a, mut b, mut all) = (Histogram::new(), Histogram::new(), Histogram::new());
        for v in 0..5000u64 {
            let x = v * v;
            if v % 3 == 0 {
                a.record(x)
            } else {
                b.record(x)
            }
            all.record(x);
        }
        a.merge(&b);
        assert_eq!(a.percentile(99.0), all.percentile(99.0));
        assert_eq!(a.count(), all.count());
    }

    #[test]
    fn serde_round_trip() {
        let mut h = Histogram::new();
        h.record_n(12345, 7);
        h.record(99);
        let json = serde_json::to_string(&h).unwrap();
        let back: Histogram = serde_json::from_str(&json).unwrap();
        assert_eq!(back, h);
    }

    proptest! {
        #[test]
        fn bucket_error_is_under_one_percent(v in 1u64..(1u64 << 44)) {
            let (low, width) = bucket_range(bucket_of(v));
            prop_assert!(low <= v && v < low + width);
            let mid = (low + width / 2) as f64;
            prop_assert!((mid - v as f64).abs() / v as f64 <= 0.01);
        }
    }
}
