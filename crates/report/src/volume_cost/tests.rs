use super::*;
use crate::testutil::{dir, job, point, run, spec};
use model::volume::{BurstModel, BurstUnit, VolumeReport};
use model::{DirStats, EngineKind, RunKind, RwMode};

/// gp2 at 100 GiB as the catalogue gives it: $10 a month.
fn gp2() -> VolumeModel {
    VolumeModel {
        spec: "aws:gp2:100GiB".into(),
        provider: "aws".into(),
        volume_type: "gp2".into(),
        size_gib: 100.0,
        baseline_iops: 300.0,
        baseline_bytes_per_sec: 128.0 * 1048576.0,
        burst: Some(BurstModel {
            unit: BurstUnit::Iops,
            ceiling: 3000.0,
            bucket: 5_400_000.0,
            refill_per_sec: 300.0,
            time_scale: 1.0,
        }),
        price: Some(VolumePrice {
            currency: "USD".into(),
            as_of: "2025-06-01".into(),
            capacity_month: 10.0,
            source: "catalogue".into(),
            ..VolumePrice::default()
        }),
        ..VolumeModel::default()
    }
}

/// A 4k random-read run: `levels` IOPS, 10 seconds each.
fn record(id: i64, levels: &[u64]) -> RunRecord {
    record_of(id, levels, 4096)
}

/// A random-read run of `bs`-byte reads: `levels` IOPS, 10 seconds each.
fn record_of(id: i64, levels: &[u64], bs: u64) -> RunRecord {
    let mut series = Vec::new();
    let mut t = 0;
    for &iops in levels {
        for _ in 0..10 {
            series.push(point(t, 1000, (iops, iops * bs), (0, 0)));
            t += 1000;
        }
    }
    let ios: u64 = series.iter().map(|p| p.read_ios).sum();
    let secs = series.len() as u64;
    let j = job(
        spec("gp2", RwMode::RandRead, bs, 8, EngineKind::Libaio),
        dir(&[(1_000_000, ios)], bs, secs * 1_000_000_000, None),
        DirStats::default(),
        series,
    );
    let mut result = run(vec![j]);
    result.volume = Some(VolumeReport {
        model: Some(gp2()),
        ..VolumeReport::default()
    });
    RunRecord {
        id,
        kind: RunKind::Fio,
        labels: [("disk".to_string(), "gp2".to_string())].into(),
        prices: Default::default(),
        result,
        soak: None,
        state: Default::default(),
        uuid: String::new(),
    }
}

#[test]
fn a_cliff_gives_the_burst_and_the_sustained_cost() {
    let rows = volume_costs(&[record(1, &[3000, 300])], &[], &PriceOverrides::default());
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!((r.burst_iops, r.sustained_iops), (3000.0, 300.0));
    assert!(!r.sustained_from_model);
    // $10 over 3,000 IOPS and over 300 IOPS.
    assert!((r.per_iops_burst().unwrap() - 10.0 / 3000.0).abs() < 1e-12);
    assert!((r.per_iops_sustained().unwrap() - 10.0 / 300.0).abs() < 1e-12);
    let mbps = 300.0 * 4096.0 / 1e6;
    assert!((r.per_mbps_sustained().unwrap() - 10.0 / mbps).abs() < 1e-9);
    let text = render(&rows);
    assert!(text.contains("0.0033") && text.contains("0.0333"), "{text}");
    assert!(
        text.contains("catalogue prices") && text.contains("2025-06-01"),
        "{text}"
    );
}

#[test]
fn runs_that_ended_while_bursting_take_the_model_s_baseline_and_say_so() {
    let rows = volume_costs(&[record(1, &[3000, 3000])], &[], &PriceOverrides::default());
    let r = &rows[0];
    assert_eq!((r.burst_iops, r.sustained_iops), (3000.0, 300.0));
    assert!(r.sustained_from_model);
    assert!(render(&rows).contains("model's baseline"));
}

/// 128 reads of 1 MiB a second on a 100 GiB gp2 are 512 of its 256 KiB
/// I/Os: above its 300 IOPS baseline, so the runs ended while it still
/// burst and what lasts is the baseline, 75 reads of 1 MiB. Held against
/// the job's own 128 IOPS, the burst looked sustained.
#[test]
fn large_ios_are_counted_as_the_provider_counts_before_taking_the_baseline() {
    let mut r = record_of(1, &[128, 128], 1 << 20);
    if let Some(m) = r.result.volume.as_mut().and_then(|v| v.model.as_mut()) {
        m.io_accounting_bytes = Some(256 << 10);
    }
    let rows = volume_costs(&[r], &[], &PriceOverrides::default());
    let r = &rows[0];
    assert!(r.sustained_from_model, "{r:?}");
    assert!((r.sustained_iops - 75.0).abs() < 1e-9, "{r:?}");
    assert!(
        (r.sustained_mbps - 75.0 * 1048576.0 / 1e6).abs() < 1e-6,
        "{r:?}"
    );
}

#[test]
fn overrides_replace_the_catalogue_s_price_and_say_so() {
    let o = PriceOverrides {
        per_gib_month: Some(0.2),
        ..PriceOverrides::default()
    };
    let rows = volume_costs(&[record(1, &[3000, 300])], &[], &o);
    assert!((rows[0].monthly - 20.0).abs() < 1e-9);
    assert!(render(&rows).contains("--price-* overrides"));
}

#[test]
fn runs_without_a_volume_give_no_rows() {
    let mut r = record(1, &[3000, 300]);
    r.result.volume = None;
    assert!(volume_costs(&[r], &[], &PriceOverrides::default()).is_empty());
    assert_eq!(render(&[]), "");
}
