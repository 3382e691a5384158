//! Where a saturation curve bends: a sweep measures IOPS and tail latency at
//! growing queue depth (or job count), and the interesting point is the
//! last one worth its latency.
//!
//! The rule, applied to each step from one point to the next: the step
//! past point i adds under [`KneeRules::min_gain_pct`] (5%) more IOPS but
//! raises p99 by more than [`KneeRules::max_p99_rise_pct`] (50%). The first
//! point i where that happens is the knee: more depth buys latency, not
//! IOPS. A curve is "not saturated" when its last step still added at least
//! 5% IOPS: the peak is at the largest setting tried and more may come. (A
//! flat curve's peak can fall on its last point by noise alone, so the peak's
//! place is not the test; the last step's gain is.)

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

/// One point of a curve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// The setting swept (queue depth, or depth x jobs).
    pub setting: f64,
    pub iops: f64,
    /// The p99 completion latency, in microseconds.
    pub p99_us: f64,
}

#[derive(Clone, Copy, Debug)]
pub struct KneeRules {
    /// A step adding less than this (percent) adds nothing worth having.
    pub min_gain_pct: f64,
    /// A step raising p99 by more than this (percent) costs latency.
    pub max_p99_rise_pct: f64,
}

impl Default for KneeRules {
    fn default() -> Self {
        KneeRules {
            min_gain_pct: 5.0,
            max_p99_rise_pct: 50.0,
        }
    }
}

/// What a curve says.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurveVerdict {
    /// Index of the knee point, if the curve has one.
    pub knee: Option<usize>,
    /// Index of the point with the most IOPS.
    pub peak: usize,
    /// The last step still added at least `min_gain_pct` IOPS.
    pub still_climbing: bool,
}

impl CurveVerdict {
    pub fn saturated(&self) -> bool {
        !self.still_climbing
    }
}

fn gain_pct(from: f64, to: f64) -> f64 {
    match from > 0.0 {
        true => (to - from) / from * 100.0,
        false if to > 0.0 => f64::INFINITY,
        false => 0.0,
    }
}

/// The verdict on `points`, in the order swept; `None` for no points.
pub fn judge_curve(points: &[CurvePoint], rules: &KneeRules) -> Option<CurveVerdict> {
    let peak = points
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.iops.total_cmp(&b.1.iops))?
        .0;
    let knee = points.windows(2).position(|w| {
        gain_pct(w[0].iops, w[1].iops) < rules.min_gain_pct
            && gain_pct(w[0].p99_us, w[1].p99_us) > rules.max_p99_rise_pct
    });
    let still_climbing = match points {
        [.., a, b] => gain_pct(a.iops, b.iops) >= rules.min_gain_pct,
        // One point says nothing about what more would give.
        _ => true,
    };
    Some(CurveVerdict {
        knee,
        peak,
        still_climbing,
    })
}

/// Little's law: the mean number of I/Os in flight is the rate times the
/// mean time each spends; a queue kept full at depth d gives d.
pub fn littles_law_depth(iops: f64, mean_latency_us: f64) -> f64 {
    iops * mean_latency_us / 1e6
}
