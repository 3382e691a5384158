//! Where a worker is in its life, and so which of its I/Os the job's
//! figures count.
//!
//! A worker goes through these phases, in this order. Only the ones marked
//! "yes" are inside the job's clock: its runtime, bandwidth, CPU, per-second
//! series and logs cover them and nothing else.
//!
//! | phase | code | in the clock |
//! |---|---|---|
//! | lay out the files | the runner, before the thread starts (`files`) | no |
//! | CPU pinning, `startdelay` | `paced::before_start` | no |
//! | ramp (`ramp_time`) | [`Phase::Ramp`]: I/O runs, nothing is recorded | no |
//! | measure: I/O, `fsync=N`, range syncs; until `runtime`, the size, or (with a stability stop) the figure is stable | [`Phase::Measure`] | yes |
//! | stopping: what is in flight completes | [`Phase::Stopping`] | yes, once the ramp is over |
//! | final sync (`end_fsync`, `fsync_on_close`) | `Worker::final_sync` | yes, as in fio |
//! | verify pass | `Worker::verify_pass` | yes: its reads are the job's, as in fio |
//! | drain after an error, close files, logs | `run_worker` after the clock stops | no |
//!
//! The final sync is the job's I/O: a buffered write with `end_fsync=1`
//! that stopped the clock before its sync reported the page cache's speed
//! (3.5 GB/s where fio, timing the sync, found 0.8-1.3).
//!
//! The transitions are pure functions of the clock reading, so they are
//! tested here without any I/O.

/// Why a worker stopped issuing I/O. The first reason wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// `runtime` passed.
    Runtime,
    /// The job's size, `io_size` or `number_ios` is issued.
    Done,
    /// The run was asked to stop (Ctrl-C, a failed job with `exitall`).
    Asked,
    /// This job ended: it reached its `steadystate`, or one of its clones failed.
    JobEnded,
    /// A `rate_min` or `rate_iops_min` floor was missed.
    RateFloor,
    /// `verify_fatal`: a chunk read back was wrong.
    VerifyFatal,
    /// Setting the worker up failed (a log could not be opened).
    Setup,
    /// The stability stop: the figure was known within its precision
    /// (`model::StableStop`, `worker/stable.rs`) before the runtime passed.
    Stable,
    /// `latency_target`: the depth found held for one more window
    /// (`worker/latency.rs`).
    LatencyFound,
    /// `latency_target` with `latency_percentile=100`: an I/O at depth 1
    /// was over the target.
    LatencyMissed,
    /// `fill_device`: a write found the filesystem full (`worker/errors.rs`).
    Full,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// `ramp_time`: I/O runs and nothing is recorded, until the clock reads
    /// `until`. The recorder, CPU, rate floors and logs then start afresh.
    Ramp { until: u64 },
    /// Every completion is recorded, until `deadline` (a time-based job;
    /// `None`: until the size is issued).
    Measure { deadline: Option<u64> },
    /// No new I/O is issued; the I/Os in flight complete, and are recorded
    /// when the ramp was over (`measured`).
    Stopping { why: Stop, measured: bool },
}

/// What a clock reading changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tick {
    Same,
    /// The ramp ended now: the measured phase starts at this reading.
    RampEnded,
}

impl Phase {
    /// The first phase of a worker starting at `start`; `ramp` and `runtime`
    /// in clock ticks.
    pub(super) fn begin(start: u64, ramp: Option<u64>, runtime: Option<u64>) -> Phase {
        match ramp {
            Some(ramp) => Phase::Ramp {
                until: start + ramp,
            },
            None => Phase::Measure {
                deadline: runtime.map(|r| start + r),
            },
        }
    }

    /// Moves on with the clock at `now`: ends the ramp (the runtime then
    /// counts from `now`) and stops at the deadline.
    pub(super) fn tick(&mut self, now: u64, runtime: Option<u64>) -> Tick {
        let mut tick = Tick::Same;
        if let Phase::Ramp { until } = *self {
            if now < until {
                return tick;
            }
            *self = Phase::Measure {
                deadline: runtime.map(|r| now + r),
            };
            tick = Tick::RampEnded;
        }
        if let Phase::Measure {
            deadline: Some(deadline),
        } = *self
        {
            if now >= deadline {
                self.stop(Stop::Runtime);
            }
        }
        tick
    }

    /// The measured phase starts again at `now`, its runtime with it: a
    /// latency target's depth was found (fio restarts its clock then). A
    /// worker already stopping stays stopped.
    pub(super) fn restart(&mut self, now: u64, runtime: Option<u64>) {
        if !self.stopping() {
            *self = Phase::Measure {
                deadline: runtime.map(|r| now + r),
            };
        }
    }

    /// Stops issuing; a worker already stopping keeps its first reason.
    pub(super) fn stop(&mut self, why: Stop) {
        if !self.stopping() {
            *self = Phase::Stopping {
                why,
                measured: !self.ramping(),
            };
        }
    }

    pub(super) fn ramping(&self) -> bool {
        matches!(self, Phase::Ramp { .. })
    }

    /// Whether completions now count in the job's figures.
    pub(super) fn measuring(&self) -> bool {
        match *self {
            Phase::Ramp { .. } => false,
            Phase::Measure { .. } => true,
            Phase::Stopping { measured, .. } => measured,
        }
    }

    pub(super) fn stopping(&self) -> bool {
        matches!(self, Phase::Stopping { .. })
    }

    /// Whether it stopped because the job's size was issued.
    pub(super) fn done_by_size(&self) -> bool {
        matches!(
            self,
            Phase::Stopping {
                why: Stop::Done,
                ..
            }
        )
    }

    /// Why the worker stopped, once it has.
    #[cfg(test)]
    pub(super) fn stopped_by(&self) -> Option<Stop> {
        match *self {
            Phase::Stopping { why, .. } => Some(why),
            _ => None,
        }
    }
}

/// The worker's clock-side state: its phase, the job's `runtime` in clock
/// ticks, and when the measured figures last started (a clock reading;
/// the ramp's end or a latency target's depth found).
pub(super) struct Timeline {
    pub phase: Phase,
    runtime: Option<u64>,
    pub measure_start: u64,
}

impl Timeline {
    /// The timeline of a worker starting at `start`; `ramp` and `runtime`
    /// in clock ticks.
    pub(super) fn begin(start: u64, ramp: Option<u64>, runtime: Option<u64>) -> Timeline {
        Timeline {
            phase: Phase::begin(start, ramp, runtime),
            runtime,
            measure_start: start,
        }
    }

    /// See [`Phase::tick`].
    #[inline]
    pub(super) fn tick(&mut self, now: u64) -> Tick {
        self.phase.tick(now, self.runtime)
    }

    /// See [`Phase::restart`].
    pub(super) fn restart(&mut self, now: u64) {
        self.phase.restart(now, self.runtime);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_ramp_the_clock_runs_from_the_start() {
        let mut p = Phase::begin(100, None, Some(50));
        assert!(p.measuring() && !p.ramping() && !p.stopping());
        assert_eq!(p.tick(149, Some(50)), Tick::Same);
        assert!(p.measuring() && !p.stopping());
        p.tick(150, Some(50));
        assert_eq!(p.stopped_by(), Some(Stop::Runtime));
        // What is in flight when the runtime ends is still the job's.
        assert!(p.measuring());
    }

    #[test]
    fn the_runtime_counts_from_the_end_of_the_ramp_not_the_start() {
        let mut p = Phase::begin(0, Some(30), Some(50));
        assert!(p.ramping() && !p.measuring());
        assert_eq!(p.tick(29, Some(50)), Tick::Same);
        // The ramp's reading is late (a slow I/O): the runtime starts then.
        assert_eq!(p.tick(40, Some(50)), Tick::RampEnded);
        assert_eq!(p, Phase::Measure { deadline: Some(90) });
        p.tick(89, Some(50));
        assert!(!p.stopping());
        p.tick(90, Some(50));
        assert_eq!(p.stopped_by(), Some(Stop::Runtime));
    }

    #[test]
    fn a_reading_past_ramp_and_runtime_ends_both() {
        let mut p = Phase::begin(0, Some(10), Some(0));
        assert_eq!(p.tick(10, Some(0)), Tick::RampEnded);
        assert_eq!(p.stopped_by(), Some(Stop::Runtime));
    }

    #[test]
    fn a_size_based_job_has_no_deadline() {
        let mut p = Phase::begin(0, None, None);
        p.tick(u64::MAX - 1, None);
        assert!(!p.stopping());
        p.stop(Stop::Done);
        assert_eq!(p.stopped_by(), Some(Stop::Done));
    }

    #[test]
    fn a_stop_during_the_ramp_records_nothing() {
        let mut p = Phase::begin(0, Some(100), Some(100));
        p.stop(Stop::Asked);
        assert!(p.stopping() && !p.measuring() && !p.ramping());
        // The ramp's end no longer restarts anything.
        assert_eq!(p.tick(500, Some(100)), Tick::Same);
        assert_eq!(p.stopped_by(), Some(Stop::Asked));
    }

    #[test]
    fn a_restart_gives_the_runtime_again_from_then_unless_stopping() {
        let mut p = Phase::begin(0, None, Some(50));
        p.restart(40, Some(50));
        assert_eq!(p, Phase::Measure { deadline: Some(90) });
        p.tick(89, Some(50));
        assert!(!p.stopping());
        p.stop(Stop::Asked);
        p.restart(100, Some(50));
        assert_eq!(p.stopped_by(), Some(Stop::Asked));
    }

    #[test]
    fn the_first_reason_to_stop_is_kept() {
        let mut p = Phase::begin(0, None, Some(10));
        p.stop(Stop::RateFloor);
        p.tick(20, Some(10));
        p.stop(Stop::Asked);
        assert_eq!(p.stopped_by(), Some(Stop::RateFloor));
        assert!(p.measuring());
    }

    #[test]
    fn the_timeline_keeps_the_runtime_for_the_ramps_end_and_a_restart() {
        let mut t = Timeline::begin(0, Some(10), Some(50));
        assert_eq!(t.measure_start, 0);
        assert_eq!(t.tick(12), Tick::RampEnded);
        assert_eq!(t.phase, Phase::Measure { deadline: Some(62) });
        t.restart(30);
        assert_eq!(t.phase, Phase::Measure { deadline: Some(80) });
    }
}
