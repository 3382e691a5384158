//! What a group's disk costs, and what it costs per unit of performance:
//! Brian Cunnie's 2018 benchmark of cloud disks weighed gp2 against io1 and Azure Standard against Premium by
//! price as much as by speed.
//!
//! # Rules
//!
//! - **Prices** are the runs' `--price-*` values ([`model::Prices`]). All
//!   runs of a group must carry the same prices; if they differ the costs
//!   are "mixed" (no single figure). A group with no prices has no costs.
//! - **Capacity** (only needed with a per-GiB price): the `size` label
//!   (`20GiB`, `500G`, `1.5TiB`, `256 GB`), read with fio's rules, so every
//!   suffix is a power of two, as clouds bill their "GB-months" in GiB;
//!   without the label, the target's `device_bytes`. Runs whose capacities
//!   differ make the costs "mixed"; an unknown capacity leaves them unknown.
//! - **Monthly cost** = `per_month`
//!   + `per_gib_month` × capacity in GiB
//!   + `per_million_ios` × (mean IOPS × 2,592,000 s / 10^6).
//!
//!   A month is 30 days (2,592,000 s). The I/O term assumes the disk does
//!   the measured mean IOPS all month long: the worst case Brian Cunnie's 2018 benchmark of cloud disks
//!   computed for Azure Standard ($0.0005 per 10,000 I/Os at 500 IOPS =
//!   $64.80 a month). Absent prices count as 0.
//! - **Cost per 1000 IOPS** = monthly cost / (mean IOPS / 1000).
//! - **Cost per MB/s** = monthly cost / mean Read MB/s.
//!
//!   Either is unknown when its figure is missing or 0.
//!
//! No currency is assumed: the figures are in whatever the prices were in.

use model::{Prices, RunRecord};

/// Seconds in the 30-day month the monthly cost is computed for.
pub const SECONDS_PER_MONTH: f64 = 2_592_000.0;

/// The label that says a disk's provisioned size.
pub const SIZE_LABEL: &str = "size";

/// A group's costs.
#[derive(Clone, Debug, PartialEq)]
pub enum Cost {
    /// No run of the group has prices.
    Unpriced,
    /// The runs' prices or capacities differ: why.
    Mixed(String),
    /// Priced, but a figure the price needs is missing: why.
    Unknown(String),
    Known(CostFigures),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostFigures {
    pub monthly: f64,
    pub per_1000_iops: Option<f64>,
    pub per_mb_per_s: Option<f64>,
    /// The capacity the per-GiB price was applied to, when there is one.
    pub capacity_gib: Option<f64>,
}

impl Cost {
    pub fn figures(&self) -> Option<&CostFigures> {
        match self {
            Cost::Known(f) => Some(f),
            _ => None,
        }
    }
}

/// Why a run's capacity is unknown, and what to add to know it.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum CapacityUnknown {
    #[error("the {label} label '{0}' is not a size (e.g. 20GiB)", label = SIZE_LABEL)]
    BadLabel(String),
    #[error(
        "capacity unknown: add a label {label}=20GiB (the device size is unknown)",
        label = SIZE_LABEL
    )]
    NoSize,
}

/// A run's capacity in bytes by the rules above; `Err` says why it is unknown.
pub fn capacity_bytes(record: &RunRecord) -> Result<u64, CapacityUnknown> {
    if let Some(size) = record.labels.get(SIZE_LABEL) {
        let compact: String = size.chars().filter(|c| !c.is_whitespace()).collect();
        return model::units::parse_size(&compact)
            .map_err(|_| CapacityUnknown::BadLabel(size.clone()));
    }
    record
        .result
        .targets
        .first()
        .and_then(|t| t.device_bytes)
        .ok_or(CapacityUnknown::NoSize)
}

/// The costs of a group of runs with the given mean IOPS and Read MB/s.
pub fn group_cost(runs: &[&RunRecord], mean_iops: Option<f64>, mean_read: Option<f64>) -> Cost {
    let Some(first) = runs.first() else {
        return Cost::Unpriced;
    };
    let prices: Prices = first.prices;
    if runs.iter().any(|r| r.prices != prices) {
        return Cost::Mixed("the runs' prices differ".into());
    }
    if prices.is_empty() {
        return Cost::Unpriced;
    }
    let mut monthly = prices.per_month.unwrap_or(0.0);
    let mut capacity_gib = None;
    if let Some(per_gib) = prices.per_gib_month {
        let capacities: Result<Vec<u64>, _> = runs.iter().map(|r| capacity_bytes(r)).collect();
        let capacities = match capacities {
            Ok(c) => c,
            Err(why) => return Cost::Unknown(why.to_string()),
        };
        if capacities.iter().any(|&c| c != capacities[0]) {
            return Cost::Mixed("the runs' capacities differ".into());
        }
        let gib = capacities[0] as f64 / (1u64 << 30) as f64;
        capacity_gib = Some(gib);
        monthly += per_gib * gib;
    }
    if let Some(per_million) = prices.per_million_ios {
        let Some(iops) = mean_iops else {
            return Cost::Unknown("a price per I/O needs an IOPS figure".into());
        };
        monthly += per_million * iops * SECONDS_PER_MONTH / 1e6;
    }
    let per = |figure: Option<f64>, unit: f64| {
        figure
            .filter(|&v| v > 0.0 && v.is_finite())
            .map(|v| monthly / (v / unit))
    };
    Cost::Known(CostFigures {
        monthly,
        per_1000_iops: per(mean_iops, 1000.0),
        per_mb_per_s: per(mean_read, 1.0),
        capacity_gib,
    })
}
