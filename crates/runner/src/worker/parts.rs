//! The job's parts: one for each feature a job may ask for, built from the
//! job when its worker starts, each holding its own state in its own type
//! and file. A job that asks for none has none (the file options' part is
//! there, inert), and with plain offsets its worker runs the plain path of
//! `queue` (issue, reap, record), where asking a part is one check that
//! finds nothing to do.
//!
//! | part | file | before an I/O | on completions | at ticks and phase changes | holds the queue | at the end |
//! |---|---|---|---|---|---|---|
//! | `pace`: rates, thinktime, `flow`, `number_ios` | `paced` | waits or picks the direction | counts them (thinktime) | | | |
//! | `floors`: `rate_min`, `rate_iops_min` | `crate::rate` | | | checks each cycle; starts afresh with the measured phase | | |
//! | `verify` | `verifying` | fills the write's chunks | checks reads | | `verify_backlog` | the verify pass; its result |
//! | `replay`: `read_iolog` | `iolog` | gives the I/O, at its time | | | a replayed sync | |
//! | `iolog_out`: `write_iolog` | `iolog` | writes its line | | | | closes the log |
//! | `latency`: `latency_target` | `latency` | caps the depth | judges each I/O | judges each window | while the depth changes | the depth found |
//! | `errors`: `continue_on_error` | `errors` | | counts what it continues past | | | the count |
//! | `prio`: `cmdprio_*` | `prio` | draws the I/O's priority | | | | |
//! | `logs`: `write_*_log` | `crate::logs` | | logs each I/O | start afresh with the measured phase | | closes the logs |
//! | `stable`: the stability stop | `stable` | | | judges each slice | | its slices |
//! | `data`: buffer options | `data` | fills the write's buffer | | | | |
//! | `files`: `openfiles`, `sync_file_range`, loops | `fileops` | routes the I/O to its file | | | range syncs, loops, files to open | `end_fsync` of closed files, `unlink` |
//! | `overlap`: `serialize_overlap` | `overlap` | holds an I/O overlapping one in flight | | | | |
//!
//! `fsync=N` is the writes' own (`queue::Writes`), and trims are issued by
//! `trim` where the job's `rw` asks for them.

use super::data::DataFiller;
use super::fileops::FileOps;
use super::iolog::{IoLogOut, Replayer};
use super::latency::{DepthSearch, Latency, Missed, Verdict};
use super::overlap::Overlap;
use super::paced::Pace;
use super::phase::{Stop, Timeline};
use super::slots::Queue;
use super::stable::StableWatch;
use super::verifying::Verifier;
use super::{errors, prio, Worker, WorkerPlan};
use crate::clock::Clock;
use crate::error::RunError;
use crate::logs::{JobLogs, Sample};
use crate::offsets::Rng;
use crate::rate::RateFloors;
use model::errors::ErrorCount;
use model::{JobSpec, StableStop};
use std::sync::Arc;
use std::time::Duration;

/// The parts of one worker; `None` for a feature the job does not use.
pub(super) struct Parts {
    pub pace: Option<Box<Pace>>,
    /// Floors apply to the measured phase only.
    pub floors: Option<RateFloors>,
    pub verify: Option<Box<Verifier>>,
    pub replay: Option<Replayer>,
    pub iolog_out: Option<IoLogOut>,
    pub latency: Option<Latency>,
    /// `Some` from the start for a job that may continue past any error.
    pub errors: Option<ErrorCount>,
    pub prio: Option<Rng>,
    pub logs: Option<JobLogs>,
    /// From the start of the measured phase; `None` without a stability stop.
    pub stable: Option<StableWatch>,
    pub data: Option<DataFiller>,
    /// Inert (and nearly free on the I/O path) for a job with no file option.
    pub files: FileOps,
    pub overlap: Option<Overlap>,
}

/// Where a worker starts, for building its parts.
pub(super) struct Start<'c> {
    pub clock: &'c Clock,
    /// The clock's reading at the start.
    pub at: u64,
    /// The clone's random seed.
    pub seed: u64,
    /// Whether the offsets are plain (one block size, uniform or sequential).
    pub plain_offsets: bool,
}

/// What stops the queue from being refilled until nothing is in flight,
/// to be done then (the first due, in this order).
#[derive(Clone, Copy)]
pub(super) enum Hold {
    /// `verify_backlog`: the last writes are read back and checked.
    VerifyBacklog,
    /// `sync_file_range`, the end of a loop, a file to open (see `fileops`).
    Files,
    /// `fsync=N` or `fdatasync=N` writes since the last sync, or a replayed sync.
    Sync,
    /// The latency search changed the depth (see `latency`).
    Quiesce,
}

/// What the parts add to the worker's outcome.
pub(super) struct Ended {
    pub verify: Option<model::VerifyResult>,
    pub stability: Option<model::Stability>,
    pub latency_depth: Option<u32>,
    pub errors: Option<ErrorCount>,
}

impl Parts {
    /// The parts of `plan`'s job, and the first failure to set one up (a
    /// log that cannot be opened, verify options that cannot work).
    /// `loop_bytes`: one loop's bytes of a job of several (0: one loop, or
    /// time-based); `names`: its files' names in an I/O log.
    pub(super) fn new(
        plan: &mut WorkerPlan,
        start: Start,
        q: &Queue,
        time: &Timeline,
        loop_bytes: u64,
        names: Vec<String>,
    ) -> (Parts, Option<RunError>) {
        let spec = Arc::clone(&plan.spec);
        let Start {
            clock,
            at,
            seed,
            plain_offsets,
        } = start;
        let ticks = |d: Duration| clock.ticks(d.as_nanos() as u64);
        let (logs, mut failure) = match JobLogs::open(&spec.logs, plan.thread_number, clock, at) {
            Ok(logs) => (logs, None),
            Err(e) => (None, Some(RunError::in_job(&spec.name, e))),
        };
        let state_index = plan.thread_number.saturating_sub(1);
        let verify = Verifier::new(&spec, &plan.regions, seed, plan.clone, state_index, q.depth)
            .unwrap_or_else(|e| {
                failure.get_or_insert(e);
                None
            });
        let iolog_out = IoLogOut::open(&spec, names, at).unwrap_or_else(|e| {
            failure.get_or_insert(RunError::in_job(&spec.name, RunError::from(e)));
            None
        });
        let window = ticks(spec.latency_target.window);
        let measuring = !time.phase.ramping();
        let parts = Parts {
            pace: Pace::new(
                &spec,
                clock,
                at,
                plain_offsets,
                Rng::new(seed ^ 0x7a7e),
                plan.flow.take(),
            ),
            floors: RateFloors::new(&spec, clock, at).filter(|_| measuring),
            verify,
            replay: Replayer::new(&spec, at),
            iolog_out,
            latency: DepthSearch::new(&spec.latency_target, q.depth, at, window).map(Latency::new),
            errors: spec.errors.any().then(Default::default),
            prio: prio::draw(&spec, seed),
            logs,
            stable: (plan.stable_stop)
                .filter(|_| measuring)
                .map(|r| StableWatch::new(r, 0)),
            data: DataFiller::new(
                &spec.buffer_data,
                plan.regions.iter().map(|r| r.blocks).sum(),
                // Each clone of the run its own buffers: none repeats another's.
                spec.randseed ^ u64::from(plan.thread_number) << 40,
                plan.dedupe,
            ),
            files: FileOps::new(plan.file_set.take(), &spec, loop_bytes),
            overlap: spec.serialize_overlap.then(Overlap::default),
        };
        (parts, failure)
    }

    /// Whether the I/Os may come from the plain path: no part picks them.
    pub(super) fn plain(&self) -> bool {
        self.pace.is_none()
            && self.verify.is_none()
            && self.replay.is_none()
            && self.overlap.is_none()
    }

    /// The depth allowed at the start, of at most `depth`.
    pub(super) fn allowed(&self, depth: u32) -> u32 {
        self.latency.as_ref().map_or(depth, Latency::depth)
    }

    /// See [`Hold`]; `sync_due`: the writes' `fsync=N` count is reached.
    #[inline]
    pub(super) fn hold(&self, sync_due: bool) -> Option<Hold> {
        if self.verify.as_ref().is_some_and(|v| v.due) {
            Some(Hold::VerifyBacklog)
        } else if self.files.due {
            Some(Hold::Files)
        } else if sync_due {
            Some(Hold::Sync)
        } else if self.latency.as_ref().is_some_and(Latency::quiescing) {
            Some(Hold::Quiesce)
        } else {
            None
        }
    }

    /// With nothing in flight: the time a rate, a thinktime or the replayed
    /// log said nothing may be issued until, if one did.
    pub(super) fn wait_until(&mut self) -> Option<u64> {
        let paced = self.pace.as_mut().and_then(|p| p.wait_until.take());
        let replayed = self.replay.as_mut().and_then(|r| r.wait_until.take());
        paced.or(replayed)
    }

    /// The measured figures start afresh at `now`: the rate floors, the
    /// logs and the stability slices with them.
    pub(super) fn measure_started(
        &mut self,
        spec: &JobSpec,
        clock: &Clock,
        now: u64,
        stable: Option<StableStop>,
    ) {
        self.floors = RateFloors::new(spec, clock, now);
        if let Some(logs) = &mut self.logs {
            logs.restart(now);
        }
        self.stable = stable.map(|r| StableWatch::new(r, 0));
    }

    /// What the parts add to the outcome once the job is over; a bad chunk
    /// `verify=` found fails the job (`error`, unless one came first)
    /// unless the job continues past it.
    pub(super) fn end(&mut self, spec: &JobSpec, error: &mut Option<RunError>) -> Ended {
        let verify = self.verify.take().map(|v| {
            let mut r = v.result;
            r.sort();
            r
        });
        let verify_continued = verify
            .as_ref()
            .is_some_and(|v| errors::absorb_verify(spec, &mut self.errors, v));
        if let Some(v) = verify.as_ref().filter(|_| !verify_continued) {
            if let (Some(summary), Some(first)) = (v.error(), v.failures.first()) {
                error.get_or_insert(RunError::in_job(
                    &spec.name,
                    RunError::BadData {
                        summary,
                        path: first.path.clone(),
                        offset: first.offset,
                    },
                ));
            }
        }
        Ended {
            verify,
            stability: self.stable.take().map(StableWatch::result),
            latency_depth: self.latency.as_ref().map(Latency::depth),
            errors: self.errors.take(),
        }
    }
}

impl Worker<'_> {
    /// The ramp ended at `now`: the latency search starts again.
    pub(super) fn ramp_ended(&mut self, now: u64) {
        if let Some(latency) = &mut self.parts.latency {
            latency.search.restart(now);
            self.q.allowed = latency.depth();
        }
    }

    /// At each clock reading: the latency search's windows, the stability
    /// stop's slices, the rate floors' cycles.
    pub(super) fn tick_parts(&mut self, now: u64) {
        let clock = &self.shared.clock;
        // The latency search judges its windows in the measured phase only.
        let phase = self.time.phase;
        if let Some(latency) = &mut self.parts.latency {
            if !latency.quiescing() && phase.measuring() && !phase.stopping() {
                let verdict = latency.search.judge(now);
                self.steer(verdict, None);
            }
        }
        if let (Some(watch), false) = (&mut self.parts.stable, self.time.phase.stopping()) {
            let [r, w] = &self.rec.dirs;
            let since = clock.nanos(self.time.measure_start, now);
            if watch.stable(since, r.ios + w.ios, r.bytes + w.bytes) {
                self.time.phase.stop(Stop::Stable);
            }
        }
        if let Some(floors) = &mut self.parts.floors {
            if let Err(e) = floors.check(now, &self.rec.dirs) {
                self.failure = Some(RunError::in_job(&self.plan.spec.name, e));
                self.time.phase.stop(Stop::RateFloor);
            }
        }
    }

    /// The first `take` reaped completions, before they are recorded: the
    /// logs log them (in the measured phase), `verify=` checks its reads,
    /// and the latency search judges them; returns what the search said.
    #[inline]
    pub(super) fn tell_parts(
        &mut self,
        now: u64,
        take: usize,
        measuring: bool,
    ) -> (Verdict, Option<Missed>) {
        if measuring && self.parts.logs.is_some() {
            self.log_completions(now, take);
        }
        if self.parts.verify.is_some() {
            self.verify_completions(take);
        }
        match &mut self.parts.latency {
            Some(latency) => {
                let done = &self.q.done[..take];
                latency.hear(done, &self.q.slots, &self.shared.clock, now)
            }
            None => (Verdict::Keep, None),
        }
    }

    /// Hands the first `take` completions to the logs, before they are counted.
    fn log_completions(&mut self, now: u64, take: usize) {
        let Some(logs) = &mut self.parts.logs else {
            return;
        };
        let clock = &self.shared.clock;
        for c in &self.q.done[..take] {
            let slot = &self.q.slots[c.slot as usize];
            // A trim was logged when it was done (see `trim`).
            if slot.trim {
                continue;
            }
            logs.record(&Sample {
                at: now,
                dir: slot.dir,
                trim: false,
                len: slot.len,
                offset: slot.offset,
                slat_ns: (self.q.with_slat).then(|| clock.nanos(slot.queued_at, slot.submitted_at)),
                clat_ns: clock.nanos(slot.submitted_at, now),
                lat_ns: clock.nanos(slot.queued_at, now),
                prio: slot.prio,
                issued: slot.submitted_at,
            });
        }
    }

    /// After a batch of `take` completions is recorded: the thinktime
    /// counts them, and the worker acts on the latency search's verdict.
    #[inline]
    pub(super) fn after_completions(&mut self, take: usize, heard: (Verdict, Option<Missed>)) {
        if let Some(pace) = &mut self.parts.pace {
            pace.completed(take as u32);
        }
        if heard.0 != Verdict::Keep {
            self.steer(heard.0, heard.1);
        }
    }

    /// Once the clock stopped at `end`: the files' last duties (`synced`:
    /// the job ended well, so `end_fsync` is due), the logs written out.
    /// The first failure goes into `error`, unless one came first.
    pub(super) fn close_parts(&mut self, end: u64, synced: bool, error: &mut Option<RunError>) {
        let spec = Arc::clone(&self.plan.spec);
        let name = &spec.name;
        if let Err(e) = self.finish_files(synced) {
            error.get_or_insert(RunError::in_job(name, RunError::from(e)));
        }
        if let Some(logs) = self.parts.logs.take() {
            if let Err(e) = logs.finish(end) {
                error.get_or_insert(RunError::in_job(name, RunError::from(e)));
            }
        }
        if let Some(out) = self.parts.iolog_out.take() {
            if let Err(e) = out.finish(&self.shared.clock, end) {
                error.get_or_insert(RunError::in_job(name, RunError::from(e)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parts of a job that asks for nothing.
    fn none() -> Parts {
        let spec = JobSpec::new("j");
        Parts {
            pace: None,
            floors: None,
            verify: None,
            replay: None,
            iolog_out: None,
            latency: None,
            errors: None,
            prio: None,
            logs: None,
            stable: None,
            data: None,
            files: FileOps::new(None, &spec, 0),
            overlap: None,
        }
    }

    #[test]
    fn a_job_without_parts_is_plain_and_only_its_syncs_hold_the_queue() {
        let mut parts = none();
        assert!(parts.plain());
        assert!(parts.hold(false).is_none());
        assert!(matches!(parts.hold(true), Some(Hold::Sync)));
        assert_eq!(parts.wait_until(), None);
        assert_eq!(parts.allowed(8), 8);
    }

    #[test]
    fn the_files_hold_before_a_sync_and_a_latency_search_caps_the_depth() {
        let mut parts = none();
        parts.files.due = true;
        assert!(matches!(parts.hold(true), Some(Hold::Files)));
        let lt = model::LatencyTarget {
            target: Duration::from_millis(1),
            window: Duration::from_secs(1),
            percentile: 99.0,
            keep_running: false,
        };
        parts.latency = DepthSearch::new(&lt, 8, 0, 1).map(Latency::new);
        // The search starts at depth 1, whatever the job's iodepth.
        assert_eq!(parts.allowed(8), 1);
    }
}
