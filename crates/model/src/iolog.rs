//! fio's I/O logs: `write_iolog` records every I/O a job issues (fio's
//! iolog version 3: a timestamp in microseconds, the file, the action, the
//! offset and length), and `read_iolog` replays such a log, version 2 or 3,
//! as it was recorded: the same offsets, lengths and directions, in order,
//! at the recorded times unless `replay_no_stall`. Capture an
//! application's I/O once (with fio, or from a trace turned into a log),
//! replay it on every candidate disk.
//!
//! The log is read when the job is parsed; its I/Os travel with the job
//! ([`IoLogSpec::ops`]) but are not kept in the history, which keeps the
//! options that named them.
//!
//! A log may name several files (a job with `nrfiles=3` records three): as
//! fio does, each action goes to the file it names, so every action carries
//! the index of its file in [`IoLogSpec::files`]. `replay_redirect` sends
//! them all to one file, index 0.

use crate::direction::Direction;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// A job's `write_iolog`, `read_iolog` and `replay_*` options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IoLogSpec {
    /// `write_iolog=FILE`: each clone appends its I/Os there.
    pub write: Option<PathBuf>,
    /// `read_iolog=FILE`: the log to replay (several, `a:b`, only to merge).
    pub read: Vec<PathBuf>,
    /// `merge_blktrace_file`: the blktrace traces of `read` are merged into
    /// this file by time, which is then replayed (see `fio::blktrace`).
    pub merge_file: Option<PathBuf>,
    /// `merge_blktrace_scalars`: each trace's time in percent (100: as traced).
    pub merge_scalars: Vec<u32>,
    /// `merge_blktrace_iters`: how many times each trace repeats.
    pub merge_iters: Vec<u32>,
    /// `replay_no_stall`: as fast as the queue allows, in order.
    pub no_stall: bool,
    /// `replay_redirect`: every I/O goes to this file or device instead.
    pub redirect: Option<PathBuf>,
    /// `replay_align`: offsets rounded down to this power of 2 (0: as logged).
    pub align: u64,
    /// `replay_scale`: offsets divided by this (1: as logged).
    pub scale: u64,
    /// `replay_time_scale`: the log's pace in percent (200: twice as fast).
    pub time_scale_pct: u32,
    /// `replay_skip`: the actions left out (`read`, `write`, `trim`, `sync`).
    pub skip: Vec<String>,
    /// The I/Os read from `read`, after the options above were applied.
    #[serde(skip)]
    pub ops: Arc<Vec<ReplayOp>>,
    /// The files the actions of `ops` name by index: the log's own in the
    /// order of their first I/O, or the one of `replay_redirect`.
    #[serde(skip)]
    pub files: Vec<PathBuf>,
}

impl Default for IoLogSpec {
    fn default() -> Self {
        IoLogSpec {
            write: None,
            read: Vec::new(),
            merge_file: None,
            merge_scalars: Vec::new(),
            merge_iters: Vec::new(),
            no_stall: false,
            redirect: None,
            align: 0,
            scale: 1,
            time_scale_pct: 100,
            skip: Vec::new(),
            ops: Arc::default(),
            files: Vec::new(),
        }
    }
}

/// One action of a log to replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayOp {
    /// When to issue it, in microseconds from the job's start (already
    /// scaled by `replay_time_scale`).
    pub at_us: u64,
    pub action: ReplayAction,
}

/// `file` is the index of the action's file in [`IoLogSpec::files`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayAction {
    Io {
        file: u32,
        dir: Direction,
        offset: u64,
        len: u64,
    },
    /// `sync`/`datasync`: the file is synced once what was issued completed.
    Sync { file: u32 },
    /// `trim`: the range is discarded (as `rw=trim` does), then the next
    /// action follows; counted as a trim.
    Trim { file: u32, offset: u64, len: u64 },
}

impl IoLogSpec {
    /// Whether the job replays a log.
    pub fn replays(&self) -> bool {
        !self.read.is_empty()
    }

    /// The bytes the replay reads, writes and trims.
    pub fn bytes(&self) -> u64 {
        self.ops
            .iter()
            .map(|op| match op.action {
                ReplayAction::Io { len, .. } | ReplayAction::Trim { len, .. } => len,
                ReplayAction::Sync { .. } => 0,
            })
            .sum()
    }

    /// The bytes each of `files` must hold: the furthest byte read or
    /// written in it, in whole blocks of `bs` (at least one). A trim needs
    /// no data behind it (a trim past the end discards nothing).
    pub fn file_sizes(&self, bs: u64) -> Vec<u64> {
        let mut extents = vec![0; self.files.len()];
        for op in self.ops.iter() {
            if let ReplayAction::Io {
                file, offset, len, ..
            } = op.action
            {
                if let Some(extent) = extents.get_mut(file as usize) {
                    *extent = (*extent).max(offset + len);
                }
            }
        }
        let bs = bs.max(1);
        extents
            .into_iter()
            .map(|extent| extent.div_ceil(bs).max(1) * bs)
            .collect()
    }
}
