//! Stage two: sections of raw options become validated [`JobSpec`]s.
//!
//! Options are applied in order to a draft, as fio applies them: a later
//! option overrides an earlier one (`rwmixwrite` after `rwmixread`, `buffered`
//! after `direct`), and each job starts from a copy of the global options
//! given above it. Checks that involve one value happen as it is applied, so
//! the error names the section the value came from; checks that involve
//! several options (alignment under `direct=1`, a missing `size`) run once
//! the job is complete.
//!
//! Jobs come from the command line first, then from each job file in turn,
//! as fio orders them. A job file's `[global]` sections apply to the jobs
//! below them in that file only. The command line's global options (those
//! outside any `--name` job) apply to every job of the files *after* the
//! file's own options, so they win: `diskbench fio --size=16m --runtime=1
//! job.fio` shortens a job whatever the file says. fio 3.33 does the
//! opposite (it applies them first, and the file overrides them: checked with
//! `fio --size=16m` on a file saying `size=1g`, which does 1 GiB), which makes
//! the command line useless for shortening or redirecting a job file.

use crate::cmdline::{RawOpt, Section, SectionKind};
use crate::error::{FioError, Origin, Scope};
use crate::options::Key;
use crate::values;
use model::units::format_size;
use model::{EngineKind, FileTarget, JobSpec};
use std::path::{Path, PathBuf};

/// The alignment `direct=1` needs at the very least; the runner checks the
/// device's real one.
const DIRECT_ALIGN_BYTES: u64 = 512;

/// What places a job among the groups (see `groups`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Order {
    pub stonewall: bool,
    pub new_group: bool,
    pub wait_for: Option<String>,
    /// The job-file line of `new_group` or `wait_for`, for errors about them.
    pub at: Option<Origin>,
}

/// A job being built: the options that only make sense together are kept
/// aside until the job is complete.
#[derive(Clone, Debug)]
struct Draft {
    spec: JobSpec,
    filename: Option<String>,
    directory: Option<String>,
    nrfiles: u32,
    order: Order,
}

impl Draft {
    fn new() -> Draft {
        Draft {
            spec: JobSpec::new(""),
            filename: None,
            directory: None,
            nrfiles: 1,
            order: Order::default(),
        }
    }
}

/// A validated job, with its place in the order and where it was defined.
#[derive(Debug)]
pub(crate) struct Job {
    pub spec: JobSpec,
    pub order: Order,
    /// The `[section]` line of a job from a file.
    pub at: Option<Origin>,
}

/// The jobs in order, and the global options as given (for fio's `global options`).
pub(crate) struct Built {
    pub jobs: Vec<Job>,
    pub global_options: Vec<(String, String)>,
}

/// `cmdline`: the command line's sections; `files`: each job file's.
pub(crate) fn build(cmdline: Vec<Section>, files: Vec<Vec<Section>>) -> Result<Built, FioError> {
    let mut global = Draft::new();
    // The command line's global options, applied again after each file job's own.
    let mut overrides: Vec<RawOpt> = Vec::new();
    let mut jobs = Vec::new();
    for section in cmdline {
        match section.kind {
            SectionKind::Global => {
                for opt in section.opts {
                    apply(&mut global, &opt, &Scope::Global)?;
                    overrides.push(opt);
                }
            }
            SectionKind::Job(name) => jobs.push(job(&global, &section.opts, &[], name, None)?),
        }
    }
    let mut global_options = global.spec.options;
    for file in files {
        let mut file_global = Draft::new();
        for section in file {
            match section.kind {
                SectionKind::Global => {
                    for opt in &section.opts {
                        apply(&mut file_global, opt, &Scope::Global)
                            .map_err(|e| e.located(opt.at.as_ref()))?;
                    }
                }
                SectionKind::Job(name) => {
                    let built = job(&file_global, &section.opts, &overrides, name, section.at)?;
                    jobs.push(built);
                }
            }
        }
        global_options.extend(file_global.spec.options);
    }
    Ok(Built {
        jobs,
        global_options,
    })
}

/// One job: `base` (the globals above it), its own options, then `overrides`.
fn job(
    base: &Draft,
    opts: &[RawOpt],
    overrides: &[RawOpt],
    name: String,
    at: Option<Origin>,
) -> Result<Job, FioError> {
    let mut draft = base.clone();
    // A job file's section names the job without echoing `name` among its
    // options (fio's JSON does not list it); on the command line `--name` is
    // the first option and echoed.
    draft.spec.name = name.clone();
    let scope = Scope::Job(name);
    for opt in opts.iter().chain(overrides) {
        apply(&mut draft, opt, &scope).map_err(|e| e.located(opt.at.as_ref()))?;
    }
    let order = draft.order.clone();
    let spec = finish(draft).map_err(|e| e.located(at.as_ref()))?;
    Ok(Job { spec, order, at })
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
        Key::Stonewall => draft.order.stonewall = values::flag(scope, name, value)?,
        Key::NewGroup => {
            draft.order.new_group = values::flag(scope, name, value)?;
            draft.order.at = opt.at.clone();
        }
        Key::WaitFor => {
            draft.order.wait_for = Some(text.to_string());
            draft.order.at = opt.at.clone();
        }
        Key::FadviseHint => spec.fadvise_hint = values::fadvise_hint(scope, text)?,
        Key::GtodReduce => spec.gtod_reduce = values::flag(scope, name, value)?,
        Key::PercentileList => spec.percentile_list = values::percentile_list(scope, text)?,
        Key::ClatPercentiles => spec.clat_percentiles = values::flag(scope, name, value)?,
        Key::LatPercentiles => spec.lat_percentiles = values::flag(scope, name, value)?,
        Key::Description => spec.description = Some(text.to_string()),
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
        ..
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
