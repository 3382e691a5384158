//! A job as fio understands it, validated: every front end (fio options,
//! suites, profiles) compiles to a list of these, and the runner needs
//! nothing else.

pub use crate::engine_kind::EngineKind;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

pub use crate::block_sizes::{BlockSizes, BsAsGiven, BsShare};
pub use crate::direction::{Direction, PerDir};
pub use crate::placement::{
    Distribution, FileService, FileServiceSpec, OffsetSteps, RandomGenerator, RandomSpec, RwStep,
    SpRandom, StridedZones, Zone,
};
use crate::serde_defaults::{default_true, one};

/// fio's `rw=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RwMode {
    Read,
    Write,
    RandRead,
    RandWrite,
    /// `rw` / `readwrite`: sequential, mixed by `rwmixread`.
    ReadWrite,
    RandRw,
    /// `trim`: sequential trims (discards) of `bs` each.
    Trim,
    /// `randtrim`: trims at random offsets.
    RandTrim,
    /// `trimwrite`: each block trimmed, then written, in order.
    TrimWrite,
    /// `randtrimwrite`: the same at random offsets.
    RandTrimWrite,
}

impl RwMode {
    pub fn parse(text: &str) -> Option<RwMode> {
        Some(match text {
            "read" => RwMode::Read,
            "write" => RwMode::Write,
            "randread" => RwMode::RandRead,
            "randwrite" => RwMode::RandWrite,
            "rw" | "readwrite" => RwMode::ReadWrite,
            "randrw" => RwMode::RandRw,
            "trim" => RwMode::Trim,
            "randtrim" => RwMode::RandTrim,
            "trimwrite" => RwMode::TrimWrite,
            "randtrimwrite" => RwMode::RandTrimWrite,
            _ => return None,
        })
    }
    pub fn fio_name(self) -> &'static str {
        match self {
            RwMode::Read => "read",
            RwMode::Write => "write",
            RwMode::RandRead => "randread",
            RwMode::RandWrite => "randwrite",
            RwMode::ReadWrite => "rw",
            RwMode::RandRw => "randrw",
            RwMode::Trim => "trim",
            RwMode::RandTrim => "randtrim",
            RwMode::TrimWrite => "trimwrite",
            RwMode::RandTrimWrite => "randtrimwrite",
        }
    }
    pub fn is_random(self) -> bool {
        matches!(
            self,
            RwMode::RandRead
                | RwMode::RandWrite
                | RwMode::RandRw
                | RwMode::RandTrim
                | RwMode::RandTrimWrite
        )
    }
    pub fn reads(self) -> bool {
        matches!(
            self,
            RwMode::Read | RwMode::RandRead | RwMode::ReadWrite | RwMode::RandRw
        )
    }
    /// Whether the job writes data (a trim alone writes none).
    pub fn writes(self) -> bool {
        matches!(
            self,
            RwMode::Write
                | RwMode::RandWrite
                | RwMode::ReadWrite
                | RwMode::RandRw
                | RwMode::TrimWrite
                | RwMode::RandTrimWrite
        )
    }
    /// Whether the job trims (discards) blocks.
    pub fn trims(self) -> bool {
        matches!(
            self,
            RwMode::Trim | RwMode::RandTrim | RwMode::TrimWrite | RwMode::RandTrimWrite
        )
    }
    /// Whether the job's offsets and block sizes are the write side's:
    /// writes, and trims too (fio's `bs=R,W,T`, whose trim size defaults to
    /// the write size; diskbench trims with the write side's sizes, and the
    /// worker turns those targets into trims).
    pub fn uses_write_side(self) -> bool {
        self.writes() || self.trims()
    }
}

/// Where a job's I/O goes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FileTarget {
    /// `filename=`: a file or block device the user named. It is kept after the run.
    Named(PathBuf),
    /// `directory=` (default: the current directory) with `nrfiles` files per
    /// clone, created in a fresh subdirectory and removed after the run.
    /// With `shared` set, every job and clone naming the same directory and
    /// name uses one file, created (and laid out) once: the suites use this
    /// so seven tests do not lay out seven files.
    Generated {
        directory: PathBuf,
        nrfiles: u32,
        shared: Option<String>,
    },
}

/// fio's `fadvise_hint`: the access pattern announced to the kernel with
/// posix_fadvise when a job's files are opened, for buffered I/O (the page
/// cache's readahead is what the advice steers; direct I/O bypasses it, so
/// with `direct=1` the hint changes nothing and is not sent).
/// fio's `unified_rw_reporting`: how a job's directions are reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnifiedRw {
    /// `none` (`0`, fio's default): reads, writes and trims apart.
    #[default]
    None,
    /// `mixed` (`1`): summed as one direction, `mixed`, in their place.
    Mixed,
    /// `both` (`2`): apart, then summed.
    Both,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FadviseHint {
    /// `0`: no advice.
    None,
    /// `1` (fio's default): random for random patterns, sequential otherwise.
    #[default]
    Workload,
    Sequential,
    Random,
    /// POSIX_FADV_NORMAL: the kernel's default readahead. fio 3.33 does not
    /// take this value; diskbench accepts it as the explicit "undo" of a hint.
    Normal,
}

impl FadviseHint {
    pub fn parse(text: &str) -> Option<FadviseHint> {
        Some(match text {
            "0" => FadviseHint::None,
            "1" => FadviseHint::Workload,
            "sequential" => FadviseHint::Sequential,
            "random" => FadviseHint::Random,
            "normal" => FadviseHint::Normal,
            _ => return None,
        })
    }
    pub fn fio_name(self) -> &'static str {
        match self {
            FadviseHint::None => "0",
            FadviseHint::Workload => "1",
            FadviseHint::Sequential => "sequential",
            FadviseHint::Random => "random",
            FadviseHint::Normal => "normal",
        }
    }
    pub const NAMES: &'static str = "0, 1, sequential, random or normal";
}

/// fio's `rate_process`: how rated I/Os are spaced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RateProcess {
    /// Evenly: one I/O every `1/rate`.
    #[default]
    Linear,
    /// Exponentially distributed gaps of mean `1/rate`: a Poisson arrival process.
    Poisson,
}

fn default_rate_cycle_ms() -> u64 {
    1000
}

/// `rate`, `rate_iops`, `rate_min`, `rate_iops_min`, `rate_process`,
/// `rate_cycle`, `rate_ignore_thinktime`. Zero means "no limit" in every field,
/// as in fio.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateSpec {
    pub bytes_per_sec: PerDir<u64>,
    /// Used when `bytes_per_sec` is 0 for the direction; with several block
    /// sizes fio counts each I/O as one of the smallest, so this caps bytes
    /// at `iops * min bs` (checked with fio 3.33: bssplit=4k/50:64k/50,
    /// rate_iops=100 does 12 IOPS, 400 KiB/s).
    pub iops: PerDir<u64>,
    /// The job fails when a direction does less than this over a `cycle_ms`.
    pub min_bytes_per_sec: PerDir<u64>,
    pub min_iops: PerDir<u64>,
    pub process: RateProcess,
    #[serde(default = "default_rate_cycle_ms")]
    pub cycle_ms: u64,
    /// After a thinktime stall, carry on at the rate instead of catching up.
    pub ignore_thinktime: bool,
}

impl Default for RateSpec {
    fn default() -> RateSpec {
        RateSpec {
            bytes_per_sec: PerDir::default(),
            iops: PerDir::default(),
            min_bytes_per_sec: PerDir::default(),
            min_iops: PerDir::default(),
            process: RateProcess::Linear,
            cycle_ms: default_rate_cycle_ms(),
            ignore_thinktime: false,
        }
    }
}

impl RateSpec {
    /// Whether any direction has a cap.
    pub fn caps(&self) -> bool {
        [self.bytes_per_sec, self.iops]
            .iter()
            .any(|p| p.read > 0 || p.write > 0)
    }
    /// Whether any direction has a floor.
    pub fn floors(&self) -> bool {
        [self.min_bytes_per_sec, self.min_iops]
            .iter()
            .any(|p| p.read > 0 || p.write > 0)
    }
}

/// `thinktime` and friends: a stall after every `blocks` I/Os.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThinkTime {
    /// The whole stall (zero: no thinktime).
    pub think: Duration,
    /// The part of the stall spent busy on the CPU (`thinktime_spin`); the rest is slept.
    pub spin: Duration,
    #[serde(default = "one")]
    pub blocks: u32,
    /// `thinktime_blocks_type=issue`: count issued I/Os, not completed ones.
    pub on_issue: bool,
    /// `thinktime_iotime`: also stall once this much time of I/O has passed
    /// (zero: never). Given alone, `blocks` is `u32::MAX` (no count), as fio
    /// ignores its default of 1 then.
    #[serde(default)]
    pub iotime: Duration,
}

impl Default for ThinkTime {
    fn default() -> ThinkTime {
        ThinkTime {
            think: Duration::ZERO,
            spin: Duration::ZERO,
            blocks: 1,
            on_issue: false,
            iotime: Duration::ZERO,
        }
    }
}

/// `startdelay`: a fixed delay, or a range each clone draws from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DelayRange {
    pub min: Duration,
    pub max: Duration,
}

/// fio's per-job log files (`write_bw_log=NAME` and friends): `NAME_bw.N.log`
/// for the job's thread N (counted from 1 over the whole run, as fio does).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogSpec {
    pub bw: Option<String>,
    pub iops: Option<String>,
    /// `write_lat_log`: three files, `_slat`, `_clat` and `_lat`.
    pub lat: Option<String>,
    /// `log_avg_msec`: one line per direction per interval of this length
    /// (0: one line per I/O, fio's default).
    pub avg_msec: u64,
    /// `log_offset`: each line also gives the I/O's offset.
    pub offset: bool,
    /// `write_hist_log`: `NAME_clat_hist.N.log`, completion-latency
    /// histograms in fio's bins (see `model::fio_plat`).
    #[serde(default)]
    pub hist: Option<String>,
    /// `log_hist_msec`: one histogram line per direction per interval of
    /// this length (0: the file stays empty, as in fio).
    #[serde(default)]
    pub hist_msec: u64,
    /// `log_hist_coarseness`: each logged bin sums 2^N of fio's bins (0-6).
    #[serde(default)]
    pub hist_coarseness: u32,
    /// `log_max_value`: windowed latency lines give the window's largest
    /// value instead of its mean.
    #[serde(default)]
    pub max_value: bool,
    /// `log_window_value=both`: every line gives two values, the window's
    /// mean and its largest (0 on a line of one I/O).
    #[serde(default)]
    pub both_values: bool,
    /// `log_issue_time`: every line ends with the I/O's issue time in ns
    /// from the job's start, in the clat and slat logs (0 in the others and
    /// on windowed lines).
    #[serde(default)]
    pub issue_time: bool,
    /// `per_job_logs=0`: the clones (and jobs) that share a log name write
    /// one file, `NAME_bw.log`, instead of one per thread.
    #[serde(default)]
    pub shared: bool,
    /// `log_prio`: the priority column is each I/O's ioprio value in hex
    /// (`0x2000`), not 1 for the real-time class and 0 for the rest.
    #[serde(default)]
    pub prio: bool,
    /// `log_compression=N`: fio keeps its logs in memory and compresses
    /// them in chunks of N bytes to save memory. diskbench writes the lines
    /// to the file as the job runs, so memory stays flat without it; with
    /// `store_compressed`, N is the size of each compressed chunk.
    #[serde(default)]
    pub compression: u64,
    /// `log_store_compressed`: the bandwidth, IOPS and latency logs are
    /// written as fio stores them compressed (`NAME_bw.N.log.fz`, zlib
    /// streams of fio's binary samples), for `--inflate-log`.
    #[serde(default)]
    pub store_compressed: bool,
}

impl LogSpec {
    pub fn any(&self) -> bool {
        self.bw.is_some() || self.iops.is_some() || self.lat.is_some() || self.hist.is_some()
    }
}

fn default_percentiles() -> Vec<f64> {
    crate::DEFAULT_PERCENTILES.to_vec()
}

/// What fio's `steadystate` judges over its rolling window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SteadyMetric {
    /// Every second's IOPS within the limit of the window's mean.
    Iops,
    /// The least-squares slope of IOPS within the limit.
    IopsSlope,
    Bw,
    BwSlope,
    /// Every measurement's mean completion latency within the limit of
    /// the window's mean (fio 3.42's `lat`).
    Lat,
    /// The least-squares slope of the mean completion latency (`lat_slope`).
    LatSlope,
}

impl SteadyMetric {
    pub fn fio_name(self) -> &'static str {
        match self {
            SteadyMetric::Iops => "iops",
            SteadyMetric::IopsSlope => "iops_slope",
            SteadyMetric::Bw => "bw",
            SteadyMetric::BwSlope => "bw_slope",
            SteadyMetric::Lat => "lat",
            SteadyMetric::LatSlope => "lat_slope",
        }
    }
}

/// fio's `steadystate=METRIC:LIMIT[%]`, `ss_dur`, `ss_ramp`: the job stops
/// when the last `duration` seconds (after `ramp`) meet the limit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SteadyStateSpec {
    pub metric: SteadyMetric,
    pub limit: f64,
    /// The limit is a percentage of the window's mean (else absolute).
    pub percent: bool,
    pub duration: Duration,
    pub ramp: Duration,
    /// `steadystate_check_interval` (`ss_interval`): the window is judged
    /// in measurements of this length (fio's default, one second).
    #[serde(default = "one_second")]
    pub interval: Duration,
}

fn one_second() -> Duration {
    Duration::from_secs(1)
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobSpec {
    pub name: String,
    pub rw: RwMode,
    /// Percentage of reads in mixed workloads (`rwmixread`; `rwmixwrite` is 100 minus it).
    pub rwmix_read_pct: u32,
    pub bs_bytes: u64,
    /// `size`: bytes of I/O space per clone, split evenly over its `nrfiles`
    /// files; `None` = the size of the named file or device.
    pub size_bytes: Option<u64>,
    pub offset_bytes: u64,
    pub target: FileTarget,
    pub numjobs: u32,
    pub iodepth: u32,
    /// `iodepth_batch_submit`: I/Os handed to the kernel per submit call
    /// (fio's default 1: each as soon as it is prepared).
    pub iodepth_batch_submit: u32,
    pub engine: EngineKind,
    pub direct: bool,
    /// Drop the file's pages from the cache before a buffered run (`invalidate`).
    pub invalidate: bool,
    /// `fsync=N`: fsync after every N writes (0 = never).
    pub fsync_every: u32,
    /// `fdatasync=N`: fdatasync after every N writes (0 = never).
    pub fdatasync_every: u32,
    pub end_fsync: bool,
    pub runtime: Option<Duration>,
    pub time_based: bool,
    pub ramp_time: Duration,
    pub loops: u32,
    /// `randrepeat`: the same random sequence on every run (fio's default).
    pub randrepeat: bool,
    pub randseed: u64,
    /// `randseed=` was given: the sequence comes from it whatever
    /// `randrepeat` says (fio: randseed overrides randrepeat=0).
    #[serde(default)]
    pub randseed_given: bool,
    pub group_reporting: bool,
    /// `thread`: fio runs the job's clones as threads rather than
    /// processes (diskbench always uses threads; fio's normal output counts
    /// them apart: `Starting 1 thread and 2 processes`).
    #[serde(default)]
    pub thread: bool,
    /// `bs_is_seq_rand`: `bs=A,B` gave the sizes of sequential and random
    /// I/Os, not of reads and writes (fio's normal output says so).
    #[serde(default)]
    pub bs_is_seq_rand: bool,
    /// Each direction's smallest and largest block size as the job gave
    /// them (`bs`, `bsrange`, `bssplit`), before `bs_is_seq_rand` and a
    /// direction the job does not use were settled: what fio's normal
    /// output prints (`bs=(R) 4096B-4096B, (W) 8192B-8192B`). `None`:
    /// `block_sizes` (a job not made from fio's options).
    #[serde(default)]
    pub bs_as_given: Option<BsAsGiven>,
    /// `new_group`: this job starts a new reporting group (a new `groupid`)
    /// although it runs at the same time as the jobs before it (only
    /// `stonewall` makes a job wait). Set only where it splits jobs that run
    /// together: the first job of a group starts one anyway.
    #[serde(default)]
    pub new_group: bool,
    /// fio's `flow`, `flow_id`, `flow_sleep`: see [`crate::control::Flow`].
    #[serde(default)]
    pub flow: crate::control::Flow,
    /// `fadvise_hint`: advice given on each file at the start of a buffered job.
    #[serde(default)]
    pub fadvise_hint: FadviseHint,
    /// `gtod_reduce`: fio turns off its latency clocks to save time; diskbench's
    /// timestamps are already cheap (TSC, batched), so it keeps measuring and
    /// reports latencies anyway (the CLI says so on stderr).
    #[serde(default)]
    pub gtod_reduce: bool,
    /// `percentile_list`: the percentiles reported, in the order given (fio's
    /// default: [`crate::DEFAULT_PERCENTILES`]).
    #[serde(default = "default_percentiles")]
    pub percentile_list: Vec<f64>,
    /// `clat_percentiles`: report completion-latency percentiles (fio: on).
    #[serde(default = "default_true")]
    pub clat_percentiles: bool,
    /// `lat_percentiles`: report total-latency percentiles (fio: off).
    #[serde(default)]
    pub lat_percentiles: bool,
    /// `description`: free text, shown with the job as fio does.
    #[serde(default)]
    pub description: Option<String>,
    /// `unified_rw_reporting`: the job's reads, writes and trims reported
    /// apart (fio's default), summed as one `mixed` direction, or both.
    #[serde(default)]
    pub unified_rw: UnifiedRw,
    /// `bs=R,W`, `bsrange`, `bssplit`: each direction's block sizes; `None`:
    /// every I/O is `bs_bytes`. When set, `bs_bytes` is the largest size of
    /// either direction, which sizes the buffers and the regions.
    #[serde(default)]
    pub block_sizes: Option<PerDir<BlockSizes>>,
    /// `blockalign`: random offsets are multiples of this (0: the
    /// direction's smallest block size, fio's default).
    #[serde(default)]
    pub blockalign_bytes: PerDir<u64>,
    /// `bs_unaligned`: a `bsrange` gives any size between its ends, not
    /// only multiples of the smallest.
    #[serde(default)]
    pub bs_unaligned: bool,
    #[serde(default)]
    pub rate: RateSpec,
    #[serde(default)]
    pub thinktime: ThinkTime,
    #[serde(default)]
    pub random: RandomSpec,
    #[serde(default)]
    pub file_service: FileServiceSpec,
    /// `io_size`: bytes to transfer per clone and loop, instead of `size`
    /// (which still bounds where the I/O goes).
    #[serde(default)]
    pub io_size_bytes: Option<u64>,
    /// `number_ios`: at most this many I/Os per clone and loop (fio ignores
    /// it in a time-based job, which loops until its runtime).
    #[serde(default)]
    pub number_ios: Option<u64>,
    /// `startdelay`: each clone waits this long (drawn from the range) before its first I/O.
    #[serde(default)]
    pub startdelay: DelayRange,
    /// `cpus_allowed`: the CPUs the job's threads may run on.
    #[serde(default)]
    pub cpus_allowed: Option<Vec<u32>>,
    /// `cpus_allowed_policy=split`: each thread of the run gets one CPU of
    /// `cpus_allowed`, the Nth thread the Nth CPU, round robin (`shared`,
    /// fio's default: every thread may run on all of them).
    #[serde(default)]
    pub cpus_split: bool,
    /// `fsync_on_close`: fsync each file when the job closes it.
    #[serde(default)]
    pub fsync_on_close: bool,
    /// `iodepth_low`: once the queue is full, let it drain to this before
    /// filling it again (`None`: keep it full, fio's default).
    #[serde(default)]
    pub iodepth_low: Option<u32>,
    /// `serialize_overlap`: an I/O overlapping one in flight waits for it.
    #[serde(default)]
    pub serialize_overlap: bool,
    /// `iodepth_batch_complete_min`: completions to wait for per reap (0: poll).
    #[serde(default = "one")]
    pub iodepth_batch_complete_min: u32,
    /// `iodepth_batch_complete_max`: completions handled per reap at most
    /// (0: as many as `iodepth_batch_complete_min`, as in fio; with a min
    /// of 0 too, no cap).
    #[serde(default)]
    pub iodepth_batch_complete_max: u32,
    /// `slat_percentiles`: report submission-latency percentiles (fio: off).
    #[serde(default)]
    pub slat_percentiles: bool,
    /// `write_*_log` and `log_*`.
    #[serde(default)]
    pub logs: LogSpec,
    /// `kb_base`, `unit_base`.
    #[serde(default)]
    pub units: crate::units::OutputUnits,
    /// fio's `steadystate`/`ss` (with a non-zero `ss_dur`).
    #[serde(default)]
    pub steadystate: Option<SteadyStateSpec>,
    /// fio's `verify*` (with a `verify` other than `0`).
    #[serde(default)]
    pub verify: Option<crate::verify::VerifySpec>,
    /// fio's file-handling options (`filesize`, `fallocate`, `unlink`, ...).
    #[serde(default)]
    pub file_options: crate::fileopts::FileOptions,
    /// fio's `iomem`/`mem`.
    #[serde(default)]
    pub iomem: crate::memory::IoMem,
    /// fio's io_uring options (`fixedbufs`, `sqthread_poll`, `hipri`, ...).
    #[serde(default)]
    pub uring: crate::memory::UringOptions,
    /// fio's `offset_increment` and `rw=` offset modifier.
    #[serde(default)]
    pub offset_steps: OffsetSteps,
    /// fio's `exitall`, `exit_what`, `exitall_on_error`.
    #[serde(default)]
    pub exit_rules: crate::control::ExitRules,
    /// fio's `continue_on_error`, `ignore_error`, `error_dump`.
    #[serde(default)]
    pub errors: crate::errors::ErrorPolicy,
    /// fio's `fill_device` (`fill_fs`): the job writes until the filesystem
    /// is full (ENOSPC or EDQUOT ends it without error); its size defaults
    /// to the free space.
    #[serde(default)]
    pub fill_device: bool,
    /// What the writes carry: fio's buffer options (see `model::data`).
    #[serde(default)]
    pub buffer_data: crate::data::BufferData,
    /// The options as the user gave them, in order: echoed as fio's `job options`.
    pub options: Vec<(String, String)>,
    /// `write_iolog`, `read_iolog` and the replay options.
    #[serde(default)]
    pub iolog: crate::iolog::IoLogSpec,
    /// `stat_type` of `filestat` and `dirstat`.
    #[serde(default)]
    pub stat_type: crate::engine_kind::StatCall,
    /// `ioengine=cpuio`: the load it burns.
    #[serde(default)]
    pub cpuio: Option<crate::cpuio::CpuLoad>,
    /// `latency_target` and its options: the depth searched while the job runs.
    #[serde(default)]
    pub latency_target: crate::LatencyTarget,
    /// `prio`, `prioclass`, `priohint`, the engines' `cmdprio*`, `log_prio`.
    #[serde(default)]
    pub prio: crate::prio::PrioSpec,
    /// `numa_cpu_nodes`, `numa_mem_policy`.
    #[serde(default)]
    pub numa: crate::numa::NumaSpec,
    /// `sprandom` and its options: a preconditioning pass in place of the
    /// random offsets.
    #[serde(default)]
    pub sprandom: SpRandom,
}

/// fio's default seed when `randrepeat=1`.
pub const DEFAULT_RANDSEED: u64 = 0x89;

impl JobSpec {
    /// The seed the job's random numbers start from when they repeat from
    /// run to run: `randseed` with `randrepeat=1` (fio's default) or with a
    /// `randseed=` given, which fio lets override `randrepeat=0`. `None`:
    /// the run takes a fresh seed from the system, as fio does then.
    pub fn repeatable_seed(&self) -> Option<u64> {
        (self.randrepeat || self.randseed_given).then_some(self.randseed)
    }

    /// A job with fio's defaults: sequential 4 KiB reads, one clone, QD1, psync, buffered.
    pub fn new(name: impl Into<String>) -> JobSpec {
        JobSpec {
            name: name.into(),
            rw: RwMode::Read,
            rwmix_read_pct: 50,
            bs_bytes: 4096,
            size_bytes: None,
            offset_bytes: 0,
            target: FileTarget::Generated {
                directory: PathBuf::from("."),
                nrfiles: 1,
                shared: None,
            },
            numjobs: 1,
            iodepth: 1,
            iodepth_batch_submit: 1,
            engine: EngineKind::Sync,
            direct: false,
            invalidate: true,
            fsync_every: 0,
            fdatasync_every: 0,
            end_fsync: false,
            runtime: None,
            time_based: false,
            ramp_time: Duration::ZERO,
            loops: 1,
            randrepeat: true,
            randseed: DEFAULT_RANDSEED,
            randseed_given: false,
            group_reporting: false,
            thread: false,
            bs_is_seq_rand: false,
            bs_as_given: None,
            new_group: false,
            flow: Default::default(),
            fadvise_hint: FadviseHint::Workload,
            gtod_reduce: false,
            percentile_list: default_percentiles(),
            clat_percentiles: true,
            lat_percentiles: false,
            description: None,
            unified_rw: UnifiedRw::None,
            block_sizes: None,
            blockalign_bytes: PerDir::default(),
            bs_unaligned: false,
            rate: RateSpec::default(),
            thinktime: ThinkTime::default(),
            random: RandomSpec::default(),
            file_service: FileServiceSpec::default(),
            io_size_bytes: None,
            number_ios: None,
            startdelay: DelayRange::default(),
            cpus_allowed: None,
            cpus_split: false,
            fsync_on_close: false,
            iodepth_low: None,
            serialize_overlap: false,
            iodepth_batch_complete_min: 1,
            iodepth_batch_complete_max: 0,
            slat_percentiles: false,
            logs: LogSpec::default(),
            units: crate::units::OutputUnits::default(),
            steadystate: None,
            verify: None,
            file_options: Default::default(),
            iomem: Default::default(),
            uring: Default::default(),
            cpuio: None,
            stat_type: Default::default(),
            offset_steps: Default::default(),
            exit_rules: Default::default(),
            errors: Default::default(),
            fill_device: false,
            buffer_data: Default::default(),
            options: Vec::new(),
            iolog: Default::default(),
            latency_target: Default::default(),
            prio: Default::default(),
            numa: Default::default(),
            sprandom: Default::default(),
        }
    }

    /// Whether the job changes its files' data: a write or trim mode (a
    /// trim destroys data as a write does, so it passes the same guards),
    /// unless `verify_only` (which only reads back what an earlier run wrote).
    pub fn writes_data(&self) -> bool {
        self.rw.uses_write_side() && !self.verify.as_ref().is_some_and(|v| v.only)
    }

    /// Whether the job's files get real data before it starts: it reads
    /// them, or its engine cannot make them longer (`mmap`, as fio lays out
    /// the files its FIO_NOEXTEND engines write).
    pub fn lays_out_data(&self) -> bool {
        self.rw.reads() || !self.engine.extends_files()
    }

    /// The block sizes of `dir`.
    pub fn block_sizes_of(&self, dir: Direction) -> BlockSizes {
        match &self.block_sizes {
            Some(sizes) => sizes.get(dir).clone(),
            None => BlockSizes::fixed(self.bs_bytes),
        }
    }

    /// Total bytes the job's files hold, over all clones (what must fit on disk).
    pub fn footprint_bytes(&self) -> u64 {
        if let Some(range) = self.file_options.filesize {
            // Each file at most the top of the range (fio's offset lies inside it).
            let files = match &self.target {
                FileTarget::Generated {
                    nrfiles,
                    shared: None,
                    ..
                } => u64::from(*nrfiles) * u64::from(self.numjobs),
                _ => 1,
            };
            return range.max_bytes.saturating_mul(files);
        }
        let size = self.size_bytes.unwrap_or(0);
        // One file for all clones reaches past the last clone's region:
        // `offset + (numjobs - 1) * offset_increment + size`, laid out whole
        // (30 stripes 124 GiB apart need 3.6 TiB of a regular file).
        let shared_extent = || {
            let last_clone = u64::from(self.numjobs.max(1) - 1);
            self.offset_bytes
                .saturating_add(last_clone.saturating_mul(self.offset_steps.increment))
                .saturating_add(size)
        };
        match &self.target {
            FileTarget::Named(_) => shared_extent(),
            FileTarget::Generated {
                shared: Some(_), ..
            } => shared_extent(),
            FileTarget::Generated { .. } => size * self.numjobs as u64,
        }
    }
}
