//! The worker's side of the file options: which engine slot holds which
//! file (`openfiles`), `sync_file_range` every N writes, the files made
//! again between loops (`unlink_each_loop`), and at the end `end_fsync` of
//! closed files and `unlink`, and the cache dropped at each new pass over a
//! file (`invalidate` with buffered I/O, as fio's reopening drops it).
//!
//! Everything here happens with no I/O in flight, as the worker's fsyncs
//! do: an I/O that needs a closed file, a due range sync or the end of a
//! loop stops the queue, and the worker serves it once the queue is empty.
//! A file is put in a slot by pointing the slot's descriptor at it (dup3,
//! `sys::replace_fd`): the engine keeps its descriptors and needs no
//! rebuilding (which would also lose an `--inject-fault` wrapper's state).
//! io_uring registers its files, so the parser refuses it with `openfiles`
//! below the files and with `unlink_each_loop` over several loops.
//!
//! Targets keep the job's file number (logs, verify and error messages name
//! the real file); only the request to the engine carries the slot.

use super::Worker;
use crate::fileset::FileSet;
use crate::offsets::{Passes, Target};
use crate::RunError;
use engine::{sys, Engine, EngineError};
use model::Direction;
use std::io;

const CLOSED: u32 = u32::MAX;

/// State of the file options for one worker; inert (and nearly free on the
/// I/O path) for a job that uses none of them.
pub(super) struct FileOps {
    set: Option<FileSet>,
    /// `openfiles` below the job's files: the file in each engine slot.
    slot_file: Vec<u32>,
    file_slot: Vec<u32>,
    /// An I/O waiting for its file to be opened.
    held: Option<Target>,
    ranges: Option<Ranges>,
    /// `unlink_each_loop`: bytes of one loop, and where the next one starts.
    loop_bytes: u64,
    next_loop: u64,
    loop_due: bool,
    /// Stops the queue until [`Worker::serve_files`] has run.
    pub(super) due: bool,
    /// Buffered I/O with `invalidate`: each file's pages are dropped when
    /// a new pass over it starts; the passes seen so far.
    drop_each_pass: bool,
    passes_seen: u64,
}

/// `sync_file_range`: what each file got since its last call, as fio tracks it.
struct Ranges {
    how: sys::RangeSync,
    every: u32,
    writes: u32,
    /// `(start, end)` of each file's writes since its last call (empty: start >= end).
    pending: Vec<(u64, u64)>,
    due_file: Option<u32>,
}

impl FileOps {
    /// `loop_bytes`: one loop's bytes of a job of several (0: one loop,
    /// or time-based), the worker's `Budget::loop_bytes`.
    pub(super) fn new(set: Option<FileSet>, spec: &model::JobSpec, loop_bytes: u64) -> FileOps {
        let n = set.as_ref().map_or(0, FileSet::len);
        let f = &spec.file_options;
        let open = f.openfiles.map_or(n, |k| (k as usize).min(n));
        let (slot_file, file_slot) = match open < n {
            true => (
                (0..open as u32).collect(),
                (0..n as u32)
                    .map(|i| if (i as usize) < open { i } else { CLOSED })
                    .collect(),
            ),
            false => (Vec::new(), Vec::new()),
        };
        let loop_bytes = match f.unlink_each_loop {
            true => loop_bytes,
            false => 0,
        };
        let ranges = f.sync_file_range.filter(|_| n > 0).map(|r| Ranges {
            how: sys::RangeSync {
                wait_before: r.wait_before,
                write: r.write,
                wait_after: r.wait_after,
            },
            every: r.every,
            writes: 0,
            pending: vec![(u64::MAX, 0); n],
            due_file: None,
        });
        FileOps {
            drop_each_pass: n > 0 && !spec.direct && spec.invalidate,
            passes_seen: 0,
            set,
            slot_file,
            file_slot,
            held: None,
            ranges,
            loop_bytes,
            next_loop: loop_bytes,
            loop_due: false,
            due: false,
        }
    }

    fn windowed(&self) -> bool {
        !self.slot_file.is_empty()
    }

    /// `t` when its file is open; else holds it until the file is.
    #[inline]
    pub(super) fn route(&mut self, t: Target) -> Option<Target> {
        if !self.windowed() || self.file_slot[t.file as usize] != CLOSED {
            return Some(t);
        }
        self.held = Some(t);
        self.due = true;
        None
    }

    /// A new pass over a file (see `offsets::Passes`): its cached pages
    /// are dropped, so it is read from the disk again, as in fio.
    #[inline]
    pub(super) fn new_pass(&mut self, passes: Passes, files: &[std::fs::File]) {
        if !self.drop_each_pass || passes.ended == self.passes_seen {
            return;
        }
        self.passes_seen = passes.ended;
        if let Some(f) = files.get(self.slot_of(passes.file) as usize) {
            // A failure here failed at the first open too, where it was said.
            let _ = sys::drop_cache(f);
        }
    }

    /// Whether `file` is in no engine slot now (`openfiles` below the files).
    pub(super) fn is_closed(&self, file: u32) -> bool {
        self.windowed() && self.file_slot[file as usize] == CLOSED
    }

    /// The engine slot of an open file.
    #[inline]
    pub(super) fn slot_of(&self, file: u32) -> u32 {
        match self.windowed() {
            true => self.file_slot[file as usize],
            false => file,
        }
    }

    /// The number of files the engine holds.
    pub(super) fn engine_files(&self, all: usize) -> usize {
        match self.windowed() {
            true => self.slot_file.len(),
            false => all,
        }
    }

    /// Counts a queued I/O: writes for `sync_file_range`, bytes for loops.
    #[inline]
    pub(super) fn queued(&mut self, t: &Target, issued: u64) {
        if let Some(r) = self.ranges.as_mut().filter(|_| t.dir == Direction::Write) {
            let p = &mut r.pending[t.file as usize];
            *p = (p.0.min(t.offset), p.1.max(t.offset + t.len));
            r.writes += 1;
            if r.writes >= r.every {
                r.writes = 0;
                r.due_file = Some(t.file);
                self.due = true;
            }
        }
        if self.loop_bytes > 0 && issued >= self.next_loop {
            self.next_loop += self.loop_bytes;
            self.loop_due = true;
            self.due = true;
        }
    }

    /// The path of `file` in an error the engine named by slot.
    pub(super) fn name_error(&self, e: EngineError, slot: u32) -> EngineError {
        let Some(set) = self.set.as_ref().filter(|_| self.windowed()) else {
            return e;
        };
        let Some(&file) = self.slot_file.get(slot as usize) else {
            return e;
        };
        let real = set.paths[file as usize].clone();
        match e {
            EngineError::File { op, source, .. } => EngineError::File {
                op,
                path: real,
                source,
            },
            other => other,
        }
    }
}

/// A file operation's failure as the queue's error type: the OS error
/// itself when there was one (its errno survives), else the runner's words.
fn file_error(op: &'static str, path: &std::path::Path, e: RunError) -> EngineError {
    let source = match e {
        RunError::Io(io) => io.source,
        other => io::Error::other(other.to_string()),
    };
    EngineError::File {
        op,
        path: path.to_path_buf(),
        source,
    }
}

impl Worker<'_> {
    /// The next I/O of the general path: one held for an overlap (see
    /// `overlap`) or for its file first.
    pub(super) fn next_target(&mut self) -> Result<Option<Target>, EngineError> {
        if let Some(t) = self.overlap_retry() {
            return Ok(Some(t));
        }
        match self.parts.files.held.take() {
            Some(t) => Ok(Some(t)),
            None => self.next_paced(),
        }
    }

    /// What stopped the queue, now that nothing is in flight: a range
    /// sync, the end of a loop, a file to open. Nothing is done for I/O
    /// that will not come (the job is over), as fio does not.
    pub(super) fn serve_files(&mut self) -> Result<(), EngineError> {
        self.parts.files.due = false;
        let more = self.more_to_come();
        let range = self
            .parts
            .files
            .ranges
            .as_mut()
            .and_then(|r| r.due_file.take());
        if let Some(file) = range {
            // An fsync due now covers the range (fio then skips it too).
            match more && !self.writes.sync_due {
                true => self.timed_sync(|w| w.sync_range(file))?,
                false => self.clear_range(file),
            }
        }
        if std::mem::take(&mut self.parts.files.loop_due) && more {
            self.next_loop()?;
        }
        if let Some(t) = self.parts.files.held {
            match more {
                true => self.open_file(t.file)?,
                false => self.parts.files.held = None,
            }
        }
        Ok(())
    }

    /// Whether the job will issue more I/O: not once its phase is stopping
    /// or its size is issued.
    pub(super) fn more_to_come(&self) -> bool {
        !self.time.phase.stopping() && (self.ramping() || self.budget.left())
    }

    fn clear_range(&mut self, file: u32) {
        if let Some(r) = &mut self.parts.files.ranges {
            r.pending[file as usize] = (u64::MAX, 0);
        }
    }

    fn sync_range(&mut self, file: u32) -> Result<(), EngineError> {
        let Some(r) = &mut self.parts.files.ranges else {
            return Ok(());
        };
        let (start, end) = std::mem::replace(&mut r.pending[file as usize], (u64::MAX, 0));
        let how = r.how;
        let slot = self.parts.files.slot_of(file);
        if start >= end || slot == CLOSED {
            return Ok(());
        }
        let f = &self.plan.engine_cfg.files[slot as usize];
        sys::sync_file_range(f, start, end - start, how).map_err(|source| EngineError::Io {
            op: "sync_file_range",
            path: self.plan.engine_cfg.path(file),
            offset: start,
            len: end - start,
            source,
        })
    }

    /// `unlink_each_loop`: every file removed and made again; the open
    /// ones are reopened in their slots.
    fn next_loop(&mut self) -> Result<(), EngineError> {
        let Some(set) = &self.parts.files.set else {
            return Ok(());
        };
        for i in 0..set.len() {
            let path = &set.paths[i];
            set.recreate(i, &self.shared.stop)
                .map_err(|e| file_error("unlink_each_loop", path, e))?;
            let slot = self.parts.files.slot_of(i as u32);
            if slot != CLOSED {
                let f = set.open(i).map_err(|e| file_error("open", path, e))?;
                let to = &self.plan.engine_cfg.files[slot as usize];
                sys::replace_fd(to, &f).map_err(|source| EngineError::File {
                    op: "dup3",
                    path: path.clone(),
                    source,
                })?;
            }
        }
        if let Some(r) = &mut self.parts.files.ranges {
            r.pending.fill((u64::MAX, 0));
        }
        Ok(())
    }

    /// `openfiles`: puts `file` in the slot of a file the generator closed
    /// (fsynced first with `fsync_on_close`).
    pub(super) fn open_file(&mut self, file: u32) -> Result<(), EngineError> {
        let files = &self.parts.files;
        let slot = (0..files.slot_file.len())
            .find(|&s| !self.gen.is_open(files.slot_file[s]))
            .unwrap_or(0);
        let old = self.parts.files.slot_file[slot];
        if self.plan.spec.fsync_on_close && self.parts.files.set.as_ref().is_some_and(|s| s.write) {
            self.plan
                .engine
                .sync_file(slot as u32, false)
                .map_err(|e| self.parts.files.name_error(e, slot as u32))?;
        }
        let Some(set) = &self.parts.files.set else {
            return Ok(());
        };
        let path = &set.paths[file as usize];
        let f = set
            .open(file as usize)
            .map_err(|e| file_error("open", path, e))?;
        let to = &self.plan.engine_cfg.files[slot];
        sys::replace_fd(to, &f).map_err(|source| EngineError::File {
            op: "dup3",
            path: path.clone(),
            source,
        })?;
        self.clear_range(old);
        let fo = &mut self.parts.files;
        fo.file_slot[old as usize] = CLOSED;
        fo.file_slot[file as usize] = slot as u32;
        fo.slot_file[slot] = file;
        Ok(())
    }

    /// At the end of the job: `end_fsync` of the files no longer open (fio
    /// opens, syncs and closes each), then `unlink`.
    pub(super) fn finish_files(&mut self, synced: bool) -> Result<(), EngineError> {
        let Some(set) = &self.parts.files.set else {
            return Ok(());
        };
        let mut result = Ok(());
        if synced && self.plan.spec.end_fsync && set.write && self.parts.files.windowed() {
            for i in (0..set.len()).filter(|&i| self.parts.files.file_slot[i] == CLOSED) {
                if let Err(e) = set.fsync_closed(i) {
                    result = Err(file_error("fsync", &set.paths[i], e));
                    break;
                }
            }
        }
        if self.plan.spec.file_options.unlink {
            if let Err(e) = set.unlink() {
                result = result.and(Err(file_error("unlink", &set.paths[0], e)));
            }
        }
        result
    }
}
