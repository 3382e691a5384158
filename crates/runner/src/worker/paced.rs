//! The worker's other path: I/Os that wait for a rate, a thinktime or their
//! `flow`, come in several sizes or at skewed offsets, or count against
//! `number_ios`.
//!
//! Everything here runs only for jobs that ask for it; the plain path in
//! `worker` never calls in. Waiting happens in the worker's own thread: with
//! I/Os in flight it reaps them (which blocks until one completes), with
//! none it sleeps until the earliest due time, in slices so that a stop
//! request or the deadline is heard within [`SLEEP_SLICE`].

use super::{Shared, Worker, WorkerPlan, SLEEP_SLICE};
use crate::clock::Clock;
use crate::error::{IoError, RunError};
use crate::flow::FlowShare;
use crate::offsets::{Rng, Target};
use crate::rate::RateCaps;
use engine::{sys, EngineError};
use model::{Direction, JobSpec, RwMode};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Thinktime in clock ticks, and the I/Os counted since the last stall.
struct Think {
    total_ticks: u64,
    spin_ticks: u64,
    blocks: u32,
    on_issue: bool,
    issued: u32,
    completed: u32,
    /// `thinktime_iotime`: a stall is also due this long after the start of
    /// the previous one (or of the job): the I/O time plus the thinktime,
    /// as fio 3.33 counts it (measured: with 500 ms of each, stalls start at
    /// 1 s, 2 s, 3 s, so the first spell of I/O lasts 1 s).
    cycle_ticks: Option<u64>,
    last_stall: u64,
    /// Clock ticks the thinktimes so far overran (see `Worker::stall`).
    debt: u64,
}

pub(super) struct Pace {
    caps: Option<RateCaps>,
    think: Option<Think>,
    /// `number_ios` where sizes vary (else it is part of the byte budget).
    ios_budget: u64,
    ios_issued: u64,
    /// A mixed pattern may serve the other direction when one must wait.
    mixed: bool,
    /// For `rate_process=poisson`.
    rng: Rng,
    /// `flow`: the clone's place in its flow, and `flow_sleep` in ticks.
    flow: Option<(FlowShare, u64)>,
    /// When nothing could be issued: the earliest time something may be.
    pub(super) wait_until: Option<u64>,
    /// When the schedule meant the I/O last paced to start (a rate-capped
    /// direction only), taken by the issue loop once the I/O is queued.
    pub(super) scheduled: Option<u64>,
}

impl Pace {
    /// `None` when the job has no rate cap, no thinktime and no
    /// `number_ios` to count (`plain_offsets`: it is in the byte budget).
    pub(super) fn new(
        spec: &JobSpec,
        clock: &Clock,
        start: u64,
        plain_offsets: bool,
        rng: Rng,
        flow: Option<FlowShare>,
    ) -> Option<Box<Pace>> {
        let caps = RateCaps::new(spec, clock, start);
        let t = &spec.thinktime;
        let ticks = |d: Duration| clock.ticks(d.as_nanos() as u64);
        let think = (!t.think.is_zero()).then(|| Think {
            total_ticks: ticks(t.think),
            spin_ticks: ticks(t.spin),
            blocks: t.blocks.max(1),
            on_issue: t.on_issue,
            issued: 0,
            completed: 0,
            cycle_ticks: (!t.iotime.is_zero()).then(|| ticks(t.iotime + t.think)),
            last_stall: start,
            debt: 0,
        });
        let ios_budget = match spec.number_ios {
            Some(n) if !plain_offsets && !spec.time_based => n.saturating_mul(loops(spec)),
            _ => u64::MAX,
        };
        let flow = flow.map(|f| (f, clock.ticks(spec.flow.sleep_us.saturating_mul(1000))));
        if caps.is_none() && think.is_none() && ios_budget == u64::MAX && flow.is_none() {
            return None;
        }
        Some(Box::new(Pace {
            caps,
            think,
            ios_budget,
            ios_issued: 0,
            mixed: matches!(spec.rw, RwMode::ReadWrite | RwMode::RandRw),
            rng,
            flow,
            wait_until: None,
            scheduled: None,
        }))
    }

    /// Counts completions for `thinktime_blocks_type=complete`.
    #[inline]
    pub(super) fn completed(&mut self, n: u32) {
        if let Some(t) = &mut self.think {
            t.completed += n;
        }
    }
}

fn loops(spec: &JobSpec) -> u64 {
    u64::from(spec.loops.max(1))
}

/// The bytes a size-based job issues after its ramp: `io_size` (or the
/// region, `io_budget` blocks of `bs_bytes`) per loop, capped by
/// `number_ios` when every I/O is one block. fio ignores both limits in a
/// time-based job (`io_budget` is `None`), which loops until its runtime,
/// and in the one time-based job bound by its size all the same (see
/// `fileset::io_budget`), which does one pass.
pub(super) fn byte_budget(spec: &JobSpec, io_budget: Option<u64>, plain_offsets: bool) -> u64 {
    let Some(blocks) = io_budget else {
        return u64::MAX;
    };
    if spec.time_based {
        return blocks.saturating_mul(spec.bs_bytes);
    }
    let bytes = match spec.io_size_bytes {
        Some(b) => b.saturating_mul(loops(spec)),
        None => blocks.saturating_mul(spec.bs_bytes),
    };
    match spec.number_ios {
        Some(n) if plain_offsets => {
            bytes.min(n.saturating_mul(loops(spec)).saturating_mul(spec.bs_bytes))
        }
        _ => bytes,
    }
}

/// Bytes of one loop of a size-based job of several `loops` whose
/// budget is `total`; 0 for one loop or a time-based job (see
/// `Budget::loop_bytes`).
pub(super) fn loop_bytes(spec: &JobSpec, io_budget: Option<u64>, total: u64) -> u64 {
    match (io_budget, spec.time_based, loops(spec)) {
        (Some(_), false, n) if n > 1 && total != u64::MAX => total / n,
        _ => 0,
    }
}

/// Whether a size-based job's `size` ends in a piece shorter than a block
/// in one of its `files` (see `Budget::short_tail`): more than its whole
/// blocks, by less than a block per file. `io_size` keeps its own bytes in
/// the budget, so the job already asks for more after its last block.
pub(super) fn short_tail(spec: &JobSpec, io_budget: Option<u64>, files: usize) -> bool {
    let (Some(blocks), Some(size), None) = (io_budget, spec.size_bytes, spec.io_size_bytes) else {
        return false;
    };
    // `io_budget` holds every loop; the piece ends each one.
    let whole = (blocks / loops(spec)).saturating_mul(spec.bs_bytes);
    size > whole && size - whole < (files.max(1) as u64).saturating_mul(spec.bs_bytes)
}

/// `cpus_allowed`, the job's I/O priority and `startdelay`, in the
/// worker's thread before its clock starts. With `cpus_allowed_policy=split`
/// the thread gets one CPU of the set: the run's Nth thread the Nth CPU,
/// round robin when there are more threads than CPUs, as fio splits it.
pub(super) fn before_start(plan: &WorkerPlan, shared: &Shared) -> Result<(), RunError> {
    let spec = &plan.spec;
    if let Some(all) = &spec.cpus_allowed {
        let one;
        let cpus = match spec.cpus_split && !all.is_empty() {
            true => {
                one = [all[(plan.thread_number.max(1) as usize - 1) % all.len()]];
                &one[..]
            }
            false => &all[..],
        };
        sys::pin_thread(cpus).map_err(|e| {
            let pin = IoError::without_path("sched_setaffinity", e)
                .saying(format!("cpus_allowed: cannot run on CPUs {cpus:?}"))
                .fix(&format!(
                    "this machine has CPUs 0 to {}",
                    sys::cpus_configured() - 1
                ));
            RunError::in_job(&spec.name, pin)
        })?;
    }
    super::prio::set_thread_prio(spec)?;
    // A paced job sleeps between I/Os: its sleeps should end when asked.
    if spec.rate.caps() || !spec.thinktime.think.is_zero() {
        sys::precise_timers();
    }
    let d = spec.startdelay;
    if !d.max.is_zero() {
        // Each clone draws its own delay from the range, as in fio.
        let mut rng = Rng::new(spec.randseed ^ (u64::from(plan.clone) << 32) ^ 0x57a7);
        let delay = d.min + (d.max - d.min).mul_f64(rng.unit());
        let until = Instant::now() + delay;
        while !shared.stop.load(Ordering::Relaxed) {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            std::thread::sleep(left.min(SLEEP_SLICE));
        }
    }
    Ok(())
}

fn other(dir: Direction) -> Direction {
    match dir {
        Direction::Read => Direction::Write,
        Direction::Write => Direction::Read,
    }
}

impl Worker<'_> {
    /// The next I/O off the plain path; `None` when nothing may be issued now
    /// (see `Pace::wait_until`) or the job is done.
    pub(super) fn next_paced(&mut self) -> Result<Option<Target>, EngineError> {
        // The issue loop only runs while `issued < budget` after the ramp.
        let room = match self.ramping() {
            true => u64::MAX,
            false => self.budget.total - self.budget.issued,
        };
        if self.parts.replay.is_some() {
            return Ok(self.next_replayed());
        }
        let Some(mut pace) = self.parts.pace.take() else {
            let dir = self.gen.direction();
            return Ok(Some(self.gen.next_for(dir, room)));
        };
        let next = self.pace_one(&mut pace, room);
        self.parts.pace = Some(pace);
        next
    }

    fn pace_one(&mut self, p: &mut Pace, room: u64) -> Result<Option<Target>, EngineError> {
        p.wait_until = None;
        if !self.ramping() && p.ios_issued >= p.ios_budget {
            self.time.phase.stop(super::Stop::Done);
            return Ok(None);
        }
        if let Some(t) = &mut p.think {
            let clock = &self.shared.clock;
            let timed = t
                .cycle_ticks
                .is_some_and(|c| clock.now() >= t.last_stall + c);
            if timed || t.issued >= t.blocks {
                // `complete`: the stall follows the completion of the blocks.
                if !timed && !t.on_issue && t.completed < t.blocks {
                    return Ok(None);
                }
                t.issued = 0;
                t.completed = 0;
                t.last_stall = clock.now();
                let (spin, total) = (t.spin_ticks, t.total_ticks);
                // What is queued goes to the kernel before the stall, as in fio.
                if let Some(&first) = self.q.batch.first() {
                    self.submit_batch(self.q.slots[first as usize].queued_at)?;
                }
                self.stall(spin, total, &mut t.debt);
                if let Some(caps) = &mut p.caps {
                    caps.after_stall(self.shared.clock.now());
                }
                if self.time.phase.stopping() {
                    return Ok(None);
                }
            }
        }
        let mut dir = self.gen.direction();
        let now = self.shared.clock.now();
        if let Some(caps) = &p.caps {
            if caps.due(dir) > now {
                // fio serves the other direction of a mixed job when it is due
                // (so `rate=1m,` leaves writes free and skews the mix).
                let other_due = match p.mixed {
                    true => caps.due(other(dir)),
                    false => u64::MAX,
                };
                if other_due <= now {
                    dir = other(dir);
                } else {
                    p.wait_until = Some(caps.due(dir).min(other_due));
                    return Ok(None);
                }
            }
        }
        if let Some((share, sleep_ticks)) = &mut p.flow {
            // Ahead of its share of the flow: wait, then try again. Without
            // a flow_sleep the thread only yields, so that the clones it
            // waits for get the CPU it would spin on.
            if !share.take() {
                if *sleep_ticks == 0 {
                    std::thread::yield_now();
                }
                p.wait_until = Some(now + *sleep_ticks);
                return Ok(None);
            }
        }
        let t = self.gen.next_for(dir, room);
        if let Some(caps) = &mut p.caps {
            p.scheduled = caps.charge(dir, t.len, now, &mut p.rng);
        }
        if let Some(think) = &mut p.think {
            think.issued += 1;
        }
        if !self.ramping() {
            p.ios_issued += 1;
        }
        Ok(Some(t))
    }

    /// A thinktime: busy for `spin_ticks`, then asleep for the rest of
    /// `total_ticks`.
    ///
    /// A sleep ends late (some 70 us here: the kernel's 50 us timer slack
    /// and the wake-up; more on a busy machine). Rather than spin away the
    /// lateness, each stall is shortened by what the previous ones overran,
    /// so that stalls average `total_ticks`, as fio's do (measured: 100 us
    /// thinktimes at 107 us per I/O on the null engine).
    fn stall(&mut self, spin_ticks: u64, total_ticks: u64, debt: &mut u64) {
        let clock = self.shared.clock.clone();
        let start = clock.now();
        let target = total_ticks.saturating_sub(*debt);
        let spin_end = start + spin_ticks.min(target);
        while clock.now() < spin_end {
            std::hint::spin_loop();
        }
        self.sleep_until(start + target);
        let took = clock.now().saturating_sub(start);
        // At most one whole stall is made up later.
        *debt = (*debt + took).saturating_sub(total_ticks).min(total_ticks);
    }

    /// Sleeps until the clock reads `until`, the deadline passes or a stop
    /// is asked for, keeping the ramp, deadline and series up to date.
    pub(super) fn sleep_until(&mut self, until: u64) {
        loop {
            let now = self.shared.clock.now();
            self.check_time(now);
            if self.time.phase.stopping() || now >= until {
                return;
            }
            let left = Duration::from_nanos(self.shared.clock.nanos(now, until));
            std::thread::sleep(left.min(SLEEP_SLICE));
        }
    }
}
