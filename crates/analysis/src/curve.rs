//! Where a saturation curve bends: a sweep measures IOPS and tail latency at
//! growing queue depth (or job count), and the interesting point is the
//! last one worth its latency.
//!
//! One definition, and every sentence printed from it: the knee is the
//! first point i that no larger setting beats by
//! [`KneeRules::min_gain_pct`] (5%) IOPS, where the next step raises p99 by
//! more than [`KneeRules::max_p99_rise_pct`] (50%): from there on, more
//! depth buys latency, not IOPS. Judging only the step after i is not
//! enough: a curve flat from QD4 to QD16 that climbs again to twice the
//! IOPS at QD64 has no knee at QD4. A curve is "not saturated" when its
//! largest setting beats every smaller one by at least 5% IOPS: the peak
//! is at the end and more may come. The two cannot both hold: past a knee
//! nothing beats the knee by 5%. (A flat curve's peak can fall on its last
//! point by noise alone, so the peak's place is not the test; the margin
//! is.)

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
    /// The largest setting beat every smaller one by at least
    /// `min_gain_pct` IOPS.
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
    let beats = |later: f64, than: f64| gain_pct(than, later) >= rules.min_gain_pct;
    let knee = (0..points.len().saturating_sub(1)).find(|&i| {
        let (p, next) = (&points[i], &points[i + 1]);
        points[i + 1..].iter().all(|q| !beats(q.iops, p.iops))
            && gain_pct(p.p99_us, next.p99_us) > rules.max_p99_rise_pct
    });
    let still_climbing = match points {
        [earlier @ .., last] if !earlier.is_empty() => {
            earlier.iter().all(|q| beats(last.iops, q.iops))
        }
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
