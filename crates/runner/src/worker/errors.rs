//! A failed read or write that does not fail the job, as in fio:
//!
//! - `fill_device`: a write that finds the filesystem full (ENOSPC, EDQUOT,
//!   or a short write: the filesystem's last free blocks) ends the job's
//!   I/O without an error; the writes before it count, it does not (but is
//!   in `total_ios`, twice when short, as fio counts its retry of the rest).
//! - `create_on_open` with an asynchronous engine: a read past the end of
//!   the file counts with the bytes it got.
//! - `continue_on_error`/`ignore_error`: an error the job's policy continues
//!   past (`model::errors`) is counted (fio's `total_err`, `first_error`,
//!   and in `total_ios` though not in the bytes) and the job goes on.
//!
//! Anything else fails the job.

use super::phase::{Phase, Stop};
use super::Slot;
use engine::EngineError;
use model::errors::{ErrorCount, ErrorType, EDQUOT, EILSEQ, ENOSPC};
use model::{Direction, JobSpec, VerifyResult};

/// What became of a failed I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Absorbed {
    /// It fails the job.
    No,
    /// Counted as an error continued past (or, for `fill_device`, as the
    /// write that found the filesystem full); no bytes moved.
    Continued,
    /// A short I/O that is not an error: it counts with the bytes it moved.
    Partial(u64),
}

/// Decides what the failed I/O of `slot` (its completion's `result`, the
/// error `e` made of it) does to the job: counted in `errors`, or the
/// `phase` stopped for a full filesystem.
pub(super) fn absorb(
    spec: &JobSpec,
    errors: &mut Option<ErrorCount>,
    phase: &mut Phase,
    (e, slot, result): (&EngineError, &Slot, i64),
) -> Absorbed {
    let mut errno = match e {
        EngineError::Io { source, .. } => source.raw_os_error(),
        _ => None,
    };
    let short = result >= 0 && (result as u64) < slot.len;
    let write = slot.dir == Direction::Write;
    let expects_full = spec.fill_device || spec.errors.continues(ErrorType::Write, ENOSPC);
    if short && write && expects_full {
        // The filesystem filled up within this write: fio writes the rest
        // again, which fails with ENOSPC, and counts both in total_ios and
        // none of the write's bytes (checked with fio 3.33 on a tmpfs whose
        // free space was not a whole number of blocks).
        errors
            .get_or_insert_with(ErrorCount::default)
            .failed_io(slot.dir);
        errno = Some(ENOSPC);
    }
    if spec.fill_device && write && matches!(errno, Some(ENOSPC | EDQUOT)) {
        phase.stop(Stop::Full);
        errors
            .get_or_insert_with(ErrorCount::default)
            .failed_io(slot.dir);
        return Absorbed::Continued;
    }
    // A read past the end of a file the job made at open (create_on_open),
    // not written that far yet: fio's asynchronous engines count it with
    // the bytes it got (its synchronous ones are refused at parse time).
    if short
        && slot.dir == Direction::Read
        && spec.file_options.create_on_open
        && spec.engine.is_asynchronous()
    {
        return Absorbed::Partial(result as u64);
    }
    let kind = match slot.dir {
        Direction::Read => ErrorType::Read,
        Direction::Write => ErrorType::Write,
    };
    match errno {
        Some(n) if spec.errors.continues(kind, n) => {
            let message = spec.errors.dump.then(|| match short {
                true => format!("{e} (the rest: {})", std::io::Error::from_raw_os_error(n)),
                false => e.to_string(),
            });
            let count = errors.get_or_insert_with(ErrorCount::default);
            count.add(n, Some(slot.dir), message);
            Absorbed::Continued
        }
        _ => Absorbed::No,
    }
}

/// At the end of the job: the bad chunks `verify=` found, when the job
/// continues past verify errors (fio's EILSEQ), are counted as errors (one
/// per bad chunk) instead of failing it. Returns whether they were.
pub(super) fn absorb_verify(
    spec: &JobSpec,
    errors: &mut Option<ErrorCount>,
    v: &VerifyResult,
) -> bool {
    if v.bad == 0 || !spec.errors.continues(ErrorType::Verify, EILSEQ) {
        return false;
    }
    let count = errors.get_or_insert_with(ErrorCount::default);
    for i in 0..v.bad {
        let message = v.failures.get(i as usize).filter(|_| spec.errors.dump);
        let message = message.map(|f| {
            format!(
                "verify: bad data in {} at offset {}: expected {}, found {}",
                f.path, f.offset, f.expected, f.found
            )
        });
        count.add(EILSEQ, None, message);
    }
    true
}
