//! Inputs the fuzz targets (`fuzz/`) found to panic, kept as tests; each
//! names the target that found it.

use diskbench_model::Histogram;

/// fuzz/import_json: fio JSON whose `clat_ns` has `"min": 12` and no `max`
/// was imported as a histogram with min above max, and every percentile of
/// it then panicked (`clamp` with min > max) in `diskbench show`, `export`
/// and the reports. The stored form is checked the same way.
#[test]
fn a_histogram_whose_min_is_above_its_max() {
    let text = r#"{"n":1,"min":12,"max":0,"sum":12,"sum_sq":144.0,"buckets":[[12,1]]}"#;
    let h: Histogram = serde_json::from_str(text).unwrap();
    assert!(h.min() <= h.max(), "min {} max {}", h.min(), h.max());
    for p in [0.0, 50.0, 99.99, 100.0] {
        assert_eq!(h.percentile(p), 12, "p{p}");
    }
}

/// The same family as above (stored histograms are hostile input too): bucket
/// counts that add up past u64 overflowed while reading (a panic in debug
/// builds, wrapped counts in release). They are refused instead.
#[test]
fn a_histogram_whose_counts_overflow() {
    let text = r#"{"n":2,"min":1,"max":1,"sum":2,"sum_sq":2.0,"buckets":[[1,18446744073709551615],[1,1]]}"#;
    let read = serde_json::from_str::<Histogram>(text);
    assert!(read.is_err(), "counts past u64 must be refused");
}
