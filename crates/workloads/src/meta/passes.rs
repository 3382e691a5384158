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
//! files. So a phase, resets included, ends by [`WALL_BUDGET`] times its
//! time (1.5: `meta -n 4 --runtime 1s`, six phases, takes at most about
//! 9 s, where a budget of three times took 12), even if its passes add up
//! to less: no reset starts that the last one's length says would end past
//! it, and a pass after a reset is cut at it. The phase then has a figure
//! from a shorter time, which the CLI shows (its clock is exact to the
//! nanosecond, unlike the one bonnie++'s `+++++` rule was made for) and
//! flags as under 500 ms.

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

/// Whether a phase that has run `elapsed` of its wall `budget` must stop
/// rather than put its files back again, when the last reset took `reset`.
fn out_of_time(elapsed: Duration, reset: Duration, budget: Duration) -> bool {
    elapsed + reset >= budget
}

/// Runs `phase` as `target` says (see the module comment). `present[t]`
/// is how many files of worker `t`'s share exist, from its first number
/// on; it is kept up to date, and is all zeros after a delete phase.
pub(super) fn measure(
    phase: Phase,
    lay: &Layout,
    tree: &Tree,
    stop: &AtomicBool,
    target: Option<Duration>,
    present: &mut [u64],
) -> Result<PhaseResult, RunError> {
    let whole: Vec<u64> = (0..lay.threads).map(|t| share_len(lay, t)).collect();
    let before = present.to_vec();
    let started = Instant::now();
    let budget = target.map(phase_wall_budget);
    let mut total: Option<PhaseResult> = None;
    let mut last_reset = Duration::ZERO;
    loop {
        if total.is_some() {
            let reset = Instant::now();
            put_back(phase, lay, tree, stop, &before, present)?;
            last_reset = reset.elapsed();
        }
        let counts = match phase.op() {
            Op::Create => whole.clone(),
            _ => present.to_vec(),
        };
        let spent = total.as_ref().map_or(Duration::ZERO, |t| t.elapsed);
        // After a reset, a pass also ends where the phase's wall time does.
        let left = target.zip(budget).map(|(t, b)| match total.is_some() {
            true => t
                .saturating_sub(spent)
                .min(b.saturating_sub(started.elapsed())),
            false => t.saturating_sub(spent),
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
        let enough = target.is_none_or(|t| sum.elapsed >= t);
        let spent_all = budget.is_some_and(|b| out_of_time(started.elapsed(), last_reset, b));
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
        assert!(!out_of_time(ms(900), ms(300), budget));
        assert!(out_of_time(ms(1300), ms(300), budget));
        assert!(out_of_time(ms(1500), Duration::ZERO, budget));
    }
}
