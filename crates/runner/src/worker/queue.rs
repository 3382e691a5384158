//! The queue: keeping `iodepth` I/Os in flight, and timing each one.
//!
//! Submission follows fio's `iodepth_batch_submit` (default 1: each I/O is
//! handed to the kernel as soon as it is prepared). Batching more looks
//! cheaper, but on a virtio disk it delayed the first I/Os of each batch and
//! cost 10% of the IOPS fio gets.
//!
//! Completions are handled as fio does by default: one at a time
//! (`iodepth_batch_complete_max` defaults to `iodepth_batch_complete_min`,
//! 1), each freed slot refilled before the next completion is looked at.
//! Handling every completion available first and then refilling the freed
//! slots one `io_uring_enter` each left the slots idle through the earlier
//! syscalls: on a loop device in /dev/shm, 4 KiB randread at QD32 kept 19.8
//! I/Os in flight (IOPS x mean latency) where fio kept 31.9. The completions
//! not yet handled stay in the engine's queue and are timed when handled,
//! so their latency includes the wait, as in fio.
//!
//! Timestamps are chained, not taken per step: the time after one submit is
//! the queue time of the next I/O, and one timestamp serves a whole reaped
//! batch. slat is submit - queue, clat is completion - submit, lat is
//! completion - queue. A synchronous engine does the I/O inside `queue`, so
//! its clat spans the call and it has no slat, as in fio.

use super::errors::{absorb, Absorbed};
use super::latency::{Missed, Verdict};
use super::{Slot, Worker};
use engine::{Completion, Engine, EngineConfig, EngineError, IoRequest};
use model::Direction;
use std::io;

impl Worker<'_> {
    /// Queues I/Os up to the depth (unless stopping or waiting to fsync),
    /// submitting every `batch_submit` of them.
    /// `freed_at`: when the slots being refilled were freed, if just now.
    pub(super) fn issue(&mut self, freed_at: Option<u64>) -> Result<(), EngineError> {
        if self.in_flight > self.low_water {
            return Ok(());
        }
        let mut queued_at = freed_at.unwrap_or_else(|| self.shared.clock.now());
        while self.in_flight < self.allowed
            && !self.phase.stopping()
            && self.hold().is_none()
            && (self.ramping() || self.issued < self.budget)
        {
            let t = match self.plain {
                true => self.gen.next_io(),
                false => match self.next_target()? {
                    // A rate or a thinktime may have waited: queued now.
                    Some(t) => {
                        queued_at = self.shared.clock.now();
                        t
                    }
                    None => break,
                },
            };
            // openfiles: an I/O to a closed file waits for the queue to empty.
            let Some(t) = self.files.route(t) else { break };
            (self.files).new_pass(self.gen.passes(), &self.plan.engine_cfg.files);
            self.log_issue(&t, queued_at);
            let scheduled_at = match self.plain {
                true => None,
                false => self.pace.as_mut().and_then(|p| p.scheduled.take()),
            }
            .unwrap_or(0);
            match (self.plan.spec.rw.trims(), self.plan.spec.rw.writes()) {
                // A trim-only mode: the trim is the I/O (see `trim`).
                (true, false) => return self.issue_trim(&t, queued_at),
                // trimwrite: the block is trimmed, then written below.
                (true, true) => self.trim_block(&t)?,
                (false, _) => {}
            }
            let prio = self.io_prio(t.dir, t.len);
            let slot = self.free.pop().expect("a free slot while under depth");
            if t.dir == Direction::Write {
                self.prepare_write(slot, t.file, t.offset, t.len)?;
            }
            self.slots[slot as usize] = Slot {
                dir: t.dir,
                file: t.file,
                offset: t.offset,
                len: t.len,
                queued_at,
                submitted_at: queued_at,
                scheduled_at,
                check: false,
                trim: false,
                prio,
            };
            let req = IoRequest {
                slot,
                file: self.files.slot_of(t.file),
                dir: t.dir,
                offset: t.offset,
                len: t.len as u32,
                prio,
            };
            self.plan.engine.queue(req)?;
            self.in_flight += 1;
            if !self.ramping() {
                self.issued += t.len;
            }
            self.files.queued(&t, self.issued);
            if !self.asynchronous {
                // fio counts each synchronous I/O as one submit at depth 1.
                if !self.ramping() {
                    self.rec.depth.submitted(1, 1);
                }
                return Ok(());
            }
            self.batch.push(slot);
            if self.batch.len() >= self.batch_submit {
                queued_at = self.submit_batch(queued_at)?;
            }
        }
        if !self.batch.is_empty() {
            self.submit_batch(queued_at)?;
        }
        Ok(())
    }

    /// Submits the queued batch; returns the time after, the next queue time.
    pub(super) fn submit_batch(&mut self, queued_at: u64) -> Result<u64, EngineError> {
        self.plan.engine.submit()?;
        let now = self.shared.clock.now();
        let slat_ns = self.shared.clock.nanos(queued_at, now);
        if !self.ramping() {
            self.rec
                .depth
                .submitted(self.batch.len() as u32, self.in_flight);
        }
        for &s in &self.batch {
            let slot = &mut self.slots[s as usize];
            slot.submitted_at = now;
            self.rec.slat(slot.dir, slat_ns, 1);
        }
        self.batch.clear();
        Ok(now)
    }

    fn prepare_write(
        &mut self,
        slot: u32,
        file: u32,
        offset: u64,
        len: u64,
    ) -> Result<(), EngineError> {
        self.write_seq += 1;
        match (self.verify.is_some(), self.data.as_mut()) {
            (true, _) => self.fill_verified(slot, file, offset, len, self.write_seq)?,
            (false, Some(data)) => {
                let buf = self.plan.engine.buffer(slot)?;
                if data.fill(buf, len as usize) == super::data::Then::Scramble {
                    stamp(buf, len as usize, offset, self.write_seq);
                }
            }
            (false, None) => stamp(
                self.plan.engine.buffer(slot)?,
                len as usize,
                offset,
                self.write_seq,
            ),
        }
        self.writes_since_sync += 1;
        let every = self
            .plan
            .spec
            .fsync_every
            .max(self.plan.spec.fdatasync_every);
        if every > 0 && self.writes_since_sync >= every {
            self.sync_due = true;
        }
        Ok(())
    }

    /// Waits for completions (those left over from a capped reap are taken
    /// first) and returns the time they were seen.
    pub(super) fn reap(&mut self) -> Result<u64, EngineError> {
        let min = match self.reap_max > 0 && !self.done.is_empty() {
            true => 0,
            false => self.reap_min,
        };
        self.plan.engine.reap(min, &mut self.done)?;
        Ok(self.shared.clock.now())
    }

    /// Records what the last reap returned, all at the time `now`.
    pub(super) fn complete(&mut self, now: u64) -> Result<(), EngineError> {
        let measuring = self.phase.measuring();
        let clock = &self.shared.clock;
        let take = match self.reap_max {
            0 => self.done.len(),
            max => max.min(self.done.len()),
        };
        if measuring {
            self.rec.advance(now);
            self.rec.depth.reaped(take as u32);
        }
        if measuring && self.logs.is_some() {
            self.log_completions(now, take);
        }
        if self.verify.is_some() {
            self.verify_completions(take);
        }
        // A failed completion is returned after the whole batch is counted,
        // so that `drain` waits for exactly what is still in flight.
        let mut failed = None;
        // The latency search hears every read and write (in the ramp too,
        // as fio's does), but none while the queue drains for it.
        let mut verdict = Verdict::Keep;
        let mut missed = None;
        let judging = self.search.is_some() && self.quiesce.is_none();
        for c in self.done.drain(..take) {
            let slot = self.slots[c.slot as usize];
            self.free.push(c.slot);
            self.in_flight -= 1;
            if let (Some(search), true, Verdict::Keep, false) = (
                &mut self.search,
                judging,
                verdict,
                slot.trim || c.result < 0,
            ) {
                let lat_ns = clock.nanos(slot.queued_at, now);
                verdict = search.completed(lat_ns, now);
                missed = (verdict == Verdict::Fatal).then_some(Missed {
                    dir: slot.dir,
                    file: slot.file,
                    offset: slot.offset,
                    len: slot.len,
                    lat_ns,
                });
            }
            match check_result(c, &slot, &self.plan.engine_cfg) {
                // A trim was recorded when it was done (see `trim`).
                Ok(()) if measuring && !slot.trim => {
                    let clat = clock.nanos(slot.submitted_at, now);
                    let lat = clock.nanos(slot.queued_at, now);
                    // cpuio's bursts move no bytes (fio counts none).
                    let bytes = match self.plan.spec.engine {
                        model::EngineKind::Cpuio => 0,
                        _ => slot.len,
                    };
                    self.rec.completed(slot.dir, bytes, clat, lat);
                    // fio keeps each priority's clat, or lat with lat_percentiles.
                    let kept = if self.plan.spec.lat_percentiles {
                        lat
                    } else {
                        clat
                    };
                    self.rec.prio_latency(slot.dir, slot.prio, kept);
                    if slot.scheduled_at != 0 {
                        let response = clock.nanos(slot.scheduled_at, now);
                        self.rec.response(slot.dir, response);
                    }
                }
                Ok(()) => {}
                Err(e) => {
                    let spec = &self.plan.spec;
                    let failure = (&e, &slot, c.result);
                    match absorb(spec, &mut self.errors, &mut self.phase, failure) {
                        Absorbed::No => failed = failed.or(Some(e)),
                        Absorbed::Partial(bytes) if measuring => {
                            let clat = clock.nanos(slot.submitted_at, now);
                            let lat = clock.nanos(slot.queued_at, now);
                            self.rec.completed(slot.dir, bytes, clat, lat);
                        }
                        Absorbed::Partial(_) | Absorbed::Continued => {}
                    }
                }
            }
        }
        if let Some(pace) = &mut self.pace {
            pace.completed(take as u32);
        }
        if verdict != Verdict::Keep {
            self.steer(verdict, missed);
        }
        failed.map_or(Ok(()), Err)
    }

    /// Waits for what is still in flight, so no buffer is freed under the kernel.
    /// `complete` counts a failed batch whole, so `in_flight` is what the
    /// engine holds; an empty reap (the engine has nothing in flight) ends
    /// the wait too, so that a miscount can never spin here forever.
    pub(super) fn drain(&mut self) {
        while self.in_flight > 0 {
            match self.plan.engine.reap(1, &mut self.done) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    self.in_flight = self.in_flight.saturating_sub(self.done.len() as u32);
                    self.done.clear();
                }
            }
        }
    }

    /// Does `sync` and records how long it took (fio's `sync` latencies).
    pub(super) fn timed_sync(
        &mut self,
        sync: impl FnOnce(&mut Self) -> Result<(), EngineError>,
    ) -> Result<(), EngineError> {
        let start = self.shared.clock.now();
        sync(self)?;
        let end = self.shared.clock.now();
        self.rec.synced(self.shared.clock.nanos(start, end));
        Ok(())
    }

    pub(super) fn sync_files(&mut self) -> Result<(), EngineError> {
        for f in 0..self.files.engine_files(self.plan.regions.len()) as u32 {
            self.sync_file(f)?;
        }
        Ok(())
    }

    /// Syncs the engine's file `f` (its data only with `fdatasync=`).
    pub(super) fn sync_file(&mut self, f: u32) -> Result<(), EngineError> {
        let spec = &self.plan.spec;
        let data_only = spec.fdatasync_every > 0 && spec.fsync_every == 0;
        let synced = self.plan.engine.sync_file(f, data_only);
        synced.map_err(|e| self.files.name_error(e, f))
    }
}

#[inline]
fn check_result(c: Completion, slot: &Slot, cfg: &EngineConfig) -> Result<(), EngineError> {
    let len = slot.len;
    if c.result == len as i64 {
        return Ok(());
    }
    let op = match slot.dir {
        Direction::Read => "read",
        Direction::Write => "write",
    };
    let source = if c.result == -(libc::EOPNOTSUPP as i64) && cfg.uring.iopoll() {
        hipri_unsupported(cfg, slot.file)
    } else if c.result < 0 {
        io::Error::from_raw_os_error((-c.result) as i32)
    } else {
        io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("short {op}: {} of {len} bytes", c.result),
        )
    };
    Err(EngineError::Io {
        op,
        path: cfg.path(slot.file),
        offset: slot.offset,
        len,
        source,
    })
}

/// EOPNOTSUPP from a polled ring: the device has no poll queues, or the
/// I/O cannot be polled (buffered), which is a setting, not a fault of the I/O.
#[cold]
fn hipri_unsupported(cfg: &EngineConfig, file: u32) -> io::Error {
    let why = match crate::probe::io_poll(&cfg.path(file)) {
        Some((path, Some(v))) if v == "0" => format!("{} is 0", path.display()),
        Some((path, _)) => format!("or the I/O is not O_DIRECT; see {}", path.display()),
        None => "see /sys/block/DEV/queue/io_poll, or the I/O is not O_DIRECT".to_string(),
    };
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "{}: hipri=1 polls for completions, and this device has no poll queues ({why}): \
             drop hipri, use direct=1, or give the driver poll queues (for NVMe, the nvme \
             module's poll_queues=N)",
            io::Error::from_raw_os_error(libc::EOPNOTSUPP)
        ),
    )
}

/// Makes every written block unique (offset and sequence number at the start
/// of each 4 KiB), so no device can deduplicate or compress the repeats of
/// one random buffer.
#[inline]
fn stamp(buf: &mut [u8], len: usize, offset: u64, seq: u64) {
    let len = len.min(buf.len());
    let mut at = 0;
    while at + 16 <= len {
        buf[at..at + 8].copy_from_slice(&(offset + at as u64).to_le_bytes());
        buf[at + 8..at + 16].copy_from_slice(&seq.to_le_bytes());
        at += 4096;
    }
}
