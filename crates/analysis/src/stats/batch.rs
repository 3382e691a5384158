//! The interval of a mean when the figures come in a series, one after the
//! other, and need not be independent: a test's rate in short slices.
//!
//! The bootstrap of [`mean_interval`] treats its figures as independent
//! draws. Slices of a real disk are often not. A disk that is held to a
//! limit (a cloud volume, a throttle, a rate the job asked for) catches
//! up after a slow slice, so a slice of 800 I/Os is followed by one of
//! 1200: neighbours are negatively correlated, the mean is known far
//! better than the scatter of single slices says, and the interval is too
//! wide (a test runs to its cap for nothing). A disk drifting with its
//! cache is the opposite: neighbours are alike, and the interval is too
//! narrow (a test stops too soon).
//!
//! The method of batch means mends both: consecutive slices are summed
//! into batches of 1, 2, 4, ... slices until the batches' means look
//! independent, i.e. the correlation of each batch mean with the next
//! (lag-1 autocorrelation) is near zero, and the interval is that of the
//! batch means. Pairs of an alternating 800/1200 series are all 2000; a
//! drift spans several slices and is averaged within a batch. At least
//! [`MIN_FIGURES_FOR_MEAN_INTERVAL`] batches are needed, so a series
//! that is correlated over a long span gives no interval until it is long.
//!
//! "Near zero" is asymmetric. A positive correlation left in makes the
//! interval too narrow, the error that matters (a test stopped too soon),
//! so it must be small: at most [`MAX_POSITIVE_LAG1`]. A negative one only
//! widens it, so it is merely kept within what independent batches show by
//! chance (two standard errors, 2/√m for m batches); beyond that the
//! batches are doubled to narrow the interval. Independent batches also
//! show a slightly negative lag-1 estimate at small counts (about -1/m),
//! which the positive limit takes into account.

use super::mean::{mean_interval, MIN_FIGURES_FOR_MEAN_INTERVAL};

/// The largest lag-1 autocorrelation of batch means accepted as
/// independent (after adding back the -1/m bias of the estimate).
pub const MAX_POSITIVE_LAG1: f64 = 0.2;

/// A series' mean with its 95% interval, from batches of its figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeriesInterval {
    /// Figures per batch (1 when the figures looked independent).
    pub batch: usize,
    /// Batches the interval was computed from.
    pub batches: usize,
    /// The batch means' lag-1 autocorrelation.
    pub lag1: f64,
    /// The mean of the batches (of the figures they hold).
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

impl SeriesInterval {
    /// The half-width as a percentage of the mean (0 for a zero mean).
    pub fn half_width_pct(&self) -> f64 {
        match self.mean > 0.0 {
            true => (self.high - self.low) / 2.0 / self.mean * 100.0,
            false => 0.0,
        }
    }
}

/// The 95% interval of the mean of `series`, from the smallest batches of
/// consecutive figures whose means look independent; `None` while no batch
/// size gives enough such batches, or for a figure that is not a number.
/// When the length is not a multiple of the batch, the oldest figures are
/// left out: they are the furthest from the state the series settled in.
pub fn series_mean_interval(series: &[f64]) -> Option<SeriesInterval> {
    let mut batch = 1;
    while series.len() / batch >= MIN_FIGURES_FOR_MEAN_INTERVAL {
        let m = series.len() / batch;
        let kept = &series[series.len() - m * batch..];
        let means: Vec<f64> = kept
            .chunks_exact(batch)
            .map(|c| c.iter().sum::<f64>() / batch as f64)
            .collect();
        let lag1 = lag1_autocorrelation(&means);
        let unbiased = lag1 + 1.0 / m as f64;
        if unbiased <= MAX_POSITIVE_LAG1 && lag1 >= -2.0 / (m as f64).sqrt() {
            let (mean, (low, high)) = mean_interval(&means)?;
            return Some(SeriesInterval {
                batch,
                batches: m,
                lag1,
                mean,
                low,
                high,
            });
        }
        batch *= 2;
    }
    None
}

/// The correlation of each figure with the next; 0 for figures that do not
/// vary (nothing to correlate).
pub fn lag1_autocorrelation(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
    if var == 0.0 || !var.is_finite() {
        return 0.0;
    }
    let cov: f64 = values
        .windows(2)
        .map(|w| (w[0] - mean) * (w[1] - mean))
        .sum();
    cov / var
}

#[cfg(test)]
mod tests {
    use super::super::rng::Rng;
    use super::*;

    /// A stationary AR(1) series around `mean`: each figure is `phi` times
    /// the last one's deviation plus fresh near-normal noise of unit spread.
    fn ar1(rng: &mut Rng, n: usize, phi: f64, mean: f64) -> Vec<f64> {
        let mut noise = || (0..12).map(|_| rng.uniform()).sum::<f64>() - 6.0;
        let mut dev = noise() / (1.0 - phi * phi).sqrt();
        (0..n)
            .map(|_| {
                let x = mean + dev;
                dev = phi * dev + noise();
                x
            })
            .collect()
    }

    /// The share of `trials` series of `n` figures (AR(1) with `phi`,
    /// true mean 100) whose interval contains the true mean, among those
    /// that got one; with `naive`, the independent-figures interval of
    /// the same series.
    fn coverage(rng: &mut Rng, n: usize, phi: f64, naive: bool) -> f64 {
        let (mut got, mut covered) = (0, 0);
        for _ in 0..2000 {
            let s = ar1(rng, n, phi, 100.0);
            let bounds = match naive {
                true => mean_interval(&s).map(|(_, b)| b),
                false => series_mean_interval(&s).map(|iv| (iv.low, iv.high)),
            };
            if let Some((low, high)) = bounds {
                got += 1;
                covered += usize::from(low <= 100.0 && 100.0 <= high);
            }
        }
        let share = covered as f64 / got as f64;
        println!(
            "n {n}, phi {phi}, naive {naive}: covered {:.1}%",
            share * 100.0
        );
        share
    }

    /// Independent figures keep their 95%; figures alike their neighbours
    /// (phi 0.5, which leaves the independent-figures interval at about
    /// 75%) come near it once the series is long enough to batch; and
    /// alternating ones stay on the safe side.
    #[test]
    fn the_interval_covers_the_mean_of_correlated_series() {
        let mut rng = Rng::new(5);
        for n in [12, 24, 48] {
            let c = coverage(&mut rng, n, 0.0, false);
            assert!((0.93..=0.97).contains(&c), "independent, n = {n}: {c}");
        }
        let naive = coverage(&mut rng, 96, 0.5, true);
        let batched = coverage(&mut rng, 96, 0.5, false);
        assert!(naive < 0.8 && batched > 0.9, "{naive} {batched}");
        for n in [12, 48] {
            let c = coverage(&mut rng, n, -0.8, false);
            assert!(c >= 0.95, "alternating, n = {n}: {c}");
        }
    }

    /// A rate held to a limit that catches up after each slow slice: 800
    /// and 1200 in turn. Single slices scatter by 20%, yet every pair sums
    /// to 2000 (give or take a few I/Os), so the mean is known to a fraction
    /// of a percent from three seconds of 250 ms slices.
    #[test]
    fn an_alternating_rate_is_known_from_its_pairs() {
        let series: Vec<f64> = (0..12)
            .map(|i| match i % 2 {
                0 => 800.0 + (i % 3) as f64,
                _ => 1200.0 - (i % 5) as f64,
            })
            .collect();
        let (_, (lo, hi)) = mean_interval(&series).unwrap();
        assert!((hi - lo) / 2.0 / 1000.0 > 0.1, "one by one: {lo}-{hi}");
        let iv = series_mean_interval(&series).unwrap();
        assert_eq!((iv.batch, iv.batches), (2, 6), "{iv:?}");
        assert!(iv.lag1 > -0.5 && iv.half_width_pct() < 0.5, "{iv:?}");
        assert!(iv.low <= 1000.0 && 1000.0 <= iv.high, "{iv:?}");
    }

    #[test]
    fn known_series() {
        assert_eq!(lag1_autocorrelation(&[1.0, -1.0, 1.0, -1.0]), -0.75);
        assert_eq!(lag1_autocorrelation(&[3.0; 4]), 0.0);
        assert_eq!(series_mean_interval(&[5.0; 5]), None, "too few");
        let flat = series_mean_interval(&[5.0; 6]).unwrap();
        assert_eq!(
            (flat.batch, flat.mean, flat.low, flat.high),
            (1, 5.0, 5.0, 5.0)
        );
        assert_eq!(flat.half_width_pct(), 0.0);
        let mut nan = vec![1.0; 8];
        nan[3] = f64::NAN;
        assert_eq!(series_mean_interval(&nan), None);
        // A trend correlates at every batch size there is room for.
        let rising: Vec<f64> = (0..24).map(f64::from).collect();
        assert_eq!(series_mean_interval(&rising), None);
    }
}
