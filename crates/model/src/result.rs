//! What a run produced. Base units only (bytes, nanoseconds); the reports
//! derive rates and fio's KiB/ms fields from these.

use crate::{DiskUtil, EngineKind, Histogram, JobSpec, Warning};
use serde::{Deserialize, Serialize};

pub const SCHEMA_VERSION: u32 = 1;

/// The version diskbench gives as fio's (`fio --version`, the JSON's
/// `fio version`, the terse format's second field): the fio release whose
/// output formats it writes. Tools check fio's version by matching `fio-3`
/// or reading the number after `fio-`, so it is fio's string alone;
/// diskbench's own version is [`RunResult::tool_version`], in the JSON's
/// `diskbench` block.
pub const FIO_VERSION: &str = "fio-3.33";

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub schema_version: u32,
    /// What made the run: e.g. "diskbench-0.1.0", or an imported run's
    /// "fio-3.36" (see [`RunResult::fio_version`]).
    pub tool_version: String,
    pub command_line: Vec<String>,
    pub started_unix_ms: u64,
    pub finished_unix_ms: u64,
    pub host: HostInfo,
    pub targets: Vec<TargetInfo>,
    pub jobs: Vec<JobResult>,
    /// What the kernel counted for each block device under the targets
    /// while the jobs ran (fio's `disk_util`); empty when no target is on a
    /// block device (null engine, tmpfs, a network share) and for runs saved
    /// before it was measured.
    #[serde(default)]
    pub disk_util: Vec<DiskUtil>,
    pub warnings: Vec<Warning>,
    /// Set when the run stopped early: the jobs hold what was measured until then.
    pub error: Option<String>,
    pub interrupted: bool,
    /// The failure `error` is the message of, with its kind and facts
    /// (errno, file, offset); absent from runs saved before it was kept.
    /// Set with [`RunResult::fail`], which sets all three.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<crate::Failure>,
    /// The `[global]` options of fio job files, as given: fio's JSON
    /// `global options`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub global_options: Vec<(String, String)>,
    /// For an imported run: the source document's own keys besides its
    /// jobs (fio's `time`, `global options`, `disk_util`, ...), as read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<crate::Imported>,
    /// The output of a command that is not fio-shaped (ping, meta,
    /// fileserver, gobonniego); `None` for `run`, `fio` and imports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<crate::WorkloadReport>,
    /// The cloud volume declared with `--volume` (or detected): its model,
    /// the prediction and the verdicts; absent when nothing was declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume: Option<crate::VolumeReport>,
}

impl RunResult {
    /// The version to write where fio writes its own: a run fio made
    /// (imported) keeps the version it had, a run of diskbench gives
    /// [`FIO_VERSION`].
    pub fn fio_version(&self) -> &str {
        match self.tool_version.starts_with("fio-") {
            true => &self.tool_version,
            false => FIO_VERSION,
        }
    }

    /// Records why the run failed: `error` (the message), `interrupted` and
    /// `failure` always agree because only this sets them together.
    pub fn fail(&mut self, failure: crate::Failure) {
        self.error = Some(failure.message.clone());
        self.interrupted = failure.kind == crate::FailureKind::Interrupted;
        self.failure = Some(failure);
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HostInfo {
    pub hostname: String,
    pub kernel: String,
    pub cpu_model: String,
    pub cpus: u32,
    pub mem_bytes: u64,
    /// `/etc/machine-id`: tells two machines apart when their hostnames
    /// agree (every cloud image's `localhost`, `ubuntu`), so runs saved by
    /// many hosts into one history stay apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_id: Option<String>,
    /// Who made the machine, as its firmware says (`/sys/class/dmi/id/sys_vendor`):
    /// the cloud on a cloud VM ("Amazon EC2", "Google", "DigitalOcean").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vendor: Option<String>,
    /// The machine's model as its firmware says (`/sys/class/dmi/id/product_name`):
    /// the instance type on EC2 ("m5.large"), the cloud's VM name elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product: Option<String>,
}

/// Facts about the place a run measured: enough to tell two disks apart later.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TargetInfo {
    pub path: String,
    pub filesystem: Option<String>,
    pub mount_source: Option<String>,
    pub mount_options: Option<String>,
    /// Kernel name of the whole disk, e.g. "nvme0n1" or "vda".
    pub device: Option<String>,
    pub model: Option<String>,
    pub device_bytes: Option<u64>,
    pub free_bytes: Option<u64>,
    pub rotational: Option<bool>,
    pub scheduler: Option<String>,
    pub logical_block_bytes: Option<u64>,
    /// What makes the disk a virtual one (`virtio`, `Xen`, `NVMe over TCP`,
    /// `VMware`, ...), when it is: its rotational flag and its missing
    /// model are then the hypervisor's defaults, not facts about the storage
    /// behind it (a virtio disk says rotational=1 whatever backs it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub virtual_disk: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    pub name: String,
    pub groupid: u32,
    /// How many clones (`numjobs`) were merged into this entry.
    pub clones: u32,
    pub spec: JobSpec,
    /// The engine that ran, after any fallback.
    pub engine: EngineKind,
    pub read: DirStats,
    pub write: DirStats,
    /// The trims of a trim mode (`rw=trim`, `trimwrite`, ...): fio's third
    /// direction. Left out of the saved form when there were none, so runs
    /// without trims (and those saved before trims ran) read the same.
    #[serde(default, skip_serializing_if = "DirStats::is_unused")]
    pub trim: DirStats,
    /// How long each `fsync`/`fdatasync`/`sync_file_range` of the measured
    /// phase took (fio's `sync` latencies). Left out of the saved form when
    /// the job synced nothing.
    #[serde(default, skip_serializing_if = "Histogram::is_empty")]
    pub sync: Histogram,
    /// Wall time of the measured phase (after ramp), the longest clone's.
    pub runtime_ns: u64,
    pub cpu: CpuUsage,
    /// Per-second figures of the measured phase, summed over the merged clones.
    pub series: Vec<SeriesPoint>,
    pub error: Option<String>,
    /// The failure `error` is the message of, with its facts (errno, file,
    /// offset); absent from runs saved before it was kept and from imports.
    /// Set with [`JobResult::fail`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<crate::Failure>,
    /// fio's steady-state verdict, for a job with `steadystate`.
    #[serde(default)]
    pub steadystate: Option<SteadyStateResult>,
    /// What `verify` found, for a job that verifies.
    #[serde(default)]
    pub verify: Option<crate::verify::VerifyResult>,
    /// The errors the job continued past (fio's `total_err`, `first_error`),
    /// for a job whose `continue_on_error`/`ignore_error` allows any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<crate::errors::ErrorCount>,
    /// How deep the queue really was (absent from runs saved before it was
    /// measured, and from imported runs).
    #[serde(default)]
    pub depth: crate::DepthStats,
    /// The job's I/O buffers, as measured (absent from older runs and
    /// imported ones).
    #[serde(default)]
    pub buffers: Option<crate::BufferMemory>,
    /// For an imported job: the source's own record of it, whose figures
    /// the reports print; its histograms are rebuilt from those figures, so
    /// what is derived from them is approximate (see `model::imported`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<crate::Imported>,
    /// The slices of a job run under a stability stop (`diskbench run`);
    /// `None` for a job that ran its whole runtime by rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stability: Option<crate::Stability>,
    /// The depth a job with a `latency_target` ended at (fio's
    /// `latency_depth`); `None` without one, and in older runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_depth: Option<u32>,
    /// Each clone's seed, the one its random numbers (offsets, mixes,
    /// block sizes, data) came from, in clone order: fio's
    /// `--debug=random` prints them; empty in older runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seeds: Vec<u64>,
}

/// What fio's `steadystate` found over its last window (fio's JSON
/// `steadystate` object).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SteadyStateResult {
    /// `iops_slope:20.000000%`, as fio prints it.
    pub ss: String,
    pub duration_s: u64,
    pub attained: bool,
    /// The window's measure: max deviation or |slope|, as % of the mean
    /// when the limit is a percentage.
    pub criterion: f64,
    pub percent: bool,
    pub max_deviation: f64,
    pub slope: f64,
    pub iops_mean: f64,
    pub bw_mean: f64,
    /// The window's seconds.
    pub iops: Vec<u64>,
    pub bw: Vec<u64>,
    /// For the latency criteria: the mean completion latency (ns) of the
    /// window and of each of its measurements.
    #[serde(default)]
    pub lat_mean: f64,
    #[serde(default)]
    pub lat: Vec<u64>,
}

impl JobResult {
    /// fio's `error` of the job: for a job that failed, EILSEQ (84) when
    /// `verify=` found bad data (fio's errno for it), else 1 (diskbench
    /// keeps its message, not an errno); else the errno of the first error
    /// it went on past (as fio's, with a successful exit), else 0.
    pub fn error_code(&self) -> i64 {
        let bad_data = self.verify.as_ref().is_some_and(|v| v.bad > 0);
        match (&self.error, &self.errors) {
            (Some(_), _) if bad_data => i64::from(crate::errors::EILSEQ),
            (Some(_), _) => 1,
            (None, Some(e)) => i64::from(e.first),
            (None, None) => 0,
        }
    }

    /// The failed reads or writes the job went on past: fio counts them in
    /// its `total_ios` (and `issued rwts`), not in its bytes.
    pub fn failed_ios(&self, dir: crate::Direction) -> u64 {
        self.errors.as_ref().map_or(0, |e| e.ios[dir as usize])
    }

    /// The writes (and bytes) a `verify_only` job stood for without doing
    /// them: fio counts them as issued in the write direction; `(0, 0)` for
    /// any other job or direction.
    pub fn replayed(&self, dir: crate::Direction) -> (u64, u64) {
        match (&self.verify, dir) {
            (Some(v), crate::Direction::Write) => (v.replayed_writes, v.replayed_bytes),
            _ => (0, 0),
        }
    }

    /// A job that has measured nothing yet: `spec`'s name and engine, no
    /// I/O. Every maker of results (the runner, the live history, the
    /// importers) starts from it, so a new field is set in one place.
    pub fn empty(spec: &JobSpec, groupid: u32, clones: u32) -> JobResult {
        JobResult {
            name: spec.name.clone(),
            groupid,
            clones,
            spec: spec.clone(),
            engine: spec.engine,
            read: DirStats::default(),
            write: DirStats::default(),
            trim: DirStats::default(),
            sync: Histogram::new(),
            runtime_ns: 0,
            cpu: CpuUsage::default(),
            series: Vec::new(),
            error: None,
            failure: None,
            steadystate: None,
            verify: None,
            errors: None,
            depth: crate::DepthStats::default(),
            buffers: None,
            imported: None,
            stability: None,
            latency_depth: None,
            seeds: Vec::new(),
        }
    }

    /// Records why the job failed: `error` (the message) and `failure`
    /// agree because only this sets them together.
    pub fn fail(&mut self, failure: crate::Failure) {
        self.error = Some(failure.message.clone());
        self.failure = Some(failure);
    }

    pub fn total_ios(&self) -> u64 {
        self.read.ios + self.write.ios + self.trim.ios
    }
}

/// One direction of one job (fio's `read` or `write` object).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DirStats {
    pub ios: u64,
    pub bytes: u64,
    /// Time this direction was measured for: the longest clone's, as fio reports it.
    pub runtime_ns: u64,
    /// Submission latency; `None` for engines where submitting is the I/O (sync).
    pub slat: Option<Histogram>,
    pub clat: Histogram,
    pub lat: Histogram,
    /// Response time of a rate-limited job: from the moment its schedule
    /// meant an I/O to start until its completion was seen. An I/O that
    /// starts late because an earlier one was slow is timed from when it
    /// should have started, so a stall is not hidden (coordinated omission).
    /// `None` for jobs without a rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<Histogram>,
    /// Each priority's latencies, for a job with per-I/O priorities
    /// (`cmdprio_*`); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prios: Vec<crate::prio::PrioLatency>,
}

impl DirStats {
    /// Nothing was done in this direction.
    pub fn is_unused(&self) -> bool {
        self.ios == 0 && self.bytes == 0
    }
    pub fn iops(&self) -> f64 {
        if self.runtime_ns == 0 {
            0.0
        } else {
            self.ios as f64 * 1e9 / self.runtime_ns as f64
        }
    }
    pub fn bytes_per_sec(&self) -> f64 {
        if self.runtime_ns == 0 {
            0.0
        } else {
            self.bytes as f64 * 1e9 / self.runtime_ns as f64
        }
    }
    pub fn merge(&mut self, other: &DirStats) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.runtime_ns = self.runtime_ns.max(other.runtime_ns);
        match (&mut self.slat, &other.slat) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.slat = Some(b.clone()),
            _ => {}
        }
        self.clat.merge(&other.clat);
        self.lat.merge(&other.lat);
        match (&mut self.response, &other.response) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.response = Some(b.clone()),
            _ => {}
        }
        crate::prio::merge_latencies(&mut self.prios, &other.prios);
    }
}

/// The benchmark's own CPU use (worker threads only), for fio's `usr_cpu`,
/// `sys_cpu` and `ctx`, and for the CPU-bound warning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuUsage {
    pub user_ns: u64,
    pub system_ns: u64,
    pub voluntary_ctx: u64,
    pub involuntary_ctx: u64,
    pub minor_faults: u64,
    pub major_faults: u64,
    /// The part of `system_ns` spent by io_uring's kernel threads working
    /// for the workers (buffered I/O punted to io-wq, an SQPOLL thread).
    #[serde(default)]
    pub kernel_helpers_ns: u64,
    /// The wall time these figures cover, summed over the threads: fio's
    /// `total_run_time`, which usr_cpu and sys_cpu are shares of. 0 in runs
    /// saved before it was kept (the job's runtime is used then).
    #[serde(default)]
    pub wall_ns: u64,
}

impl CpuUsage {
    pub fn add(&mut self, o: &CpuUsage) {
        self.user_ns += o.user_ns;
        self.system_ns += o.system_ns;
        self.kernel_helpers_ns += o.kernel_helpers_ns;
        self.wall_ns += o.wall_ns;
        self.voluntary_ctx += o.voluntary_ctx;
        self.involuntary_ctx += o.involuntary_ctx;
        self.minor_faults += o.minor_faults;
        self.major_faults += o.major_faults;
    }
    /// What was used between `earlier` and this reading of the same counters.
    pub fn since(&self, earlier: &CpuUsage) -> CpuUsage {
        CpuUsage {
            user_ns: self.user_ns.saturating_sub(earlier.user_ns),
            system_ns: self.system_ns.saturating_sub(earlier.system_ns),
            voluntary_ctx: self.voluntary_ctx.saturating_sub(earlier.voluntary_ctx),
            involuntary_ctx: self.involuntary_ctx.saturating_sub(earlier.involuntary_ctx),
            minor_faults: self.minor_faults.saturating_sub(earlier.minor_faults),
            major_faults: self.major_faults.saturating_sub(earlier.major_faults),
            kernel_helpers_ns: self
                .kernel_helpers_ns
                .saturating_sub(earlier.kernel_helpers_ns),
            wall_ns: self.wall_ns.saturating_sub(earlier.wall_ns),
        }
    }
    pub fn ctx(&self) -> u64 {
        self.voluntary_ctx + self.involuntary_ctx
    }
}

/// One interval of the per-second series.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesPoint {
    /// Start of the interval, from the start of the measured phase.
    pub start_ms: u64,
    /// Usually 1000; the last interval may be shorter.
    pub duration_ms: u64,
    pub read_ios: u64,
    pub read_bytes: u64,
    pub write_ios: u64,
    pub write_bytes: u64,
    /// A trim mode's trims (fio's third direction); absent in older runs.
    #[serde(default)]
    pub trim_ios: u64,
    #[serde(default)]
    pub trim_bytes: u64,
    /// The sum of the interval's completion latencies (ns), for the
    /// steady-state stop on latency; not kept in the history.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub clat_ns: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl SeriesPoint {
    pub fn add(&mut self, o: &SeriesPoint) {
        self.duration_ms = self.duration_ms.max(o.duration_ms);
        self.read_ios += o.read_ios;
        self.read_bytes += o.read_bytes;
        self.write_ios += o.write_ios;
        self.write_bytes += o.write_bytes;
        self.trim_ios += o.trim_ios;
        self.trim_bytes += o.trim_bytes;
        self.clat_ns += o.clat_ns;
    }

    /// Every I/O of the interval: reads, writes and trims.
    pub fn ios(&self) -> u64 {
        self.read_ios + self.write_ios + self.trim_ios
    }

    /// Every byte of the interval: read, written and trimmed.
    pub fn bytes(&self) -> u64 {
        self.read_bytes + self.write_bytes + self.trim_bytes
    }
}
