//! fio's latency target (`latency_target`, `latency_window`,
//! `latency_percentile`, `latency_run`): a job that looks for the deepest
//! queue whose latency stays under a target while it runs, window by
//! window, instead of keeping `iodepth` I/Os in flight. The search itself
//! is the runner's (`runner/src/worker/latency.rs`); this is what the job
//! asked for, with fio's defaults.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// What a job's depth search aims at. The default is off (a zero target),
/// with fio's defaults for the rest: a zero window, 100%, no `latency_run`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatencyTarget {
    /// `latency_target`: the most an I/O's total latency (queued to
    /// completed, fio's `lat`) may take; zero: no search.
    pub target: Duration,
    /// `latency_window`: how long each depth is tried before it is judged
    /// (zero: after every completion, as fio does).
    pub window: Duration,
    /// `latency_percentile`: the share of a window's I/Os (0-100) that must
    /// be at or under the target.
    pub percentile: f64,
    /// `latency_run`: keep adjusting the depth until the job's end, instead
    /// of stopping after one more window at the depth found.
    pub keep_running: bool,
}

impl Default for LatencyTarget {
    fn default() -> LatencyTarget {
        LatencyTarget {
            target: Duration::ZERO,
            window: Duration::ZERO,
            percentile: 100.0,
            keep_running: false,
        }
    }
}

impl LatencyTarget {
    /// Whether the job searches its depth at all.
    pub fn is_on(&self) -> bool {
        !self.target.is_zero()
    }
}
