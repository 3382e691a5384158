//! The option tables: which of fio's options diskbench carries out, which ones
//! it knows but does not carry out yet, and the command-line options that are
//! not job options at all.
//!
//! The tables are data so that the three answers to "what is `--X`?" (run it,
//! refuse it as not carried out yet, or refuse it as unknown with a
//! suggestion) come from one place, and adding support for an option means
//! moving its name from [`NOT_CARRIED_OUT`] into [`JOB_OPTIONS`]. The names come
//! from fio's documentation (HOWTO); nothing here is fio's code.

mod refused;
pub(crate) use refused::{FIO_CLI_NOT_CARRIED_OUT, NOT_CARRIED_OUT};

/// A job option diskbench carries out; the parser matches on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Key {
    Name,
    Rw,
    RwMixRead,
    RwMixWrite,
    Bs,
    Size,
    Offset,
    Filename,
    Directory,
    NrFiles,
    NumJobs,
    IoDepth,
    /// 0 means "the whole iodepth at once", as in fio.
    IoDepthBatchSubmit,
    IoEngine,
    Direct,
    Buffered,
    Invalidate,
    Fsync,
    Fdatasync,
    EndFsync,
    Runtime,
    TimeBased,
    RampTime,
    Loops,
    RandRepeat,
    RandSeed,
    GroupReporting,
    /// fio's `thread` (threads instead of processes): diskbench always runs
    /// threads, so this is carried out by doing nothing.
    Thread,
    /// Wait for the jobs before this one, and start a new group.
    Stonewall,
    /// Start a new reporting group (only where a group starts anyway: see `groups`).
    NewGroup,
    /// Wait for the named job: approximated by a group boundary (see `groups`).
    WaitFor,
    /// posix_fadvise on each file of a buffered job (see `model::FadviseHint`).
    FadviseHint,
    /// Carried out by measuring anyway: see `JobSpec::gtod_reduce`.
    GtodReduce,
    PercentileList,
    ClatPercentiles,
    LatPercentiles,
    Description,
    /// Weighted block sizes, per direction.
    BsSplit,
    BsRange,
    BlockAlign,
    Rate,
    RateIops,
    RateMin,
    RateIopsMin,
    RateProcess,
    RateCycle,
    RateIgnoreThinktime,
    ThinkTime,
    ThinkTimeSpin,
    ThinkTimeBlocks,
    ThinkTimeBlocksType,
    ThinkTimeIoTime,
    /// `bs_unaligned`, `bs_is_seq_rand`: see `bs_opts`.
    BsUnaligned,
    BsIsSeqRand,
    RandomDistribution,
    NoRandomMap,
    RandomSequenceStride,
    /// `io_submit_mode`: inline (what the worker does) is accepted, offload
    /// refused by name.
    IoSubmitMode,
    /// Accepted for every fio generator: see `model::job::RandomGenerator`.
    RandomGenerator,
    PercentageRandom,
    IoSize,
    NumberIos,
    StartDelay,
    SlatPercentiles,
    CpusAllowed,
    CpusAllowedPolicy,
    FsyncOnClose,
    FileServiceType,
    IoDepthBatchCompleteMin,
    IoDepthBatchCompleteMax,
    IoDepthLow,
    SerializeOverlap,
    /// The log options take a file name prefix; bare, the job's name.
    WriteBwLog,
    WriteIopsLog,
    WriteLatLog,
    LogAvgMsec,
    LogOffset,
    /// `write_hist_log` and its interval and coarseness (see `model::fio_plat`).
    WriteHistLog,
    LogHistMsec,
    LogHistCoarseness,
    LogMaxValue,
    LogWindowValue,
    LogIssueTime,
    PerJobLogs,
    /// `log_compression`, `log_store_compressed`: see `model::job::LogSpec`.
    LogCompression,
    LogStoreCompressed,
    /// `unified_rw_reporting`: see `model::UnifiedRw`.
    UnifiedRwReporting,
    /// How sizes are read and the normal output's units: see `output_opts`.
    KbBase,
    UnitBase,
    /// `steadystate`/`ss`, `ss_dur`, `ss_ramp`: see `model::SteadyStateSpec`.
    SteadyState,
    SteadyStateDuration,
    SteadyStateRamp,
    /// The file options: see `crate::fileopts`.
    FileSize,
    Fallocate,
    Unlink,
    UnlinkEachLoop,
    CreateOnOpen,
    FilenameFormat,
    AllowFileCreate,
    CreateOnly,
    OpenFiles,
    SyncFileRange,
    /// `sync=`: O_SYNC or O_DSYNC writes.
    Sync,
    /// `verify*`: see `verify_opts`.
    Verify,
    DoVerify,
    VerifyOnly,
    VerifyInterval,
    VerifyOffset,
    VerifyPattern,
    VerifyFatal,
    VerifyDump,
    VerifyBacklog,
    VerifyBacklogBatch,
    /// `iomem`/`mem` and the io_uring options: see `engine_opts`.
    IoMem,
    FixedBufs,
    RegisterFiles,
    SqThreadPoll,
    SqThreadPollCpu,
    HiPri,
    /// `offset_increment` and the `rw=` offset modifier: see `offset_opts`.
    OffsetIncrement,
    /// `steadystate_check_interval` (`ss_interval`).
    SteadyStateInterval,
    /// `threads`: an option of fio's tiobench profile, which fio accepts in
    /// any job and ignores outside that profile (checked with fio 3.33: it
    /// still starts processes); diskbench has no profiles, so it does nothing.
    TiobenchThreads,
    /// `exitall`, `exit_what`, `exitall_on_error`: see `control_opts`.
    ExitAll,
    ExitWhat,
    ExitAllOnError,
    /// `flow`, `flow_id`, `flow_sleep`: see `control_opts`.
    Flow,
    FlowId,
    FlowSleep,
    /// fio's buffer options: see `data_opts`.
    ZeroBuffers,
    RefillBuffers,
    ScrambleBuffers,
    BufferPattern,
    BufferCompressPercentage,
    BufferCompressChunk,
    DedupePercentage,
    DedupeMode,
    DedupeWorkingSetPercentage,
    /// pvsync2's `uncached` (RWF_DONTCACHE): see `engine_opts`.
    Uncached,
    CpuLoad,
    CpuChunks,
    CpuMode,
    ExitOnIoDone,
    StatType,
    /// `zonemode`, `zonesize`, `zonerange`, `zoneskip`: see `offset_opts`.
    ZoneMode,
    ZoneSize,
    ZoneRange,
    ZoneSkip,
    /// `write_iolog`, `read_iolog`, `replay_*`: see `iolog_opts`.
    WriteIolog,
    ReadIolog,
    ReplayNoStall,
    ReplayRedirect,
    ReplayAlign,
    ReplayScale,
    ReplayTimeScale,
    ReplaySkip,
    MergeBlktraceFile,
    MergeBlktraceScalars,
    MergeBlktraceIters,
    /// `latency_target`, `latency_window`, `latency_percentile`,
    /// `latency_run`: see `latency_opts`.
    LatencyTarget,
    LatencyWindow,
    LatencyPercentile,
    LatencyRun,
    /// The error options, `fill_device`, `create_serialize`, `verify_async`:
    /// see `error_opts`.
    ContinueOnError,
    IgnoreError,
    ErrorDump,
    FillDevice,
    CreateSerialize,
    VerifyAsync,
    /// `dedupe_global`: see `data_opts`.
    DedupeGlobal,
    /// `verify_write_sequence`, `verify_header_seed`, `verify_pattern_interval`,
    /// `verify_state_save`, `verify_state_load`, `verify_policy`,
    /// `experimental_verify`, `verify_async_cpus`: see `verify_opts`.
    VerifyWriteSequence,
    VerifyHeaderSeed,
    VerifyPatternInterval,
    VerifyStateSave,
    VerifyStateLoad,
    VerifyPolicy,
    ExperimentalVerify,
    VerifyAsyncCpus,
    /// `atomic` (RWF_ATOMIC writes): see `engine_opts`.
    Atomic,
    /// `prio`, `prioclass`, `priohint` and the engines' `cmdprio*`: see
    /// `prio_opts`; `log_prio` is a log option.
    Prio,
    PrioClass,
    PrioHint,
    CmdPrio,
    CmdPrioClass,
    CmdPrioHint,
    CmdPrioPercentage,
    CmdPrioBsSplit,
    LogPrio,
    /// `numa_cpu_nodes`, `numa_mem_policy`: see `numa_opts`.
    NumaCpuNodes,
    NumaMemPolicy,
    /// `sprandom`, `spr_op`, `spr_num_regions`, `spr_cs`: see `sprandom_opts`.
    SpRandom,
    SprOp,
    SprNumRegions,
    SprCs,
}

/// What kind of value an option takes, as far as expanding it is concerned
/// (see `expand`): fio's parenthesised arithmetic applies to numbers, and
/// counts time in microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ValueKind {
    Text,
    Number,
    Time,
}

impl Key {
    pub(crate) fn value_kind(self) -> ValueKind {
        match self {
            Key::Name
            | Key::Rw
            | Key::Filename
            | Key::Directory
            | Key::IoEngine
            | Key::WaitFor
            | Key::FadviseHint
            | Key::PercentileList
            | Key::Description
            | Key::UnifiedRwReporting
            | Key::BsSplit
            | Key::BsRange
            | Key::RateProcess
            | Key::ThinkTimeBlocksType
            | Key::RandomDistribution
            | Key::RandomGenerator
            | Key::PercentageRandom
            | Key::StartDelay
            | Key::CpusAllowed
            | Key::CpusAllowedPolicy
            | Key::FileServiceType
            | Key::WriteBwLog
            | Key::WriteIopsLog
            | Key::WriteLatLog
            | Key::WriteHistLog
            | Key::SteadyState
            | Key::FileSize
            | Key::Fallocate
            | Key::SyncFileRange
            | Key::Sync
            | Key::Verify
            | Key::VerifyPattern
            | Key::IoMem
            | Key::ExitWhat
            | Key::IoSubmitMode
            | Key::BufferPattern
            | Key::DedupeMode
            | Key::ZoneMode
            | Key::LogWindowValue => ValueKind::Text,
            Key::CmdPrio
            | Key::CmdPrioClass
            | Key::CmdPrioHint
            | Key::CmdPrioPercentage
            | Key::CmdPrioBsSplit
            | Key::NumaCpuNodes
            | Key::NumaMemPolicy => ValueKind::Text,
            Key::WriteIolog
            | Key::ReadIolog
            | Key::ReplayRedirect
            | Key::ReplaySkip
            | Key::MergeBlktraceFile
            | Key::MergeBlktraceScalars
            | Key::MergeBlktraceIters => ValueKind::Text,
            Key::Runtime
            | Key::RampTime
            | Key::ThinkTime
            | Key::ThinkTimeSpin
            | Key::ThinkTimeIoTime
            | Key::SteadyStateInterval
            | Key::LatencyTarget
            | Key::LatencyWindow => ValueKind::Time,
            _ => ValueKind::Number,
        }
    }
}

/// How an option takes its value on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arity {
    /// `--opt=value` or `--opt value`.
    Value,
    /// `--opt` alone (means 1) or `--opt=0|1`; never `--opt value`, as with
    /// fio, whose set-only options take an optional argument.
    Flag,
}

#[derive(Debug)]
pub(crate) struct OptDef {
    pub key: Key,
    /// fio's name: the one echoed in `job options`.
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub arity: Arity,
}

const fn opt(key: Key, name: &'static str, arity: Arity) -> OptDef {
    OptDef {
        key,
        name,
        aliases: &[],
        arity,
    }
}

pub(crate) static JOB_OPTIONS: &[OptDef] = &[
    opt(Key::Name, "name", Arity::Value),
    OptDef {
        key: Key::Rw,
        name: "rw",
        aliases: &["readwrite"],
        arity: Arity::Value,
    },
    opt(Key::RwMixRead, "rwmixread", Arity::Value),
    opt(Key::RwMixWrite, "rwmixwrite", Arity::Value),
    OptDef {
        key: Key::Bs,
        name: "bs",
        aliases: &["blocksize"],
        arity: Arity::Value,
    },
    opt(Key::Size, "size", Arity::Value),
    OptDef {
        key: Key::Offset,
        name: "offset",
        aliases: &["fileoffset"],
        arity: Arity::Value,
    },
    opt(Key::Filename, "filename", Arity::Value),
    opt(Key::Directory, "directory", Arity::Value),
    OptDef {
        key: Key::NrFiles,
        name: "nrfiles",
        aliases: &["nr_files"],
        arity: Arity::Value,
    },
    opt(Key::NumJobs, "numjobs", Arity::Value),
    opt(Key::IoDepth, "iodepth", Arity::Value),
    OptDef {
        key: Key::IoDepthBatchSubmit,
        name: "iodepth_batch_submit",
        aliases: &["iodepth_batch"],
        arity: Arity::Value,
    },
    opt(Key::IoEngine, "ioengine", Arity::Value),
    opt(Key::Direct, "direct", Arity::Value),
    opt(Key::Buffered, "buffered", Arity::Value),
    opt(Key::Invalidate, "invalidate", Arity::Value),
    opt(Key::Fsync, "fsync", Arity::Value),
    opt(Key::Fdatasync, "fdatasync", Arity::Value),
    opt(Key::EndFsync, "end_fsync", Arity::Value),
    OptDef {
        key: Key::Runtime,
        name: "runtime",
        aliases: &["timeout"],
        arity: Arity::Value,
    },
    opt(Key::TimeBased, "time_based", Arity::Flag),
    opt(Key::RampTime, "ramp_time", Arity::Value),
    opt(Key::Loops, "loops", Arity::Value),
    OptDef {
        key: Key::RandRepeat,
        name: "randrepeat",
        aliases: &["allrandrepeat"],
        arity: Arity::Value,
    },
    opt(Key::RandSeed, "randseed", Arity::Value),
    opt(Key::GroupReporting, "group_reporting", Arity::Flag),
    opt(Key::Thread, "thread", Arity::Flag),
    OptDef {
        key: Key::Stonewall,
        name: "stonewall",
        aliases: &["wait_for_previous"],
        arity: Arity::Flag,
    },
    opt(Key::NewGroup, "new_group", Arity::Flag),
    opt(Key::WaitFor, "wait_for", Arity::Value),
    opt(Key::FadviseHint, "fadvise_hint", Arity::Value),
    opt(Key::GtodReduce, "gtod_reduce", Arity::Flag),
    opt(Key::PercentileList, "percentile_list", Arity::Value),
    opt(Key::ClatPercentiles, "clat_percentiles", Arity::Flag),
    opt(Key::LatPercentiles, "lat_percentiles", Arity::Flag),
    opt(Key::Description, "description", Arity::Value),
    opt(Key::BsSplit, "bssplit", Arity::Value),
    OptDef {
        key: Key::BsRange,
        name: "bsrange",
        aliases: &["blocksize_range"],
        arity: Arity::Value,
    },
    OptDef {
        key: Key::BlockAlign,
        name: "blockalign",
        aliases: &["ba"],
        arity: Arity::Value,
    },
    opt(Key::Rate, "rate", Arity::Value),
    opt(Key::RateIops, "rate_iops", Arity::Value),
    OptDef {
        key: Key::RateMin,
        name: "rate_min",
        aliases: &["ratemin"],
        arity: Arity::Value,
    },
    opt(Key::RateIopsMin, "rate_iops_min", Arity::Value),
    opt(Key::RateProcess, "rate_process", Arity::Value),
    OptDef {
        key: Key::RateCycle,
        name: "rate_cycle",
        aliases: &["ratecycle"],
        arity: Arity::Value,
    },
    opt(
        Key::RateIgnoreThinktime,
        "rate_ignore_thinktime",
        Arity::Flag,
    ),
    opt(Key::ThinkTime, "thinktime", Arity::Value),
    opt(Key::ThinkTimeSpin, "thinktime_spin", Arity::Value),
    opt(Key::ThinkTimeBlocks, "thinktime_blocks", Arity::Value),
    opt(
        Key::ThinkTimeBlocksType,
        "thinktime_blocks_type",
        Arity::Value,
    ),
    opt(Key::ThinkTimeIoTime, "thinktime_iotime", Arity::Value),
    OptDef {
        key: Key::BsUnaligned,
        name: "bs_unaligned",
        aliases: &["blocksize_unaligned"],
        arity: Arity::Flag,
    },
    opt(Key::BsIsSeqRand, "bs_is_seq_rand", Arity::Value),
    opt(Key::RandomDistribution, "random_distribution", Arity::Value),
    opt(Key::NoRandomMap, "norandommap", Arity::Flag),
    opt(
        Key::RandomSequenceStride,
        "random_sequence_stride",
        Arity::Flag,
    ),
    opt(Key::IoSubmitMode, "io_submit_mode", Arity::Value),
    opt(Key::RandomGenerator, "random_generator", Arity::Value),
    opt(Key::SpRandom, "sprandom", Arity::Value),
    opt(Key::SprOp, "spr_op", Arity::Value),
    opt(Key::SprNumRegions, "spr_num_regions", Arity::Value),
    opt(Key::SprCs, "spr_cs", Arity::Value),
    opt(Key::PercentageRandom, "percentage_random", Arity::Value),
    OptDef {
        key: Key::IoSize,
        name: "io_size",
        aliases: &["io_limit"],
        arity: Arity::Value,
    },
    opt(Key::NumberIos, "number_ios", Arity::Value),
    opt(Key::StartDelay, "startdelay", Arity::Value),
    opt(Key::SlatPercentiles, "slat_percentiles", Arity::Flag),
    opt(Key::CpusAllowed, "cpus_allowed", Arity::Value),
    opt(Key::CpusAllowedPolicy, "cpus_allowed_policy", Arity::Value),
    opt(Key::FsyncOnClose, "fsync_on_close", Arity::Value),
    opt(Key::FileServiceType, "file_service_type", Arity::Value),
    OptDef {
        key: Key::IoDepthBatchCompleteMin,
        name: "iodepth_batch_complete_min",
        aliases: &["iodepth_batch_complete"],
        arity: Arity::Value,
    },
    opt(
        Key::IoDepthBatchCompleteMax,
        "iodepth_batch_complete_max",
        Arity::Value,
    ),
    opt(Key::IoDepthLow, "iodepth_low", Arity::Value),
    opt(Key::SerializeOverlap, "serialize_overlap", Arity::Value),
    opt(Key::WriteBwLog, "write_bw_log", Arity::Flag),
    opt(Key::WriteIopsLog, "write_iops_log", Arity::Flag),
    opt(Key::WriteLatLog, "write_lat_log", Arity::Flag),
    opt(Key::LogAvgMsec, "log_avg_msec", Arity::Value),
    opt(Key::LogOffset, "log_offset", Arity::Flag),
    opt(Key::WriteHistLog, "write_hist_log", Arity::Flag),
    opt(Key::LogHistMsec, "log_hist_msec", Arity::Value),
    opt(Key::LogHistCoarseness, "log_hist_coarseness", Arity::Value),
    opt(Key::LogMaxValue, "log_max_value", Arity::Flag),
    opt(Key::LogWindowValue, "log_window_value", Arity::Value),
    opt(Key::LogIssueTime, "log_issue_time", Arity::Flag),
    opt(Key::PerJobLogs, "per_job_logs", Arity::Value),
    opt(Key::LogCompression, "log_compression", Arity::Value),
    opt(
        Key::LogStoreCompressed,
        "log_store_compressed",
        Arity::Value,
    ),
    opt(
        Key::UnifiedRwReporting,
        "unified_rw_reporting",
        Arity::Value,
    ),
    opt(Key::KbBase, "kb_base", Arity::Value),
    opt(Key::UnitBase, "unit_base", Arity::Value),
    OptDef {
        key: Key::SteadyState,
        name: "steadystate",
        aliases: &["ss"],
        arity: Arity::Value,
    },
    OptDef {
        key: Key::SteadyStateDuration,
        name: "steadystate_duration",
        aliases: &["ss_dur"],
        arity: Arity::Value,
    },
    OptDef {
        key: Key::SteadyStateRamp,
        name: "steadystate_ramp_time",
        aliases: &["ss_ramp"],
        arity: Arity::Value,
    },
    opt(Key::Verify, "verify", Arity::Value),
    opt(Key::DoVerify, "do_verify", Arity::Value),
    opt(Key::VerifyOnly, "verify_only", Arity::Flag),
    opt(Key::VerifyInterval, "verify_interval", Arity::Value),
    opt(Key::VerifyOffset, "verify_offset", Arity::Value),
    opt(Key::VerifyPattern, "verify_pattern", Arity::Value),
    opt(Key::VerifyFatal, "verify_fatal", Arity::Value),
    opt(Key::VerifyDump, "verify_dump", Arity::Value),
    opt(Key::VerifyBacklog, "verify_backlog", Arity::Value),
    opt(
        Key::VerifyBacklogBatch,
        "verify_backlog_batch",
        Arity::Value,
    ),
    opt(Key::FileSize, "filesize", Arity::Value),
    opt(Key::Fallocate, "fallocate", Arity::Value),
    opt(Key::Unlink, "unlink", Arity::Value),
    opt(Key::UnlinkEachLoop, "unlink_each_loop", Arity::Value),
    opt(Key::CreateOnOpen, "create_on_open", Arity::Value),
    opt(Key::FilenameFormat, "filename_format", Arity::Value),
    opt(Key::AllowFileCreate, "allow_file_create", Arity::Value),
    opt(Key::CreateOnly, "create_only", Arity::Value),
    opt(Key::OpenFiles, "openfiles", Arity::Value),
    opt(Key::SyncFileRange, "sync_file_range", Arity::Value),
    opt(Key::Sync, "sync", Arity::Value),
    OptDef {
        key: Key::IoMem,
        name: "iomem",
        aliases: &["mem"],
        arity: Arity::Value,
    },
    opt(Key::FixedBufs, "fixedbufs", Arity::Flag),
    opt(Key::RegisterFiles, "registerfiles", Arity::Flag),
    opt(Key::SqThreadPoll, "sqthread_poll", Arity::Flag),
    opt(Key::SqThreadPollCpu, "sqthread_poll_cpu", Arity::Value),
    opt(Key::HiPri, "hipri", Arity::Flag),
    opt(Key::OffsetIncrement, "offset_increment", Arity::Value),
    OptDef {
        key: Key::SteadyStateInterval,
        name: "steadystate_check_interval",
        aliases: &["ss_interval"],
        arity: Arity::Value,
    },
    opt(Key::TiobenchThreads, "threads", Arity::Value),
    opt(Key::ExitAll, "exitall", Arity::Flag),
    opt(Key::ExitWhat, "exit_what", Arity::Value),
    opt(Key::ExitAllOnError, "exitall_on_error", Arity::Flag),
    opt(Key::Flow, "flow", Arity::Value),
    opt(Key::FlowId, "flow_id", Arity::Value),
    opt(Key::FlowSleep, "flow_sleep", Arity::Value),
    opt(Key::ZeroBuffers, "zero_buffers", Arity::Flag),
    opt(Key::RefillBuffers, "refill_buffers", Arity::Flag),
    opt(Key::ScrambleBuffers, "scramble_buffers", Arity::Value),
    opt(Key::BufferPattern, "buffer_pattern", Arity::Value),
    opt(
        Key::BufferCompressPercentage,
        "buffer_compress_percentage",
        Arity::Value,
    ),
    opt(
        Key::BufferCompressChunk,
        "buffer_compress_chunk",
        Arity::Value,
    ),
    opt(Key::DedupePercentage, "dedupe_percentage", Arity::Value),
    opt(Key::DedupeMode, "dedupe_mode", Arity::Value),
    opt(
        Key::DedupeWorkingSetPercentage,
        "dedupe_working_set_percentage",
        Arity::Value,
    ),
    opt(Key::Uncached, "uncached", Arity::Value),
    opt(Key::CpuLoad, "cpuload", Arity::Value),
    opt(Key::CpuChunks, "cpuchunks", Arity::Value),
    opt(Key::CpuMode, "cpumode", Arity::Value),
    opt(Key::ExitOnIoDone, "exit_on_io_done", Arity::Flag),
    opt(Key::StatType, "stat_type", Arity::Value),
    opt(Key::ZoneMode, "zonemode", Arity::Value),
    opt(Key::ZoneSize, "zonesize", Arity::Value),
    opt(Key::ZoneRange, "zonerange", Arity::Value),
    opt(Key::ZoneSkip, "zoneskip", Arity::Value),
    opt(Key::WriteIolog, "write_iolog", Arity::Value),
    opt(Key::ReadIolog, "read_iolog", Arity::Value),
    opt(Key::ReplayNoStall, "replay_no_stall", Arity::Value),
    opt(Key::ReplayRedirect, "replay_redirect", Arity::Value),
    opt(Key::ReplayAlign, "replay_align", Arity::Value),
    opt(Key::ReplayScale, "replay_scale", Arity::Value),
    opt(Key::ReplayTimeScale, "replay_time_scale", Arity::Value),
    opt(Key::ReplaySkip, "replay_skip", Arity::Value),
    opt(Key::MergeBlktraceFile, "merge_blktrace_file", Arity::Value),
    opt(
        Key::MergeBlktraceScalars,
        "merge_blktrace_scalars",
        Arity::Value,
    ),
    opt(
        Key::MergeBlktraceIters,
        "merge_blktrace_iters",
        Arity::Value,
    ),
    opt(Key::LatencyTarget, "latency_target", Arity::Value),
    opt(Key::LatencyWindow, "latency_window", Arity::Value),
    opt(Key::LatencyPercentile, "latency_percentile", Arity::Value),
    opt(Key::LatencyRun, "latency_run", Arity::Value),
    opt(Key::ContinueOnError, "continue_on_error", Arity::Value),
    opt(Key::IgnoreError, "ignore_error", Arity::Value),
    opt(Key::ErrorDump, "error_dump", Arity::Value),
    OptDef {
        key: Key::FillDevice,
        name: "fill_device",
        aliases: &["fill_fs"],
        arity: Arity::Value,
    },
    opt(Key::CreateSerialize, "create_serialize", Arity::Value),
    opt(Key::VerifyAsync, "verify_async", Arity::Value),
    opt(Key::DedupeGlobal, "dedupe_global", Arity::Value),
    opt(
        Key::VerifyWriteSequence,
        "verify_write_sequence",
        Arity::Value,
    ),
    opt(Key::Atomic, "atomic", Arity::Value),
    opt(Key::VerifyHeaderSeed, "verify_header_seed", Arity::Value),
    opt(
        Key::VerifyPatternInterval,
        "verify_pattern_interval",
        Arity::Value,
    ),
    opt(Key::VerifyStateSave, "verify_state_save", Arity::Value),
    opt(Key::VerifyStateLoad, "verify_state_load", Arity::Value),
    opt(Key::VerifyPolicy, "verify_policy", Arity::Value),
    opt(Key::ExperimentalVerify, "experimental_verify", Arity::Value),
    opt(Key::VerifyAsyncCpus, "verify_async_cpus", Arity::Value),
    opt(Key::Prio, "prio", Arity::Value),
    opt(Key::PrioClass, "prioclass", Arity::Value),
    opt(Key::PrioHint, "priohint", Arity::Value),
    opt(Key::CmdPrio, "cmdprio", Arity::Value),
    opt(Key::CmdPrioClass, "cmdprio_class", Arity::Value),
    opt(Key::CmdPrioHint, "cmdprio_hint", Arity::Value),
    opt(Key::CmdPrioPercentage, "cmdprio_percentage", Arity::Value),
    opt(Key::CmdPrioBsSplit, "cmdprio_bssplit", Arity::Value),
    opt(Key::LogPrio, "log_prio", Arity::Flag),
    opt(Key::NumaCpuNodes, "numa_cpu_nodes", Arity::Value),
    opt(Key::NumaMemPolicy, "numa_mem_policy", Arity::Value),
];

/// Command-line options that are not job options: they shape the output, the
/// safety checks and the choice of jobs of the whole run.
pub(crate) const OUTPUT_FORMAT: &str = "output-format";
pub(crate) const OUTPUT: &str = "output";
pub(crate) const ALLOW_DESTRUCTIVE: &str = "allow-destructive";
pub(crate) const PARSE_ONLY: &str = "parse-only";
pub(crate) const SECTION: &str = "section";
pub(crate) const RUN_OPTIONS: &[&str] = &[
    OUTPUT_FORMAT,
    OUTPUT,
    ALLOW_DESTRUCTIVE,
    PARSE_ONLY,
    SECTION,
];

/// What a name given on the command line refers to.
#[derive(Debug)]
pub(crate) enum Lookup {
    Job(&'static OptDef),
    /// One of [`RUN_OPTIONS`].
    Run(&'static str),
    NotCarriedOut,
    Unknown,
}

pub(crate) fn lookup(name: &str) -> Lookup {
    if let Some(def) = JOB_OPTIONS
        .iter()
        .find(|d| d.name == name || d.aliases.contains(&name))
    {
        return Lookup::Job(def);
    }
    let mut run_options = RUN_OPTIONS.iter().copied().chain(crate::run_opts::names());
    if let Some(run) = run_options.find(|r| *r == name) {
        return Lookup::Run(run);
    }
    if NOT_CARRIED_OUT.contains(&name) || FIO_CLI_NOT_CARRIED_OUT.contains(&name) {
        return Lookup::NotCarriedOut;
    }
    Lookup::Unknown
}

/// Every job option name fio has, for suggestions in job files (where the
/// options of the whole run cannot be given).
pub(crate) fn job_names() -> impl Iterator<Item = &'static str> {
    JOB_OPTIONS
        .iter()
        .flat_map(|d| std::iter::once(d.name).chain(d.aliases.iter().copied()))
        .chain(NOT_CARRIED_OUT.iter().copied())
}

/// The names of the options diskbench carries out, aliases included.
pub(crate) fn carried_out_names() -> impl Iterator<Item = &'static str> {
    JOB_OPTIONS
        .iter()
        .flat_map(|d| std::iter::once(d.name).chain(d.aliases.iter().copied()))
        .chain(RUN_OPTIONS.iter().copied())
        .chain(crate::run_opts::names())
}

/// Every name the parser knows, options it carries out first (so that a tie
/// in the suggestion goes to something that works).
pub(crate) fn known_names() -> impl Iterator<Item = &'static str> {
    carried_out_names()
        .chain(NOT_CARRIED_OUT.iter().copied())
        .chain(FIO_CLI_NOT_CARRIED_OUT.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_name_is_both_carried_out_and_not() {
        for name in carried_out_names() {
            assert!(!NOT_CARRIED_OUT.contains(&name), "{name}");
            assert!(!FIO_CLI_NOT_CARRIED_OUT.contains(&name), "{name}");
        }
    }

    #[test]
    fn lookups() {
        assert!(matches!(lookup("readwrite"), Lookup::Job(d) if d.name == "rw"));
        assert!(matches!(lookup("blocksize"), Lookup::Job(d) if d.key == Key::Bs));
        assert!(matches!(lookup("output"), Lookup::Run(OUTPUT)));
        assert!(matches!(lookup("verify"), Lookup::Job(d) if d.key == Key::Verify));
        assert!(matches!(lookup("window_size"), Lookup::NotCarriedOut));
        assert!(matches!(lookup("parse-only"), Lookup::Run(PARSE_ONLY)));
        assert!(matches!(lookup("wait_for_previous"), Lookup::Job(d) if d.key == Key::Stonewall));
        assert!(matches!(lookup("showcmd"), Lookup::Run("showcmd")));
        assert!(matches!(lookup("idle-prof"), Lookup::NotCarriedOut));
        assert!(matches!(lookup("iodpeth"), Lookup::Unknown));
    }
}
