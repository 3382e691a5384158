//! What fio's file-operation engines (`filecreate`, `filestat`,
//! `filedelete`, `dircreate`, `dirstat`, `dirdelete`) are run with, and
//! what is refused because diskbench would count it differently from fio.
//!
//! fio does each file's operation when it opens the file, and it opens a
//! file when the job's first I/O reaches it; the I/Os themselves move no
//! data. diskbench does the operation on each file's first I/O, which is
//! the same count when every file is one block and each file is reached
//! once: one pass, no time-based repeat, one direction. The creating
//! engines give every file one block whatever `size` says (fio sizes such
//! a file to one block), so `size=` then only bounds how many are made.

use crate::error::{FioError, Scope};
use crate::options::Key;
use crate::values::Given;
use model::engine_kind::StatCall;
use model::units::format_size;
use model::{EngineKind, JobSpec, RwMode};

/// `stat_type`; `false` when `key` is not it.
pub(crate) fn apply(spec: &mut JobSpec, o: &Given) -> Result<bool, FioError> {
    if o.key != Key::StatType {
        return Ok(false);
    }
    spec.stat_type = StatCall::parse(o.text.trim()).ok_or_else(|| {
        FioError::invalid(o.scope, o.name, o.text, "stat_type is stat, lstat or statx")
    })?;
    Ok(true)
}

/// `stat_type` belongs to `filestat` and `dirstat` (fio knows it nowhere else).
pub(crate) fn check_stat_type(spec: &JobSpec, scope: &Scope) -> Result<(), FioError> {
    let stats = matches!(spec.engine, EngineKind::Filestat | EngineKind::Dirstat);
    if spec.stat_type == StatCall::Stat || stats {
        return Ok(());
    }
    Err(FioError::invalid(
        scope,
        "stat_type",
        spec.stat_type.fio_name(),
        format!(
            "stat_type is an option of the filestat and dirstat engines, and this job's \
             ioengine is {}: use one of them, or drop stat_type",
            spec.engine.fio_name()
        ),
    ))
}

/// Checks a job of a file-operation engine (after its options are read).
pub(crate) fn check(spec: &JobSpec) -> Result<(), FioError> {
    let scope = Scope::Job(spec.name.clone());
    let engine = spec.engine.fio_name();
    let refuse = |option: &str, value: String, why: &str| {
        Err(FioError::not_yet(
            &scope,
            option,
            &value,
            &format!(" with ioengine={engine}"),
            why,
        ))
    };
    if !matches!(
        spec.rw,
        RwMode::Read | RwMode::Write | RwMode::RandRead | RwMode::RandWrite
    ) {
        return refuse(
            "rw",
            spec.rw.fio_name().to_string(),
            ": these engines count each operation as a read (or a write with rw=write); \
             use rw=read or rw=write",
        );
    }
    if spec.time_based {
        return refuse(
            "time_based",
            "1".into(),
            ": fio repeats each file's operation when it opens the files again; drop \
             time_based (the job ends when every file is done)",
        );
    }
    if spec.loops > 1 {
        return refuse(
            "loops",
            spec.loops.to_string(),
            ": fio repeats each file's operation every loop; use loops=1",
        );
    }
    if spec.verify.is_some() {
        return refuse(
            "verify",
            "1".into(),
            ": these engines move no data, so there is nothing to verify",
        );
    }
    let creates = matches!(
        spec.engine,
        model::EngineKind::Filecreate | model::EngineKind::Dircreate
    );
    let files = u64::from(spec.files_per_clone().max(1));
    let per_file = match (spec.file_options.filesize, spec.size_bytes) {
        (Some(range), _) => Some(("filesize", range.max_bytes)),
        (None, Some(size)) => Some(("size", size / files)),
        (None, None) => None,
    };
    if let (false, Some((option, bytes))) = (creates, per_file) {
        if bytes >= 2 * spec.bs_bytes {
            return refuse(
                option,
                format_size(bytes),
                &format!(
                    ": fio times one operation per file but counts every block of it as an \
                     I/O; give files of one block, filesize={} (as fio's examples do)",
                    format_size(spec.bs_bytes)
                ),
            );
        }
    }
    if spec.file_options.unlink && matches!(spec.target, model::FileTarget::Named(_)) {
        return refuse(
            "unlink",
            "1".into(),
            ": removing what a file operation made under filename= at the end is not \
             carried out; drop unlink, or use directory= (diskbench removes its own \
             directory)",
        );
    }
    if spec.file_options.create_on_open && !creates {
        return refuse(
            "create_on_open",
            "1".into(),
            ": the files must exist before the job stats or removes them; drop create_on_open",
        );
    }
    Ok(())
}

/// `stat_type` when not fio's default, for `--parse-only`.
pub(crate) fn show(job: &JobSpec, opts: &mut Vec<(&'static str, Option<String>)>) {
    if job.stat_type != StatCall::Stat {
        opts.push(("stat_type", Some(job.stat_type.fio_name().to_string())));
    }
}
