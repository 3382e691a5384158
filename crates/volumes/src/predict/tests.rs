use super::*;
use crate::{resolve, Catalogue, VolumeSpec};

fn model(text: &str) -> VolumeModel {
    resolve(&VolumeSpec::parse(text).unwrap(), Catalogue::builtin()).unwrap()
}

fn one(m: &VolumeModel, iops: f64, bytes_per_sec: f64) -> Vec<FigureVerdict> {
    judge(
        m,
        "j",
        Measured {
            iops,
            bytes_per_sec,
        },
    )
}

#[test]
fn the_burst_ceiling_is_named_with_when_the_baseline_comes() {
    let v = one(&model("aws:gp2:100GiB"), 2998.0, 2998.0 * 4096.0);
    assert_eq!(v[0].against, "burst_ceiling");
    // 5.4 M / (2,998 - 300) = 2,001 s: about 33 minutes.
    assert_eq!(
        v[0].sentence,
        "2,998 IOPS of 4 KiB (one I/O each to gp2: I/Os up to 256 KiB count as one): the gp2 burst ceiling (3,000). Baseline 300 IOPS from about 33 min 21 s at this rate"
    );
}

#[test]
fn the_baseline_and_the_throughput_limit_are_named() {
    let v = one(&model("aws:gp2:100GiB"), 301.0, 301.0 * 4096.0);
    assert_eq!(v[0].against, "baseline");
    assert!(
        v[0].sentence.contains("burst bucket spent"),
        "{}",
        v[0].sentence
    );
    // gp3: 118 MB/s of 1 MiB reads is within 10% of its 125 MiB/s.
    let v = one(&model("aws:gp3:500GiB"), 112.5, 112.5 * 1048576.0);
    let t = v.iter().find(|v| v.figure == "bytes_per_sec").unwrap();
    assert_eq!(t.against, "throughput_limit");
    assert_eq!(
        t.sentence,
        "118 MB/s: gp3's 125 MiB/s limit (judged on throughput: at 1 MiB per I/O, which gp3 counts as 4 I/Os by its rule, I/Os up to 256 KiB count as one, larger ones as one per 256 KiB (https://docs.aws.amazon.com/ebs/latest/userguide/ebs-io-characteristics.html), its 125 MiB/s binds before its 3,000 IOPS)"
    );
    assert!(v.iter().all(|v| v.figure != "iops"), "{v:?}");
}

#[test]
fn above_the_model_is_a_cache_or_another_volume_and_below_is_the_job() {
    let m = model("aws:gp3:100GiB");
    assert_eq!(one(&m, 40000.0, 40000.0 * 4096.0)[0].against, "above_model");
    assert_eq!(one(&m, 900.0, 900.0 * 4096.0)[0].against, "below_model");
    // 31,000 4k IOPS are 127 MB/s: near gp3's 125 MiB/s, but it is the
    // cache's speed, not the volume's limit.
    let v = one(&m, 31000.0, 31000.0 * 4096.0);
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].against, "above_model");
}

#[test]
fn the_instance_s_ebs_limit_is_told_from_the_volume_s() {
    let mut m = model("aws:io2:500GiB:iops=20000");
    m.instance = Some(InstanceLimit {
        instance_type: "m5.large".into(),
        baseline_iops: 3600.0,
        baseline_bytes_per_sec: 81.25e6,
        burst_iops: Some(18750.0),
        burst_bytes_per_sec: Some(593.75e6),
        burst_minutes_per_day: Some(30.0),
        source: String::new(),
    });
    let v = one(&m, 18700.0, 18700.0 * 4096.0);
    assert_eq!(v[0].against, "instance_limit");
    assert!(
        v[0].sentence
            .contains("limited by the instance's (m5.large) EBS bandwidth"),
        "{}",
        v[0].sentence
    );
}

/// 1,737 reads of 1 MiB a second on gp3 are 1,821 MB/s: what to hold
/// against gp3's 125 MiB/s, not "1,737 IOPS: above gp3's 3,000 IOPS"
/// (gp3 counts each as four 256 KiB I/Os, and at 1 MiB its throughput
/// limit binds long before its IOPS). A 1 MiB job is judged on
/// throughput; a 4 KiB one on IOPS, each naming the rule.
#[test]
fn a_large_block_test_is_judged_on_throughput_with_the_counting_rule() {
    let m = model("aws:gp3:500GiB");
    let v = one(&m, 1737.0, 1737.0 * 1048576.0);
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(
        (v[0].figure.as_str(), v[0].against.as_str()),
        ("bytes_per_sec", "above_model")
    );
    let s = &v[0].sentence;
    assert!(s.starts_with("1,821 MB/s: above gp3's 125 MiB/s (judged on throughput: at 1 MiB per I/O, which gp3 counts as 4 I/Os"), "{s}");
    assert!(s.contains("ebs-io-characteristics"), "{s}");
    // A 1 MiB job well under the limit is the job's, said on throughput.
    let v = one(&m, 50.0, 50.0 * 1048576.0);
    assert_eq!(
        (v.len(), v[0].against.as_str()),
        (1, "below_model"),
        "{v:?}"
    );
    assert!(
        v[0].sentence.starts_with("52 MB/s: below gp3's 125 MiB/s"),
        "{v:?}"
    );
    // 4 KiB: the IOPS limit binds first; judged on IOPS, rule named.
    let v = one(&m, 40000.0, 40000.0 * 4096.0);
    assert_eq!(
        (v[0].figure.as_str(), v[0].against.as_str()),
        ("iops", "above_model")
    );
    assert!(v[0].sentence.starts_with("40,000 IOPS of 4 KiB (one I/O each to gp3: I/Os up to 256 KiB count as one): above gp3's 3,000 IOPS"), "{v:?}");
}

/// A cliff of 1 MiB reads on gp2 is held against the model's bucket in
/// gp2's own count: 128 reads of 1 MiB a second are 512 of its I/Os, 75
/// are its 300-IOPS baseline; 4 KiB reads count one each.
#[test]
fn a_cliff_of_large_ios_is_counted_as_the_provider_counts() {
    let m = model("aws:gp2:100GiB");
    let mib = 1048576.0;
    let at = |iops: f64, io: f64| Measured {
        iops,
        bytes_per_sec: iops * io,
    };
    let f = FoundCliff::of(&m, 60.0, at(128.0, mib), at(75.0, mib), 1000.0).unwrap();
    assert_eq!((f.before, f.after, f.bucket), (512.0, 300.0, 4000.0));
    let v = judge_cliff(&m, Some(f), 120.0).unwrap();
    assert!(
        v.sentence.contains("512 IOPS -> 300 IOPS"),
        "{}",
        v.sentence
    );
    let small = FoundCliff::of(&m, 60.0, at(3000.0, 4096.0), at(300.0, 4096.0), 9.0).unwrap();
    assert_eq!(
        (small.before, small.after, small.bucket),
        (3000.0, 300.0, 9.0)
    );
    assert!(FoundCliff::of(
        &model("aws:gp3:100GiB"),
        1.0,
        at(1.0, 1.0),
        at(1.0, 1.0),
        1.0
    )
    .is_none());
}

/// Every type that counts I/Os by size says where the rule comes from.
#[test]
fn each_counting_rule_has_its_source() {
    for p in &Catalogue::builtin().providers {
        for t in &p.types {
            if t.io_accounting_kib.is_some() || t.io_counted_as_kib.is_some() {
                let src = t.io_accounting_source.as_deref().unwrap_or("");
                assert!(src.starts_with("https://"), "{} {}", p.provider, t.name);
            }
        }
    }
}

#[test]
fn a_cliff_agrees_within_10_percent_of_time_and_5_of_level() {
    let m = model("aws:gp2:100GiB:time-scale=40");
    let found = |at_s, before, after| FoundCliff {
        at_s,
        before,
        after,
        bucket: 135_000.0,
    };
    let ok = judge_cliff(&m, Some(found(49.0, 2990.0, 302.0)), 70.0).unwrap();
    assert!(ok.agrees, "{}", ok.sentence);
    assert!(ok.sentence.contains("agrees with gp2"));
    assert_eq!(ok.predicted_at_s.map(|t| t.round()), Some(50.0));
    let late = judge_cliff(&m, Some(found(60.0, 3000.0, 300.0)), 70.0).unwrap();
    assert!(!late.agrees, "{}", late.sentence);
    let wrong_level = judge_cliff(&m, Some(found(50.0, 3000.0, 500.0)), 70.0).unwrap();
    assert!(!wrong_level.agrees);
    // No cliff where one was due: not the model's volume (or not a full bucket).
    let missing = judge_cliff(&m, None, 70.0).unwrap();
    assert!(
        !missing.agrees && missing.sentence.contains("should have run dry"),
        "{}",
        missing.sentence
    );
    let early = judge_cliff(&m, None, 20.0).unwrap();
    assert!(early.agrees && early.sentence.contains("ended before"));
    assert!(
        judge_cliff(&model("aws:gp3:100GiB"), None, 70.0).is_none(),
        "gp3 has no bucket"
    );
}

#[test]
fn a_rate_limited_job_empties_the_bucket_later_and_refill_is_bucket_over_baseline() {
    let m = model("azure:P10");
    let p = predict(&m, Some(2000.0));
    // (3,500 - 500) x 1,800 credits spent at 2,000 - 500 a second.
    assert_eq!(p.empty_after_s, Some(3600.0));
    assert_eq!(p.refill_s, Some(10800.0));
    assert_eq!(
        predict(&m, Some(400.0)).empty_after_s,
        None,
        "below the refill: never empties"
    );
    assert_eq!(grouped(5_400_000.0), "5,400,000");
    assert_eq!(span(2000.0), "33 min 20 s");
    assert_eq!(span(18000.0), "5 h 0 min");
}

#[test]
fn the_headline_names_the_instance_s_daily_burst_and_when_it_limits_first() {
    let mut m = model("aws:gp3:500GiB:iops=16000");
    m.instance = Some(InstanceLimit {
        instance_type: "m5.large".into(),
        baseline_iops: 3600.0,
        baseline_bytes_per_sec: 81.25e6,
        burst_iops: Some(18750.0),
        burst_bytes_per_sec: Some(593.75e6),
        burst_minutes_per_day: Some(30.0),
        source: String::new(),
    });
    let h = headline(&m, &predict(&m, None));
    assert!(
        h.contains("instance m5.large allows 18,750 IOPS, 594 MB/s for 30 min a day, 3,600 IOPS, 81 MB/s after (below the volume's figures: the instance limits first)"),
        "{h}"
    );
}
