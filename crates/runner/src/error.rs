//! Why a run, or one of its jobs, failed, kept as data rather than as text:
//! each variant holds what its message is made from (the operation, the
//! file, the offset, the OS error), so the errno survives to the exit code
//! and the JSON error object, and the message users read is still written
//! out in full by `Display`.
//!
//! [`RunError::failure`] is the one place a `RunError` becomes a
//! [`model::Failure`] (kind, message, job, op, path, offset, errno): the
//! runner records it in the result, the CLI takes the exit code from its
//! kind and the reports write the JSON error object from it.

use engine::EngineError;
use model::{Failure, FailureKind};
use std::io;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a run stopped. In every case the results measured so far are kept.
#[derive(Debug, Error)]
pub enum RunError {
    /// Bad input the user can fix (an option, a path, a size); the message
    /// names the problem and the fix.
    #[error("{0}")]
    Usage(String),
    /// Bad input about a place: a directory that does not exist, a
    /// read-only mount, too little room. The message names the path and
    /// the fix; `errno` is the OS error that revealed it, when one did.
    #[error("{message}")]
    Place {
        path: PathBuf,
        message: String,
        errno: Option<i32>,
    },
    /// A file operation of the runner's own failed (creating the test
    /// directory, laying out, opening, syncing, unlinking, writing logs).
    #[error(transparent)]
    Io(#[from] IoError),
    /// The engine failed: an I/O (with its offset and length), its setup or
    /// its machinery.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A job fell below its `rate_min` or `rate_iops_min`.
    #[error(transparent)]
    RateFloor(#[from] crate::rate::RateShortfall),
    /// `latency_target` with `latency_percentile=100`: an I/O at depth 1
    /// took longer than the target (fio's ETIMEDOUT).
    #[error(transparent)]
    LatencyMissed(#[from] LatencyMissed),
    /// `verify=` cannot work with the job's options (the verify crate's words).
    #[error(transparent)]
    VerifyOptions(#[from] verify::FormatError),
    /// `verify_state_load` found no state it can use (the file and the fix).
    #[error(transparent)]
    VerifyState(#[from] crate::verify_state::StateError),
    /// `verify=` found bad chunks: the summary, and where the first one is.
    #[error("{summary}")]
    BadData {
        summary: String,
        path: String,
        offset: u64,
    },
    /// A runtime failure that no OS error explains (a worker thread that
    /// panicked, a directory something else changed, a short transfer):
    /// the words are all there is, so there is no errno.
    #[error("{0}")]
    Other(String),
    /// What went wrong in one job.
    #[error("job '{job}': {source}")]
    Job {
        job: String,
        #[source]
        source: Box<RunError>,
    },
    /// Jobs failed (each one's error is in its result): the first one's
    /// message, and how many more failed.
    #[error("{}", jobs_failed_message(.0))]
    JobsFailed(Vec<RunError>),
    /// A signal stopped the run.
    #[error("interrupted")]
    Interrupted,
}

fn jobs_failed_message(errors: &[RunError]) -> String {
    let Some(first) = errors.first() else {
        return "jobs failed".to_string();
    };
    match errors.len() - 1 {
        0 => first.to_string(),
        1 => format!("{first} (1 more job failed: see each job's error)"),
        more => format!("{first} ({more} more jobs failed: see each job's error)"),
    }
}

impl RunError {
    /// A place the jobs cannot use; `errno` when an OS error revealed it.
    pub fn place(path: &Path, message: String, errno: Option<i32>) -> RunError {
        RunError::Place {
            path: path.to_path_buf(),
            message,
            errno,
        }
    }

    /// `source`, as a failure of job `job`.
    pub fn in_job(job: &str, source: impl Into<RunError>) -> RunError {
        RunError::Job {
            job: job.to_string(),
            source: Box::new(source.into()),
        }
    }

    /// Usage, runtime or interrupted: what decides the exit code.
    pub fn kind(&self) -> FailureKind {
        match self {
            RunError::Usage(_) | RunError::Place { .. } | RunError::VerifyState(_) => {
                FailureKind::Usage
            }
            RunError::Interrupted => FailureKind::Interrupted,
            RunError::Job { source, .. } => source.kind(),
            RunError::JobsFailed(errors) => {
                errors.first().map_or(FailureKind::Runtime, RunError::kind)
            }
            _ => FailureKind::Runtime,
        }
    }

    pub fn is_interrupted(&self) -> bool {
        matches!(self, RunError::Interrupted)
    }

    /// The error this one is about once the job and the count of failed
    /// jobs are set aside: where the op, path, offset and errno are.
    fn innermost(&self) -> &RunError {
        match self {
            RunError::Job { source, .. } => source.innermost(),
            RunError::JobsFailed(errors) => errors.first().map_or(self, RunError::innermost),
            _ => self,
        }
    }

    /// The operating system's error number, when the OS said what went
    /// wrong (`EIO` = 5, `ENOSPC` = 28, `EROFS` = 30, ...).
    pub fn errno(&self) -> Option<i32> {
        match self.innermost() {
            RunError::Io(e) => e.source.raw_os_error(),
            RunError::Engine(e) => engine_io(e).raw_os_error(),
            RunError::Place { errno, .. } => *errno,
            RunError::LatencyMissed(_) => Some(libc::ETIMEDOUT),
            _ => None,
        }
    }

    /// The job it happened in (the first failed job's, for several).
    pub fn job(&self) -> Option<&str> {
        match self {
            RunError::Job { job, .. } => Some(job),
            RunError::JobsFailed(errors) => errors.first().and_then(RunError::job),
            _ => None,
        }
    }

    /// The one mapping from this error to its kind, message and facts: what
    /// the result keeps, the exit code comes from and the JSON writes.
    pub fn failure(&self) -> Failure {
        let mut f = Failure::new(self.kind(), self.to_string());
        f.job = self.job().map(str::to_string);
        f.errno = self.errno();
        let shown = |p: &Path| Some(p.display().to_string());
        match self.innermost() {
            RunError::Io(e) => {
                f.op = Some(e.op.to_string());
                f.path = e.path.as_deref().and_then(shown);
                f.offset = e.offset;
            }
            RunError::Engine(e) => match e {
                EngineError::Io {
                    op,
                    path,
                    offset,
                    len,
                    ..
                } => {
                    f.op = Some(op.to_string());
                    f.path = shown(path);
                    f.offset = Some(*offset);
                    f.len = Some(*len);
                }
                EngineError::File { op, path, .. } => {
                    f.op = Some(op.to_string());
                    f.path = shown(path);
                }
                EngineError::Engine { op, .. } => f.op = Some(op.to_string()),
                EngineError::Setup { .. } | EngineError::Memory { .. } => {}
            },
            RunError::Place { path, .. } => f.path = shown(path),
            RunError::RateFloor(r) => f.op = Some(r.direction.to_string()),
            RunError::LatencyMissed(m) => {
                f.op = Some(m.op.to_string());
                f.path = shown(&m.path);
                f.offset = Some(m.offset);
                f.len = Some(m.len);
            }
            RunError::BadData { path, offset, .. } => {
                f.op = Some("verify".to_string());
                f.path = Some(path.clone());
                f.offset = Some(*offset);
            }
            _ => {}
        }
        f
    }
}

/// An I/O over `latency_target` at depth 1 when every I/O must meet it
/// (`latency_percentile=100`): no shallower queue is left to try.
#[derive(Debug, Error)]
#[error(
    "{op} of {len} bytes at offset {offset} of {path} took {lat_us:.1} us, over latency_target \
     ({target_us:.1} us) with one I/O in flight, and latency_percentile=100 lets no I/O miss it: \
     raise latency_target, or lower latency_percentile (e.g. 99) so that a few may",
    path = .path.display(),
    lat_us = *.lat_ns as f64 / 1e3,
    target_us = *.target_ns as f64 / 1e3
)]
pub struct LatencyMissed {
    pub op: &'static str,
    pub path: PathBuf,
    pub offset: u64,
    pub len: u64,
    pub lat_ns: u64,
    pub target_ns: u64,
}

/// The OS error inside an engine error (every variant has one).
fn engine_io(e: &EngineError) -> &io::Error {
    match e {
        EngineError::Setup { source, .. }
        | EngineError::Io { source, .. }
        | EngineError::Engine { source, .. }
        | EngineError::Memory { source, .. }
        | EngineError::File { source, .. } => source,
    }
}

/// A file operation that failed: the operation, the file (when there is
/// one), the offset (when it was an I/O at one) and the OS error, with the
/// words the user reads around them.
///
/// The message is `"{what}: {source}"`, then `"; {fix}"` or `" {note}"`
/// when there is one; `what` defaults to `"{op} {path}"` and is set
/// otherwise where a message says more ("cannot open /x for writing").
#[derive(Debug, Error)]
#[error("{what}: {source}{tail}")]
pub struct IoError {
    pub op: &'static str,
    pub path: Option<PathBuf>,
    pub offset: Option<u64>,
    what: String,
    /// What follows the OS error, separator included.
    tail: String,
    #[source]
    pub source: io::Error,
}

impl IoError {
    /// `op` on `path` failed: the message reads `"{op} {path}: {source}"`.
    pub fn new(op: &'static str, path: &Path, source: io::Error) -> IoError {
        IoError {
            op,
            path: Some(path.to_path_buf()),
            offset: None,
            what: format!("{op} {}", path.display()),
            tail: String::new(),
            source,
        }
    }

    /// `op` failed on no file in particular (pinning a thread to CPUs).
    pub fn without_path(op: &'static str, source: io::Error) -> IoError {
        IoError {
            op,
            path: None,
            offset: None,
            what: op.to_string(),
            tail: String::new(),
            source,
        }
    }

    /// The words before the OS error, when they are not `"{op} {path}"`.
    pub fn saying(mut self, what: impl Into<String>) -> IoError {
        self.what = what.into();
        self
    }

    /// What to do about it, after the OS error and a semicolon.
    pub fn fix(mut self, fix: &str) -> IoError {
        self.tail = format!("; {fix}");
        self
    }

    /// A remark after the OS error and a space ("(did something else
    /// write there?)").
    pub fn note(mut self, note: &str) -> IoError {
        self.tail = format!(" {note}");
        self
    }

    /// The offset of the I/O that failed.
    pub fn at(mut self, offset: u64) -> IoError {
        self.offset = Some(offset);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(errno: i32) -> io::Error {
        io::Error::from_raw_os_error(errno)
    }

    fn eio_at(offset: u64) -> EngineError {
        EngineError::Io {
            op: "read",
            path: "/mnt/x/f".into(),
            offset,
            len: 4096,
            source: os(libc::EIO),
        }
    }

    /// Every variant: its kind (and so its exit code) and its errno.
    #[test]
    fn each_variant_maps_to_its_kind_exit_code_and_errno() {
        let shortfall = crate::rate::RateShortfall {
            direction: "read",
            option: "rate_iops_min",
            floor: 100,
            got: 3,
            over_ms: 1000,
        };
        let cases: Vec<(RunError, FailureKind, u8, Option<i32>)> = vec![
            (RunError::Usage("bad".into()), FailureKind::Usage, 2, None),
            (
                RunError::place(Path::new("/nope"), "no /nope".into(), Some(libc::ENOENT)),
                FailureKind::Usage,
                2,
                Some(libc::ENOENT),
            ),
            (
                IoError::new("fsync", Path::new("/x"), os(libc::ENOSPC)).into(),
                FailureKind::Runtime,
                1,
                Some(libc::ENOSPC),
            ),
            (eio_at(0).into(), FailureKind::Runtime, 1, Some(libc::EIO)),
            (shortfall.into(), FailureKind::Runtime, 1, None),
            (
                RunError::VerifyOptions(verify::FormatError::NoPattern),
                FailureKind::Runtime,
                1,
                None,
            ),
            (
                RunError::BadData {
                    summary: "bad".into(),
                    path: "/x".into(),
                    offset: 0,
                },
                FailureKind::Runtime,
                1,
                None,
            ),
            (
                RunError::Other("gone".into()),
                FailureKind::Runtime,
                1,
                None,
            ),
            (
                RunError::in_job("w", eio_at(8192)),
                FailureKind::Runtime,
                1,
                Some(libc::EIO),
            ),
            (
                RunError::JobsFailed(vec![RunError::in_job(
                    "w",
                    IoError::new("open", Path::new("/ro"), os(libc::EROFS)),
                )]),
                FailureKind::Runtime,
                1,
                Some(libc::EROFS),
            ),
            (RunError::Interrupted, FailureKind::Interrupted, 130, None),
        ];
        for (error, kind, code, errno) in cases {
            assert_eq!(
                (error.kind(), error.kind().exit_code(), error.errno()),
                (kind, code, errno),
                "{error:?}"
            );
            let f = error.failure();
            assert_eq!((f.kind, f.errno), (kind, errno), "{error:?}");
            assert_eq!(f.message, error.to_string());
        }
    }

    #[test]
    fn a_jobs_io_error_keeps_its_message_and_its_facts() {
        let e = RunError::JobsFailed(vec![
            RunError::in_job("w", eio_at(1234)),
            RunError::in_job("r", eio_at(0)),
        ]);
        assert_eq!(
            e.to_string(),
            "job 'w': read of 4096 bytes at offset 1234 in /mnt/x/f: Input/output error \
             (os error 5) (1 more job failed: see each job's error)"
        );
        let f = e.failure();
        assert_eq!(f.job.as_deref(), Some("w"));
        assert_eq!(f.op.as_deref(), Some("read"));
        assert_eq!(f.path.as_deref(), Some("/mnt/x/f"));
        assert_eq!(
            (f.offset, f.len, f.errno),
            (Some(1234), Some(4096), Some(5))
        );
    }

    #[test]
    fn an_io_error_reads_as_before() {
        let e = IoError::new("create", Path::new("/ro/f"), os(libc::EROFS))
            .fix("choose a writable place");
        assert_eq!(
            e.to_string(),
            "create /ro/f: Read-only file system (os error 30); choose a writable place"
        );
        let e = IoError::new("write", Path::new("/d/f"), os(libc::EIO))
            .saying("laying out /d/f: write of 512 bytes at offset 0")
            .at(0);
        let f = RunError::from(e).failure();
        assert_eq!(
            f.message,
            "laying out /d/f: write of 512 bytes at offset 0: Input/output error (os error 5)"
        );
        assert_eq!((f.op.as_deref(), f.offset), (Some("write"), Some(0)));
        let three = RunError::JobsFailed(vec![
            RunError::Other("a".into()),
            RunError::Other("b".into()),
            RunError::Other("c".into()),
        ]);
        assert_eq!(
            three.to_string(),
            "a (2 more jobs failed: see each job's error)"
        );
    }
}
