//! `read_iolog` and `write_iolog` in the worker.
//!
//! Replay: the log's actions are issued in order, each I/O at its logged
//! time from the job's start (scaled by `replay_time_scale` when the job
//! was parsed) unless `replay_no_stall`, with up to `iodepth` in flight,
//! each to the file the log names (the job's file of that index); a logged
//! `sync` waits for what is in flight and syncs the file it names, as
//! `fsync=` does; a logged `trim` is done as a trim mode's (synchronously,
//! counted as a trim). Recording: each I/O as it is queued, in fio's iolog
//! version 3 (`TIME_US FILE add|open|read|write|trim|close [OFFSET LENGTH]`;
//! a trimwrite's block as a trim, then a write), with the
//! file's `add` and `open` first and its `close` last, appended to the file
//! as fio appends.

use super::Worker;
use crate::clock::Clock;
use crate::error::IoError;
use crate::offsets::Target;
use model::iolog::{ReplayAction, ReplayOp};
use model::{Direction, JobSpec};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a replay is.
pub(super) struct Replayer {
    ops: Arc<Vec<ReplayOp>>,
    next: usize,
    /// The clock at the job's start, and whether to keep the logged times.
    start: u64,
    no_stall: bool,
    /// The next I/O is not due before this (clock ticks).
    pub(super) wait_until: Option<u64>,
    /// The file a logged sync names, synced once the queue is empty.
    pub(super) sync_file: Option<u32>,
    /// The action just given out is a trim (see `trim`).
    pub(super) trimming: bool,
}

impl Replayer {
    pub(super) fn new(spec: &JobSpec, start: u64) -> Option<Replayer> {
        spec.iolog.replays().then(|| Replayer {
            ops: Arc::clone(&spec.iolog.ops),
            next: 0,
            start,
            no_stall: spec.iolog.no_stall,
            wait_until: None,
            sync_file: None,
            trimming: false,
        })
    }
}

impl Worker<'_> {
    /// The log's next I/O; `None` when it is not due yet, when a sync must
    /// wait for the queue, or when the log is done.
    pub(super) fn next_replayed(&mut self) -> Option<Target> {
        let clock = &self.shared.clock;
        let r = self.parts.replay.as_mut()?;
        let Some(op) = r.ops.get(r.next).copied() else {
            self.time.phase.stop(super::Stop::Done);
            return None;
        };
        if !r.no_stall {
            let due = r.start + clock.ticks(op.at_us * 1000);
            if clock.now() < due {
                r.wait_until = Some(due);
                return None;
            }
        }
        r.next += 1;
        r.trimming = matches!(op.action, ReplayAction::Trim { .. });
        match op.action {
            ReplayAction::Sync { file } => {
                r.sync_file = Some(file);
                self.writes.sync_due = true;
                None
            }
            ReplayAction::Io {
                file,
                dir,
                offset,
                len,
            } => Some(Target {
                file,
                dir,
                offset,
                len,
            }),
            // Trimmed on the write side's target, as a trim mode's blocks.
            ReplayAction::Trim { file, offset, len } => Some(Target {
                file,
                dir: Direction::Write,
                offset,
                len,
            }),
        }
    }

    /// Whether the next I/O is trimmed, and whether it is then written:
    /// a trim mode's, or a replayed log's trim (trimmed only).
    pub(super) fn trims_next(&self) -> (bool, bool) {
        match &self.parts.replay {
            Some(r) => (r.trimming, false),
            None => (self.plan.spec.rw.trims(), self.plan.spec.rw.writes()),
        }
    }

    /// Records a queued I/O in the `write_iolog` file: its trim (when
    /// `trimmed`) and then its read or write (when `done`), as fio logs
    /// a trimwrite's block.
    pub(super) fn log_issue(&mut self, t: &Target, now: u64, trimmed: bool, done: bool) {
        if let Some(out) = &mut self.parts.iolog_out {
            if trimmed {
                out.io(&self.shared.clock, now, t, "trim");
            }
            if done {
                let action = match t.dir {
                    Direction::Read => "read",
                    Direction::Write => "write",
                };
                out.io(&self.shared.clock, now, t, action);
            }
        }
    }
}

/// The `write_iolog` file of one clone.
pub(super) struct IoLogOut {
    out: BufWriter<File>,
    path: PathBuf,
    start: u64,
    names: Vec<String>,
    error: Option<std::io::Error>,
}

impl IoLogOut {
    /// Opens the log (appending) and writes its header and the files' `add`
    /// and `open`; `names` are the clone's files.
    pub(super) fn open(
        spec: &JobSpec,
        names: Vec<String>,
        start: u64,
    ) -> Result<Option<IoLogOut>, IoError> {
        let Some(path) = &spec.iolog.write else {
            return Ok(None);
        };
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| IoError::new("open", path, e).saying(cannot(path)))?;
        let mut log = IoLogOut {
            out: BufWriter::new(file),
            path: path.clone(),
            start,
            names,
            error: None,
        };
        log.line(format_args!("fio version 3 iolog"));
        for action in ["add", "open"] {
            for i in 0..log.names.len() {
                let name = log.names[i].clone();
                log.line(format_args!("0 {name} {action}"));
            }
        }
        Ok(Some(log))
    }

    fn line(&mut self, text: std::fmt::Arguments) {
        if self.error.is_none() {
            if let Err(e) = writeln!(self.out, "{text}") {
                self.error = Some(e);
            }
        }
    }

    fn io(&mut self, clock: &Clock, now: u64, t: &Target, action: &str) {
        let us = clock.nanos(self.start, now) / 1000;
        let name = self.names.get(t.file as usize).cloned().unwrap_or_default();
        self.line(format_args!("{us} {name} {action} {} {}", t.offset, t.len));
    }

    /// Writes the `close` lines and flushes.
    pub(super) fn finish(mut self, clock: &Clock, end: u64) -> Result<(), IoError> {
        let us = clock.nanos(self.start, end) / 1000;
        for i in 0..self.names.len() {
            let name = self.names[i].clone();
            self.line(format_args!("{us} {name} close"));
        }
        let flushed = self.out.flush();
        match self.error.take().map_or(flushed, Err) {
            Ok(()) => Ok(()),
            Err(e) => Err(IoError::new("write", &self.path, e).saying(cannot(&self.path))),
        }
    }
}

fn cannot(path: &Path) -> String {
    format!("cannot write the I/O log {}", path.display())
}
