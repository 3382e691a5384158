//! fio's text iologs read into the I/Os a job replays, and [`Parsed`], what
//! every log reader (this one and `blktrace`) gives: kept apart from the
//! options (`iolog_opts`) so the two readers and the options need not import
//! each other.
//!
//! The formats, as fio's documentation gives them: a first line `fio
//! version 2 iolog` or `fio version 3 iolog`, then one action per line,
//! `FILE add|open|close` or `FILE read|write|sync|datasync|trim|wait OFFSET
//! LENGTH` (v2; `wait` sleeps OFFSET microseconds, under 100 ignored), each
//! line led by a timestamp in microseconds from the start in v3 (which has
//! no `wait`). fio's offsets are scaled down by `replay_scale` first, then
//! rounded down to `replay_align`.

use model::iolog::{IoLogSpec, ReplayAction, ReplayOp};
use model::Direction;
use std::path::Path;

/// Why a log (an iolog or a blktrace trace) cannot be replayed.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LogError {
    #[error(
        "not a fio iolog: its first line must be 'fio version 2 iolog' or 'fio version 3 \
         iolog' (fio's version 1 logs are not replayed, by fio either)"
    )]
    NotIolog,
    /// A line of an iolog: its number, what is wrong, the line.
    #[error("line {number}: {problem}: '{line}'")]
    Line {
        number: usize,
        problem: &'static str,
        line: String,
    },
    #[error("not a blktrace trace")]
    NotBlktrace,
    /// One of the traces to merge (counted from 1) is not a trace.
    #[error("trace {0} is not a blktrace trace")]
    TraceNotBlktrace(usize),
    #[error("an event cut short at byte {0}")]
    CutShort(usize),
    #[error("no blktrace event at byte {0} (bad magic)")]
    BadMagic(usize),
    #[error(
        "the trace has discards: trims are not replayed yet; give replay_skip=trim to leave \
         them out"
    )]
    Discards,
    #[error("found no I/O in the trace")]
    NoIo,
}

/// A log, read.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Parsed {
    /// The files the I/O actions name, in order of first use.
    pub files: Vec<String>,
    pub ops: Vec<ReplayOp>,
    /// The file each sync of `ops` names, by its place there: resolved to
    /// an index of `files` by [`Parsed::done`], as a file's first I/O may
    /// come after its sync.
    sync_names: Vec<(usize, String)>,
}

impl Parsed {
    /// An I/O to `file` (a name of the log).
    pub(crate) fn io(&mut self, at_us: u64, file: &str, dir: Direction, offset: u64, len: u64) {
        let file = self.file_index(file);
        let action = ReplayAction::Io {
            file,
            dir,
            offset,
            len,
        };
        self.ops.push(ReplayOp { at_us, action });
    }

    /// A trim of `file` (a name of the log).
    pub(crate) fn trim(&mut self, at_us: u64, file: &str, offset: u64, len: u64) {
        let file = self.file_index(file);
        let action = ReplayAction::Trim { file, offset, len };
        self.ops.push(ReplayOp { at_us, action });
    }

    /// The index of `file` in `files`, added on its first use.
    fn file_index(&mut self, file: &str) -> u32 {
        match self.files.iter().position(|f| f == file) {
            Some(i) => i as u32,
            None => {
                self.files.push(file.to_string());
                (self.files.len() - 1) as u32
            }
        }
    }

    /// A sync of `file`.
    pub(crate) fn sync(&mut self, at_us: u64, file: &str) {
        self.sync_names.push((self.ops.len(), file.to_string()));
        let action = ReplayAction::Sync { file: 0 };
        self.ops.push(ReplayOp { at_us, action });
    }

    /// Gives each action its file's index: with `replay_redirect` (`to`),
    /// 0, the one file; otherwise a sync's own file's, and a sync of a file
    /// the log does no I/O on is left out (the replay wrote nothing there).
    pub(crate) fn done(mut self, to: Option<&Path>) -> Parsed {
        let names = std::mem::take(&mut self.sync_names);
        if let Some(to) = to {
            if !self.files.is_empty() {
                self.files = vec![to.display().to_string()];
            }
            for op in &mut self.ops {
                match &mut op.action {
                    ReplayAction::Io { file, .. }
                    | ReplayAction::Sync { file }
                    | ReplayAction::Trim { file, .. } => *file = 0,
                }
            }
            return self;
        }
        let mut dropped = Vec::new();
        for (at, name) in names {
            match self.files.iter().position(|f| *f == name) {
                Some(i) => self.ops[at].action = ReplayAction::Sync { file: i as u32 },
                None => dropped.push(at),
            }
        }
        for at in dropped.into_iter().rev() {
            self.ops.remove(at);
        }
        self
    }
}

/// Reads a version 2 or 3 log, applying `replay_skip`, `replay_scale`,
/// `replay_align` and `replay_time_scale`.
pub(crate) fn parse(text: &str, how: &IoLogSpec) -> Result<Parsed, LogError> {
    let mut lines = text.lines().enumerate();
    let version = match lines.next().map(|(_, l)| l.trim()) {
        Some("fio version 2 iolog") => 2,
        Some("fio version 3 iolog") => 3,
        _ => return Err(LogError::NotIolog),
    };
    let mut parsed = Parsed::default();
    let mut waited_us = 0u64;
    let mut first_ts: Option<u64> = None;
    for (i, line) in lines {
        let at = |problem: &'static str| LogError::Line {
            number: i + 1,
            problem,
            line: line.to_string(),
        };
        let mut words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() {
            continue;
        }
        let ts = match version {
            3 => {
                let ts: u64 = words[0]
                    .parse()
                    .map_err(|_| at("a timestamp first (version 3)"))?;
                words.remove(0);
                Some(ts)
            }
            _ => None,
        };
        let (file, action) = match words.as_slice() {
            [file, action] | [file, action, _, _] => (*file, *action),
            _ => return Err(at("expected FILE ACTION [OFFSET LENGTH]")),
        };
        let numbers = match words.as_slice() {
            [_, _, offset, len] => {
                let offset: u64 = offset
                    .parse()
                    .map_err(|_| at("the offset is not a number"))?;
                let len: u64 = len.parse().map_err(|_| at("the length is not a number"))?;
                Some((offset, len))
            }
            _ => None,
        };
        if matches!(action, "add" | "open" | "close") {
            continue;
        }
        let Some((offset, len)) = numbers else {
            return Err(at("this action needs an offset and a length"));
        };
        let at_us = match ts {
            Some(ts) => ts.saturating_sub(*first_ts.get_or_insert(ts)),
            None => waited_us,
        };
        let trim = action == "trim";
        let dir = match action {
            "wait" if version == 2 => {
                if offset >= 100 {
                    waited_us += offset;
                }
                continue;
            }
            "read" => Direction::Read,
            // A trim is read as a write here, then kept as a trim below.
            "write" | "trim" => Direction::Write,
            "sync" | "datasync" => {
                if !how.skip.iter().any(|s| s == "sync") {
                    parsed.sync(scaled(at_us, how), file);
                }
                continue;
            }
            _ => return Err(at("not one of fio's iolog actions")),
        };
        let name = match dir {
            _ if trim => "trim",
            Direction::Read => "read",
            Direction::Write => "write",
        };
        if how.skip.iter().any(|s| s == name) {
            continue;
        }
        if len == 0 {
            return Err(at("an I/O of length 0"));
        }
        let mut offset = offset / how.scale.max(1);
        if how.align > 0 {
            offset &= !(how.align - 1);
        }
        match trim {
            true => parsed.trim(scaled(at_us, how), file, offset, len),
            false => parsed.io(scaled(at_us, how), file, dir, offset, len),
        }
    }
    Ok(parsed.done(how.redirect.as_deref()))
}

/// A logged time at the pace of `replay_time_scale`.
pub(crate) fn scaled(at_us: u64, how: &IoLogSpec) -> u64 {
    at_us * 100 / u64::from(how.time_scale_pct.max(1))
}
