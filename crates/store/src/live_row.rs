//! A live row, apart from how it is written: who writes it ([`Owner`]),
//! whether that process still runs, what the row's live columns hold, and
//! the result a reader rebuilds from it. Both the writer (`live.rs`) and the
//! reader of rows (`record.rs`) use these, so they sit below both.

use model::{LivePoint, RunResult, RunState, SeriesPoint};
use std::collections::BTreeMap;

/// A run of another host that wrote nothing for this long is taken as killed.
pub const FOREIGN_SILENCE_MS: u64 = 120_000;

/// The process that writes a live run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Owner {
    pub(crate) host: String,
    pub(crate) pid: u32,
    /// The process's start time in clock ticks after boot (`/proc/PID/stat`
    /// field 22): a pid reused by another process has another one.
    pub(crate) start_ticks: u64,
}

impl Owner {
    pub(crate) fn current() -> Owner {
        let pid = std::process::id();
        Owner {
            host: hostname(),
            pid,
            start_ticks: start_ticks(pid).map_or(0, |(ticks, _)| ticks),
        }
    }

    /// Whether the owner still runs: certain on this host, a guess from
    /// the last write elsewhere.
    fn alive(&self, heartbeat_unix_ms: u64) -> bool {
        if self.host != hostname() {
            return now_unix_ms().saturating_sub(heartbeat_unix_ms) < FOREIGN_SILENCE_MS;
        }
        match start_ticks(self.pid) {
            Some((ticks, zombie)) => !zombie && ticks == self.start_ticks,
            None => false,
        }
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// A process's start time and whether it is a zombie (dead, not yet reaped).
fn start_ticks(pid: u32) -> Option<(u64, bool)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (the state); field 22 is the start time.
    let zombie = matches!(fields.first(), Some(&"Z") | Some(&"X"));
    Some((fields.get(19)?.parse().ok()?, zombie))
}

/// Fills the placeholder jobs of a live run's result from its series and
/// says why the result stops where it does. Returns the run's state.
pub(crate) fn rebuild(
    result: &mut RunResult,
    live: &LiveColumns,
    points: &[LivePoint],
) -> RunState {
    if let Some(first) = result.jobs.iter().position(|j| j.groupid == live.group) {
        for (k, job) in result.jobs[first..].iter_mut().enumerate() {
            let mut seconds: BTreeMap<u64, SeriesPoint> = BTreeMap::new();
            for p in points
                .iter()
                .filter(|p| p.group == live.group && p.job as usize == k)
            {
                let s = seconds.entry(p.point.start_ms).or_insert(SeriesPoint {
                    start_ms: p.point.start_ms,
                    ..SeriesPoint::default()
                });
                s.add(&p.point);
            }
            job.series = seconds.into_values().collect();
            let s = &job.series;
            job.read.ios = s.iter().map(|p| p.read_ios).sum();
            job.read.bytes = s.iter().map(|p| p.read_bytes).sum();
            job.write.ios = s.iter().map(|p| p.write_ios).sum();
            job.write.bytes = s.iter().map(|p| p.write_bytes).sum();
            job.runtime_ns = s
                .last()
                .map_or(0, |p| (p.start_ms + p.duration_ms) * 1_000_000);
            job.read.runtime_ns = job.runtime_ns;
            job.write.runtime_ns = job.runtime_ns;
        }
    }
    result.finished_unix_ms = live.heartbeat_unix_ms.max(result.started_unix_ms);
    let o = &live.owner;
    let (state, why) = if o.alive(live.heartbeat_unix_ms) {
        (
            RunState::Running,
            format!(
                "still running (diskbench pid {} on {}): the per-second series so far",
                o.pid, o.host
            ),
        )
    } else {
        (
            RunState::Killed,
            format!(
                "the run did not finish: diskbench (pid {} on {}) was killed or crashed; kept: \
                 the per-second series up to its last write to the history (no latencies \
                 for the unfinished test)",
                o.pid, o.host
            ),
        )
    };
    result.interrupted = false;
    result.error = Some(why);
    state
}

/// What marks a row as a run still being written.
pub(crate) struct LiveColumns {
    pub(crate) owner: Owner,
    pub(crate) heartbeat_unix_ms: u64,
    pub(crate) group: u32,
}

pub(crate) fn now_unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
