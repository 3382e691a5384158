//! What a declared volume (`--volume`) costs per IOPS and per MB/s while
//! it bursts and once it has stopped: a 100 GiB gp2 at $10 a month is
//! $0.0033 per IOPS at its 3,000 IOPS burst and $0.033 at its 300 IOPS
//! baseline, and only the second lasts. `compare` prints one row per group
//! of runs with a volume.
//!
//! # Rules
//!
//! - **Monthly price**: the volume's list price kept with the run (the
//!   catalogue's, with its date), capacity + provisioned IOPS and
//!   throughput; a price per million I/Os is charged at the sustained rate
//!   all month. `--price-gib-month`, `--price-iops-month` and
//!   `--price-mbps-month` of `compare` replace the catalogue's parts.
//! - **Burst and sustained figures** come from the runs' first job. A soak
//!   (or a run) whose series has a cliff gives its level before (burst) and
//!   after (sustained). Without a cliff the measured mean is the burst
//!   figure, and the sustained one is the same unless it is above the
//!   model's baseline: then the runs ended before the bucket did, and the
//!   sustained figure is the model's baseline, marked `*`. "Above" is in
//!   the bucket's unit and the provider's count: I/Os for an IOPS bucket
//!   (a 1 MiB read is four of EBS's 256 KiB I/Os), bytes for a
//!   throughput bucket (st1 counts each I/O as at least 1 MiB).
//! - Per IOPS = monthly / IOPS; per MB/s = monthly / (MB/s, 10^6 bytes).

use crate::cliff::{within_run, CliffReport};
use crate::soak::SoakTracker;
use model::volume::{BurstUnit, VolumeModel, VolumePrice};
use model::RunRecord;
use std::collections::BTreeMap;

/// Seconds in the 30-day month prices are per.
const SECONDS_PER_MONTH: f64 = 2_592_000.0;

/// `compare`'s price overrides, each replacing one part of the list price.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PriceOverrides {
    pub per_gib_month: Option<f64>,
    pub per_iops_month: Option<f64>,
    pub per_throughput_month: Option<f64>,
}

impl PriceOverrides {
    fn is_empty(&self) -> bool {
        *self == PriceOverrides::default()
    }

    /// The volume's monthly price with the overrides applied.
    pub fn apply(&self, m: &VolumeModel) -> Option<VolumePrice> {
        let mut p = m.price.clone()?;
        if self.is_empty() {
            return Some(p);
        }
        if let Some(g) = self.per_gib_month {
            p.capacity_month = g * m.size_gib;
        }
        if let Some(i) = self.per_iops_month {
            p.iops_month = i * p.billed_iops;
        }
        if let Some(t) = self.per_throughput_month {
            p.throughput_month = t * p.billed_throughput;
        }
        p.source = "--price-* overrides".into();
        Some(p)
    }
}

/// One group's row.
#[derive(Clone, Debug, PartialEq)]
pub struct VolumeCost {
    pub group: String,
    pub spec: String,
    pub price: VolumePrice,
    pub monthly: f64,
    pub burst_iops: f64,
    pub sustained_iops: f64,
    pub burst_mbps: f64,
    pub sustained_mbps: f64,
    /// The sustained figures are the model's baseline (no cliff measured).
    pub sustained_from_model: bool,
    pub runs: usize,
}

impl VolumeCost {
    pub fn per_iops_burst(&self) -> Option<f64> {
        per(self.monthly, self.burst_iops)
    }
    pub fn per_iops_sustained(&self) -> Option<f64> {
        per(self.monthly, self.sustained_iops)
    }
    pub fn per_mbps_burst(&self) -> Option<f64> {
        per(self.monthly, self.burst_mbps)
    }
    pub fn per_mbps_sustained(&self) -> Option<f64> {
        per(self.monthly, self.sustained_mbps)
    }
}

fn per(monthly: f64, figure: f64) -> Option<f64> {
    (figure > 0.0 && figure.is_finite()).then(|| monthly / figure)
}

/// The rows for the runs that carry a volume model, grouped by the `by`
/// labels (all labels when none) and the volume.
pub fn volume_costs(
    runs: &[RunRecord],
    by: &[String],
    overrides: &PriceOverrides,
) -> Vec<VolumeCost> {
    let mut groups: BTreeMap<(String, String), Vec<&RunRecord>> = BTreeMap::new();
    for r in runs {
        let Some(m) = r.result.volume.as_ref().and_then(|v| v.model.as_ref()) else {
            continue;
        };
        let labels: Vec<String> = r
            .labels
            .iter()
            .filter(|(k, _)| by.is_empty() || by.contains(k))
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        groups
            .entry((labels.join(","), m.spec.clone()))
            .or_default()
            .push(r);
    }
    groups
        .into_iter()
        .filter_map(|((group, spec), runs)| row(group, spec, &runs, overrides))
        .collect()
}

/// Burst and sustained (IOPS, bytes/s) of one soak or run, and whether a cliff gave them.
fn unit_figures(runs: &[&RunRecord]) -> Option<(f64, f64, f64, f64, bool)> {
    let cliff: CliffReport = if runs.len() == 1 {
        within_run(runs[0].result.jobs.first()?)
    } else {
        let mut t = SoakTracker::default();
        for (k, r) in runs.iter().enumerate() {
            t.add(k as u32 + 1, &r.result);
        }
        let first = &runs[0].result.jobs.first()?.name;
        t.verdicts().into_iter().find(|v| &v.name == first)?.cliff
    };
    if cliff.detected {
        return Some((
            cliff.before_iops,
            cliff.after_iops,
            cliff.before_bytes_per_sec,
            cliff.after_bytes_per_sec,
            true,
        ));
    }
    let (mut ios, mut bytes, mut ns) = (0u64, 0u64, 0u64);
    for r in runs {
        let j = r.result.jobs.first()?;
        ios += j.read.ios + j.write.ios;
        bytes += j.read.bytes + j.write.bytes;
        ns += j.runtime_ns;
    }
    let s = ns as f64 / 1e9;
    (s > 0.0).then(|| {
        (
            ios as f64 / s,
            ios as f64 / s,
            bytes as f64 / s,
            bytes as f64 / s,
            false,
        )
    })
}

fn row(group: String, spec: String, runs: &[&RunRecord], o: &PriceOverrides) -> Option<VolumeCost> {
    let m = runs[0].result.volume.as_ref()?.model.as_ref()?;
    let price = o.apply(m)?;
    // Each soak is one unit (its runs laid end to end); each lone run another.
    let mut units: BTreeMap<String, Vec<&RunRecord>> = BTreeMap::new();
    for r in runs {
        let key = r
            .soak
            .as_ref()
            .map_or(format!("run {}", r.id), |s| s.id.clone());
        units.entry(key).or_default().push(r);
    }
    let mut figures = Vec::new();
    for (_, mut unit) in units {
        unit.sort_by_key(|r| r.soak.as_ref().map_or(0, |s| s.run));
        figures.extend(unit_figures(&unit));
    }
    if figures.is_empty() {
        return None;
    }
    let n = figures.len() as f64;
    let mean = |f: fn(&(f64, f64, f64, f64, bool)) -> f64| figures.iter().map(f).sum::<f64>() / n;
    let (burst_iops, burst_bytes) = (mean(|f| f.0), mean(|f| f.2));
    let (mut sustained_iops, mut sustained_bytes) = (mean(|f| f.1), mean(|f| f.3));
    let any_cliff = figures.iter().any(|f| f.4);
    let mut from_model = false;
    // The sustained figures as the provider counts them (a 1 MiB I/O is
    // four of EBS's 256 KiB ones; st1 counts each I/O as at least 1 MiB),
    // in the unit of the bucket, against its baseline.
    let mean_io = match sustained_iops > 0.0 {
        true => sustained_bytes / sustained_iops,
        false => 0.0,
    };
    let (counted, baseline) = match m.burst.map(|b| b.unit) {
        Some(BurstUnit::Iops) => (sustained_iops * m.counted_per_io(mean_io), m.baseline_iops),
        Some(BurstUnit::Bytes) => (
            sustained_iops * m.counted_bytes_per_io(mean_io),
            m.baseline_bytes_per_sec,
        ),
        None => (0.0, 0.0),
    };
    if !any_cliff && counted > baseline * 1.05 {
        // Still bursting when the runs ended: what lasts is the baseline, at the same I/O size.
        let scale = baseline / counted;
        sustained_iops *= scale;
        sustained_bytes *= scale;
        from_model = true;
    }
    let io_charge = price
        .per_million_ios
        .map_or(0.0, |p| p * sustained_iops * SECONDS_PER_MONTH / 1e6);
    Some(VolumeCost {
        group,
        spec,
        monthly: price.monthly() + io_charge,
        price,
        burst_iops,
        sustained_iops,
        burst_mbps: burst_bytes / 1e6,
        sustained_mbps: sustained_bytes / 1e6,
        sustained_from_model: from_model,
        runs: runs.len(),
    })
}

/// The table `compare` prints under its own.
pub fn render(rows: &[VolumeCost]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let head = [
        "group",
        "volume",
        "runs",
        "month",
        "burst IOPS",
        "sustained IOPS",
        "per IOPS burst",
        "per IOPS sustained",
        "burst MB/s",
        "sustained MB/s",
        "per MB/s burst",
        "per MB/s sustained",
    ];
    let money = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.4}"));
    let mark = |r: &VolumeCost| if r.sustained_from_model { "*" } else { "" };
    let mut table: Vec<Vec<String>> = vec![head.iter().map(|s| s.to_string()).collect()];
    for r in rows {
        table.push(vec![
            if r.group.is_empty() {
                "(no labels)".into()
            } else {
                r.group.clone()
            },
            r.spec.clone(),
            r.runs.to_string(),
            format!("{:.2}", r.monthly),
            format!("{:.0}", r.burst_iops),
            format!("{:.0}{}", r.sustained_iops, mark(r)),
            money(r.per_iops_burst()),
            money(r.per_iops_sustained()),
            format!("{:.1}", r.burst_mbps),
            format!("{:.1}{}", r.sustained_mbps, mark(r)),
            money(r.per_mbps_burst()),
            money(r.per_mbps_sustained()),
        ]);
    }
    let widths: Vec<usize> = (0..head.len())
        .map(|c| {
            table
                .iter()
                .map(|row| row[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out =
        String::from("\nVolume cost, per month (burst: before the cliff; sustained: after it):\n");
    for row in &table {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, w))| {
                if i < 2 {
                    format!("{c:<w$}")
                } else {
                    format!("{c:>w$}")
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    let mut prices: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{}: {} {} a month, {} prices ({}, as of {})",
                r.spec,
                format_args!("{:.2}", r.monthly),
                r.price.currency,
                r.price.source,
                r.price.region,
                r.price.as_of
            )
        })
        .collect();
    prices.dedup();
    for p in prices {
        out.push_str(&format!("  {p}\n"));
    }
    if rows.iter().any(|r| r.sustained_from_model) {
        out.push_str("  * no cliff in the runs, which ended while the volume still burst: the sustained figure is the model's baseline\n");
    }
    out
}

#[cfg(test)]
mod tests;
