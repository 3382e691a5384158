//! How a job hands its I/Os over: `io_submit_mode` (`inline` or
//! `offload`) and `serialize_overlap`.
//!
//! `io_submit_mode=offload`: fio hands submission to a pool of threads so
//! that I/Os go out on their schedule (`rate_iops`, `rate_process`) however
//! slowly the device completes them, and latency is not understated when
//! the device backs up (coordinated omission). diskbench's worker does
//! both with an asynchronous engine whatever the mode: it submits each I/O
//! when it is due, never waiting for a completion while fewer than
//! `iodepth` are in flight, and a rate-limited job's latency counts from
//! when each I/O was due (`resp`). So offload runs as inline there, and on
//! the null engine, which queues `iodepth` I/Os as they do. A synchronous
//! engine would need a thread per I/O in flight to do the same, which
//! diskbench does not have: refused at a depth above 1 (at 1, one
//! submitting thread is what inline is).
//!
//! `serialize_overlap=1`: an I/O whose range overlaps one still in flight
//! waits until that one completed, so two I/Os of a job never race on the
//! same bytes (fio's HOWTO: writes racing on a region leave it undefined
//! and make verify fail erratically). The worker holds it back and issues
//! it once the overlap is gone (`runner::worker::overlap`). With offload,
//! fio also serializes against the other offload jobs' I/Os; jobs that
//! each have their own files share no bytes, so that changes nothing, and
//! offload jobs (or clones) that share a named file are refused
//! ([`check_shared`]): diskbench serializes within a job only.

use crate::error::{FioError, Scope};
use crate::options::Key;
use crate::values::Given;
use model::{EngineKind, FileTarget, JobSpec};
use std::path::Path;

/// Applies `io_submit_mode` (checked with the whole job in [`finish`]) and
/// `serialize_overlap`.
pub(crate) fn apply(spec: &mut JobSpec, o: &Given) -> Result<(), FioError> {
    match o.key {
        Key::SerializeOverlap => spec.serialize_overlap = o.boolean()?,
        _ => match o.text.trim() {
            "inline" | "offload" => {}
            other => {
                return Err(FioError::invalid(
                    o.scope,
                    "io_submit_mode",
                    other,
                    "use inline (the default) or offload",
                ))
            }
        },
    }
    Ok(())
}

/// Whether the job asked for `io_submit_mode=offload`.
fn offload(spec: &JobSpec) -> bool {
    spec.options
        .iter()
        .any(|(k, v)| k == "io_submit_mode" && v.trim() == "offload")
}

/// Refuses offload jobs with `serialize_overlap` that share a named file
/// (two jobs, or a job's clones): fio serializes their I/Os against each
/// other, diskbench only within a job.
pub(crate) fn check_shared<'a>(jobs: impl Iterator<Item = &'a JobSpec>) -> Result<(), FioError> {
    let mut seen: Vec<&Path> = Vec::new();
    for spec in jobs.filter(|s| s.serialize_overlap && offload(s)) {
        let FileTarget::Named(first) = &spec.target else {
            continue;
        };
        let paths = std::iter::once(first).chain(&spec.file_options.also_named);
        for path in paths {
            if spec.numjobs > 1 || seen.contains(&path.as_path()) {
                return Err(FioError::not_yet(
                    &Scope::Job(spec.name.clone()),
                    "serialize_overlap",
                    "1",
                    &format!(
                        " with io_submit_mode=offload in jobs sharing {}",
                        path.display()
                    ),
                    ": fio then serializes their I/Os against each other, diskbench only within \
                 a job; give each job its own files (leave filename= out), or use \
                 io_submit_mode=inline",
                ));
            }
            seen.push(path);
        }
    }
    Ok(())
}

/// Checks the mode against the engine and depth once the job is complete.
pub(crate) fn finish(spec: &JobSpec) -> Result<(), FioError> {
    let offload = offload(spec);
    let scope = Scope::Job(spec.name.clone());
    let queues = spec.engine.is_asynchronous() || spec.engine == EngineKind::Null;
    if !offload || queues || spec.iodepth <= 1 {
        return Ok(());
    }
    Err(FioError::not_yet(
        &scope,
        "io_submit_mode",
        "offload",
        &format!(
            " with ioengine={} at iodepth={}",
            spec.engine.fio_name(),
            spec.iodepth
        ),
        ": a synchronous engine does one I/O at a time, and keeping several in flight on \
         their schedule needs a thread each; use ioengine=libaio or io_uring at this iodepth \
         (they submit on the schedule without waiting for completions, as offload does), \
         or iodepth=1",
    ))
}
