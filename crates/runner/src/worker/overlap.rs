//! `serialize_overlap=1`: an I/O whose bytes overlap an I/O still in flight
//! (same file, ranges that share a byte, whatever the directions) is held
//! back and issued once that one has completed, as fio's HOWTO says, so
//! that two of a job's I/Os never race on the same bytes. The queue may run
//! shallower for it (fio warns of that too).
//!
//! The part holds at most one I/O: the one that found an overlap. Issuing
//! stops there until the next completions, then tries it again first.

use super::Worker;
use crate::offsets::Target;

/// The I/O held back for an overlap, if any.
#[derive(Default)]
pub(super) struct Overlap {
    held: Option<Target>,
    /// Which slots are free, rebuilt for each I/O in the same buffer.
    free: Vec<bool>,
}

impl Worker<'_> {
    /// The held I/O, to be tried again before a new one is drawn.
    pub(super) fn overlap_retry(&mut self) -> Option<Target> {
        self.parts.overlap.as_mut().and_then(|o| o.held.take())
    }

    /// `t`, unless it overlaps an I/O in flight: then it is held (`None`).
    pub(super) fn unless_overlapping(&mut self, t: Target) -> Option<Target> {
        let Some(overlap) = self.parts.overlap.as_mut() else {
            return Some(t);
        };
        let q = &self.q;
        let free = &mut overlap.free;
        free.clear();
        free.resize(q.slots.len(), false);
        for &s in &q.free {
            free[s as usize] = true;
        }
        let clashes = q.slots.iter().zip(free.iter()).any(|(s, &free)| {
            !free && s.file == t.file && s.offset < t.offset + t.len && t.offset < s.offset + s.len
        });
        if !clashes {
            return Some(t);
        }
        overlap.held = Some(t);
        None
    }
}
