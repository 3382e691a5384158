//! The figures a requirement reads from a finished run: each check ran as
//! jobs named after it (clones merged), and what fio would print for them
//! is what is read: the syncs' p99 from their histogram, the writes per
//! second over the measured time (the syncs' time inside it, as for fio and
//! pg_test_fsync).

use crate::catalogue::Figure;
use crate::sure::{percentile_interval, Interval};
use model::{Histogram, JobResult, RunResult};
use serde::{Deserialize, Serialize};

/// A figure as measured, with what it rests on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// In the figure's unit: ns for latencies, ops/s, MB/s.
    pub value: f64,
    /// The syncs (latencies) or writes (rates) behind it.
    pub count: u64,
    /// The 95% interval of a percentile; `None` for rates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
}

/// The jobs of one check, clones merged.
struct Merged {
    sync: Histogram,
    write: Histogram,
    ios: u64,
    bytes: u64,
    runtime_ns: u64,
}

fn merged(result: &RunResult, check: &str) -> Option<Merged> {
    let jobs: Vec<&JobResult> = result.jobs.iter().filter(|j| j.name == check).collect();
    if jobs.is_empty() {
        return None;
    }
    let mut m = Merged {
        sync: Histogram::new(),
        write: Histogram::new(),
        ios: 0,
        bytes: 0,
        runtime_ns: 0,
    };
    for j in jobs {
        m.sync.merge(&j.sync);
        m.write.merge(&j.write.clat);
        m.ios += j.write.ios;
        m.bytes += j.write.bytes;
        m.runtime_ns = m.runtime_ns.max(j.write.runtime_ns.max(j.runtime_ns));
    }
    Some(m)
}

/// The figure of `check` in `result`; `None` when the check did not run or
/// measured nothing of that kind (no syncs, no time).
pub fn measure(result: &RunResult, check: &str, figure: Figure) -> Option<Measured> {
    let m = merged(result, check)?;
    let secs = m.runtime_ns as f64 / 1e9;
    match figure {
        Figure::SyncP99 => (!m.sync.is_empty()).then(|| Measured {
            value: m.sync.percentile(99.0) as f64,
            count: m.sync.count(),
            interval: percentile_interval(&m.sync, 99.0),
        }),
        Figure::WriteOps => (secs > 0.0 && m.ios > 0).then(|| Measured {
            value: m.ios as f64 / secs,
            count: m.ios,
            interval: None,
        }),
        Figure::WriteMbS => (secs > 0.0 && m.ios > 0).then(|| Measured {
            value: m.bytes as f64 / secs / 1e6,
            count: m.ios,
            interval: None,
        }),
        Figure::CommitEstimate => (!m.sync.is_empty() && !m.write.is_empty()).then(|| {
            let parts = |h: &Histogram| h.percentile(99.0) as f64;
            let part_intervals = (
                percentile_interval(&m.sync, 99.0),
                percentile_interval(&m.write, 99.0),
            );
            let interval = match part_intervals {
                (Some(s), Some(w)) => Some(Interval {
                    low: 2.0 * (s.low + w.low),
                    high: s.high.zip(w.high).map(|(a, b)| 2.0 * (a + b)),
                }),
                _ => None,
            };
            Measured {
                value: 2.0 * (parts(&m.sync) + parts(&m.write)),
                count: m.sync.count(),
                interval,
            }
        }),
    }
}
