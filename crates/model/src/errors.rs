//! fio's error options (`continue_on_error`, `ignore_error`, `error_dump`)
//! and what a job that continued past errors counts of them (fio's
//! `total_err` and `first_error`).
//!
//! fio ends a job at its first failed I/O unless the error is one the job
//! continues past: its type (read, write or verify) is named by
//! `continue_on_error` (or given a list by `ignore_error`), and its errno is
//! in that type's list, which is EIO and EILSEQ unless `ignore_error` gives
//! one (checked with fio 3.33: `ignore_error=,ENOSPC` alone continues past a
//! full disk, `continue_on_error=write` alone does not).

use serde::{Deserialize, Serialize};

/// The kinds of error fio tells apart, in the order of `ignore_error`'s lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorType {
    Read,
    Write,
    Verify,
}

impl ErrorType {
    pub const ALL: [ErrorType; 3] = [ErrorType::Read, ErrorType::Write, ErrorType::Verify];

    fn index(self) -> usize {
        self as usize
    }
}

/// Linux's errnos these options name (this crate does no I/O, so it has no
/// libc to take them from).
pub const EIO: i32 = 5;
pub const ENOSPC: i32 = 28;
pub const EILSEQ: i32 = 84;
pub const EDQUOT: i32 = 122;

/// The errors continued past when `ignore_error` gives no list: fio's
/// "non-fatal" errors.
pub const NON_FATAL: [i32; 2] = [EIO, EILSEQ];

/// One job's error options.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorPolicy {
    /// `continue_on_error`, by [`ErrorType`]: the types a job goes on after.
    pub continue_on: [bool; 3],
    /// `ignore_error`, by [`ErrorType`]: the errnos continued past (`None`:
    /// [`NON_FATAL`]).
    pub ignore: [Option<Vec<i32>>; 3],
    /// `error_dump`: every error continued past is printed (fio's default).
    pub dump: bool,
}

impl Default for ErrorPolicy {
    fn default() -> ErrorPolicy {
        ErrorPolicy {
            continue_on: [false; 3],
            ignore: [None, None, None],
            dump: true,
        }
    }
}

impl ErrorPolicy {
    /// Whether the job goes on after an error of type `kind` with `errno`.
    pub fn continues(&self, kind: ErrorType, errno: i32) -> bool {
        let i = kind.index();
        self.continue_on[i]
            && match &self.ignore[i] {
                Some(list) => list.contains(&errno),
                None => NON_FATAL.contains(&errno),
            }
    }

    /// Whether any error may be continued past: the job then reports
    /// `total_err` and `first_error`, as fio's does.
    pub fn any(&self) -> bool {
        self.continue_on.iter().any(|&c| c)
    }

    /// `continue_on_error`'s value in fio's spelling.
    pub fn fio_name(&self) -> &'static str {
        match self.continue_on {
            [false, false, false] => "none",
            [true, false, false] => "read",
            [false, true, false] => "write",
            [true, true, false] => "io",
            [false, false, true] => "verify",
            _ => "all",
        }
    }

    /// Reads `continue_on_error` (fio's names, and 0/1).
    pub fn parse_continue(text: &str) -> Option<[bool; 3]> {
        Some(match text {
            "none" | "0" | "false" => [false; 3],
            "read" => [true, false, false],
            "write" => [false, true, false],
            "io" => [true, true, false],
            "verify" => [false, false, true],
            "all" | "1" | "true" => [true; 3],
            _ => return None,
        })
    }
}

/// The errors a job continued past (fio's `total_err`, `first_error`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorCount {
    /// Every error continued past.
    pub total: u64,
    /// The errno of the first of them (0: none yet).
    pub first: i32,
    /// The failed reads and writes among them: fio counts them in its
    /// `total_ios` (and not in its bytes).
    pub ios: [u64; 2],
    /// What `error_dump` prints: the first [`ErrorCount::DUMPED`] errors'
    /// messages (the rest are counted in `total`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dumped: Vec<String>,
}

impl ErrorCount {
    /// The most messages kept for `error_dump`, so that a job that fails
    /// millions of I/Os keeps a bounded record.
    pub const DUMPED: usize = 100;

    /// Counts one error; `message` is kept for `error_dump` while there is room.
    pub fn add(&mut self, errno: i32, io: Option<crate::Direction>, message: Option<String>) {
        if self.total == 0 {
            self.first = errno;
        }
        self.total += 1;
        if let Some(dir) = io {
            self.failed_io(dir);
        }
        if let Some(m) = message.filter(|_| self.dumped.len() < Self::DUMPED) {
            self.dumped.push(m);
        }
    }

    /// Counts a failed read or write that is not an error of the job
    /// (`fill_device`'s write that found the filesystem full): fio counts
    /// it in `total_ios` too.
    pub fn failed_io(&mut self, dir: crate::Direction) {
        self.ios[dir as usize] += 1;
    }

    /// Adds another clone's count (the first error is the earlier clone's).
    pub fn merge(&mut self, other: &ErrorCount) {
        if self.first == 0 {
            self.first = other.first;
        }
        self.total += other.total;
        self.ios[0] += other.ios[0];
        self.ios[1] += other.ios[1];
        let room = Self::DUMPED.saturating_sub(self.dumped.len());
        self.dumped.extend(other.dumped.iter().take(room).cloned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_list_is_eio_and_eilseq() {
        let mut p = ErrorPolicy::default();
        assert!(!p.continues(ErrorType::Write, 5));
        p.continue_on = ErrorPolicy::parse_continue("write").unwrap();
        assert!(p.continues(ErrorType::Write, 5));
        assert!(p.continues(ErrorType::Write, 84));
        assert!(!p.continues(ErrorType::Write, 28));
        assert!(!p.continues(ErrorType::Read, 5));
        p.ignore[1] = Some(vec![28]);
        assert!(p.continues(ErrorType::Write, 28));
        assert!(!p.continues(ErrorType::Write, 5));
        assert_eq!(p.fio_name(), "write");
    }

    #[test]
    fn counts_keep_the_first() {
        let mut c = ErrorCount::default();
        c.add(28, Some(crate::Direction::Write), Some("a".into()));
        c.add(5, Some(crate::Direction::Read), None);
        let mut d = ErrorCount::default();
        d.add(84, None, Some("b".into()));
        d.merge(&c);
        assert_eq!((d.total, d.first, d.ios), (3, 84, [1, 1]));
        assert_eq!(d.dumped, ["b", "a"]);
    }
}
