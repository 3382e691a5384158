//! Reasons a figure may not be what it seems. Each says what to do about it,
//! as hyperfine's warnings do; `Display` is the text users read.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Warning {
    /// A worker spent most of its wall time on the CPU.
    CpuBound { job: String, cpu_pct: f64 },
    /// Buffered I/O on a data set the page cache can hold.
    DataSetFitsInCache {
        job: String,
        data_bytes: u64,
        ram_bytes: u64,
    },
    /// The asked-for engine could not be used.
    EngineFallback {
        job: String,
        wanted: String,
        used: String,
        reason: String,
    },
    /// A file that will be read has holes: reads of holes never reach the disk.
    SparseFile {
        path: String,
        allocated_bytes: u64,
        size_bytes: u64,
    },
    /// The cache could not be dropped before a buffered run.
    CacheNotDropped { path: String, reason: String },
    /// The measured phase was too short for the figures to settle.
    ShortRun { job: String, runtime_ms: u64 },
    /// The target is not a local disk: memory (tmpfs), a network share, FUSE.
    NotALocalDisk {
        path: String,
        filesystem: String,
        /// `memory`, `network` or `fuse`.
        what: String,
    },
    /// `--inject-fault` made I/Os fail or lie on purpose: a test of error
    /// handling and verification, never a measurement.
    FaultsInjected { faults: Vec<String> },
    /// `unlink=1` left a file the user named that diskbench did not create.
    FileKept { job: String, path: String },
    /// The queue was kept shallower than `iodepth` asked, with nothing in the
    /// job (a rate, a thinktime, `iodepth_low`) that meant it to be.
    DepthNotKept {
        job: String,
        mean_depth: f64,
        iodepth: u32,
    },
    /// The device received smaller requests than the job's block size: the
    /// block layer split each I/O, so the figures are those of the smaller
    /// size. Judged only for a job that ran alone on the device with one
    /// block size and direct I/O: with other jobs, several block sizes or
    /// the page cache in between, the mean size the device saw is a mix and
    /// says nothing about splitting.
    RequestsSplit {
        job: String,
        device: String,
        asked_bytes: u64,
        received_bytes: u64,
    },
    /// The device did work that was not the job's while the job ran (more
    /// requests or bytes than the job issued): another process used it, so
    /// its counters mix in that work, and the job's figures may be lower
    /// than the disk gives alone. Judged for a direct-I/O job alone on its
    /// device; a shared device is never judged split.
    DeviceShared {
        job: String,
        device: String,
        /// What the device completed while the job ran.
        requests: u64,
        bytes: u64,
        /// What the job issued, its ramp included.
        job_ios: u64,
        job_bytes: u64,
    },
    /// A synchronous engine ran a job that asked for a deeper queue: it
    /// keeps one I/O in flight, as fio's "queue depth will be capped at 1".
    DepthCapped {
        job: String,
        engine: String,
        iodepth: u32,
    },
    /// A check made on the finished run's figures by the command that ran
    /// it (a test too short to trust, a data set a cache can hold, reads
    /// faster than the device class allows), or a warning read back from an
    /// imported document whose kind this version does not know. Kept as the
    /// words that were printed, so the history says what the run said.
    Check {
        /// What was checked, in kebab case (`too-short`, `small-data-set`).
        name: String,
        /// The test it is about, when it is about one (a data set a cache
        /// can hold is said per test); none for a check of several tests at
        /// once or of the whole run.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        job: Option<String>,
        text: String,
    },
    /// Something in the job file that diskbench carries out differently from
    /// fio (`gtod_reduce`, `random_generator`, `wait_for`), said when the job
    /// file is read; `note` says how and why.
    Approximation { note: String },
}

impl Warning {
    /// What kind of warning this is, the same for every test it is said
    /// of: the JSON's `kind` (`device_shared`), or a check's own name
    /// (`small-data-set`), so a printer can say each kind once.
    pub fn kind_name(&self) -> String {
        if let Warning::Check { name, .. } = self {
            return name.clone();
        }
        match serde_json::to_value(self) {
            Ok(v) => v["kind"].as_str().unwrap_or("warning").to_string(),
            Err(_) => "warning".to_string(),
        }
    }

    /// The test (fio's job) the warning is about, when it is about one.
    pub fn job(&self) -> Option<&str> {
        match self {
            Warning::CpuBound { job, .. }
            | Warning::DataSetFitsInCache { job, .. }
            | Warning::EngineFallback { job, .. }
            | Warning::ShortRun { job, .. }
            | Warning::FileKept { job, .. }
            | Warning::DepthNotKept { job, .. }
            | Warning::RequestsSplit { job, .. }
            | Warning::DeviceShared { job, .. }
            | Warning::DepthCapped { job, .. } => Some(job),
            Warning::Check { job, .. } => job.as_deref(),
            Warning::SparseFile { .. }
            | Warning::CacheNotDropped { .. }
            | Warning::NotALocalDisk { .. }
            | Warning::FaultsInjected { .. }
            | Warning::Approximation { .. } => None,
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::CpuBound { job, cpu_pct } => write!(
                f,
                "job '{job}': a worker was busy on the CPU {cpu_pct:.0}% of the time: the benchmark, \
                 not the disk, was the limit; raise numjobs (or iodepth with an async engine)"
            ),
            Warning::DataSetFitsInCache { job, data_bytes, ram_bytes } => write!(
                f,
                "job '{job}': buffered I/O on {} with {} of RAM: the page cache can serve it and \
                 inflate the figures; use direct=1 or a size of at least twice RAM",
                crate::units::format_bytes_binary(*data_bytes),
                crate::units::format_bytes_binary(*ram_bytes)
            ),
            Warning::EngineFallback { job, wanted, used, reason } => write!(
                f,
                "job '{job}': ioengine={wanted} is not available here ({reason}); using {used} instead"
            ),
            Warning::SparseFile { path, allocated_bytes, size_bytes } => write!(
                f,
                "{path}: only {} of its {} are allocated; reads of the holes return zeros without \
                 touching the disk. Let diskbench create the file, or fill it first",
                crate::units::format_bytes_binary(*allocated_bytes),
                crate::units::format_bytes_binary(*size_bytes)
            ),
            Warning::CacheNotDropped { path, reason } => write!(
                f,
                "{path}: could not drop cached pages before the run ({reason}); buffered reads may \
                 come from memory"
            ),
            Warning::ShortRun { job, runtime_ms } => write!(
                f,
                "job '{job}' measured for only {runtime_ms} ms; figures from so short a run are \
                 noisy: use a larger size or runtime=, time_based=1"
            ),
            Warning::NotALocalDisk { path, filesystem, what } => match what.as_str() {
                "memory" => write!(
                    f,
                    "{path} is on {filesystem}, which lives in RAM: this measures memory, not a \
                     disk; point diskbench at a directory on the disk you mean"
                ),
                "network" => write!(
                    f,
                    "{path} is on {filesystem}, a network filesystem: the figures are the \
                     network's and the server's as much as any disk's"
                ),
                _ => write!(
                    f,
                    "{path} is on {filesystem}, a FUSE filesystem: a user-space daemon sits \
                     between diskbench and the disk, and its CPU is part of every figure"
                ),
            },
            Warning::FaultsInjected { faults } => write!(
                f,
                "faults were injected on purpose ({}): this run tests error handling and \
                 verification; its figures are not a measurement of the disk",
                faults.join(", ")
            ),
            Warning::DepthNotKept { job, mean_depth, iodepth } => write!(
                f,
                "job '{job}': the device was kept at QD {mean_depth:.1} of {iodepth} (IOPS x mean \
                 lat): the benchmark refilled its queue too slowly, so the figures are those of \
                 a shallower queue; raise numjobs or use iodepth_batch_submit and \
                 iodepth_batch_complete_max to batch"
            ),
            Warning::DepthCapped { job, engine, iodepth } => write!(
                f,
                "job '{job}': iodepth={iodepth} with ioengine={engine}, which does one I/O at a \
                 time: queue depth will be capped at 1, so the figures are QD1's; use io_uring \
                 or libaio for a deeper queue"
            ),
            Warning::Approximation { note } => write!(f, "{note}"),
            Warning::FileKept { job, path } => write!(
                f,
                "job '{job}': unlink=1 left {path} in place: diskbench removes only files it \
                 created (fio would delete it); delete it yourself if you mean to"
            ),
            Warning::RequestsSplit { job, device, asked_bytes, received_bytes } => write!(
                f,
                "job '{job}': {device} received requests of {} on average for I/Os of {}: the \
                 kernel split each I/O at the device's limits (/sys/block/{device}/queue/\
                 max_sectors_kb, or max_segments times the 4 KiB pages of the buffer), so the \
                 figures are those of the smaller size; use a bs no larger than what it \
                 received, or raise max_sectors_kb (up to max_hw_sectors_kb); when max_segments \
                 is the limit, huge-page buffers need fewer segments (fio's iomem=mmaphuge)",
                crate::units::format_bytes_binary(*received_bytes),
                crate::units::format_bytes_binary(*asked_bytes)
            ),
            Warning::Check { text, .. } => f.write_str(text),
            Warning::DeviceShared { job, device, requests, bytes, job_ios, job_bytes } => {
                let not_ours = |all: u64, ours: u64| {
                    (all.saturating_sub(ours) as f64 * 100.0 / all.max(1) as f64).round()
                };
                let share = match requests > job_ios {
                    true => format!("{}% of its requests", not_ours(*requests, *job_ios)),
                    false => format!("{}% of the bytes it moved", not_ours(*bytes, *job_bytes)),
                };
                write!(
                    f,
                    "job '{job}': the device was shared: {share} during this test were not \
                     ours ({device} completed {requests} requests of {}; the job issued \
                     {job_ios} I/Os of {}): its counters mix in another's work and the job \
                     may have got less of the disk than it gives alone; measure on an idle \
                     device (`iostat -x 1` shows who else uses it)",
                    crate::units::format_bytes_binary(*bytes),
                    crate::units::format_bytes_binary(*job_bytes)
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A warning's kind is the JSON's `kind`, a check's is its own name, so
    /// a printer saying each kind once groups the same checks together.
    #[test]
    fn each_warning_names_its_kind_and_its_test() {
        let shared = Warning::CpuBound {
            job: "a".into(),
            cpu_pct: 99.0,
        };
        assert_eq!(
            (shared.kind_name().as_str(), shared.job()),
            ("cpu_bound", Some("a"))
        );
        let check = Warning::Check {
            name: "small-data-set".into(),
            job: Some("b".into()),
            text: "job 'b': ...".into(),
        };
        assert_eq!(
            (check.kind_name().as_str(), check.job()),
            ("small-data-set", Some("b"))
        );
        let faults = Warning::FaultsInjected { faults: vec![] };
        assert_eq!(
            (faults.kind_name().as_str(), faults.job()),
            ("faults_injected", None)
        );
        // A check of the whole run keeps no job, in the JSON as in memory.
        let whole = Warning::Check {
            name: "too-short".into(),
            job: None,
            text: "t".into(),
        };
        let json = serde_json::to_value(&whole).unwrap();
        assert!(json.get("job").is_none(), "{json}");
        let back: Warning = serde_json::from_value(json).unwrap();
        assert_eq!(back, whole);
    }
}
