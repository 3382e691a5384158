//! `verify=`: the worker's side. Writes are filled with headed chunks (see
//! the `verify` crate) and recorded in a table of generations; after the
//! write phase (or every `verify_backlog` writes) the written chunks are read
//! back through the same engine and checked. A read job with `verify=`
//! checks each block it reads on its own, as fio does for data an earlier
//! job wrote.
//!
//! The reads of a verify pass are counted as the job's reads, and its time
//! as the job's runtime, as fio counts them: a `rw=write` job with `verify`
//! reports both directions. Each write is read back once: a chunk a
//! `verify_backlog` pass checked is left out of the final pass unless it was
//! written again since (fio reads 100 MiB for a 100 MiB write with
//! `verify_backlog=32`).
//!
//! Only jobs with `verify=` come here; the plain path of the worker never does.

use super::{Slot, Worker};
use crate::error::RunError;
use engine::{sys, Engine, EngineError, IoRequest};
use model::verify::{VerifyFailure, VerifyResult};
use model::{Direction, JobSpec};
use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::Ordering;
use verify::{Expectations, Format, Mismatch, Stamp};

pub(super) struct Verifier {
    format: Format,
    spec: model::VerifySpec,
    /// What the job wrote where; `None` for a job that only reads (each
    /// chunk is then checked on its own).
    table: Option<Expectations>,
    job_seed: u64,
    writer: u16,
    /// Per slot: the write in flight there (file, offset, len, generation),
    /// to spot two writes to one place in flight at once.
    in_flight: Vec<Option<(u32, u64, u64, u64)>>,
    /// Writes since the last backlog check: (file, offset, len).
    backlog: Vec<(u32, u64, u64)>,
    pub(super) due: bool,
    pub(super) result: VerifyResult,
    /// A `verify_fatal` job stops at its first bad chunk.
    pub(super) failed_fatal: bool,
    found: Vec<Mismatch>,
    /// `verify_state_load`: the writes the saved state says completed.
    loaded_writes: Option<u64>,
    /// The job's write count at its last sync (`verify_policy=fsynced`).
    synced_writes: u64,
    /// The `N` of its state file's name, `local-JOB-N-verify.state`: as
    /// fio numbers it, the clone's thread across the whole run, from 0.
    state_index: u32,
}

impl Verifier {
    /// `None` for a job without `verify=`; `Err` when its options cannot
    /// work with its block sizes.
    pub(super) fn new(
        spec: &JobSpec,
        regions: &[crate::offsets::Region],
        job_seed: u64,
        writer: u32,
        state_index: u32,
        depth: u32,
    ) -> Result<Option<Box<Verifier>>, RunError> {
        let Some(v) = &spec.verify else {
            return Ok(None);
        };
        let format = match verify::chunk_format(spec) {
            Ok(Some(f)) => f,
            Ok(None) => return Ok(None),
            Err(e) => return Err(RunError::in_job(&spec.name, RunError::VerifyOptions(e))),
        };
        let files: Vec<(u64, u64)> = regions
            .iter()
            .map(|r| (r.base, r.blocks * r.block_bytes))
            .collect();
        let table = spec
            .rw
            .writes()
            .then(|| Expectations::new(&files, format.grain, writer as u16));
        let loaded_writes = match v.state_load {
            true => {
                let path =
                    crate::verify_state::path(v.state_dir.as_deref(), &spec.name, state_index);
                let loaded = crate::verify_state::load(&path, &spec.name);
                Some(loaded.map_err(|e| RunError::in_job(&spec.name, e))?)
            }
            false => None,
        };
        Ok(Some(Box::new(Verifier {
            format,
            spec: v.clone(),
            table,
            job_seed,
            writer: writer as u16,
            in_flight: vec![None; depth as usize],
            backlog: Vec::new(),
            due: false,
            result: VerifyResult {
                algo: v.algo.fio_name().to_string(),
                ..VerifyResult::default()
            },
            failed_fatal: false,
            found: Vec::new(),
            loaded_writes,
            synced_writes: 0,
            state_index,
        })))
    }

    /// The job's writes up to `writes` are on stable storage (a sync
    /// completed with nothing in flight).
    pub(super) fn synced(&mut self, writes: u64) {
        self.synced_writes = writes;
    }

    /// Whether this job writes nothing and only checks (`verify_only`).
    pub(super) fn only(&self) -> bool {
        self.spec.only
    }

    /// Whether a read of this job is checked as it completes: in a read
    /// job, every read; in a job that writes, only the verify passes'.
    pub(super) fn checks_every_read(&self) -> bool {
        self.table.is_none()
    }

    /// Records a write that will be issued (or, for `verify_only`, was
    /// issued by the earlier run) as generation `gen`.
    fn record_write(&mut self, slot: Option<u32>, file: u32, offset: u64, len: u64, gen: u64) {
        let racing = self
            .in_flight
            .iter()
            .flatten()
            .find(|(f, o, l, _)| *f == file && *o < offset + len && offset < *o + *l)
            .map(|w| w.3);
        if let Some(t) = &mut self.table {
            t.wrote(file, offset, len, gen, racing);
        }
        if let Some(s) = slot {
            self.in_flight[s as usize] = Some((file, offset, len, gen));
        }
        if self.spec.backlog > 0 {
            self.backlog.push((file, offset, len));
            if self.backlog.len() as u64 >= self.spec.backlog {
                self.due = true;
            }
        }
    }
}

impl Worker<'_> {
    /// The verify pass after the job's I/O: everything written is read
    /// back and checked, unless the run was stopped or failed.
    pub(super) fn final_verify(&mut self) -> Result<(), EngineError> {
        let only = self.parts.verify.as_ref().is_some_and(|v| v.only());
        let pass = (self.parts.verify)
            .as_ref()
            .is_some_and(|v| v.table.is_some() && (v.spec.do_verify || only));
        if pass && self.failure.is_none() && !self.shared.stop.load(Ordering::Relaxed) {
            let spec = &self.plan.spec;
            if !spec.direct && spec.invalidate {
                self.flush_for_verify()?;
            }
            self.verify_pass(true)?;
        }
        Ok(())
    }

    /// Buffered I/O: what the job wrote is flushed and dropped from the page
    /// cache, so that the verify pass reads it from the device, not from
    /// memory. fio does the same unless `invalidate=0` (measured with
    /// getrusage: fio 3.33's verify of a 32 MiB buffered write read 76 MiB
    /// from the disk, and nothing with `invalidate=0`).
    fn flush_for_verify(&mut self) -> Result<(), EngineError> {
        self.sync_files()?;
        for file in self.plan.engine_cfg.files.iter() {
            // The verify still runs when the advice fails; it then may read
            // the page cache, as with invalidate=0.
            let _ = sys::drop_cache(file);
        }
        Ok(())
    }

    /// Checks the reads among the first `take` completions that must be
    /// checked (those that completed whole; the others fail in `complete`).
    pub(super) fn verify_completions(&mut self, take: usize) {
        for i in 0..take {
            let c = self.q.done[i];
            let slot = self.q.slots[c.slot as usize];
            if c.result == slot.len as i64 {
                self.verify_completion(c.slot, &slot);
            }
        }
        if self.parts.verify.as_ref().is_some_and(|v| v.failed_fatal) {
            self.time.phase.stop(super::Stop::VerifyFatal);
        }
    }

    /// Fills the buffer of `slot` for a write of generation `gen`, in place
    /// of the plain stamp.
    pub(super) fn fill_verified(
        &mut self,
        slot: u32,
        file: u32,
        offset: u64,
        len: u64,
        gen: u64,
    ) -> Result<(), EngineError> {
        let Some(v) = self.parts.verify.as_deref_mut() else {
            return Ok(());
        };
        let stamp = Stamp {
            file,
            writer: v.writer,
            generation: gen,
            seed: 0,
        };
        let buf = self.plan.engine.buffer(slot)?;
        v.format
            .fill(&mut buf[..len as usize], offset, v.job_seed, stamp);
        v.record_write(Some(slot), file, offset, len, gen);
        Ok(())
    }

    /// A sync of all files completed with nothing in flight: every write so
    /// far is on stable storage.
    pub(super) fn synced_for_verify(&mut self) {
        let writes = self.writes.seq;
        if let Some(v) = self.parts.verify.as_deref_mut() {
            v.synced(writes);
        }
    }

    /// After a completion: forgets a finished write; checks a read that
    /// must be checked.
    pub(super) fn verify_completion(&mut self, slot_id: u32, slot: &Slot) {
        let Some(v) = self.parts.verify.as_deref_mut() else {
            return;
        };
        match slot.dir {
            Direction::Write => v.in_flight[slot_id as usize] = None,
            Direction::Read if slot.check || v.checks_every_read() => {
                // A reaped slot is back from the kernel, so this cannot fail.
                let Ok(buf) = self.plan.engine.buffer(slot_id) else {
                    debug_assert!(false, "the buffer of reaped slot {slot_id} is in flight");
                    return;
                };
                let table = v.table.as_ref();
                let mut found = std::mem::take(&mut v.found);
                v.result.checked += v.format.check(
                    &mut buf[..slot.len as usize],
                    slot.file,
                    slot.offset,
                    v.job_seed,
                    |at| table.and_then(|t| t.expected(slot.file, at)),
                    &mut found,
                );
                for m in found.drain(..) {
                    let path = self.plan.engine_cfg.path(slot.file);
                    if v.spec.dump {
                        let rel = (m.offset - slot.offset) as usize;
                        let chunk = &buf[rel..rel + m.length as usize];
                        match m.in_header {
                            true => dump(&path, m.offset, &[("hdr_fail", chunk)]),
                            false => {
                                let expected = table.and_then(|t| t.expected(slot.file, m.offset));
                                let want = (v.format).expected_chunk(
                                    chunk, slot.file, m.offset, v.job_seed, expected,
                                );
                                let mut parts = vec![("received", chunk)];
                                parts.extend(want.as_deref().map(|e| ("expected", e)));
                                dump(&path, m.offset, &parts);
                            }
                        }
                    }
                    v.result.record(VerifyFailure {
                        path: path.display().to_string(),
                        offset: m.offset,
                        length: m.length,
                        kind: m.kind,
                        first_bad_byte: m.first_bad_byte,
                        expected: m.expected,
                        found: m.found,
                        io_offset: slot.offset,
                        io_length: slot.len,
                    });
                    if v.spec.fatal {
                        v.failed_fatal = true;
                    }
                }
                v.found = found;
                // Checked once: the final pass leaves it out unless written again.
                if let Some(t) = &mut v.table {
                    t.checked(slot.file, slot.offset, slot.len);
                }
            }
            Direction::Read => {}
        }
    }

    /// `verify_state_save`: after the write phase, a write job (not a
    /// `verify_only` one) saves how many writes completed (or, with
    /// `verify_policy=fsynced`, how many were synced); a file it cannot
    /// write is said, and the job goes on.
    pub(super) fn save_verify_state(&self) {
        let Some(v) = self.parts.verify.as_deref() else {
            return;
        };
        if v.table.is_none() || v.spec.only || !v.spec.state_save {
            return;
        }
        let spec = &self.plan.spec;
        let writes = match v.spec.fsynced {
            true => v.synced_writes,
            false => self.writes.seq,
        };
        let path =
            crate::verify_state::path(v.spec.state_dir.as_deref(), &spec.name, v.state_index);
        if let Err(e) = crate::verify_state::save(&path, &spec.name, v.state_index, writes) {
            crate::notice::say(format!(
                "diskbench: job '{}': verify_state_save: could not write {}: {e}",
                spec.name,
                path.display()
            ));
        }
    }

    /// `verify_only`: replays the job's writes without doing them, so the
    /// table says what an earlier run of the same job left on the device;
    /// with `verify_state_load`, only as many as the saved state says
    /// completed.
    pub(super) fn replay_writes(&mut self) {
        let Some(mut v) = self.parts.verify.take() else {
            return;
        };
        let most = v.loaded_writes.unwrap_or(u64::MAX);
        let mut issued = 0;
        // fio counts every write of the job as issued, also those past
        // the saved state's, which are not checked.
        while issued < self.budget.total {
            let dir = self.gen.direction();
            let t = self.gen.next_for(dir, self.budget.total - issued);
            issued += t.len;
            if t.dir != Direction::Write {
                continue;
            }
            v.result.replayed_writes += 1;
            v.result.replayed_bytes += t.len;
            if self.writes.seq < most {
                self.writes.seq += 1;
                v.record_write(None, t.file, t.offset, t.len, self.writes.seq);
            }
        }
        v.backlog.clear();
        v.due = false;
        self.parts.verify = Some(v);
    }

    /// Reads back and checks what the job wrote: everything (`all`), or the
    /// backlog of the last `verify_backlog` writes.
    pub(super) fn verify_pass(&mut self, all: bool) -> Result<(), EngineError> {
        let Some(v) = self.parts.verify.as_deref_mut() else {
            return Ok(());
        };
        v.due = false;
        let max =
            (self.plan.engine_cfg.block_bytes as u64 / v.format.grain).max(1) * v.format.grain;
        let mut runs: VecDeque<(u32, u64, u64)> = match (&v.table, all) {
            (None, _) => VecDeque::new(),
            (Some(t), true) => (0..t.files())
                .flat_map(|f| {
                    t.written_runs(f, max)
                        .into_iter()
                        .map(move |(o, l)| (f, o, l))
                })
                .collect(),
            (Some(_), false) => {
                let take = match v.spec.backlog_batch {
                    0 => v.backlog.len(),
                    n => (n as usize).min(v.backlog.len()),
                };
                v.backlog.drain(..).take(take).collect()
            }
        };
        if all {
            v.backlog.clear();
        }
        while !runs.is_empty() || self.q.in_flight > 0 {
            let stop = self.shared.stop.load(Ordering::Relaxed)
                || self.parts.verify.as_ref().is_some_and(|v| v.failed_fatal);
            if stop {
                runs.clear();
            }
            let mut queued = false;
            while self.q.in_flight < self.q.depth {
                let Some(&(file, offset, len)) = runs.front() else {
                    break;
                };
                // `openfiles` below the files: a closed file is opened once
                // nothing is in flight, as the job's own I/O does.
                if self.parts.files.is_closed(file) {
                    if self.q.in_flight > 0 {
                        break;
                    }
                    self.open_file(file)?;
                }
                runs.pop_front();
                let slot = self.q.take_slot();
                let now = self.shared.clock.now();
                self.q.slots[slot as usize] = Slot {
                    dir: Direction::Read,
                    file,
                    offset,
                    len,
                    queued_at: now,
                    submitted_at: now,
                    scheduled_at: 0,
                    check: true,
                    trim: false,
                    // The thread's own: the job's priority.
                    prio: self.plan.spec.prio.default_value(),
                };
                self.plan.engine.queue(IoRequest {
                    slot,
                    file: self.parts.files.slot_of(file),
                    dir: Direction::Read,
                    offset,
                    len: len as u32,
                    prio: 0,
                })?;
                self.q.in_flight += 1;
                queued = true;
                if !self.q.asynchronous {
                    break;
                }
            }
            if queued && self.q.asynchronous {
                self.plan.engine.submit()?;
            }
            if self.q.in_flight == 0 {
                continue;
            }
            // Counted, logged and checked as the job's own reads.
            let now = self.reap()?;
            self.complete(now)?;
        }
        Ok(())
    }
}

/// `verify_dump`: the chunk as read and as expected, beside each other in
/// the current directory, named after the file and the offset as fio names
/// them: `FILE.OFFSET.received` and `.expected`, or only
/// `FILE.OFFSET.hdr_fail` (what was read) when the chunk's header was bad.
/// Existing files are never overwritten.
fn dump(path: &Path, offset: u64, parts: &[(&str, &[u8])]) {
    let base = path
        .file_name()
        .map_or_else(|| "diskbench".into(), |n| n.to_string_lossy().into_owned());
    for &(what, bytes) in parts {
        let name = format!("{base}.{offset}.{what}");
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&name)
            .and_then(|mut f| f.write_all(bytes));
        if let Err(e) = written {
            crate::notice::say(format!(
                "diskbench: verify_dump: could not write {name}: {e}"
            ));
        }
    }
}
