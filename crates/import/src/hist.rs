//! Latency histograms rebuilt from fio's JSON latency objects
//! (`{min, max, mean, stddev, N, percentile?, bins?}`).
//!
//! The exact statistics (count, min, max, mean, deviation) are always kept
//! as fio wrote them. The distribution comes from, best first:
//!
//! 1. `bins` (fio's `json+` output): fio's own histogram, exact to its
//!    bucket width;
//! 2. `percentile`: an approximation, each percentile's share of N put at
//!    its value (the 1% below p1 at p1's value, the share above the last
//!    percentile at the maximum), so the same percentiles come back out;
//! 3. neither (fio's `lat_ns` and `slat_ns` usually): the distribution of
//!    another histogram of the same I/Os (clat for lat) shifted by the
//!    difference of the means, or, without one, every I/O at the mean.
//!
//! Either way the result is an approximation for the comparisons: the
//! reports print fio's own figures from the record the import keeps
//! (`model::Imported`), and mark what they derive from these histograms
//! as approximate (`report::source`).

use model::Histogram;
use serde_json::{json, Value};

/// fio's latency object as read.
pub struct FioLat {
    pub n: u64,
    min: u64,
    max: u64,
    mean: f64,
    /// fio's deviation is the sample deviation (n - 1).
    stddev: f64,
    percentiles: Vec<(f64, u64)>,
    bins: Vec<(u64, u64)>,
}

impl FioLat {
    pub fn of(v: Option<&Value>) -> FioLat {
        let v = v.unwrap_or(&Value::Null);
        let pairs = |key: &str| -> Vec<(String, u64)> {
            v.get(key)
                .and_then(Value::as_object)
                .map(|m| {
                    m.iter()
                        .filter_map(|(k, x)| Some((k.clone(), x.as_u64()?)))
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut percentiles: Vec<(f64, u64)> = pairs("percentile")
            .into_iter()
            .filter_map(|(k, x)| Some((k.parse::<f64>().ok()?, x)))
            .filter(|(p, _)| (0.0..=100.0).contains(p))
            .collect();
        percentiles.sort_by(|a, b| a.0.total_cmp(&b.0));
        let bins = pairs("bins")
            .into_iter()
            .filter_map(|(k, c)| Some((k.parse::<u64>().ok()?, c)))
            .collect();
        FioLat {
            n: super::uint(v, "N"),
            min: super::uint(v, "min"),
            max: super::uint(v, "max"),
            mean: super::float(v, "mean").unwrap_or(0.0).max(0.0),
            stddev: super::float(v, "stddev").unwrap_or(0.0).max(0.0),
            percentiles,
            bins,
        }
    }

    /// The histogram, shaped by `bins`, `percentile`, or else `like` (see the module docs).
    pub fn histogram(&self, like: Option<&Histogram>) -> Histogram {
        if self.n == 0 {
            return Histogram::new();
        }
        let buckets = if !self.bins.is_empty() {
            self.bins.clone()
        } else if !self.percentiles.is_empty() {
            self.spread_percentiles()
        } else if let Some(h) = like.filter(|h| !h.is_empty()) {
            let shift = self.mean - h.mean();
            h.buckets()
                .map(|(low, c)| {
                    let v = (low as f64 + shift).round().max(0.0) as u64;
                    (v.clamp(self.min, self.max.max(self.min)), c)
                })
                .collect()
        } else {
            vec![(self.mean.round() as u64, self.n)]
        };
        self.assemble(buckets)
    }

    fn spread_percentiles(&self) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let mut before = 0u64;
        for &(p, value) in &self.percentiles {
            let upto = ((p / 100.0 * self.n as f64).ceil() as u64).min(self.n);
            if upto > before {
                out.push((value, upto - before));
                before = upto;
            }
        }
        if self.n > before {
            out.push((self.max, self.n - before));
        }
        out
    }

    /// The histogram with fio's exact statistics and these bucket counts,
    /// trimmed or topped up (at the maximum) to add up to N.
    fn assemble(&self, mut buckets: Vec<(u64, u64)>) -> Histogram {
        let total = buckets.iter().fold(0u64, |t, b| t.saturating_add(b.1));
        if total < self.n {
            buckets.push((self.max, self.n - total));
        } else if total > self.n {
            let mut excess = total - self.n;
            buckets.sort_unstable();
            while excess > 0 {
                let Some(last) = buckets.last_mut() else {
                    break;
                };
                let take = last.1.min(excess);
                last.1 -= take;
                excess -= take;
                if last.1 == 0 {
                    buckets.pop();
                }
            }
        }
        let n = self.n as f64;
        let population_var = if self.n > 1 {
            self.stddev * self.stddev * (n - 1.0) / n
        } else {
            0.0
        };
        let sparse = json!({
            "n": self.n,
            "min": self.min,
            "max": self.max,
            "sum": (self.mean * n).round() as u64,
            "sum_sq": n * (population_var + self.mean * self.mean),
            "buckets": buckets,
        });
        serde_json::from_value(sparse).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_come_back_out() {
        let v = json!({"min": 121, "max": 5_209_358, "mean": 332_198.9, "stddev": 147_311.3,
            "N": 102_088, "percentile": {"1.000000": 211_968, "50.000000": 313_344,
            "99.000000": 593_920, "99.990000": 4_227_072}});
        let h = FioLat::of(Some(&v)).histogram(None);
        assert_eq!((h.count(), h.min(), h.max()), (102_088, 121, 5_209_358));
        assert!((h.mean() - 332_198.9).abs() < 1.0);
        let sample_sd = h.stddev() * (102_088.0f64 / 102_087.0).sqrt();
        assert!((sample_sd - 147_311.3).abs() < 1.0, "{sample_sd}");
        for (p, want) in [(1.0, 211_968.0), (50.0, 313_344.0), (99.0, 593_920.0)] {
            let got = h.percentile(p) as f64;
            assert!((got - want).abs() / want < 0.005, "p{p}: {got} vs {want}");
        }
    }

    #[test]
    fn bins_are_used_as_they_are() {
        let v = json!({"min": 660, "max": 1020, "mean": 800.0, "stddev": 50.0, "N": 4,
            "bins": {"660": 1, "700": 2, "1020": 1}});
        let h = FioLat::of(Some(&v)).histogram(None);
        assert_eq!(
            h.buckets().collect::<Vec<_>>(),
            [(660, 1), (700, 2), (1020, 1)]
        );
        // The midpoint of the bucket holding 700 (4 ns wide there).
        assert_eq!(h.percentile(50.0), 702);
    }

    #[test]
    fn lat_without_percentiles_takes_the_shape_of_clat() {
        let clat = json!({"min": 100, "max": 300, "mean": 200.0, "stddev": 1.0, "N": 3,
            "percentile": {"33.333333": 100, "66.666667": 200, "100.000000": 300}});
        let clat = FioLat::of(Some(&clat)).histogram(None);
        let lat = json!({"min": 150, "max": 350, "mean": 250.0, "stddev": 1.0, "N": 3});
        let h = FioLat::of(Some(&lat)).histogram(Some(&clat));
        assert_eq!(h.percentile(50.0), 250);
        assert_eq!(h.count(), 3);
        let alone = FioLat::of(Some(&lat)).histogram(None);
        assert_eq!(alone.percentile(99.0), 250);
        assert!(FioLat::of(None).histogram(None).is_empty());
    }
}
