//! What the live hook carries besides the series points, and how several
//! listeners share it. A run has one hook (`RunOptions::live`); the history
//! keeps the seconds while a run goes on and a metrics endpoint shows them,
//! so a command that wants both hands the runner one hook made of the two.

use crate::{LiveFn, LiveUpdate};

/// The total latency (lat: queued to completed) of the I/Os one clone of a
/// job completed in one second of its series, read and write apart.
pub struct LiveLatency {
    /// As in [`model::LivePoint`]: the group, the job's position in it, the clone.
    pub group: u32,
    pub job: u32,
    pub clone: u32,
    /// The second's start, as its `LivePoint`'s `point.start_ms`.
    pub start_ms: u64,
    /// Indexed by `Direction as usize`: read, then write.
    pub lat: [model::Histogram; 2],
}

/// One hook that hands each update to every hook of `hooks` in turn, for a
/// run watched by more than one listener (the history and a metrics
/// endpoint); `None` when there is none.
pub fn fan_out(hooks: Vec<LiveFn>) -> Option<LiveFn> {
    match hooks.len() {
        0 => None,
        1 => hooks.into_iter().next(),
        _ => Some(Box::new(move |u: &LiveUpdate| {
            for hook in &hooks {
                hook(u);
            }
        })),
    }
}
