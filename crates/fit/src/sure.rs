//! How sure a percentile is: the distribution-free 95% interval of a
//! quantile from the order statistics of the sample. Of n syncs, the
//! number below the true 99th percentile is binomial(n, 0.99); the ranks
//! l and u with that count between them 95% of the time (normal
//! approximation of the binomial, with a continuity correction) bound the
//! percentile, read at those ranks in the histogram. 10,000 syncs put
//! about 20 ranks on each side of the p99; 100 syncs cannot bound it
//! above (u would pass the largest), and the interval says so.

use model::Histogram;
use serde::{Deserialize, Serialize};

/// The 95% interval of a percentile, in the histogram's unit (ns).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub low: f64,
    /// `None` when too few samples lie above the percentile to bound it.
    pub high: Option<f64>,
}

/// The ranks (1-based) that bound the `pct` percentile of `n` samples
/// with 95% confidence; the upper is `None` past the largest sample.
pub fn ranks(n: u64, pct: f64) -> Option<(u64, Option<u64>)> {
    if n == 0 {
        return None;
    }
    let q = pct / 100.0;
    let nf = n as f64;
    let half = 1.96 * (nf * q * (1.0 - q)).sqrt();
    let low = (nf * q - half - 0.5).floor().max(1.0) as u64;
    let high = (nf * q + half + 0.5).ceil() as u64 + 1;
    Some((low.min(n), (high <= n).then_some(high)))
}

/// The value at a rank: the percentile whose rank it is.
fn at_rank(h: &Histogram, rank: u64) -> f64 {
    let pct = (rank as f64 - 0.5) * 100.0 / h.count() as f64;
    h.percentile(pct) as f64
}

/// The 95% interval of the `pct` percentile of `h`.
pub fn percentile_interval(h: &Histogram, pct: f64) -> Option<Interval> {
    let (low, high) = ranks(h.count(), pct)?;
    Some(Interval {
        low: at_rank(h, low),
        high: high.map(|r| at_rank(h, r)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_samples_bound_the_p99_on_both_sides_and_few_only_below() {
        let (l, u) = ranks(10_000, 99.0).unwrap();
        assert!(l < 9_900 && 9_900 < u.unwrap() && u.unwrap() <= 10_000);
        // About 1.96 x sqrt(99) = 19.5 ranks each side.
        assert!((9_875..=9_885).contains(&l), "{l}");
        let (_, u) = ranks(100, 99.0).unwrap();
        assert_eq!(u, None, "100 syncs cannot bound the p99 above");
    }

    #[test]
    fn the_interval_holds_the_percentile_it_bounds() {
        let mut h = Histogram::new();
        for i in 1..=20_000u64 {
            h.record(i * 1_000);
        }
        let p99 = h.percentile(99.0) as f64;
        let i = percentile_interval(&h, 99.0).unwrap();
        // Within a bucket (0.78% wide) the bounds may be the p99 itself.
        assert!(i.low <= p99 && p99 <= i.high.unwrap(), "{i:?} around {p99}");
        assert!(i.low < i.high.unwrap());
        // The true p99 of 1..20000 us is 19800 us: inside too.
        assert!(i.low <= 19_800_000.0 && 19_800_000.0 <= i.high.unwrap());
    }
}
