//! Cloud volumes: what the providers publish about their disks (the
//! catalogue, data in `catalogue/*.toml`), the figures a declared volume
//! should give ([`resolve`]), what the machine says about itself
//! ([`detect`]), the prediction before a run and the verdicts after it
//! ([`predict`]).
//!
//! Why it exists: a 3,000 IOPS result on a 100 GiB gp2 volume is a burst
//! that ends after 33 minutes, not the disk's speed. Holding each figure
//! against the published model says which it is. Nothing is guessed: what
//! cannot be known from inside a VM (gp2 or gp3) must be declared.
//!
//! Pure except for [`detect`], which reads a sysfs tree.

pub mod catalogue;
pub mod counting;
pub mod detect;
pub mod figures;
pub mod listing;
pub mod predict;
pub mod spec;

pub use catalogue::Catalogue;
pub use figures::resolve;
pub use spec::VolumeSpec;

/// A declaration that is wrong, with what would be right.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VolumeError {
    #[error("--volume '{given}': {why} (e.g. aws:gp2:100GiB, aws:gp3:500GiB:iops=6000:mbps=250, azure:P10, gcp:pd-ssd:200GB)")]
    Syntax { given: String, why: String },
    #[error("--volume: '{given}' is not a size: use e.g. 100GiB, 200GB or 2TiB")]
    BadSize { given: String },
    #[error("--volume: unknown provider '{given}': the known ones are {known}")]
    UnknownProvider { given: String, known: String },
    #[error("--volume: {provider} has no volume type '{given}': the known ones are {known}")]
    UnknownType {
        provider: String,
        given: String,
        known: String,
    },
    #[error("--type {given} is a volume type of several providers ({providers}): give one, e.g. diskbench volumes {first} --type {given}")]
    TypeOfSeveralProviders {
        given: String,
        providers: String,
        first: String,
    },
    #[error("--type {given} is no provider's volume type: the known ones are {known}")]
    TypeOfNoProvider { given: String, known: String },
    #[error("--volume: {volume_type} needs a size, e.g. {example}")]
    NoSize {
        volume_type: String,
        example: String,
    },
    #[error("--volume: {size} GiB is outside {volume_type}'s sizes ({min} to {max} GiB)")]
    SizeOutOfRange {
        volume_type: String,
        size: f64,
        min: f64,
        max: f64,
    },
    #[error("--volume: {volume_type} does not let you choose {what}; drop {option}")]
    NotProvisioned {
        volume_type: String,
        what: String,
        option: String,
    },
    #[error("--volume: {volume_type} needs {what}, e.g. {example}")]
    MissingFigure {
        volume_type: String,
        what: String,
        example: String,
    },
    #[error("--volume: {what} {given} is outside {volume_type}'s range ({min} to {max})")]
    OutOfRange {
        volume_type: String,
        what: String,
        given: f64,
        min: f64,
        max: f64,
    },
    #[error("--volume: {given} IOPS on {size} GiB is above {volume_type}'s {ratio} IOPS per GiB (at most {most} IOPS at this size)")]
    AboveRatio {
        volume_type: String,
        given: f64,
        size: f64,
        ratio: f64,
        most: f64,
    },
    #[error("--volume: {given} {unit} is above {volume_type}'s {ratio} {unit} per provisioned IOPS (at most {most} {unit} with {iops} IOPS)")]
    ThroughputAboveRatio {
        volume_type: String,
        given: f64,
        unit: String,
        ratio: f64,
        iops: f64,
        most: f64,
    },
    #[error(
        "--volume: size {size} GiB does not match tier {tier} ({tier_size} GiB); give one of them"
    )]
    TierSizeMismatch {
        tier: String,
        tier_size: f64,
        size: f64,
    },
}
