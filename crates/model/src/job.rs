//! A job as fio understands it, validated: every front end (fio options,
//! suites, profiles) compiles to a list of these, and the runner needs
//! nothing else.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    #[default]
    Read,
    Write,
}

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
        }
    }
    pub fn is_random(self) -> bool {
        matches!(self, RwMode::RandRead | RwMode::RandWrite | RwMode::RandRw)
    }
    pub fn reads(self) -> bool {
        !matches!(self, RwMode::Write | RwMode::RandWrite)
    }
    pub fn writes(self) -> bool {
        !matches!(self, RwMode::Read | RwMode::RandRead)
    }
}

/// fio's `ioengine=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    /// pread/pwrite, one I/O at a time (fio's `sync` and `psync`).
    Sync,
    IoUring,
    Libaio,
    /// No I/O at all: measures the tool itself.
    Null,
}

impl EngineKind {
    pub fn parse(text: &str) -> Option<EngineKind> {
        Some(match text {
            "sync" | "psync" => EngineKind::Sync,
            "io_uring" => EngineKind::IoUring,
            "libaio" => EngineKind::Libaio,
            "null" => EngineKind::Null,
            _ => return None,
        })
    }
    pub fn fio_name(self) -> &'static str {
        match self {
            EngineKind::Sync => "psync",
            EngineKind::IoUring => "io_uring",
            EngineKind::Libaio => "libaio",
            EngineKind::Null => "null",
        }
    }
    pub const NAMES: &'static str = "sync, psync, io_uring, libaio, null";
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

fn default_true() -> bool {
    true
}

fn default_percentiles() -> Vec<f64> {
    crate::DEFAULT_PERCENTILES.to_vec()
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
    pub group_reporting: bool,
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
    /// The options as the user gave them, in order: echoed as fio's `job options`.
    pub options: Vec<(String, String)>,
}

/// fio's default seed when `randrepeat=1`.
pub const DEFAULT_RANDSEED: u64 = 0x89;

impl JobSpec {
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
            group_reporting: false,
            fadvise_hint: FadviseHint::Workload,
            gtod_reduce: false,
            percentile_list: default_percentiles(),
            clat_percentiles: true,
            lat_percentiles: false,
            description: None,
            options: Vec::new(),
        }
    }

    /// Total bytes the job's files hold, over all clones (what must fit on disk).
    pub fn footprint_bytes(&self) -> u64 {
        match &self.target {
            FileTarget::Named(_) => self.size_bytes.unwrap_or(0),
            FileTarget::Generated {
                shared: Some(_), ..
            } => self.size_bytes.unwrap_or(0),
            FileTarget::Generated { .. } => self.size_bytes.unwrap_or(0) * self.numjobs as u64,
        }
    }
}
