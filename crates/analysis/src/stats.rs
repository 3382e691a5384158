//! How sure a repeated figure is: the median of the repeats with a 95%
//! confidence interval that assumes no distribution, their relative range,
//! and whether two groups of repeats differ by more than their noise.
//!
//! Disk figures are not normal: a flush or a garbage collection throws one
//! round far off, and a mean with a t-interval follows it. The median's
//! interval comes from order statistics instead: the number of repeats
//! below the true median is Binomial(n, 1/2) whatever the distribution, so
//! the k-th smallest and k-th largest repeats bracket the median with a
//! probability the binomial gives exactly. Between two such brackets the
//! bounds are interpolated (Hettmansperger and Sheather, 1986), so the
//! interval covers 95% rather than the 96-98% the nearest exact bracket
//! would. It needs six repeats: with five, even the lowest and highest
//! bracket the median only 94% of the time.
//!
//! Two groups are compared with the Mann-Whitney rank test (exact for small
//! groups without ties, the normal approximation with a tie correction
//! otherwise): it asks whether a figure of one group tends to be above one
//! of the other, again without assuming a distribution. Small groups
//! cannot reach the 5% level at all: with 2 runs against 2 the most
//! extreme ordering (one group wholly above the other) still has a
//! two-sided p of 2 / C(4, 2) = 0.333, so the test can never say
//! "differ". [`RankTest::verdict`] says so ("too few runs to tell")
//! instead of calling any difference, even a tenfold one, noise; 4 runs
//! against 4 is the smallest pair of equal groups that can (p = 0.029).

mod batch;
mod mean;
mod rng;
#[cfg(test)]
mod tests;

pub use batch::{lag1_autocorrelation, series_mean_interval, SeriesInterval};
pub use mean::{mean_interval, MIN_FIGURES_FOR_MEAN_INTERVAL};

use serde::{Deserialize, Serialize};

/// The confidence the intervals here are built for.
pub const CONFIDENCE: f64 = 0.95;

/// The fewest repeats that give a 95% interval for the median.
pub const MIN_REPEATS_FOR_INTERVAL: usize = 6;

/// A repeated figure summarised.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub n: usize,
    pub median: f64,
    /// The 95% interval of the median; `None` under [`MIN_REPEATS_FOR_INTERVAL`].
    pub interval: Option<(f64, f64)>,
    pub min: f64,
    pub max: f64,
}

impl Summary {
    /// `None` for no figures (or any that is not a number).
    pub fn of(values: &[f64]) -> Option<Summary> {
        let sorted = sorted(values)?;
        Some(Summary {
            n: sorted.len(),
            median: median_of_sorted(&sorted),
            interval: median_interval_sorted(&sorted),
            min: sorted[0],
            max: sorted[sorted.len() - 1],
        })
    }

    /// (max - min) / median, in percent; 0 for a median of 0.
    pub fn range_pct(&self) -> f64 {
        match self.median.abs() > 0.0 {
            true => (self.max - self.min) / self.median.abs() * 100.0,
            false => 0.0,
        }
    }

    /// The interval's half-width as a percentage of the median: how far the
    /// median may be off. `None` without an interval.
    pub fn half_width_pct(&self) -> Option<f64> {
        let (lo, hi) = self.interval?;
        match self.median.abs() > 0.0 {
            true => Some((hi - lo) / 2.0 / self.median.abs() * 100.0),
            false => Some(0.0),
        }
    }

    /// `4012 (95% CI 3990-4031, range 2.1%, 10 rounds)`, the value printed
    /// with `decimals`; without an interval the repeats are said to be too few.
    pub fn text(&self, decimals: usize) -> String {
        self.text_with(|v| format!("{v:.decimals$}"))
    }

    /// As [`Summary::text`], with the median and the interval's ends
    /// written by `figure` (e.g. with their unit).
    pub fn text_with(&self, figure: impl Fn(f64) -> String) -> String {
        let ci = match self.interval {
            Some((lo, hi)) => format!("95% CI {}-{}, ", figure(lo), figure(hi)),
            None => format!("too few for a 95% CI (needs {MIN_REPEATS_FOR_INTERVAL}), "),
        };
        format!(
            "{} ({ci}range {:.1}%, {} repeats)",
            figure(self.median),
            self.range_pct(),
            self.n
        )
    }
}

fn sorted(values: &[f64]) -> Option<Vec<f64>> {
    if values.is_empty() || values.iter().any(|v| v.is_nan()) {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    Some(v)
}

/// The median; `None` for no figures.
pub fn median(values: &[f64]) -> Option<f64> {
    sorted(values).map(|s| median_of_sorted(&s))
}

fn median_of_sorted(s: &[f64]) -> f64 {
    let n = s.len();
    match n % 2 {
        1 => s[n / 2],
        _ => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// The 95% confidence interval of the median of `values`; `None` under
/// [`MIN_REPEATS_FOR_INTERVAL`] figures.
pub fn median_interval(values: &[f64]) -> Option<(f64, f64)> {
    median_interval_sorted(&sorted(values)?)
}

/// P(Binomial(n, 1/2) <= k).
fn binomial_half_cdf(n: usize, k: usize) -> f64 {
    // Computed in logs so n in the thousands does not overflow.
    let ln_half_n = n as f64 * 0.5f64.ln();
    let mut ln_choose = 0.0f64; // ln C(n, 0)
    let mut total = 0.0;
    for i in 0..=k.min(n) {
        if i > 0 {
            ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        total += (ln_choose + ln_half_n).exp();
    }
    total.min(1.0)
}

/// Coverage of the bracket [X(k), X(n-k+1)] (1-based order statistics).
fn bracket_coverage(n: usize, k: usize) -> f64 {
    1.0 - 2.0 * binomial_half_cdf(n, k - 1)
}

fn median_interval_sorted(s: &[f64]) -> Option<(f64, f64)> {
    let n = s.len();
    if n < MIN_REPEATS_FOR_INTERVAL {
        return None;
    }
    // The narrowest exact bracket that still covers 95%: k as large as it goes.
    let mut k = 1;
    while k < n / 2 && bracket_coverage(n, k + 1) >= CONFIDENCE {
        k += 1;
    }
    let (lo_k, hi_k) = (s[k - 1], s[n - k]);
    let outer = bracket_coverage(n, k);
    if 2 * k + 1 > n || outer <= CONFIDENCE {
        return Some((lo_k, hi_k));
    }
    let inner = bracket_coverage(n, k + 1);
    let (lo_in, hi_in) = (s[k], s[n - k - 1]);
    // Hettmansperger-Sheather: the weight of the inner bracket.
    let share = (outer - CONFIDENCE) / (outer - inner);
    let (nf, kf) = (n as f64, k as f64);
    let lambda = (nf - kf) * share / (kf + (nf - 2.0 * kf) * share);
    Some((
        lambda * lo_in + (1.0 - lambda) * lo_k,
        lambda * hi_in + (1.0 - lambda) * hi_k,
    ))
}

/// What the rank test says about two groups.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankTest {
    /// Mann-Whitney U of the first group (pairs where it is above, ties half).
    pub u: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// Whether the exact distribution gave it (small groups, no ties).
    pub exact: bool,
    /// The sizes of the two groups.
    #[serde(default)]
    pub n_a: usize,
    #[serde(default)]
    pub n_b: usize,
}

/// What a rank test lets one say about two groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankVerdict {
    /// p under the 5% level.
    Differ,
    /// The test could have said "differ" and did not.
    WithinNoise,
    /// The groups are too small for any ordering to reach the 5% level:
    /// the test cannot tell, whatever the figures.
    TooFew { n_a: usize, n_b: usize },
}

impl RankTest {
    /// Whether the groups differ at the 5% level.
    pub fn differs(&self) -> bool {
        self.p_value < 1.0 - CONFIDENCE
    }

    /// Differ, within the noise, or too few runs to tell.
    pub fn verdict(&self) -> RankVerdict {
        self.verdict_at(1.0 - CONFIDENCE)
    }

    /// The same verdict at another level: several tests at once (each
    /// node of a fleet against the rest) each take a share of the 5%, so
    /// that all of them together name a node by chance at most 5% of the
    /// time (Bonferroni).
    pub fn verdict_at(&self, level: f64) -> RankVerdict {
        if self.p_value < level {
            RankVerdict::Differ
        } else if smallest_p_value(self.n_a, self.n_b) >= level || self.n_a == 0 || self.n_b == 0 {
            RankVerdict::TooFew {
                n_a: self.n_a,
                n_b: self.n_b,
            }
        } else {
            RankVerdict::WithinNoise
        }
    }
}

/// The smallest two-sided p-value the rank test can give for groups of
/// `n_a` and `n_b` figures: one group wholly above the other, 2 orderings
/// out of C(n_a + n_b, n_a) (ties can only raise it).
pub fn smallest_p_value(n_a: usize, n_b: usize) -> f64 {
    let (small, n) = (n_a.min(n_b), n_a + n_b);
    // C(n, small) in floating point: exact for the sizes where it matters.
    let choose = (0..small).fold(1.0f64, |c, i| c * (n - i) as f64 / (i + 1) as f64);
    (2.0 / choose).min(1.0)
}

/// Whether groups of `n_a` and `n_b` figures can reach the 5% level at all.
pub fn rank_test_can_reach(n_a: usize, n_b: usize) -> bool {
    n_a > 0 && n_b > 0 && smallest_p_value(n_a, n_b) < 1.0 - CONFIDENCE
}

/// The fewest figures in each of two equal groups for the rank test to
/// be able to reach the 5% level (4: 4 vs 4 gives p = 2/70 = 0.029).
pub fn min_runs_per_group() -> usize {
    (1..)
        .find(|&n| rank_test_can_reach(n, n))
        .unwrap_or(usize::MAX)
}

/// With `n` figures in one group, the fewest the other needs for the rank
/// test to reach the 5% level; `None` when no count up to 1,000 does.
pub fn other_group_needs(n: usize) -> Option<usize> {
    (1..=1000).find(|&m| rank_test_can_reach(n, m))
}

/// Groups up to this size (each) get the exact distribution of U.
const EXACT_UP_TO: usize = 25;

/// The Mann-Whitney rank test of `a` against `b`; `None` when either is
/// empty or holds a value that is not a number.
pub fn rank_test(a: &[f64], b: &[f64]) -> Option<RankTest> {
    if a.is_empty() || b.is_empty() || a.iter().chain(b).any(|v| v.is_nan()) {
        return None;
    }
    let (n1, n2) = (a.len(), b.len());
    let mut all: Vec<(f64, usize)> = a
        .iter()
        .map(|&v| (v, 0))
        .chain(b.iter().map(|&v| (v, 1)))
        .collect();
    all.sort_by(|x, y| x.0.total_cmp(&y.0));
    // Mid-ranks for ties, and the tie sizes for the variance correction.
    let mut rank_sum_a = 0.0;
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j + 1 < all.len() && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let mid = (i + j) as f64 / 2.0 + 1.0;
        let t = (j - i + 1) as f64;
        tie_term += t * t * t - t;
        rank_sum_a += all[i..=j].iter().filter(|x| x.1 == 0).count() as f64 * mid;
        i = j + 1;
    }
    let (f1, f2) = (n1 as f64, n2 as f64);
    let u = rank_sum_a - f1 * (f1 + 1.0) / 2.0;
    let mean = f1 * f2 / 2.0;
    if tie_term == 0.0 && n1 <= EXACT_UP_TO && n2 <= EXACT_UP_TO {
        let counts = u_distribution(n1, n2);
        let total: f64 = counts.iter().sum();
        // Two-sided: the tail on U's side, doubled (U is symmetric).
        let low = u.min(f1 * f2 - u).round() as usize;
        let tail: f64 = counts[..=low].iter().sum::<f64>() / total;
        return Some(RankTest {
            u,
            p_value: (2.0 * tail).min(1.0),
            exact: true,
            n_a: n1,
            n_b: n2,
        });
    }
    let n = f1 + f2;
    let var = f1 * f2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
    if var <= 0.0 {
        // Every value equal: nothing tells the groups apart.
        return Some(RankTest {
            u,
            p_value: 1.0,
            exact: false,
            n_a: n1,
            n_b: n2,
        });
    }
    let z = ((u - mean).abs() - 0.5).max(0.0) / var.sqrt();
    Some(RankTest {
        u,
        p_value: (2.0 * (1.0 - normal_cdf(z))).min(1.0),
        exact: false,
        n_a: n1,
        n_b: n2,
    })
}

/// How many orderings of n1 + n2 distinct values give each U (index).
fn u_distribution(n1: usize, n2: usize) -> Vec<f64> {
    // ways[i][j][u]: built up one value at a time; kept as two layers of j.
    let max_u = n1 * n2;
    // f(i, j) = distribution for i of group 1 and j of group 2.
    let mut table: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); n2 + 1]; n1 + 1];
    for i in 0..=n1 {
        for j in 0..=n2 {
            let mut d = vec![0.0; i * j + 1];
            if i == 0 || j == 0 {
                d[0] = 1.0;
            } else {
                // The largest value is of group 1 (beats all j) or group 2.
                for (u, w) in table[i - 1][j].iter().enumerate() {
                    d[u + j] += w;
                }
                for (u, w) in table[i][j - 1].iter().enumerate() {
                    d[u] += w;
                }
            }
            table[i][j] = d;
        }
    }
    let mut out = std::mem::take(&mut table[n1][n2]);
    out.resize(max_u + 1, 0.0);
    out
}

/// The standard normal CDF (Abramowitz and Stegun 26.2.17, error under 1e-7).
pub fn normal_cdf(z: f64) -> f64 {
    if z < 0.0 {
        return 1.0 - normal_cdf(-z);
    }
    let t = 1.0 / (1.0 + 0.231_641_9 * z);
    let poly = t
        * (0.319_381_530
            + t * (-0.356_563_782
                + t * (1.781_477_937 + t * (-1.821_255_978 + t * 1.330_274_429))));
    let pdf = (-z * z / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
    1.0 - pdf * poly
}

/// Whether two intervals leave a gap between them (a difference beyond noise).
pub fn intervals_apart(a: (f64, f64), b: (f64, f64)) -> bool {
    a.1 < b.0 || b.1 < a.0
}
