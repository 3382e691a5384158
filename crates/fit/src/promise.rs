//! `fit --volume`: what the declared cloud volume promises, put beside
//! each requirement it says something about. A requirement on syncs or
//! writes per second is bound by the volume's IOPS (every sync waits for
//! at least one write, so at B IOPS syncs average at least 1/B seconds),
//! a throughput requirement by its MB/s. The catalogue of volumes gives
//! no latency for any volume, and that is said rather than left out, so
//! the reader does not take silence for a promise.

use crate::catalogue::Figure;
use crate::judge::Report;
use model::volume::{BurstUnit, VolumeModel};
use serde::{Deserialize, Serialize};

/// What the volume's promise is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromiseOf {
    /// I/Os per second: binds syncs and writes per second.
    Iops,
    /// Bytes per second: binds a throughput figure.
    Throughput,
}

/// The volume's promise beside one requirement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Promise {
    /// The declared volume, e.g. `aws:gp2:100GiB`.
    pub volume: String,
    pub of: PromiseOf,
    /// The rate the volume holds for as long as it runs (IOPS or bytes/s),
    /// the instance's cap included when it is lower.
    pub baseline: f64,
    /// The rate while burst credits last, when the volume bursts in this unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<f64>,
    /// For a latency of syncs: the least mean a sync can have at the
    /// baseline, one write each (ns); `None` for the other figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub least_sync_ns: Option<f64>,
    /// The volume's latency promise: the catalogue of volumes gives none.
    pub latency: Option<f64>,
    /// The promise in words, beside the verdict.
    pub words: String,
}

fn grouped(v: f64) -> String {
    model::units::thousands(v.round().max(0.0) as u64)
}

/// The volume's promise about `figure`.
pub fn promise(m: &VolumeModel, figure: Figure) -> Promise {
    let instance = m.instance.as_ref();
    let (of, volume_rate, instance_rate, burst_unit) = match figure {
        Figure::WriteMbS => (
            PromiseOf::Throughput,
            m.baseline_bytes_per_sec,
            instance.map(|i| i.baseline_bytes_per_sec),
            BurstUnit::Bytes,
        ),
        Figure::SyncP99 | Figure::WriteOps | Figure::CommitEstimate => (
            PromiseOf::Iops,
            m.baseline_iops,
            instance.map(|i| i.baseline_iops),
            BurstUnit::Iops,
        ),
    };
    let capped = instance_rate.filter(|&i| i > 0.0 && i < volume_rate);
    let baseline = capped.unwrap_or(volume_rate);
    let burst = m
        .burst
        .filter(|b| b.unit == burst_unit && b.ceiling > baseline)
        .map(|b| b.ceiling);
    let rate = |v: f64| match of {
        PromiseOf::Iops => format!("{} IOPS", grouped(v)),
        PromiseOf::Throughput => format!("{:.1} MB/s", v / 1e6),
    };
    let mut words = format!("{}: {} baseline", m.spec, rate(baseline));
    if capped.is_some() {
        words.push_str(" (the instance's cap, under the volume's own)");
    }
    if let Some(b) = burst {
        words.push_str(&format!(", {} while burst credits last", rate(b)));
    }
    let sync_bound = matches!(figure, Figure::SyncP99 | Figure::CommitEstimate);
    let least_sync_ns = (sync_bound && baseline > 0.0).then(|| 1e9 / baseline);
    if let Some(ns) = least_sync_ns {
        words.push_str(&format!(
            "; once the credits are spent, a sync waiting for one write averages at least {}",
            crate::text::ms(ns)
        ));
    }
    if of == PromiseOf::Iops {
        words.push_str("; the catalogue of volumes gives no latency for it");
    }
    Promise {
        volume: m.spec.clone(),
        of,
        baseline,
        burst,
        least_sync_ns,
        latency: None,
        words,
    }
}

/// Puts the volume's promise beside every requirement of `report`.
pub fn attach(report: &mut Report, m: &VolumeModel) {
    for j in &mut report.requirements {
        j.volume = Some(promise(m, j.figure));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::volume::{BurstModel, InstanceLimit};

    fn gp2_100() -> VolumeModel {
        VolumeModel {
            spec: "aws:gp2:100GiB".into(),
            baseline_iops: 300.0,
            baseline_bytes_per_sec: 128.0 * 1024.0 * 1024.0,
            burst: Some(BurstModel {
                unit: BurstUnit::Iops,
                ceiling: 3000.0,
                bucket: 5_400_000.0,
                refill_per_sec: 300.0,
                time_scale: 1.0,
            }),
            ..VolumeModel::default()
        }
    }

    #[test]
    fn a_sync_bound_rule_gets_the_iops_and_the_least_mean_sync_they_allow() {
        let p = promise(&gp2_100(), Figure::SyncP99);
        assert_eq!(p.of, PromiseOf::Iops);
        assert_eq!(p.baseline, 300.0);
        assert_eq!(p.burst, Some(3000.0));
        // 300 IOPS: one write each, 1/300 s.
        assert!((p.least_sync_ns.unwrap() - 1e9 / 300.0).abs() < 1e-6);
        assert!(p.words.contains("300 IOPS baseline"), "{}", p.words);
        assert!(p.words.contains("3,000 IOPS while burst"), "{}", p.words);
        assert!(p.words.contains("3.33 ms"), "{}", p.words);
        assert!(p.words.contains("gives no latency"), "{}", p.words);
    }

    #[test]
    fn a_throughput_rule_gets_the_throughput_and_no_iops_burst() {
        let p = promise(&gp2_100(), Figure::WriteMbS);
        assert_eq!(p.of, PromiseOf::Throughput);
        assert_eq!(p.baseline, 128.0 * 1024.0 * 1024.0);
        // gp2's credits are I/Os: they say nothing of its MB/s.
        assert_eq!(p.burst, None);
        assert_eq!(p.least_sync_ns, None);
        assert!(p.words.contains("134.2 MB/s baseline"), "{}", p.words);
    }

    #[test]
    fn an_instance_cap_under_the_volume_is_the_promise_and_is_named() {
        let mut m = gp2_100();
        m.instance = Some(InstanceLimit {
            instance_type: "t3.nano".into(),
            baseline_iops: 250.0,
            ..InstanceLimit::default()
        });
        let p = promise(&m, Figure::WriteOps);
        assert_eq!(p.baseline, 250.0);
        assert!(p.words.contains("instance's cap"), "{}", p.words);
    }
}
