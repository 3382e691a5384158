//! Finding a throttling cliff: one lasting drop in throughput.
//!
//! The method is a single change point under an L1 cost: for every split,
//! the sum of absolute deviations of each side from its own median; the
//! best split is where that sum is least. Medians and absolute deviations
//! make it robust to outliers (a stalled second does not move it), and only
//! a *drop* counts, so a slow warm-up (a rise) is never reported.
//!
//! A split is a cliff only if the drop is large (at least `min_drop_pct` of
//! the level before) and clearly above the noise: larger than
//! `noise_factor` times the robust spread (1.4826 x MAD) of either side.
//! Both sides need `min_points` samples, so a short dip is not a cliff.
//!
//! The burst bucket is what the disk served above its after-cliff level
//! before the cliff: sum over earlier samples of (rate - after) x duration.

use serde::{Deserialize, Serialize};

/// One measurement: `rate` (e.g. IOPS) held for `seconds`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub rate: f64,
    pub seconds: f64,
}

#[derive(Clone, Copy, Debug)]
pub struct CliffRules {
    pub min_drop_pct: f64,
    pub noise_factor: f64,
    pub min_points: usize,
}

impl Default for CliffRules {
    fn default() -> Self {
        CliffRules {
            min_drop_pct: 25.0,
            noise_factor: 4.0,
            min_points: 3,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cliff {
    /// Index of the first sample after the cliff.
    pub index: usize,
    /// Time from the start to the cliff (sum of the earlier samples' seconds).
    pub at_seconds: f64,
    /// Median rate before and after.
    pub before: f64,
    pub after: f64,
    pub drop_pct: f64,
    /// Work done above the after-cliff level before the cliff (rate x seconds).
    pub burst: f64,
}

/// The median of already sorted values (0 for none).
pub fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return 0.0;
    }
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// A sorted copy.
pub fn sorted(values: &[f64]) -> Vec<f64> {
    let mut v = values.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v
}

/// Median and robust spread (1.4826 x median absolute deviation).
pub fn level_and_spread(values: &[f64]) -> (f64, f64) {
    let m = median(&sorted(values));
    let dev: Vec<f64> = values.iter().map(|v| (v - m).abs()).collect();
    (m, 1.4826 * median(&sorted(&dev)))
}

/// f64 ordered by `total_cmp`, for the heaps.
#[derive(Clone, Copy, PartialEq)]
struct Ordered(f64);
impl Eq for Ordered {}
impl PartialOrd for Ordered {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ordered {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// For every prefix `values[..=i]`: its median and its L1 cost (the sum of
/// absolute deviations from that median), in O(n log n) with two heaps.
fn prefix_medians_and_costs(values: &[f64]) -> Vec<(f64, f64)> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut lower: BinaryHeap<Ordered> = BinaryHeap::new();
    let mut upper: BinaryHeap<Reverse<Ordered>> = BinaryHeap::new();
    let (mut sum_lower, mut sum_upper) = (0.0, 0.0);
    let mut out = Vec::with_capacity(values.len());
    for &v in values {
        if lower.peek().is_none_or(|top| v <= top.0) {
            lower.push(Ordered(v));
            sum_lower += v;
        } else {
            upper.push(Reverse(Ordered(v)));
            sum_upper += v;
        }
        // Keep lower holding the smaller half (one more when odd).
        if lower.len() > upper.len() + 1 {
            let x = lower.pop().expect("non-empty").0;
            sum_lower -= x;
            upper.push(Reverse(Ordered(x)));
            sum_upper += x;
        } else if upper.len() > lower.len() {
            let x = upper.pop().expect("non-empty").0 .0;
            sum_upper -= x;
            lower.push(Ordered(x));
            sum_lower += x;
        }
        let m = lower.peek().expect("non-empty").0;
        let cost = (m * lower.len() as f64 - sum_lower) + (sum_upper - m * upper.len() as f64);
        out.push((m, cost));
    }
    out
}

/// The most likely single drop in `samples`, if it is a cliff by `rules`.
pub fn find_cliff(samples: &[Sample], rules: &CliffRules) -> Option<Cliff> {
    let rates: Vec<f64> = samples.iter().map(|s| s.rate).collect();
    let n = rates.len();
    let min = rules.min_points.max(1);
    if n < 2 * min {
        return None;
    }
    // prefix[k - 1] describes rates[..k]; suffix[n - 1 - k] describes rates[k..].
    let prefix = prefix_medians_and_costs(&rates);
    let reversed: Vec<f64> = rates.iter().rev().copied().collect();
    let suffix = prefix_medians_and_costs(&reversed);
    let best = (min..=n - min)
        .filter(|&k| prefix[k - 1].0 > suffix[n - 1 - k].0)
        .min_by(|&a, &b| {
            let cost = |k: usize| prefix[k - 1].1 + suffix[n - 1 - k].1;
            cost(a).total_cmp(&cost(b))
        })?;
    let (before, spread_before) = level_and_spread(&rates[..best]);
    let (after, spread_after) = level_and_spread(&rates[best..]);
    if before <= 0.0 {
        return None;
    }
    let drop = before - after;
    let drop_pct = drop / before * 100.0;
    let noise = spread_before.max(spread_after);
    if drop_pct < rules.min_drop_pct || drop <= rules.noise_factor * noise {
        return None;
    }
    let at_seconds = samples[..best].iter().map(|s| s.seconds).sum();
    let burst = samples[..best]
        .iter()
        .map(|s| (s.rate - after).max(0.0) * s.seconds)
        .sum();
    Some(Cliff {
        index: best,
        at_seconds,
        before,
        after,
        drop_pct,
        burst,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic noise source for synthetic series.
    fn noise(seed: &mut u64) -> f64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        (*seed % 10_000) as f64 / 10_000.0 - 0.5
    }

    fn series(levels: &[(f64, usize)], noise_pct: f64, seed: u64) -> Vec<Sample> {
        let mut s = seed | 1;
        levels
            .iter()
            .flat_map(|&(level, n)| std::iter::repeat_n(level, n))
            .map(|level| Sample {
                rate: level * (1.0 + noise_pct / 100.0 * 2.0 * noise(&mut s)),
                seconds: 1.0,
            })
            .collect()
    }

    #[test]
    fn a_burst_bucket_running_out_is_found_with_its_size() {
        let s = series(&[(3000.0, 120), (1000.0, 200)], 5.0, 7);
        let c = find_cliff(&s, &CliffRules::default()).expect("a cliff");
        assert_eq!(c.index, 120);
        assert!((c.at_seconds - 120.0).abs() < 1.0);
        assert!((c.before - 3000.0).abs() / 3000.0 < 0.03, "{c:?}");
        assert!((c.after - 1000.0).abs() / 1000.0 < 0.03, "{c:?}");
        let truth = 2000.0 * 120.0;
        assert!(
            (c.burst - truth).abs() / truth < 0.05,
            "{} vs {truth}",
            c.burst
        );
        assert!((c.drop_pct - 66.7).abs() < 3.0);
    }

    #[test]
    fn noise_alone_is_not_a_cliff() {
        for seed in 1..50 {
            let s = series(&[(5000.0, 600)], 15.0, seed);
            assert_eq!(find_cliff(&s, &CliffRules::default()), None, "seed {seed}");
        }
    }

    #[test]
    fn a_slow_warm_up_is_not_a_cliff() {
        let mut s: Vec<Sample> = (0..60)
            .map(|i| Sample {
                rate: 500.0 + 4500.0 * i as f64 / 60.0,
                seconds: 1.0,
            })
            .collect();
        s.extend(series(&[(5000.0, 300)], 5.0, 3));
        assert_eq!(find_cliff(&s, &CliffRules::default()), None);
    }

    #[test]
    fn a_short_dip_is_not_a_cliff_and_stalls_do_not_move_it() {
        let mut s = series(&[(4000.0, 100)], 5.0, 11);
        s[50].rate = 0.0;
        s[51].rate = 0.0;
        assert_eq!(find_cliff(&s, &CliffRules::default()), None);
        let mut s = series(&[(3000.0, 40), (800.0, 40)], 5.0, 5);
        s[10].rate = 0.0;
        s[60].rate = 9000.0;
        assert_eq!(find_cliff(&s, &CliffRules::default()).unwrap().index, 40);
    }

    #[test]
    fn per_run_figures_name_the_run() {
        // The GCE case of "Benchmarking the Disk Speed of IaaSes": fast for four runs, then 75-95% slower.
        let s: Vec<Sample> = [
            210.0, 205.0, 212.0, 208.0, 30.0, 25.0, 28.0, 31.0, 27.0, 26.0,
        ]
        .iter()
        .map(|&rate| Sample {
            rate,
            seconds: 300.0,
        })
        .collect();
        let c = find_cliff(
            &s,
            &CliffRules {
                min_points: 2,
                ..CliffRules::default()
            },
        )
        .unwrap();
        assert_eq!(c.index, 4);
        assert_eq!(c.at_seconds, 1200.0);
    }

    #[test]
    fn heap_costs_equal_direct_costs() {
        let s = series(&[(10.0, 7), (3.0, 6)], 30.0, 9);
        let v: Vec<f64> = s.iter().map(|x| x.rate).collect();
        for (i, (m, cost)) in prefix_medians_and_costs(&v).into_iter().enumerate() {
            let mut p = v[..=i].to_vec();
            p.sort_by(|a, b| a.total_cmp(b));
            // The heap keeps the lower median for even counts; its L1 cost equals
            // the cost around any median, so compare costs, and medians for odd counts.
            let direct: f64 = p.iter().map(|x| (x - m).abs()).sum();
            assert!((direct - cost).abs() < 1e-9);
            if p.len() % 2 == 1 {
                assert_eq!(m, p[p.len() / 2]);
            }
        }
    }

    /// Three hours of per-second figures, a soak's length: the cliff is
    /// found at its second. How fast is a benchmark's matter, not a timed
    /// test's (the machine is shared).
    #[test]
    fn three_hours_of_seconds_find_the_cliff() {
        let s = series(&[(3000.0, 5000), (1200.0, 5800)], 8.0, 13);
        let c = find_cliff(&s, &CliffRules::default()).unwrap();
        assert_eq!(c.index, 5000);
    }

    #[test]
    fn too_few_points_say_nothing() {
        assert_eq!(find_cliff(&[], &CliffRules::default()), None);
        let s = series(&[(100.0, 2), (10.0, 2)], 0.0, 1);
        assert_eq!(find_cliff(&s, &CliffRules::default()), None);
    }
}
