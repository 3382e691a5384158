//! fio's latency target (`model::LatencyTarget`): the job looks for the
//! deepest queue, up to its `iodepth`, whose latency stays under the
//! target, while it runs. `diskbench limit` answers a like question across
//! whole runs (one run per depth, then a rate); this is the in-run search
//! fio's job files ask for, window by window, as fio's HOWTO describes and
//! fio 3.33 was seen to do:
//!
//! - The job starts at depth 1. Each I/O whose total latency (`lat`) is
//!   over the target counts as a miss. After each window (`latency_window`)
//!   the window passes when at least `latency_percentile` % of its I/Os met
//!   the target.
//! - A pass raises the depth: doubled while nothing has missed yet, then
//!   halfway to the shallowest depth that missed. A miss lowers it halfway
//!   to the deepest depth that passed, and the I/Os still in flight at the
//!   old depth complete before the next is issued (they are not counted in
//!   the next window), so one deep window does not lower the depth twice.
//! - With `latency_percentile=100` there is no waiting for the window: the
//!   first I/O over the target lowers the depth at once, and at depth 1,
//!   where nothing lower is left, it fails the job (fio: "latency of N nsec
//!   exceeds specified max", ETIMEDOUT).
//! - Under 100, a window that misses at depth 1 changes nothing: the depth
//!   stays 1 and the window grows until enough of its I/Os pass, so a
//!   target below what one I/O takes runs the whole job at depth 1.
//! - When a pass would leave the depth where it is, the depth is found:
//!   what is in flight completes, the job's figures start afresh (as after
//!   a ramp: the runtime too), and after one more window that passes at
//!   that depth the job ends, unless `latency_run` keeps it searching
//!   until its runtime. Passing three times in a row just under the
//!   shallowest depth that missed lets the search try that depth again.
//!
//! Two choices where fio's code does something it does not document: the
//! I/Os completing while the queue drains after a lowering are not judged
//! (fio judges them, and with `latency_percentile=100` a deep queue can so
//! fall several steps at once, or fail at depth 1, from one slow moment);
//! and a window with no completion at all is not judged (fio would judge
//! 0 of 0 as a miss).
//!
//! The per-I/O cost is one comparison and two counters, for jobs with a
//! target only.

use super::phase::Stop;
use super::slots::Slot;
use super::Worker;
use crate::clock::Clock;
use crate::error::RunError;
use engine::Completion;
use model::{Direction, LatencyTarget};

/// How many passes in a row just under the shallowest depth that missed
/// before that depth is tried again.
const RETRY_AFTER_PASSES: u32 = 3;

/// What the worker does after the search saw a completion or a window end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Nothing changes.
    Keep,
    /// The depth went up: issue up to it now.
    Raised,
    /// The depth went down: let what is in flight complete, then start a
    /// new window (`new_window`).
    Lowered,
    /// The depth is found: let what is in flight complete, start the
    /// measured figures afresh, then a new window.
    Settled,
    /// The depth found held for one more window: the job ends.
    Done,
    /// `latency_percentile=100` and an I/O at depth 1 was over the target.
    Fatal,
}

/// The I/O that failed a job with `latency_percentile=100` at depth 1.
#[derive(Clone, Copy, Debug)]
pub(super) struct Missed {
    pub dir: Direction,
    pub file: u32,
    pub offset: u64,
    pub len: u64,
    pub lat_ns: u64,
}

pub(super) struct DepthSearch {
    target_ns: u64,
    /// In clock ticks, as `window_start`.
    window: u64,
    percentile: f64,
    keep_running: bool,
    max: u32,
    /// The depth allowed now.
    depth: u32,
    /// The deepest depth known to pass, and the shallowest known to miss
    /// (`max` while none has).
    low: u32,
    high: u32,
    /// Passes in a row just under `high`.
    passes_under_high: u32,
    /// Where the open window started (clock ticks), its I/Os
    /// and those of them over the target.
    window_start: u64,
    ios: u64,
    over: u64,
    /// The depth was found and the job's figures restarted.
    found: bool,
}

impl DepthSearch {
    /// The search of a job with `lt` and at most `max` I/Os in flight,
    /// starting at `now`; `None` when the job has no target. `now`, and
    /// `window` (`lt.window` converted), are on the worker's clock, in its
    /// ticks; latencies are in ns.
    pub(super) fn new(lt: &LatencyTarget, max: u32, now: u64, window: u64) -> Option<DepthSearch> {
        lt.is_on().then(|| DepthSearch {
            target_ns: lt.target.as_nanos() as u64,
            window,
            percentile: lt.percentile,
            keep_running: lt.keep_running,
            max: max.max(1),
            depth: 1,
            low: 1,
            high: max.max(1),
            passes_under_high: 0,
            window_start: now,
            ios: 0,
            over: 0,
            found: false,
        })
    }

    /// The depth allowed now.
    pub(super) fn depth(&self) -> u32 {
        self.depth
    }

    /// Starts again from depth 1 at `now`, as fio does when its ramp ends
    /// (unless the depth was already found).
    pub(super) fn restart(&mut self, now: u64) {
        if !self.found {
            (self.depth, self.low, self.high) = (1, 1, self.max);
            self.passes_under_high = 0;
            self.new_window(now);
        }
    }

    /// Opens a new window at `now`.
    pub(super) fn new_window(&mut self, now: u64) {
        self.window_start = now;
        self.ios = 0;
        self.over = 0;
    }

    /// One I/O completed in `lat_ns`, at `now`.
    #[inline]
    pub(super) fn completed(&mut self, lat_ns: u64, now: u64) -> Verdict {
        self.ios += 1;
        if lat_ns <= self.target_ns {
            return Verdict::Keep;
        }
        self.over += 1;
        match self.percentile >= 100.0 {
            true if self.depth == 1 => Verdict::Fatal,
            true => self.lower(now),
            false => Verdict::Keep,
        }
    }

    /// Judges the window if it is over at `now`.
    pub(super) fn judge(&mut self, now: u64) -> Verdict {
        if now.saturating_sub(self.window_start) < self.window || self.ios == 0 {
            return Verdict::Keep;
        }
        let met = (self.ios - self.over) as f64 * 100.0 / self.ios as f64;
        match met >= self.percentile {
            true => self.raise(now),
            // Nothing below depth 1: the window goes on growing.
            false if self.depth == 1 => Verdict::Keep,
            false => self.lower(now),
        }
    }

    fn lower(&mut self, now: u64) -> Verdict {
        self.high = self.depth;
        if self.depth == self.low {
            self.low -= 1;
        }
        self.depth = ((self.depth + self.low) / 2).max(1);
        self.passes_under_high = 0;
        self.new_window(now);
        Verdict::Lowered
    }

    fn raise(&mut self, now: u64) -> Verdict {
        let before = self.depth;
        self.low = self.depth;
        if self.depth + 1 == self.high {
            self.passes_under_high += 1;
            if self.passes_under_high >= RETRY_AFTER_PASSES {
                self.high += 1;
                self.passes_under_high = 0;
            }
        }
        self.depth = match self.high == self.max {
            // Nothing has missed yet: double.
            true => self.depth.saturating_mul(2),
            false => (self.depth + self.high) / 2,
        }
        .min(self.max);
        self.new_window(now);
        match (self.depth == before, self.keep_running, self.found) {
            (false, _, _) => Verdict::Raised,
            (true, true, _) => Verdict::Keep,
            (true, false, false) => {
                self.found = true;
                Verdict::Settled
            }
            (true, false, true) => Verdict::Done,
        }
    }
}

/// The worker's part for a latency target: the search, and the drain it
/// asked for.
pub(super) struct Latency {
    pub search: DepthSearch,
    quiesce: Option<Quiesce>,
}

/// Why the latency search drains the queue.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quiesce {
    /// The depth went down: a new window once the deeper queue is gone.
    Window,
    /// The depth is found: the measured figures start afresh too.
    Found,
}

impl Latency {
    pub(super) fn new(search: DepthSearch) -> Latency {
        Latency {
            search,
            quiesce: None,
        }
    }

    /// The depth the search allows now.
    pub(super) fn depth(&self) -> u32 {
        self.search.depth()
    }

    /// Whether the queue drains for a change of depth.
    #[inline]
    pub(super) fn quiescing(&self) -> bool {
        self.quiesce.is_some()
    }

    /// Hears the completions `done` (their slots in `slots`) seen at `now`:
    /// every read and write that completed whole (in the ramp too, as
    /// fio's search does), none while the queue drains for it, and none
    /// after the first that changed something. Returns that verdict, and
    /// for a `Verdict::Fatal` the I/O that failed the job.
    #[inline]
    pub(super) fn hear(
        &mut self,
        done: &[Completion],
        slots: &[Slot],
        clock: &Clock,
        now: u64,
    ) -> (Verdict, Option<Missed>) {
        if self.quiescing() {
            return (Verdict::Keep, None);
        }
        for c in done {
            let slot = &slots[c.slot as usize];
            if slot.trim || c.result < 0 {
                continue;
            }
            let lat_ns = clock.nanos(slot.queued_at, now);
            let verdict = self.search.completed(lat_ns, now);
            if verdict != Verdict::Keep {
                let missed = (verdict == Verdict::Fatal).then_some(Missed {
                    dir: slot.dir,
                    file: slot.file,
                    offset: slot.offset,
                    len: slot.len,
                    lat_ns,
                });
                return (verdict, missed);
            }
        }
        (Verdict::Keep, None)
    }
}

impl Worker<'_> {
    /// Acts on what the latency search said; `missed` is the I/O that
    /// failed the job, for a `Verdict::Fatal` from a completion.
    pub(super) fn steer(&mut self, verdict: Verdict, missed: Option<Missed>) {
        let Some(latency) = &mut self.parts.latency else {
            return;
        };
        self.q.allowed = latency.depth();
        match verdict {
            Verdict::Keep | Verdict::Raised => {}
            Verdict::Lowered => latency.quiesce = Some(Quiesce::Window),
            Verdict::Settled => latency.quiesce = Some(Quiesce::Found),
            Verdict::Done => self.time.phase.stop(Stop::LatencyFound),
            Verdict::Fatal => {
                let Some(m) = missed else { return };
                let spec = &self.plan.spec;
                let e = crate::error::LatencyMissed {
                    op: match m.dir {
                        Direction::Read => "read",
                        Direction::Write => "write",
                    },
                    path: self.plan.engine_cfg.path(m.file),
                    offset: m.offset,
                    len: m.len,
                    lat_ns: m.lat_ns,
                    target_ns: spec.latency_target.target.as_nanos() as u64,
                };
                self.failure = Some(RunError::in_job(&spec.name, RunError::from(e)));
                self.time.phase.stop(Stop::LatencyMissed);
            }
        }
    }

    /// Nothing is in flight any more after a change of the latency search's
    /// depth: the next window starts now, and once the depth is found the
    /// measured figures and the runtime start afresh, as fio's do.
    pub(super) fn quiesced(&mut self) {
        let now = self.shared.clock.now();
        let Some(latency) = &mut self.parts.latency else {
            return;
        };
        let found = latency.quiesce.take() == Some(Quiesce::Found);
        if found && !self.time.phase.stopping() {
            self.start_measuring(now);
            self.time.restart(now);
        }
        if let Some(latency) = &mut self.parts.latency {
            latency.search.new_window(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const MS: u64 = 1_000_000;

    fn search(max: u32, percentile: f64, keep_running: bool) -> DepthSearch {
        let lt = LatencyTarget {
            target: Duration::from_millis(3),
            window: Duration::from_secs(1),
            percentile,
            keep_running,
        };
        DepthSearch::new(&lt, max, 0, 1000 * MS).unwrap()
    }

    /// Runs windows of a device whose every I/O takes `depth * 250 us`
    /// (4000 IOPS, Little's law) until the search says `Done` or `Fatal`;
    /// returns the depths tried, in order, and the last verdict.
    fn walk(s: &mut DepthSearch) -> (Vec<u32>, Verdict) {
        let mut depths = vec![s.depth()];
        let mut now = 0;
        for _ in 0..100 {
            let lat = u64::from(s.depth()) * 250_000;
            let mut v = Verdict::Keep;
            for _ in 0..100 {
                now += 10 * MS;
                v = s.completed(lat, now);
                // What is still in flight then is not judged (the worker drains it).
                if v != Verdict::Keep {
                    break;
                }
            }
            if v == Verdict::Keep {
                v = s.judge(now);
            }
            match v {
                Verdict::Done | Verdict::Fatal => return (depths, v),
                Verdict::Lowered | Verdict::Settled => s.new_window(now),
                _ => {}
            }
            if *depths.last().unwrap() != s.depth() {
                depths.push(s.depth());
            }
        }
        (depths, Verdict::Keep)
    }

    #[test]
    fn it_doubles_then_halves_to_the_deepest_queue_under_the_target() {
        // 3 ms at 250 us an I/O: depth 12 is exactly on the target (met),
        // 13 is over.
        let (depths, v) = walk(&mut search(64, 99.0, false));
        assert_eq!(depths, [1, 2, 4, 8, 16, 12, 14, 13, 12], "{v:?}");
        assert_eq!(v, Verdict::Done);
    }

    #[test]
    fn with_every_io_counted_the_first_miss_lowers_at_once() {
        let mut s = search(64, 100.0, false);
        let (depths, v) = walk(&mut s);
        assert_eq!(depths, [1, 2, 4, 8, 16, 12, 14, 13, 12]);
        assert_eq!(v, Verdict::Done);
        // At depth 1 a miss has nowhere to go.
        let mut s = search(64, 100.0, false);
        assert_eq!(s.completed(4 * MS, 1), Verdict::Fatal);
    }

    #[test]
    fn a_target_below_one_io_at_a_time_keeps_depth_1_and_one_growing_window() {
        let mut s = search(64, 99.0, false);
        for i in 1..=5000 {
            assert_eq!(s.completed(5 * MS, i * MS), Verdict::Keep);
            assert_eq!(s.judge(i * MS), Verdict::Keep);
        }
        assert_eq!(s.depth(), 1);
        // The window was never reset: enough passes later count with the misses.
        for i in 5001..=600_000 {
            s.completed(0, i * MS);
        }
        assert_eq!(s.judge(600_000 * MS), Verdict::Raised);
        assert_eq!(s.depth(), 2);
    }

    #[test]
    fn a_window_is_judged_only_once_it_is_over_and_has_ios() {
        let mut s = search(8, 99.0, false);
        assert_eq!(s.judge(2000 * MS), Verdict::Keep);
        s.completed(MS, 10);
        assert_eq!(s.judge(999 * MS), Verdict::Keep);
        assert_eq!(s.judge(2000 * MS), Verdict::Raised);
        assert_eq!(s.depth(), 2);
    }

    #[test]
    fn the_depth_never_passes_iodepth_and_a_device_fast_enough_settles_there() {
        let mut s = search(6, 99.0, false);
        let mut now = 0;
        let mut seen = vec![];
        loop {
            now += 1000 * MS;
            s.completed(MS / 10, now);
            let v = s.judge(now);
            seen.push((s.depth(), v));
            if v == Verdict::Done {
                break;
            }
        }
        use Verdict::*;
        assert_eq!(
            seen,
            [
                (2, Raised),
                (4, Raised),
                (6, Raised),
                (6, Settled),
                (6, Done)
            ]
        );
    }

    #[test]
    fn latency_run_keeps_judging_and_follows_a_device_that_slows_down() {
        let mut s = search(64, 99.0, true);
        let (depths, v) = walk(&mut s);
        assert_eq!(v, Verdict::Keep, "never done: {depths:?}");
        assert!((12..=13).contains(&s.depth()), "{depths:?}");
        // The device gets four times slower: the depth follows it down.
        let mut now = 1_000_000 * MS;
        for _ in 0..50 {
            let lat = u64::from(s.depth()) * 1_000_000;
            for _ in 0..100 {
                now += 10 * MS;
                s.completed(lat, now);
            }
            if s.judge(now) == Verdict::Lowered {
                s.new_window(now);
            }
        }
        assert!((2..=4).contains(&s.depth()), "{}", s.depth());
    }

    #[test]
    fn a_restart_after_a_ramp_starts_from_depth_1_unless_the_depth_was_found() {
        let mut s = search(64, 99.0, false);
        s.completed(MS, 10);
        s.judge(1000 * MS);
        assert_eq!(s.depth(), 2);
        s.restart(1500 * MS);
        assert_eq!((s.depth(), s.high, s.ios), (1, 64, 0));
        s.found = true;
        s.depth = 5;
        s.restart(1600 * MS);
        assert_eq!(s.depth(), 5);
    }
}
