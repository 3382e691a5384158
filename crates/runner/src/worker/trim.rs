//! Trims (`rw=trim`, `randtrim`, `trimwrite`, `randtrimwrite`): each block
//! the offset generator gives (the write side's offsets and sizes) is
//! trimmed, and for the trimwrite modes then written, as fio does.
//!
//! A trim is done synchronously, through the file's descriptor, whatever
//! the engine (see `Engine::trim_file`): neither io_uring nor libaio has a
//! discard of their own for files and block devices, and fio's engines of
//! those names trim synchronously too. It is timed around the call and
//! recorded at once, in the job's trim figures (no submission latency).
//!
//! fio's logs (`write_bw_log`, ...) get each trim as it is done, as
//! direction 2.
//!
//! In a trim-only mode the trim takes a slot like any I/O and its
//! completion is handed to the queue at once, so the loop (phases, the
//! budget, the depth counts) goes on as for a synchronous engine's I/O.
//! In a trimwrite mode the write that follows is queued as any write, so
//! the job's `size` counts the writes and the same bytes are trimmed, as
//! fio counts them (size=4m, bs=64k: 64 trims and 64 writes).

use super::{Slot, Worker};
use crate::logs::Sample;
use crate::offsets::Target;
use engine::{Completion, Engine, EngineError};

impl Worker<'_> {
    /// Trims the block of `t` now; recorded when the phase is measured.
    pub(super) fn trim_block(&mut self, t: &Target) -> Result<(), EngineError> {
        let clock = &self.shared.clock;
        let file = self.parts.files.slot_of(t.file);
        let start = clock.now();
        let trimmed = self.plan.engine.trim_file(file, t.offset, t.len);
        let end = clock.now();
        trimmed.map_err(|e| self.parts.files.name_error(e, file))?;
        if self.time.phase.measuring() {
            // The seconds that ended before it close first, as for a completion.
            self.rec.advance(end);
            let took = clock.nanos(start, end);
            self.rec.trimmed(t.len, took);
            if let Some(logs) = &mut self.parts.logs {
                // Direction 2 in fio's logs; no submission step, so no slat.
                logs.record(&Sample {
                    at: end,
                    dir: t.dir,
                    trim: true,
                    len: t.len,
                    offset: t.offset,
                    slat_ns: None,
                    clat_ns: took,
                    lat_ns: took,
                    prio: self.plan.spec.prio.default_value(),
                    issued: start,
                });
            }
        }
        Ok(())
    }

    /// One I/O of a trim-only mode: the trim, done now, in a slot whose
    /// completion waits in the queue's list for the next reap.
    pub(super) fn issue_trim(&mut self, t: &Target, queued_at: u64) -> Result<(), EngineError> {
        self.trim_block(t)?;
        let slot = self.q.take_slot();
        self.q.slots[slot as usize] = Slot {
            dir: t.dir,
            file: t.file,
            offset: t.offset,
            len: t.len,
            queued_at,
            submitted_at: queued_at,
            scheduled_at: 0,
            check: false,
            trim: true,
            // The thread's own: the job's priority.
            prio: self.plan.spec.prio.default_value(),
        };
        self.q.done.push(Completion {
            slot,
            result: t.len as i64,
        });
        self.q.in_flight += 1;
        if !self.ramping() {
            self.budget.issued += t.len;
            // Counted as a synchronous I/O: one submit at depth 1.
            self.rec.depth.submitted(1, 1);
        }
        self.parts.files.queued(t, self.budget.issued);
        Ok(())
    }
}
