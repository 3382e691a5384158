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
use crate::values::DEFAULT_BS;
use crate::{bs_opts, engine_opts, output_opts, pattern, values, verify_opts};
use model::job::{BlockSizes, BsShare, PerDir, RateProcess};
use model::units::format_size;
use model::{Direction, EngineKind, FileTarget, JobSpec, SteadyMetric, SteadyStateSpec};
use std::path::PathBuf;

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

impl Order {
    /// `stonewall`, `new_group` or `wait_for`, given at `at`.
    fn set(&mut self, o: &values::Given, at: &Option<Origin>) -> Result<(), FioError> {
        match o.key {
            Key::Stonewall => self.stonewall = o.flag()?,
            Key::NewGroup => {
                self.new_group = o.flag()?;
                self.at = at.clone();
            }
            _ => {
                self.wait_for = Some(o.text.to_string());
                self.at = at.clone();
            }
        }
        Ok(())
    }
}

/// A job being built: the options that only make sense together are kept
/// aside until the job is complete.
#[derive(Clone, Debug)]
struct Draft {
    spec: JobSpec,
    filename: Option<Vec<String>>,
    directory: Option<String>,
    nrfiles: u32,
    order: Order,
    /// `bs` / `bsrange`: each direction's smallest and largest block size.
    bs: PerDir<(u64, u64)>,
    /// `bssplit`, which wins over `bs` for a direction that has one (as in fio).
    bssplit: PerDir<Option<Vec<BsShare>>>,
    /// `bs_is_seq_rand` (see `bs_opts`).
    bs_is_seq_rand: bool,
}

impl Draft {
    fn new() -> Draft {
        Draft {
            spec: JobSpec::new(""),
            filename: None,
            directory: None,
            nrfiles: 1,
            order: Order::default(),
            bs: PerDir::both((DEFAULT_BS, DEFAULT_BS)),
            bssplit: PerDir::default(),
            bs_is_seq_rand: false,
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
    let cmdline_globals = global.spec.options.clone();
    let mut global_options = Vec::new();
    for file in files {
        let mut file_global = Draft::new();
        for section in file {
            match section.kind {
                SectionKind::Global => {
                    for opt in kb_base_first(&section.opts) {
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
    // What ran: the command line's globals are applied after the files'
    // (see `overrides`), so they replace a file's value of the same option.
    for (key, value) in cmdline_globals {
        global_options.retain(|(k, _)| *k != key);
        global_options.push((key, value));
    }
    crate::submit_opts::check_shared(jobs.iter().map(|j| &j.spec))?;
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
    for opt in kb_base_first(opts).chain(overrides) {
        apply(&mut draft, opt, &scope).map_err(|e| e.located(opt.at.as_ref()))?;
    }
    let order = draft.order.clone();
    let spec = finish(draft).map_err(|e| e.located(at.as_ref()))?;
    Ok(Job { spec, order, at })
}

/// fio reads a job file's section with its `kb_base` first, wherever it
/// stands (`size=1m` above `kb_base=1000` is 10^6 bytes), and the command
/// line in order (`--size=1m --kb_base=1000` is 2^20): checked with fio 3.33.
fn kb_base_first(opts: &[RawOpt]) -> impl Iterator<Item = &RawOpt> {
    let early = |o: &&RawOpt| o.def.key == Key::KbBase && o.at.is_some();
    opts.iter()
        .filter(early)
        .chain(opts.iter().filter(move |o| !early(o)))
}

/// Sizes are read under the `kb_base` the job has so far.
fn apply(draft: &mut Draft, opt: &RawOpt, scope: &Scope) -> Result<(), FioError> {
    let kb_base_1000 = draft.spec.units.kb_base_1000;
    values::with_kb_base(kb_base_1000, || apply_one(draft, opt, scope))
}

fn apply_one(draft: &mut Draft, opt: &RawOpt, scope: &Scope) -> Result<(), FioError> {
    let name = opt.def.name;
    let value = opt.value.as_deref();
    // Only flags come without a value, and they do not read `text`.
    let text = value.unwrap_or("");
    let o = values::Given {
        key: opt.def.key,
        scope,
        name,
        text,
        value,
    };
    let spec = &mut draft.spec;
    match opt.def.key {
        Key::Name => spec.name = text.to_string(),
        Key::Rw => crate::offset_opts::rw(spec, scope, text)?,
        Key::RwMixRead => spec.rwmix_read_pct = o.percent()?,
        Key::RwMixWrite => spec.rwmix_read_pct = 100 - o.percent()?,
        Key::Bs => {
            draft.bs = pattern::per_dir(scope, name, text, (DEFAULT_BS, DEFAULT_BS), |p| {
                values::one_bs(scope, p).map(|b| (b, b))
            })?
        }
        Key::BsRange => {
            draft.bs = pattern::per_dir(scope, name, text, (DEFAULT_BS, DEFAULT_BS), |p| {
                pattern::size_range(scope, name, p)
            })?
        }
        Key::BsSplit => {
            draft.bssplit = pattern::per_dir(scope, name, text, None, |p| {
                pattern::bssplit(scope, p).map(Some)
            })?
        }
        Key::BsIsSeqRand => {
            draft.bs_is_seq_rand = o.boolean()?;
            spec.bs_is_seq_rand = draft.bs_is_seq_rand;
        }
        // fio treats size=0 as "not given": the size of the file or device.
        Key::Size => {
            spec.size_bytes = Some(values::size_or_percent(scope, name, text)?).filter(|&b| b > 0)
        }
        Key::Offset => spec.offset_bytes = values::size_or_percent(scope, name, text)?,
        Key::Filename => draft.filename = Some(values::path_list(scope, name, text)?),
        Key::Directory => draft.directory = Some(values::single_path(scope, name, text)?),
        Key::NrFiles => {
            draft.nrfiles =
                o.at_least_one("a job needs at least one file: use nrfiles=1 or more")?
        }
        Key::NumJobs => {
            spec.numjobs =
                o.at_least_one("a job needs at least one clone: use numjobs=1 or more")?
        }
        Key::IoDepth => {
            spec.iodepth = o.at_least_one(
                "the queue depth must be at least 1: use e.g. iodepth=1 (sync engines) \
                 or iodepth=32 (io_uring, libaio)",
            )?
        }
        Key::IoDepthBatchSubmit => spec.iodepth_batch_submit = o.int_u32()?,
        Key::IoEngine => spec.engine = values::engine(scope, text)?,
        Key::Direct => spec.direct = o.boolean()?,
        Key::Buffered => spec.direct = !o.boolean()?,
        Key::Invalidate => spec.invalidate = o.boolean()?,
        Key::Fsync => spec.fsync_every = o.int_u32()?,
        Key::Fdatasync => spec.fdatasync_every = o.int_u32()?,
        Key::EndFsync => spec.end_fsync = o.boolean()?,
        // fio treats runtime=0 as "no limit".
        Key::Runtime => spec.runtime = Some(o.duration()?).filter(|d| !d.is_zero()),
        Key::TimeBased => spec.time_based = o.flag()?,
        Key::RampTime => spec.ramp_time = o.duration()?,
        Key::SteadyState
        | Key::SteadyStateDuration
        | Key::SteadyStateRamp
        | Key::SteadyStateInterval => steady_option(spec, &o)?,
        Key::Loops => {
            spec.loops =
                o.at_least_one("that would run nothing: use loops=1 (the default) or more")?
        }
        Key::RandRepeat => spec.randrepeat = o.boolean()?,
        Key::RandSeed => {
            spec.randseed = o.int()?;
            spec.randseed_given = true;
        }
        Key::GroupReporting => spec.group_reporting = o.flag()?,
        // diskbench always runs its workers as threads; fio's output counts them.
        Key::Thread => spec.thread = o.flag()?,
        // See `Key::TiobenchThreads`: fio takes any value and ignores it.
        Key::TiobenchThreads => {}
        Key::OffsetIncrement => crate::offset_opts::increment(spec, &o)?,
        Key::ZoneMode | Key::ZoneSize | Key::ZoneRange | Key::ZoneSkip => {
            crate::offset_opts::zone_option(&o)?
        }
        Key::Stonewall | Key::NewGroup | Key::WaitFor => draft.order.set(&o, &opt.at)?,
        Key::FadviseHint => spec.fadvise_hint = values::fadvise_hint(scope, text)?,
        Key::GtodReduce => spec.gtod_reduce = o.flag()?,
        Key::PercentileList => spec.percentile_list = values::percentile_list(scope, text)?,
        Key::ClatPercentiles => spec.clat_percentiles = o.flag()?,
        Key::LatPercentiles => spec.lat_percentiles = o.flag()?,
        Key::Description => spec.description = Some(text.to_string()),
        _ => apply_more(spec, &o)?,
    }
    // fio echoes options with a value; a bare flag does not show in its
    // `job options` (see the sample's `--time_based`).
    if let Some(value) = value {
        spec.options.push((name.to_string(), value.to_string()));
    }
    Ok(())
}

/// The options of the I/O pattern, pacing and reporting (see `pattern`).
fn apply_more(spec: &mut JobSpec, o: &values::Given) -> Result<(), FioError> {
    let values::Given {
        key,
        scope,
        name,
        text,
        ..
    } = *o;
    let rate = &mut spec.rate;
    let think = &mut spec.thinktime;
    match key {
        Key::BlockAlign => spec.blockalign_bytes = pattern::size_dirs(scope, name, text)?,
        Key::Rate => rate.bytes_per_sec = pattern::rate_bytes(scope, name, text)?,
        Key::RateMin => rate.min_bytes_per_sec = pattern::rate_bytes(scope, name, text)?,
        Key::RateIops => rate.iops = pattern::rate_count(scope, name, text)?,
        Key::RateIopsMin => rate.min_iops = pattern::rate_count(scope, name, text)?,
        Key::RateProcess => {
            rate.process = match text.trim() {
                "linear" => RateProcess::Linear,
                "poisson" => RateProcess::Poisson,
                _ => {
                    return Err(FioError::invalid(
                        scope,
                        name,
                        text,
                        "use linear or poisson",
                    ))
                }
            }
        }
        Key::RateCycle => {
            rate.cycle_ms = o
                .at_least_one("the cycle is in milliseconds: use e.g. rate_cycle=1000")?
                .into()
        }
        Key::RateIgnoreThinktime => rate.ignore_thinktime = o.flag()?,
        Key::ThinkTime => think.think = pattern::duration_us(scope, name, text)?,
        Key::ThinkTimeSpin => think.spin = pattern::duration_us(scope, name, text)?,
        Key::ThinkTimeBlocks => think.blocks = o.at_least_one("use thinktime_blocks=1 or more")?,
        Key::ThinkTimeBlocksType => {
            think.on_issue = match text.trim() {
                "complete" => false,
                "issue" => true,
                _ => {
                    return Err(FioError::invalid(
                        scope,
                        name,
                        text,
                        "use complete or issue",
                    ))
                }
            }
        }
        Key::BsUnaligned => spec.bs_unaligned = o.flag()?,
        // Seconds when bare, as fio reads it.
        Key::ThinkTimeIoTime => think.iotime = o.duration()?,
        Key::RandomDistribution => {
            spec.random.distribution = pattern::random_distribution(scope, text)?
        }
        Key::NoRandomMap => spec.random.norandommap = o.flag()?,
        Key::RandomSequenceStride => spec.random.sequence_stride = o.flag()?,
        Key::RandomGenerator => spec.random.generator = pattern::random_generator(scope, text)?,
        Key::PercentageRandom => {
            spec.random.percentage_random = pattern::percent_dirs(scope, name, text, 100)?
        }
        // fio treats 0 as "not given" for both.
        Key::IoSize => spec.io_size_bytes = Some(o.size()?).filter(|&b| b > 0),
        Key::NumberIos => spec.number_ios = Some(o.int()?).filter(|&n| n > 0),
        Key::StartDelay => spec.startdelay = pattern::delay_range(scope, name, text)?,
        Key::SlatPercentiles => spec.slat_percentiles = o.flag()?,
        Key::CpusAllowed => spec.cpus_allowed = Some(pattern::cpu_list(scope, text)?),
        Key::FsyncOnClose => spec.fsync_on_close = o.boolean()?,
        Key::FileServiceType => spec.file_service = pattern::file_service(scope, text)?,
        Key::IoDepthBatchCompleteMin => spec.iodepth_batch_complete_min = o.int_u32()?,
        Key::IoDepthBatchCompleteMax => spec.iodepth_batch_complete_max = o.int_u32()?,
        Key::IoDepthLow => spec.iodepth_low = Some(o.int_u32()?),
        Key::IoSubmitMode | Key::SerializeOverlap => crate::submit_opts::apply(spec, o)?,
        Key::FileSize
        | Key::Fallocate
        | Key::Unlink
        | Key::UnlinkEachLoop
        | Key::CreateOnOpen
        | Key::FilenameFormat
        | Key::AllowFileCreate
        | Key::CreateOnly
        | Key::OpenFiles
        | Key::SyncFileRange
        | Key::Sync => crate::fileopts::apply(spec, o)?,
        other => {
            if !output_opts::apply(spec, o)?
                && !verify_opts::apply(spec, o)?
                && !engine_opts::apply(spec, o)?
                && !crate::cpuio_opts::apply(spec, o)?
                && !crate::fileop_opts::apply(spec, o)?
                && !crate::control_opts::apply(spec, o)?
                && !crate::data_opts::apply(spec, o)?
                && !crate::error_opts::apply(spec, o)?
                && !crate::iolog_opts::apply(spec, o)?
                && !crate::latency_opts::apply(spec, o)?
                && !crate::prio_opts::apply(spec, o)?
                && !crate::numa_opts::apply(spec, o)?
                && !crate::sprandom_opts::apply(spec, o)?
            {
                unreachable!("{other:?} is applied in `apply`")
            }
        }
    }
    Ok(())
}

/// Each direction's block sizes from `bs`/`bsrange`/`bssplit`; `bs_bytes`
/// becomes the largest size the job's directions use.
fn block_sizes(spec: &mut JobSpec, bs: &PerDir<(u64, u64)>, split: &PerDir<Option<Vec<BsShare>>>) {
    let of = |range: &(u64, u64), split: &Option<Vec<BsShare>>| match split {
        Some(shares) => BlockSizes::Split(shares.clone()),
        None => BlockSizes::Range {
            min_bytes: range.0,
            max_bytes: range.1,
        },
    };
    let sizes = PerDir {
        read: of(&bs.read, &split.read),
        write: of(&bs.write, &split.write),
    };
    let used = [
        (spec.rw.reads(), &sizes.read),
        (spec.rw.uses_write_side(), &sizes.write),
    ];
    spec.bs_bytes = used
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, s)| s.max_bytes())
        .max()
        .unwrap_or(DEFAULT_BS);
    let fixed = BlockSizes::fixed(spec.bs_bytes);
    spec.block_sizes = match used.iter().all(|(on, s)| !on || **s == fixed) {
        true => None,
        false => Some(sizes),
    };
}

/// Checks that only make sense once every option of the job is known.
fn check_pattern(spec: &JobSpec) -> Result<(), FioError> {
    let job = &spec.name;
    let scope = Scope::Job(job.clone());
    if spec.direct {
        let dirs = [
            (spec.rw.reads(), Direction::Read),
            (spec.rw.uses_write_side(), Direction::Write),
        ];
        for dir in dirs.into_iter().filter(|d| d.0).map(|d| d.1) {
            // Every size of a range is a multiple of its smallest.
            let (option, sizes) = match spec.block_sizes_of(dir) {
                BlockSizes::Range { min_bytes, .. } => ("bs", vec![min_bytes]),
                BlockSizes::Split(shares) => ("bssplit", shares.iter().map(|s| s.bytes).collect()),
            };
            for bytes in sizes {
                check_direct_alignment(job, option, bytes, "4k")?;
            }
            check_direct_alignment(job, "blockalign", *spec.blockalign_bytes.get(dir), "4k")?;
        }
    }
    let rate = &spec.rate;
    for dir in [Direction::Read, Direction::Write] {
        let pairs = [
            (
                "rate_min",
                "rate",
                &rate.min_bytes_per_sec,
                &rate.bytes_per_sec,
            ),
            ("rate_iops_min", "rate_iops", &rate.min_iops, &rate.iops),
        ];
        for (min_name, cap_name, min, cap) in pairs {
            let (min, cap) = (*min.get(dir), *cap.get(dir));
            if cap > 0 && min > cap {
                return Err(FioError::invalid(
                    &scope,
                    min_name,
                    &min.to_string(),
                    format!("above {cap_name}={cap}: the floor must not exceed the cap (fio refuses it too)"),
                ));
            }
        }
    }
    let think = &spec.thinktime;
    if think.spin > think.think {
        return Err(FioError::invalid(
            &scope,
            "thinktime_spin",
            &format!("{}us", think.spin.as_micros()),
            format!(
                "the spin is part of the thinktime ({}us): give a spin no longer than thinktime",
                think.think.as_micros()
            ),
        ));
    }
    let (min, max) = (
        spec.iodepth_batch_complete_min,
        spec.iodepth_batch_complete_max,
    );
    if max > 0 && max < min {
        return Err(FioError::invalid(
            &scope,
            "iodepth_batch_complete_max",
            &max.to_string(),
            format!("below iodepth_batch_complete_min={min}: give a max of at least the min"),
        ));
    }
    Ok(())
}

/// A time-based job runs until its runtime is over, and no runtime (or
/// runtime=0, fio's "no limit") would make that never. fio 3.33 says "time_based
/// requires a runtime/timeout setting" and quietly runs by size instead;
/// diskbench refuses, as it refuses other silent reinterpretations.
fn check_time_based(spec: &JobSpec) -> Result<(), FioError> {
    if !spec.time_based || spec.runtime.is_some() {
        return Ok(());
    }
    let scope = Scope::Job(spec.name.clone());
    let given = spec.options.iter().rev().find(|(k, _)| k == "runtime");
    let (option, value) = match given {
        Some((_, value)) => ("runtime", value.as_str()),
        None => ("time_based", "1"),
    };
    Err(FioError::invalid(
        &scope,
        option,
        value,
        "a time_based job runs for its runtime, and runtime=0 (or none) means no limit, \
         so it would never end: give a runtime above 0, e.g. runtime=30s, or drop time_based",
    ))
}

/// Cross-option checks, and the target built from filename/directory/nrfiles.
/// fio's defaults: `iops_slope:0.01%`, no window (which turns it off).
/// `steadystate`, `ss_dur`, `ss_ramp`: each sets its part of the one criterion.
fn steady_option(spec: &mut JobSpec, o: &values::Given) -> Result<(), FioError> {
    let ss = spec.steadystate.get_or_insert(default_steady());
    match o.key {
        Key::SteadyState => {
            (ss.metric, ss.limit, ss.percent) = steady_criterion(o.scope, o.name, o.text)?
        }
        Key::SteadyStateDuration => ss.duration = o.duration()?,
        Key::SteadyStateInterval => {
            ss.interval = o.duration()?;
            if ss.interval.as_millis() < 1000 || ss.interval.subsec_millis() != 0 {
                return Err(o.invalid(
                    "diskbench measures whole seconds: give a whole number of seconds, e.g. \
                     ss_interval=10s",
                ));
            }
        }
        _ => ss.ramp = o.duration()?,
    }
    Ok(())
}

fn default_steady() -> SteadyStateSpec {
    SteadyStateSpec {
        metric: SteadyMetric::IopsSlope,
        limit: 0.01,
        percent: true,
        duration: std::time::Duration::ZERO,
        ramp: std::time::Duration::ZERO,
        interval: std::time::Duration::from_secs(1),
    }
}

/// `iops:2`, `iops_slope:0.1%`, `bw:5%`, `bw_slope:1048576`, `lat:5%`
/// (fio 3.42: the mean completion latency, in ns when absolute).
pub(crate) fn steady_criterion(
    scope: &Scope,
    name: &str,
    text: &str,
) -> Result<(SteadyMetric, f64, bool), FioError> {
    let bad = |why: &str| FioError::invalid(scope, name, text, why);
    let (metric, limit) = text
        .trim()
        .split_once(':')
        .ok_or_else(|| bad("give a criterion and a limit, e.g. ss=iops_slope:0.1%"))?;
    let metric = match metric.trim() {
        "iops" => SteadyMetric::Iops,
        "iops_slope" => SteadyMetric::IopsSlope,
        "bw" => SteadyMetric::Bw,
        "bw_slope" => SteadyMetric::BwSlope,
        "lat" => SteadyMetric::Lat,
        "lat_slope" => SteadyMetric::LatSlope,
        _ => {
            return Err(bad(
                "the criterion is iops, iops_slope, bw, bw_slope, lat or lat_slope",
            ))
        }
    };
    let limit = limit.trim();
    let (number, percent) = match limit.strip_suffix('%') {
        Some(n) => (n, true),
        None => (limit, false),
    };
    match number.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok((metric, v, percent)),
        _ => Err(bad(
            "the limit is a number, or a percentage of the mean such as 0.1%",
        )),
    }
}

fn finish(draft: Draft) -> Result<JobSpec, FioError> {
    let Draft {
        mut spec,
        filename,
        directory,
        nrfiles,
        mut bs,
        mut bssplit,
        bs_is_seq_rand,
        ..
    } = draft;
    let job = spec.name.clone();
    // bssplit wins over bs for a direction that has one.
    let given =
        |bs: &PerDir<(u64, u64)>, split: &PerDir<Option<Vec<BsShare>>>, dir| match split.get(dir) {
            Some(split) => {
                let sizes = split.iter().map(|s| s.bytes);
                (sizes.clone().min().unwrap_or(0), sizes.max().unwrap_or(0))
            }
            None => *bs.get(dir),
        };
    let as_given = PerDir {
        read: given(&bs, &bssplit, Direction::Read),
        write: given(&bs, &bssplit, Direction::Write),
    };
    if bs_is_seq_rand {
        bs_opts::seq_rand(&spec, &mut bs, &mut bssplit)?;
    }
    let sizes = crate::trim_opts::Sizes {
        bs: &mut bs,
        bssplit: &mut bssplit,
    };
    crate::trim_opts::trim_sizes(&mut spec, sizes)?;
    // A trim job's trim sizes are on the write side now.
    let trims = match spec.rw.trims() {
        true => given(&bs, &bssplit, Direction::Write),
        false => as_given.write,
    };
    spec.bs_as_given = Some(model::job::BsAsGiven {
        sizes: as_given,
        trim: trims,
    });
    block_sizes(&mut spec, &bs, &bssplit);
    // fio's ss_dur defaults to 0, which turns steady-state detection off.
    if spec.steadystate.is_some_and(|ss| ss.duration.is_zero()) {
        spec.steadystate = None;
    }
    output_opts::finish(&mut spec)?;
    // fio 3.33: thinktime_iotime without thinktime_blocks stalls on time only.
    let blocks_given = spec.options.iter().any(|(k, _)| k == "thinktime_blocks");
    if !spec.thinktime.iotime.is_zero() && !blocks_given {
        spec.thinktime.blocks = u32::MAX;
    }
    check_time_based(&spec)?;
    check_pattern(&spec)?;
    bs_opts::check_unaligned(&spec)?;
    crate::trim_opts::finish(&spec)?;
    verify_opts::finish(&mut spec)?;
    engine_opts::finish(&spec)?;
    crate::prio_opts::finish(&mut spec)?;
    crate::cpuio_opts::finish(&mut spec)?;
    crate::data_opts::finish(&spec)?;
    crate::offset_opts::finish_zones(&mut spec)?;
    if spec.direct {
        let below = spec.offset_bytes / DIRECT_ALIGN_BYTES * DIRECT_ALIGN_BYTES;
        check_direct_alignment(&job, "offset", spec.offset_bytes, &format_size(below))?;
    }
    // A replayed log names the files (or replay_redirect does); the job's
    // target is the first, the runner makes the others (`iolog.files`).
    crate::iolog_opts::finish(&mut spec, directory.as_deref())?;
    let replayed = spec.iolog.files.first().cloned();
    let named = replayed.is_some() || filename.is_some();
    spec.target = match (replayed, filename) {
        (Some(first), _) => FileTarget::Named(first),
        (None, Some(files)) => {
            let mut paths = files
                .iter()
                .map(|file| crate::fileopts::in_directory(directory.as_deref(), file));
            let first = paths.next().expect("filename= names a file at least");
            spec.file_options.also_named = paths.collect();
            FileTarget::Named(first)
        }
        // fio ignores nrfiles when a filename is given.
        (None, None) => FileTarget::Generated {
            directory: PathBuf::from(directory.unwrap_or_else(|| ".".to_string())),
            nrfiles,
            // fio gives every clone its own files.
            shared: None,
        },
    };
    crate::submit_opts::finish(&spec)?;
    match spec.size_bytes {
        // fio sizes the null engine's files by filesize= when size= is not given.
        None if spec.engine == EngineKind::Null && spec.file_options.filesize.is_none() => {
            return Err(FioError::NullNeedsSize { job })
        }
        // fio sizes each file of filecreate and dircreate to one block.
        _ if matches!(spec.engine, EngineKind::Filecreate | EngineKind::Dircreate) => {}
        // cpuio has no file: it is bound by time (see `cpuio_opts`).
        _ if spec.engine == EngineKind::Cpuio => {}
        // With filesize, size only bounds the I/O (see `fileopts`).
        None if !named && spec.file_options.filesize.is_none() => {
            return Err(FioError::MissingSize { job })
        }
        None => {}
        Some(_) if spec.file_options.filesize.is_some() => {}
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
    crate::fileopts::finish(&mut spec)?;
    crate::sprandom_opts::finish(&mut spec)?;
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
