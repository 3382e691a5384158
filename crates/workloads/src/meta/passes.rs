//! `--runtime`: each phase measured for a set time, so every phase has a
//! figure. bonnie++ prints `+++++` for a phase under 500 ms and tells its
//! users to raise `-n`; but no one count suits every disk: the stats of
//! cached inodes run at a million a second, so a count that times them
//! takes minutes to create on a slow disk. So the count stays bonnie++'s,
//! and time decides how much of it is done:
//!
//! - a pass that reaches the time stops starting files and counts those it
//!   finished (the files a first pass created are the ones the next phases
//!   use; after a repeated create pass cut short, the rest of them are made
//!   again outside the clock);
//! - a phase done before the time is repeated over the same files: the
//!   files are put back as they were, outside the clock (the created files
//!   removed, the deleted ones created again), and the next pass is timed
//!   and added, until the passes add up to the time.
//!
//! files/s is then every pass's files over every pass's time, syncs
//! included, and the latency histogram holds every file of every pass.
//! Without `--runtime` a phase is one pass over all the files, as bonnie++.
//!
//! Putting files back costs time no figure shows: a delete pass that is
//! ten times faster than creating needs ten times its time to recreate the
//! files. So the run keeps a wall clock: phase N (from 1) of a run ends by
//! [`WALL_BUDGET`] times N phases' time from the run's start (1.5: `meta -n
//! 4 --runtime 1s`, six phases, is over by about 9 s), and by 1.5 times its
//! own time from its own start. No reset starts that would end past that:
//! the first reset of a delete phase is judged by how long creating its
//! files took in the create phase, each later one by the reset before it;
//! a pass after a reset is cut at the phase's end, and a phase that starts
//! late (the syncs of a create phase on a slow disk) is given less time,
//! down to a quarter of its time. The phase then has a figure from a
//! shorter time, which the CLI shows (its clock is exact to the nanosecond,
//! unlike the one bonnie++'s `+++++` rule was made for) and flags as under
//! 500 ms.

use super::worker::run_pass;
use super::{Layout, Op, Phase, PhaseResult, Tree};
use runner::{IoError, RunError};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A phase ends, resets included, by this many times its time.
pub const WALL_BUDGET: f64 = 1.5;

/// The wall time a phase of `time` may take, resets included.
pub fn phase_wall_budget(time: Duration) -> Duration {
    time.mul_f64(WALL_BUDGET)
}

/// The clock of one phase under `--runtime`: the time its passes should
/// add up to, the instant the phase must be over by, resets included, and
/// how long its first reset is expected to take.
#[derive(Clone, Copy, Debug)]
pub(super) struct PhaseClock {
    pub time: Duration,
    pub ends_by: Instant,
    pub first_reset: Duration,
}

impl PhaseClock {
    /// The clock of the phase numbered `index` (from 0) of a run that
    /// started at `run_start`, the phase starting now.
    pub fn new(time: Duration, run_start: Instant, index: u32, first_reset: Duration) -> Self {
        let now = Instant::now();
        let own = now + phase_wall_budget(time);
        let run = run_start + phase_wall_budget(time) * (index + 1);
        PhaseClock {
            time,
            ends_by: own.min(run).max(now + time / 4),
            first_reset,
        }
    }

    /// The time the first pass may run: the phase's time, less when the
    /// phase started late (a quarter of it at least, as its end says).
    fn first_pass(&self) -> Duration {
        let left = self.ends_by.saturating_duration_since(Instant::now());
        self.time.min(left)
    }
}

/// Whether a phase must stop rather than put its files back again, when
/// the reset is expected to take `reset` and the phase must end by `ends_by`.
fn out_of_time(now: Instant, reset: Duration, ends_by: Instant) -> bool {
    now + reset >= ends_by
}

/// Runs `phase` as `clock` says (see the module comment), or as one pass
/// over all the files without one. `present[t]` is how many files of
/// worker `t`'s share exist, from its first number on; it is kept up to
/// date, and is all zeros after a delete phase.
pub(super) fn measure(
    phase: Phase,
    lay: &Layout,
    tree: &Tree,
    stop: &AtomicBool,
    clock: Option<PhaseClock>,
    present: &mut [u64],
) -> Result<PhaseResult, RunError> {
    let whole: Vec<u64> = (0..lay.threads).map(|t| share_len(lay, t)).collect();
    let before = present.to_vec();
    let mut total: Option<PhaseResult> = None;
    let mut next_reset = clock.map_or(Duration::ZERO, |c| c.first_reset);
    loop {
        if total.is_some() {
            let reset = Instant::now();
            put_back(phase, lay, tree, stop, &before, present)?;
            next_reset = reset.elapsed();
        }
        let counts = match phase.op() {
            Op::Create => whole.clone(),
            _ => present.to_vec(),
        };
        let spent = total.as_ref().map_or(Duration::ZERO, |t| t.elapsed);
        // After a reset, a pass also ends where the phase's wall time does.
        let left = clock.map(|c| match total.is_some() {
            true => c
                .time
                .saturating_sub(spent)
                .min(c.ends_by.saturating_duration_since(Instant::now())),
            false => c.first_pass(),
        });
        let (pass, finished) = run_pass(phase, lay, tree, stop, &ranges(lay, &counts), left)?;
        if phase.op() == Op::Create {
            present.copy_from_slice(&finished);
        }
        let touched = pass.files;
        let sum = match total.take() {
            None => pass,
            Some(t) => add(t, pass),
        };
        let enough = clock.is_none_or(|c| sum.elapsed >= c.time);
        let spent_all = clock.is_some_and(|c| out_of_time(Instant::now(), next_reset, c.ends_by));
        total = Some(sum);
        if enough || spent_all || touched == 0 || stop.load(Ordering::Relaxed) {
            break;
        }
    }
    let total = total.expect("one pass at least");
    if phase.op() == Op::Create && total.passes > 1 && present != whole.as_slice() {
        // A repeated pass cut short by the time (even to no file at all, when
        // the time was nearly spent) began from an empty tree: the files the
        // first pass made are made again, outside the clock, so the next
        // phases find them.
        let missing: Vec<Range<u64>> = (0..lay.threads)
            .map(|t| {
                let start = lay.share(t).start;
                start + present[t as usize]..start + whole[t as usize]
            })
            .collect();
        run_pass(phase, lay, tree, stop, &missing, None)?;
        present.copy_from_slice(&whole);
    }
    if phase.op() == Op::Delete {
        // A pass cut short leaves files behind: removed outside the clock.
        empty(tree)?;
        present.fill(0);
    }
    Ok(total)
}

fn share_len(lay: &Layout, t: u64) -> u64 {
    let s = lay.share(t);
    s.end - s.start
}

/// Worker `t`'s first `counts[t]` file numbers.
fn ranges(lay: &Layout, counts: &[u64]) -> Vec<Range<u64>> {
    (0..lay.threads)
        .map(|t| {
            let start = lay.share(t).start;
            start..start + counts[t as usize]
        })
        .collect()
}

/// Makes the files what they were before the phase's first pass, untimed.
fn put_back(
    phase: Phase,
    lay: &Layout,
    tree: &Tree,
    stop: &AtomicBool,
    before: &[u64],
    present: &mut [u64],
) -> Result<(), RunError> {
    match phase.op() {
        Op::Stat => {}
        Op::Create => {
            empty(tree)?;
            present.fill(0);
        }
        Op::Delete => {
            empty(tree)?;
            let create = Phase::ALL[phase.is_random() as usize * 3];
            run_pass(create, lay, tree, stop, &ranges(lay, before), None)?;
            present.copy_from_slice(before);
        }
    }
    Ok(())
}

/// Removes every file of the tree (its directories stay).
fn empty(tree: &Tree) -> Result<(), RunError> {
    for dir in &tree.paths {
        let fail = |e: std::io::Error| {
            IoError::new("unlink", dir, e).saying(format!("cannot empty {}", dir.display()))
        };
        for entry in std::fs::read_dir(dir).map_err(fail)? {
            let entry = entry.map_err(fail)?;
            if !entry.file_type().map_err(fail)?.is_dir() {
                std::fs::remove_file(entry.path()).map_err(fail)?;
            }
        }
    }
    Ok(())
}

/// Two passes of one phase as one result.
fn add(mut a: PhaseResult, b: PhaseResult) -> PhaseResult {
    a.files += b.files;
    a.bytes += b.bytes;
    a.elapsed += b.elapsed;
    a.sync += b.sync;
    a.cpu += b.cpu;
    a.passes += b.passes;
    a.latency.merge(&b.latency);
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A phase of 1 s may take 1.5 s, resets included; a reset as long as
    /// the last is not started when it would end past that.
    #[test]
    fn a_phase_stops_before_a_reset_that_would_end_past_its_budget() {
        let second = Duration::from_secs(1);
        let budget = phase_wall_budget(second);
        assert_eq!(budget, Duration::from_millis(1500));
        let ms = Duration::from_millis;
        let start = Instant::now();
        let ends_by = start + budget;
        assert!(!out_of_time(start + ms(900), ms(300), ends_by));
        assert!(out_of_time(start + ms(1300), ms(300), ends_by));
        assert!(out_of_time(start + ms(1500), Duration::ZERO, ends_by));
    }

    /// Phase N of a run ends by 1.5 times N phases' time from the run's
    /// start: a phase that starts late gets less, but never under a
    /// quarter of its time for its first pass.
    #[test]
    fn a_late_phase_is_given_what_is_left_of_the_runs_time() {
        let second = Duration::from_secs(1);
        let ms = Duration::from_millis;
        let on_time = PhaseClock::new(second, Instant::now(), 0, Duration::ZERO);
        assert!(on_time.first_pass() == second, "{on_time:?}");
        // The third phase (index 2) of a run that started 3.7 s ago must be
        // over by 4.5 s: 0.8 s are left.
        let late = PhaseClock::new(second, Instant::now() - ms(3700), 2, Duration::ZERO);
        let left = late.first_pass();
        assert!(left <= ms(800) && left >= ms(700), "{left:?}");
        // A run already past the phase's end still measures a quarter.
        let past = PhaseClock::new(second, Instant::now() - ms(9000), 2, Duration::ZERO);
        let left = past.first_pass();
        assert!(left <= ms(250) && left >= ms(200), "{left:?}");
    }
}
