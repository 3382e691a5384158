use super::*;

fn p(setting: f64, iops: f64, p99_us: f64) -> CurvePoint {
    CurvePoint {
        setting,
        iops,
        p99_us,
    }
}

#[test]
fn a_device_at_its_limit_from_qd1_has_its_knee_at_the_first_point() {
    // 4000 IOPS whatever the depth; latency grows with depth (Little's law).
    let flat: Vec<CurvePoint> = [1.0, 2.0, 4.0, 8.0]
        .iter()
        .map(|&qd| p(qd, 4000.0 + qd, qd / 4000.0 * 1e6 * 1.2))
        .collect();
    let v = judge_curve(&flat, &KneeRules::default()).unwrap();
    assert_eq!(v.knee, Some(0));
    assert!(v.saturated(), "{v:?}");
}

#[test]
fn a_curve_that_climbs_then_bends_has_its_knee_at_the_bend() {
    let curve = [
        p(1.0, 10_000.0, 120.0),
        p(2.0, 19_000.0, 130.0),
        p(4.0, 36_000.0, 150.0),
        p(8.0, 50_000.0, 220.0),
        p(16.0, 51_000.0, 500.0),
        p(32.0, 51_500.0, 1100.0),
    ];
    let v = judge_curve(&curve, &KneeRules::default()).unwrap();
    assert_eq!(v.knee, Some(3), "{v:?}");
    assert_eq!(v.peak, 5);
    assert!(v.saturated());
}

#[test]
fn a_curve_still_climbing_at_its_end_is_not_saturated() {
    let curve = [
        p(1.0, 10_000.0, 100.0),
        p(2.0, 19_000.0, 105.0),
        p(4.0, 30_000.0, 140.0),
    ];
    let v = judge_curve(&curve, &KneeRules::default()).unwrap();
    assert_eq!((v.knee, v.peak, v.saturated()), (None, 2, false));
    let one = judge_curve(&curve[..1], &KneeRules::default()).unwrap();
    assert!(!one.saturated() && one.knee.is_none());
    assert!(judge_curve(&[], &KneeRules::default()).is_none());
}

#[test]
fn a_flat_step_without_a_latency_cost_is_no_knee() {
    let curve = [p(1.0, 1000.0, 100.0), p(2.0, 1010.0, 110.0)];
    let v = judge_curve(&curve, &KneeRules::default()).unwrap();
    assert_eq!(v.knee, None);
    assert!(v.saturated(), "a flat last step is saturated");
}

/// Flat from QD4 to QD16 with p99 rising, then climbing to twice the IOPS
/// at QD64: QD4 is no knee (larger settings beat it by far more than 5%),
/// and the curve is not saturated. A knee and "not saturated" never come
/// together.
#[test]
fn a_plateau_that_climbs_again_is_no_knee() {
    let curve = [
        p(1.0, 10_000.0, 100.0),
        p(2.0, 18_000.0, 110.0),
        p(4.0, 27_000.0, 150.0),
        p(8.0, 27_500.0, 400.0),
        p(16.0, 28_000.0, 500.0),
        p(32.0, 40_000.0, 600.0),
        p(64.0, 58_000.0, 700.0),
    ];
    let v = judge_curve(&curve, &KneeRules::default()).unwrap();
    assert_eq!((v.knee, v.saturated()), (None, false), "{v:?}");
    for end in 2..=curve.len() {
        for start in 0..end - 1 {
            let v = judge_curve(&curve[start..end], &KneeRules::default()).unwrap();
            assert!(v.knee.is_none() || v.saturated(), "{start}..{end}: {v:?}");
        }
    }
    // Cut at QD16 the plateau is the end of the curve: its knee is QD4.
    let v = judge_curve(&curve[..5], &KneeRules::default()).unwrap();
    assert_eq!((v.knee, v.saturated()), (Some(2), true), "{v:?}");
}

#[test]
fn littles_law() {
    assert!((littles_law_depth(4000.0, 2000.0) - 8.0).abs() < 1e-9);
}
