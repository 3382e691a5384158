//! "Is this disk good enough for etcd / PostgreSQL / ...?" answered with a
//! verdict instead of a table of figures.
//!
//! Why it exists: the question people bring to a disk benchmark is rarely
//! "how many IOPS" but whether the storage is fast enough for a program,
//! and the programs publish their own rules (etcd: the 99th percentile of
//! its write-ahead log's fdatasync under 10 ms; PostgreSQL: use the fastest
//! `wal_sync_method` pg_test_fsync finds). The rules and the I/O pattern
//! each one is about are data here (`catalogue/workloads.toml`), each
//! threshold with the document, address and date it comes from; where no
//! source gives a number, the figure is given without a verdict.
//!
//! What this crate does not do: run anything or print. A caller (the
//! `diskbench fit` command, or a Kubernetes pod) turns a check's fio
//! options into jobs ([`Check::fio_args`]), runs them, and hands the
//! finished run to [`judge`]; [`text`] writes the verdicts in words and the
//! [`Report`] is serialisable for `--json`.

pub mod catalogue;
pub mod figures;
pub mod judge;
pub mod pods;
pub mod promise;
pub mod soak;
pub mod sure;
pub mod text;

pub use catalogue::{catalogue, Check, Figure, Requirement, Source, Workload};
pub use judge::{judge, Judged, Report, Verdict};

/// What `fit` cannot do with what it was asked, and what would work.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    #[error(
        "there is no workload '{given}': the workloads are {known} (`diskbench fit` lists them)"
    )]
    UnknownWorkload { given: String, known: String },
    #[error("the requirement catalogue is broken: {0} (a bug in catalogue/workloads.toml)")]
    Catalogue(String),
}
