//! Stage two: sections of raw options become validated [`JobSpec`]s.
//!
//! Options are applied in order to a draft, as fio applies them: a later
//! option overrides an earlier one (`rwmixwrite` after `rwmixread`, `buffered`
//! after `direct`), and each job starts from a copy of the global options
//! given above it. Checks that involve one value happen as it is applied, so
//! the error names the section the value came from; checks that involve
//! several options (alignment under `direct=1`, a missing `size`) run once
//! the job is complete.

use crate::cmdline::{RawOpt, Section, SectionKind};
use crate::error::{FioError, Scope};
use crate::options::Key;
use crate::values;
use model::units::format_size;
use model::{EngineKind, FileTarget, JobSpec};
use std::path::{Path, PathBuf};

/// The alignment `direct=1` needs at the very least; the runner checks the
/// device's real one.
const DIRECT_ALIGN_BYTES: u64 = 512;

/// A job being built: the options that only make sense together are kept
/// aside until the job is complete.
#[derive(Clone, Debug)]
struct Draft {
    spec: JobSpec,
    filename: Option<String>,
    directory: Option<String>,
    nrfiles: u32,
}

/// The jobs, and the global options as given (for fio's `global options`).
pub(crate) type Built = (Vec<JobSpec>, Vec<(String, String)>);

pub(crate) fn build(sections: Vec<Section>) -> Result<Built, FioError> {
    let mut global = Draft {
        spec: JobSpec::new(""),
        filename: None,
        directory: None,
        nrfiles: 1,
    };
    let mut jobs = Vec::new();
    for section in sections {
        match section.kind {
            SectionKind::Global => {
                for opt in &section.opts {
                    apply(&mut global, opt, &Scope::Global)?;
                }
            }
            SectionKind::Job(name) => {
                let scope = Scope::Job(name);
                let mut draft = global.clone();
                for opt in &section.opts {
                    apply(&mut draft, opt, &scope)?;
                }
                jobs.push(finish(draft)?);
            }
        }
    }
    if jobs.is_empty() {
        return Err(FioError::NoJob);
    }
    Ok((jobs, global.spec.options))
}

fn apply(draft: &mut Draft, opt: &RawOpt, scope: &Scope) -> Result<(), FioError> {
    let name = opt.def.name;
    let value = opt.value.as_deref();
    // Only flags come without a value, and they do not read `text`.
    let text = value.unwrap_or("");
    let spec = &mut draft.spec;
    match opt.def.key {
        Key::Name => spec.name = text.to_string(),
        Key::Rw => spec.rw = values::rw(scope, text)?,
        Key::RwMixRead => spec.rwmix_read_pct = values::percent(scope, name, text)?,
        Key::RwMixWrite => spec.rwmix_read_pct = 100 - values::percent(scope, name, text)?,
        Key::Bs => spec.bs_bytes = values::block_size(scope, text)?,
        // fio treats size=0 as "not given": the size of the file or device.
        Key::Size => {
            spec.size_bytes = Some(values::size_or_percent(scope, name, text)?).filter(|&b| b > 0)
        }
        Key::Offset => spec.offset_bytes = values::size_or_percent(scope, name, text)?,
        Key::Filename => draft.filename = Some(values::single_path(scope, name, text)?),
        Key::Directory => draft.directory = Some(values::single_path(scope, name, text)?),
        Key::NrFiles => {
            draft.nrfiles = values::at_least_one(
                scope,
                name,
                text,
                "a job needs at least one file: use nrfiles=1 or more",
            )?
        }
        Key::NumJobs => {
            spec.numjobs = values::at_least_one(
                scope,
                name,
                text,
                "a job needs at least one clone: use numjobs=1 or more",
            )?
        }
        Key::IoDepth => {
            spec.iodepth = values::at_least_one(
                scope,
                name,
                text,
                "the queue depth must be at least 1: use e.g. iodepth=1 (sync engines) \
                 or iodepth=32 (io_uring, libaio)",
            )?
        }
        Key::IoDepthBatchSubmit => spec.iodepth_batch_submit = values::int_u32(scope, name, text)?,
        Key::IoEngine => spec.engine = values::engine(scope, text)?,
        Key::Direct => spec.direct = values::boolean(scope, name, text)?,
        Key::Buffered => spec.direct = !values::boolean(scope, name, text)?,
        Key::Invalidate => spec.invalidate = values::boolean(scope, name, text)?,
        Key::Fsync => spec.fsync_every = values::int_u32(scope, name, text)?,
        Key::Fdatasync => spec.fdatasync_every = values::int_u32(scope, name, text)?,
        Key::EndFsync => spec.end_fsync = values::boolean(scope, name, text)?,
        // fio treats runtime=0 as "no limit".
        Key::Runtime => {
            spec.runtime = Some(values::duration(scope, name, text)?).filter(|d| !d.is_zero())
        }
        Key::TimeBased => spec.time_based = values::flag(scope, name, value)?,
        Key::RampTime => spec.ramp_time = values::duration(scope, name, text)?,
        Key::Loops => {
            spec.loops = values::at_least_one(
                scope,
                name,
                text,
                "that would run nothing: use loops=1 (the default) or more",
            )?
        }
        Key::RandRepeat => spec.randrepeat = values::boolean(scope, name, text)?,
        Key::RandSeed => spec.randseed = values::int(scope, name, text)?,
        Key::GroupReporting => spec.group_reporting = values::flag(scope, name, value)?,
        // diskbench always runs its workers as threads.
        Key::Thread => {
            values::flag(scope, name, value)?;
        }
    }
    // fio echoes options with a value; a bare flag does not show in its
    // `job options` (see the sample's `--time_based`).
    if let Some(value) = value {
        spec.options.push((name.to_string(), value.to_string()));
    }
    Ok(())
}

/// Cross-option checks, and the target built from filename/directory/nrfiles.
fn finish(draft: Draft) -> Result<JobSpec, FioError> {
    let Draft {
        mut spec,
        filename,
        directory,
        nrfiles,
    } = draft;
    let job = spec.name.clone();
    if spec.direct {
        check_direct_alignment(&job, "bs", spec.bs_bytes, "4k")?;
        let below = spec.offset_bytes / DIRECT_ALIGN_BYTES * DIRECT_ALIGN_BYTES;
        check_direct_alignment(&job, "offset", spec.offset_bytes, &format_size(below))?;
    }
    let named = filename.is_some();
    spec.target = match filename {
        // fio prefixes the filename with the directory.
        Some(file) => FileTarget::Named(match directory {
            Some(dir) => Path::new(&dir).join(file.trim_start_matches('/')),
            None => PathBuf::from(file),
        }),
        // fio ignores nrfiles when a filename is given.
        None => FileTarget::Generated {
            directory: PathBuf::from(directory.unwrap_or_else(|| ".".to_string())),
            nrfiles,
            // fio gives every clone its own files.
            shared: None,
        },
    };
    match spec.size_bytes {
        None if spec.engine == EngineKind::Null => return Err(FioError::NullNeedsSize { job }),
        None if !named => return Err(FioError::MissingSize { job }),
        None => {}
        Some(size) => {
            let files = if named { 1 } else { u64::from(nrfiles) };
            if size / files < spec.bs_bytes {
                let per = if named { "the file" } else { "each file" };
                return Err(FioError::Invalid {
                    scope: Scope::Job(job),
                    option: "size".into(),
                    value: format_size(size),
                    problem: format!(
                        "{per} would hold less than one block (bs={}): give a larger size \
                         or a smaller bs",
                        format_size(spec.bs_bytes)
                    ),
                });
            }
        }
    }
    Ok(spec)
}

fn check_direct_alignment(
    job: &str,
    option: &str,
    bytes: u64,
    example: &str,
) -> Result<(), FioError> {
    if bytes.is_multiple_of(DIRECT_ALIGN_BYTES) {
        return Ok(());
    }
    Err(FioError::DirectAlignment {
        job: job.to_string(),
        option: option.to_string(),
        value: format_size(bytes),
        example: example.to_string(),
    })
}
