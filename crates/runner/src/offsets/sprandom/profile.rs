//! The share of valid blocks each region should keep at the end of the
//! pass, as fio 3.42 works it out (its `--debug=sprandom` prints each step:
//! "validity_distribution", "blocks ratio", "accumulated ratio", "validity
//! resampled").
//!
//! The oldest region keeps `x = 1 - 2 op / (1 + 1.4 op)`: fio's figure for
//! the steady state's oldest share (0.7521 for `op` = 0.15, 0.2035 for 0.9;
//! read from its "Invalidation" lines, which give `1 - x` to four places,
//! for `op` from 0.01 to 0.99). It is a close fraction for the exact `x` of
//! `x = e^(-(1+op)(1-x))` (0.7509, 0.2325).
//!
//! Between the newest region (all valid) and the oldest, validity falls in
//! `R` even steps, from 1 to `x`. Steps of low validity stand for more
//! physical writes (`1 / v` writes leave one valid block), so the steps
//! are laid out at their running total of `1 / v`, and the profile is read
//! back, by straight lines between them, at `R` evenly spaced points: one
//! per region, since regions are of equal length.

/// fio's share of valid blocks in the oldest region at `op`.
pub(super) fn oldest_kept_share(op: f64) -> f64 {
    1.0 - 2.0 * op / (1.0 + 1.4 * op)
}

/// Per region, oldest first, the share of its blocks it keeps valid.
pub(super) fn kept_shares(op: f64, regions: usize) -> Vec<f64> {
    if regions < 2 {
        return vec![1.0; regions];
    }
    let last = (regions - 1) as f64;
    let oldest = oldest_kept_share(op);
    // Newest first: even steps from 1 down to the oldest share.
    let steps: Vec<f64> = (0..regions)
        .map(|j| 1.0 + (oldest - 1.0) * j as f64 / last)
        .collect();
    let at: Vec<f64> = steps
        .iter()
        .scan(0.0, |total, v| {
            *total += 1.0 / v;
            Some(*total)
        })
        .collect();
    let (first, end) = (at[0], at[regions - 1]);
    let mut shares: Vec<f64> = (0..regions)
        .map(|j| {
            let point = first + (end - first) * j as f64 / last;
            // The step before `point` (the last step's at the end).
            let k = at[..regions - 1]
                .iter()
                .rposition(|&a| a <= point)
                .unwrap_or(0);
            let t = (point - at[k]) / (at[k + 1] - at[k]);
            steps[k] + t * (steps[k + 1] - steps[k])
        })
        .collect();
    shares.reverse();
    shares
}
