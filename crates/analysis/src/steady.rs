//! Steady state as SNIA's Performance Test Specification defines it: over a
//! window of rounds (five by default), the range of the values is within 20%
//! of their mean, and the least-squares line moves less than 10% of the
//! mean across the window. A disk draining its burst credits never gets
//! there; a disk at a constant limit does.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug)]
pub struct SteadyRules {
    pub window: usize,
    pub max_range_pct: f64,
    pub max_slope_pct: f64,
}

impl Default for SteadyRules {
    fn default() -> Self {
        SteadyRules {
            window: 5,
            max_range_pct: 20.0,
            max_slope_pct: 10.0,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SteadyState {
    pub attained: bool,
    /// First round of the window that met the rules (or the last window tried).
    pub window_start: usize,
    pub mean: f64,
    pub range_pct: f64,
    /// How far the fitted line moves across the window, as % of the mean.
    pub slope_pct: f64,
}

/// Judges the first window of `rounds` that is steady; if none is, the
/// verdict on the last window. `None` when there are fewer rounds than a window.
pub fn steady_state(rounds: &[f64], rules: &SteadyRules) -> Option<SteadyState> {
    let w = rules.window.max(2);
    if rounds.len() < w {
        return None;
    }
    let mut last = None;
    for start in 0..=rounds.len() - w {
        let verdict = judge(&rounds[start..start + w], start, rules);
        if verdict.attained {
            return Some(verdict);
        }
        last = Some(verdict);
    }
    last
}

fn judge(window: &[f64], start: usize, rules: &SteadyRules) -> SteadyState {
    let n = window.len() as f64;
    let mean = window.iter().sum::<f64>() / n;
    let (lo, hi) = window
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    let x_mean = (n - 1.0) / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, &v) in window.iter().enumerate() {
        let dx = i as f64 - x_mean;
        sxy += dx * (v - mean);
        sxx += dx * dx;
    }
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let (range_pct, slope_pct) = if mean.abs() > 0.0 {
        (
            (hi - lo) / mean * 100.0,
            (slope * (n - 1.0)).abs() / mean * 100.0,
        )
    } else {
        (0.0, 0.0)
    };
    SteadyState {
        attained: range_pct <= rules.max_range_pct && slope_pct <= rules.max_slope_pct,
        window_start: start,
        mean,
        range_pct,
        slope_pct,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_limit_is_steady() {
        let r = [1000.0, 1010.0, 990.0, 1005.0, 998.0, 1002.0];
        let s = steady_state(&r, &SteadyRules::default()).unwrap();
        assert!(s.attained);
        assert_eq!(s.window_start, 0);
    }

    #[test]
    fn a_draining_bucket_is_not_steady() {
        let r: Vec<f64> = (0..10).map(|i| 3000.0 - 200.0 * i as f64).collect();
        let s = steady_state(&r, &SteadyRules::default()).unwrap();
        assert!(!s.attained);
        assert!(s.slope_pct > 10.0);
    }

    #[test]
    fn steady_after_a_cliff_is_found_where_it_starts() {
        let r = [
            3000.0, 3000.0, 3000.0, 1000.0, 1010.0, 995.0, 1002.0, 1000.0,
        ];
        let s = steady_state(&r, &SteadyRules::default()).unwrap();
        assert!(s.attained);
        assert_eq!(s.window_start, 3);
    }

    #[test]
    fn too_few_rounds_say_nothing() {
        assert_eq!(steady_state(&[1.0, 2.0], &SteadyRules::default()), None);
    }
}
