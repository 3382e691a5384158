//! The data every part of diskbench shares: what to run ([`JobSpec`]), what came
//! out ([`RunResult`]), units and latency histograms.
//!
//! This crate does no I/O on purpose: front ends (the fio parser, the suites)
//! build `JobSpec`s, the runner turns them into `RunResult`s, and the reports
//! and the history only read them. Keeping the model pure makes every stage
//! testable on its own.

pub mod block_sizes;
pub mod control;
pub mod cpuio;
pub mod data;
pub mod depth;
pub mod direction;
pub mod disk;
pub mod engine_kind;
pub mod errors;
pub mod failure;
pub mod fault;
pub mod fileopts;
pub mod fio_plat;
pub mod histogram;
pub mod history;
pub mod imported;
pub mod iolog;
pub mod job;
pub mod latency_target;
pub mod memory;
pub mod numa;
pub mod placement;
pub mod prio;
pub mod result;
pub mod rng;
mod serde_defaults;
pub mod stability;
pub mod units;
pub mod verify;
pub mod volume;
pub mod warning;

pub use depth::DepthStats;
pub use direction::{Direction, PerDir};
pub use disk::DiskUtil;
pub use failure::{Failure, FailureKind};
pub use fault::{FaultKind, FaultParseError, FaultRule};
pub use histogram::Histogram;
pub use history::{LivePoint, Prices, RunKind, RunRecord, RunState, SoakRef, WorkloadReport};
pub use imported::Imported;
pub use job::{
    EngineKind, FadviseHint, FileTarget, JobSpec, RwMode, SteadyMetric, SteadyStateSpec, UnifiedRw,
};
pub use latency_target::LatencyTarget;
pub use memory::{BufferMemory, IoMem, MemoryKind, UringOptions};
pub use result::{
    CpuUsage, DirStats, HostInfo, JobResult, RunResult, SeriesPoint, SteadyStateResult, TargetInfo,
};
pub use stability::{Stability, StableStop};
pub use verify::{VerifyAlgo, VerifyResult, VerifySpec};
pub use volume::VolumeReport;
pub use warning::Warning;

/// fio's default percentile list, used when a job names none.
pub const DEFAULT_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];
