use super::*;
use crate::testutil::dir;
use model::{JobResult, JobSpec, RunKind, RunRecord};

/// A run of one randread job at `qd` with `iops` and every latency `lat_us`.
fn point_run(id: i64, sweep: &str, qd: u32, iops: u64, lat_us: u64) -> RunRecord {
    let mut spec = JobSpec::new("sweep");
    spec.rw = model::RwMode::RandRead;
    spec.iodepth = qd;
    spec.options = vec![("bs".into(), "4k".into())];
    let second = 1_000_000_000;
    let job = JobResult {
        read: dir(&[(lat_us * 1000, iops)], 4096, second, None),
        runtime_ns: second,
        ..JobResult::empty(&spec, 0, 1)
    };
    RunRecord {
        id,
        kind: RunKind::Fio,
        labels: [(SWEEP_LABEL.to_string(), sweep.to_string())].into(),
        prices: Default::default(),
        result: RunResult {
            jobs: vec![job],
            started_unix_ms: id as u64,
            ..Default::default()
        },
        soak: None,
        state: Default::default(),
        uuid: String::new(),
    }
}

/// A device at 4000 IOPS from QD1: latency is depth / 4000 s.
fn flat_sweep(sweep: &str, first_id: i64) -> Vec<RunRecord> {
    [1u32, 2, 4, 8]
        .iter()
        .enumerate()
        .map(|(i, &qd)| point_run(first_id + i as i64, sweep, qd, 4000, u64::from(qd) * 250))
        .collect()
}

#[test]
fn a_flat_curve_says_more_depth_buys_only_latency() {
    let runs = flat_sweep("a", 1);
    let lines = lines(&runs, &[]);
    assert_eq!(lines.len(), 1);
    let (name, points) = &lines[0];
    assert_eq!(name, "a: randread 4k");
    assert_eq!(
        points.iter().map(|p| p.iodepth).collect::<Vec<_>>(),
        [1, 2, 4, 8]
    );
    assert!((points[2].depth_kept() - 4.0).abs() < 0.01, "{points:?}");
    let text = verdict_text(points);
    assert!(text.contains("knee: QD1 (4000 IOPS"), "{text}");
    assert!(text.contains("buys only latency"), "{text}");
    assert!(text.contains("8.0x"), "{text}");
    assert!(!text.contains("not saturated"), "{text}");
    let table = table(points);
    assert!(table.contains("QD8") && table.contains("2.000"), "{table}");
}

/// Flat from QD4 to QD16 with p99 rising, then twice the IOPS at QD64:
/// the text may not call QD4 a knee past which depth adds under 5% and
/// then say "not saturated". It says the latter only; cut at QD16, the
/// knee's line states the one definition.
#[test]
fn a_plateau_that_climbs_again_gets_no_knee_that_another_line_refutes() {
    let curve = [
        (1u32, 10_000u64, 100u64),
        (2, 18_000, 110),
        (4, 27_000, 150),
        (8, 27_500, 400),
        (16, 28_000, 500),
        (32, 40_000, 600),
        (64, 58_000, 700),
    ];
    let runs: Vec<RunRecord> = curve
        .iter()
        .map(|&(qd, iops, lat)| point_run(i64::from(qd), "p", qd, iops, lat))
        .collect();
    let text = verdict_text(&lines(&runs, &[])[0].1);
    assert!(text.contains("not saturated"), "{text}");
    assert!(!text.contains("knee"), "{text}");
    let cut = verdict_text(&lines(&runs[..5], &[])[0].1);
    assert!(
        cut.contains(
            "knee: QD4 (27000 IOPS, p99 0.150 ms): no larger setting adds 5% IOPS to it, and the next raises p99 by over 50%"
        ),
        "{cut}"
    );
    assert!(!cut.contains("not saturated"), "{cut}");
}

#[test]
fn a_climbing_curve_is_not_saturated() {
    let runs: Vec<RunRecord> = [(1u32, 1000u64), (2, 2000), (4, 3900)]
        .iter()
        .map(|&(qd, iops)| point_run(i64::from(qd), "b", qd, iops, 1000))
        .collect();
    let text = verdict_text(&lines(&runs, &[])[0].1);
    assert!(text.contains("not saturated"), "{text}");
    assert!(text.contains("QD4"), "{text}");
    assert!(!text.contains("knee"), "{text}");
    // compare's line for a one-point sweep agrees with sweep's own text.
    let knees = knees_text(&runs[..1], &[]);
    assert!(
        knees.contains("one point, no curve") && !knees.contains("not saturated"),
        "{knees}"
    );
    let svg = crate::charts::curve_chart(&runs[..1], &[]).unwrap();
    assert!(
        svg.contains("one point: no curve") && !svg.contains("not saturated"),
        "{svg}"
    );
    let one = verdict_text(&lines(&runs[..1], &[])[0].1);
    assert!(
        one.contains("one point is no curve") && !one.contains("not saturated"),
        "{one}"
    );
}

#[test]
fn runs_that_are_not_sweep_points_are_left_out_and_each_sweep_is_a_line() {
    let mut runs = flat_sweep("a", 1);
    runs.extend(flat_sweep("b", 10));
    let mut plain = point_run(20, "x", 1, 5, 5);
    plain.labels.clear();
    runs.push(plain);
    let l = lines(&runs, &[]);
    assert_eq!(l.len(), 2);
    assert!(l.iter().all(|(_, p)| p.len() == 4));
    let svg = crate::charts::curve_chart(&runs, &[]).unwrap();
    assert_eq!(svg.matches("<polyline").count(), 2, "{svg}");
    assert!(svg.contains("knee QD1"), "{svg}");
    assert!(svg.contains("IOPS (log scale)"), "{svg}");
    assert!(crate::charts::curve_chart(&runs[8..], &[]).is_none());
}

#[test]
fn a_point_measured_several_times_is_its_median_run() {
    let mut runs = flat_sweep("a", 1);
    runs.push(point_run(20, "a", 2, 3000, 700));
    runs.push(point_run(21, "a", 2, 5000, 300));
    let l = lines(&runs, &[]);
    let qd2: Vec<&SweepPoint> = l[0].1.iter().filter(|p| p.iodepth == 2).collect();
    assert_eq!(qd2.len(), 1, "{l:?}");
    assert_eq!((qd2[0].iops, qd2[0].run_id), (4000.0, 2));
}
