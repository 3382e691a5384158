//! What a worker tells the run while it goes: its I/Os so far, added to
//! the run's count for the progress line, and each second of its series
//! (and, when asked, the second's latencies) handed to the live listener
//! once the second is over. Both go out when a second closes, so nothing
//! is shared per I/O.

use super::Worker;
use model::LivePoint;
use std::sync::atomic::Ordering;

/// What was reported so far.
#[derive(Default)]
pub(super) struct Progress {
    /// I/Os added to `Shared::ios_done`.
    pub reported_ios: u64,
    /// Seconds of the series already handed out.
    pub series_seen: usize,
}

impl Worker<'_> {
    /// After a clock reading: the seconds closed since the last one go out.
    #[inline]
    pub(super) fn seconds_closed(&mut self) {
        if self.rec.series.len() != self.progress.series_seen {
            self.publish_seconds();
            self.progress.series_seen = self.rec.series.len();
            self.report_progress();
        }
    }

    /// Hands the seconds closed since the last call to the live listener.
    fn publish_seconds(&mut self) {
        let (group, job) = self.plan.place;
        if let Some(live) = &self.shared.live_latency {
            let fresh = std::mem::take(&mut self.rec.latency_seconds);
            let mut pending = live.lock().unwrap_or_else(|e| e.into_inner());
            pending.extend(fresh.into_iter().map(|(start_ms, lat)| crate::LiveLatency {
                group,
                job,
                clone: self.plan.clone,
                start_ms,
                lat,
            }));
        }
        let Some(live) = &self.shared.live else {
            return;
        };
        let seen = self.progress.series_seen.min(self.rec.series.len());
        let fresh = &self.rec.series[seen..];
        let mut pending = live.lock().unwrap_or_else(|e| e.into_inner());
        pending.extend(fresh.iter().map(|&point| LivePoint {
            group,
            job,
            clone: self.plan.clone,
            point,
        }));
    }

    pub(super) fn report_progress(&mut self) {
        let total = self.rec.dirs[0].ios + self.rec.dirs[1].ios + self.rec.trim.ios;
        let delta = total.saturating_sub(self.progress.reported_ios);
        if delta > 0 {
            self.shared.ios_done.fetch_add(delta, Ordering::Relaxed);
            self.progress.reported_ios = total;
        }
    }
}
