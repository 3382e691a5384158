//! The queue's state: a slot per I/O the job may keep in flight (what each
//! holds and when it was queued and submitted), which slots are free, the
//! batch waiting to be submitted, the completions reaped and not yet
//! handled, and the limits fio's depth options set (`iodepth`,
//! `iodepth_low`, `iodepth_batch_submit`, `iodepth_batch_complete_min` and
//! `_max`). The loop that moves I/Os through it is in `queue`.

use engine::Completion;
use model::{Direction, JobSpec};

/// One I/O in flight.
#[derive(Clone, Copy, Default)]
pub(super) struct Slot {
    pub dir: Direction,
    pub file: u32,
    pub offset: u64,
    pub len: u64,
    pub queued_at: u64,
    pub submitted_at: u64,
    /// When a rate's schedule meant the I/O to start (0: no rate).
    pub scheduled_at: u64,
    /// A read of a verify pass: checked when it completes.
    pub check: bool,
    /// A trim, done and recorded when it was issued (see `trim`): its
    /// completion only frees the slot.
    pub trim: bool,
    /// The ioprio value it went with (see `prio`).
    pub prio: u16,
}

pub(super) struct Queue {
    pub asynchronous: bool,
    /// Whether I/Os have a submission latency (slat) to record: an
    /// asynchronous engine's do, except the null engine's with one I/O in
    /// flight, which fio completes in the submit itself.
    pub with_slat: bool,
    pub depth: u32,
    /// The depth allowed now: `depth`, or what a latency target's search
    /// allows (see `latency`).
    pub allowed: u32,
    pub batch_submit: usize,
    /// `iodepth_low`: the queue is refilled only once it is down to this.
    pub low_water: u32,
    /// `iodepth_batch_complete_min/max` (a max of 0: no cap).
    pub reap_min: usize,
    pub reap_max: usize,
    pub slots: Vec<Slot>,
    pub free: Vec<u32>,
    pub batch: Vec<u32>,
    pub done: Vec<Completion>,
    pub in_flight: u32,
}

impl Queue {
    /// The queue of `spec` on an engine that is `asynchronous` (else one
    /// I/O at a time) and `does_io` (not the null engine).
    pub(super) fn new(spec: &JobSpec, asynchronous: bool, does_io: bool) -> Queue {
        let depth = if asynchronous { spec.iodepth.max(1) } else { 1 };
        let complete_max = spec.iodepth_batch_complete_max as usize;
        Queue {
            asynchronous,
            with_slat: asynchronous && (does_io || depth > 1),
            depth,
            allowed: depth,
            batch_submit: match spec.iodepth_batch_submit {
                0 => depth,
                n => n.min(depth),
            } as usize,
            low_water: spec.iodepth_low.unwrap_or(depth).min(depth),
            reap_min: spec.iodepth_batch_complete_min as usize,
            // fio: the max defaults to the min, so by default one completion
            // is handled, its slot refilled, and only then the next one.
            reap_max: match complete_max {
                0 => spec.iodepth_batch_complete_min as usize,
                max => max,
            },
            slots: vec![Slot::default(); depth as usize],
            free: (0..depth).rev().collect(),
            batch: Vec::with_capacity(depth as usize),
            done: Vec::with_capacity(depth as usize),
            in_flight: 0,
        }
    }

    /// A free slot, for an I/O about to be queued under the depth.
    #[inline]
    pub(super) fn take_slot(&mut self) -> u32 {
        self.free.pop().expect("a free slot while under depth")
    }

    /// The fewest completions to wait for: none when some are left over
    /// from a capped reap, else `iodepth_batch_complete_min`.
    #[inline]
    pub(super) fn reap_min(&self) -> usize {
        match self.reap_max > 0 && !self.done.is_empty() {
            true => 0,
            false => self.reap_min,
        }
    }

    /// How many of the reaped completions are handled now.
    #[inline]
    pub(super) fn to_handle(&self) -> usize {
        match self.reap_max {
            0 => self.done.len(),
            max => max.min(self.done.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(f: impl FnOnce(&mut JobSpec)) -> JobSpec {
        let mut s = JobSpec {
            iodepth: 8,
            ..JobSpec::new("q")
        };
        f(&mut s);
        s
    }

    #[test]
    fn a_synchronous_engine_keeps_one_io_and_no_slat() {
        let q = Queue::new(&spec(|_| {}), false, true);
        assert_eq!((q.depth, q.allowed, q.slots.len()), (1, 1, 1));
        assert!(!q.with_slat);
        let q = Queue::new(&spec(|_| {}), true, true);
        assert_eq!((q.depth, q.free.len()), (8, 8));
        assert!(q.with_slat);
    }

    #[test]
    fn the_null_engine_has_slat_only_with_more_than_one_io_in_flight() {
        assert!(!Queue::new(&spec(|s| s.iodepth = 1), true, false).with_slat);
        assert!(Queue::new(&spec(|s| s.iodepth = 2), true, false).with_slat);
    }

    #[test]
    fn the_depth_options_are_capped_by_the_depth_and_complete_max_defaults_to_min() {
        let q = Queue::new(
            &spec(|s| {
                s.iodepth_low = Some(20);
                s.iodepth_batch_submit = 50;
                s.iodepth_batch_complete_min = 2;
            }),
            true,
            true,
        );
        assert_eq!((q.low_water, q.batch_submit, q.reap_max), (8, 8, 2));
    }

    #[test]
    fn leftovers_of_a_capped_reap_are_handled_before_waiting_again() {
        let mut q = Queue::new(&spec(|s| s.iodepth_batch_complete_max = 2), true, true);
        // Nothing left over: wait for `iodepth_batch_complete_min`.
        assert_eq!(q.reap_min(), q.reap_min);
        for slot in 0..3 {
            q.done.push(Completion { slot, result: 0 });
        }
        assert_eq!(q.to_handle(), 2);
        assert_eq!(q.reap_min(), 0);
        q.done.clear();
        assert_eq!(q.reap_min(), q.reap_min);
    }
}
