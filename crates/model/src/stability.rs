//! Stopping a test once its figure is stable: the rule a run is given, and
//! what a job measured under it. The measured time is cut in short slices
//! (200 ms in `diskbench run`); each slice's I/O rate is one sample, and the job
//! stops as soon as the mean of its samples (the rate it reports) is known
//! within the rule's precision (the 95% interval's half-width, from batch
//! means of neighbouring slices by the studentized bootstrap), after a
//! minimum time and a minimum number of I/Os, and never past its runtime.
//! The judging itself is `analysis::stats`; this is the data.

use serde::{Deserialize, Serialize};

/// When a time-based job may stop before its runtime.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StableStop {
    /// Stop once the 95% interval of the mean slice rate is within this
    /// percentage of it (half-width).
    pub half_width_pct: f64,
    /// Never before this much measured time.
    pub min_runtime_ns: u64,
    /// Nor before this many I/Os.
    pub min_ios: u64,
    /// The length of one sample.
    pub slice_ns: u64,
    /// The whole run's time, shared among its groups (`diskbench run`'s
    /// suite): before each group starts, its time-based jobs' runtime is
    /// cut to an even share of the time left, less their ramp, so a test
    /// that stopped early leaves its time to the tests after it. Never cut
    /// below `min_runtime_ns`. `None`: each job's own runtime is its cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_ns: Option<u64>,
}

/// What a job measured under a [`StableStop`]: its slices, in order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stability {
    pub half_width_pct: f64,
    pub slice_ns: u64,
    /// I/Os completed in each whole slice of the measured phase.
    pub slice_ios: Vec<u64>,
    /// Bytes moved in each whole slice.
    pub slice_bytes: Vec<u64>,
    /// True when the job stopped because it was stable, before its runtime.
    pub stopped_early: bool,
}

impl Stability {
    /// Each slice's rate per second, from per-slice `counts`.
    pub fn rates(&self, counts: &[u64]) -> Vec<f64> {
        let secs = self.slice_ns as f64 / 1e9;
        counts.iter().map(|&c| c as f64 / secs).collect()
    }
}
