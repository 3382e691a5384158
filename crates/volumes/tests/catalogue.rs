//! The catalogue against the providers' published examples. The expected
//! figures are written from the documentation pages the entries cite, not
//! from the code: gp2's 3 IOPS per GiB and 5.4 million credits, gp3's
//! 3,000 IOPS / 125 MiB/s, Azure's P-tier table and 30-minute bursts,
//! GCE's per-GB rates. Also: the schema refuses what it should, and a bad
//! declaration says both values.

use diskbench_volumes::catalogue::Catalogue;
use diskbench_volumes::predict::predict;
use diskbench_volumes::{resolve, VolumeError, VolumeSpec};
use model::volume::BurstUnit;

fn model(text: &str) -> model::volume::VolumeModel {
    let spec = VolumeSpec::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    resolve(&spec, Catalogue::builtin()).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn error(text: &str) -> VolumeError {
    let spec = VolumeSpec::parse(text).unwrap();
    resolve(&spec, Catalogue::builtin()).expect_err(text)
}

const MIB: f64 = 1_048_576.0;

#[test]
fn the_built_in_files_follow_the_schema_and_cover_every_type_asked_for() {
    let c = Catalogue::parse_builtin().unwrap();
    let want = [
        ("aws", &["gp2", "gp3", "io1", "io2", "st1", "sc1"][..]),
        (
            "azure",
            &[
                "standard-hdd",
                "standard-ssd",
                "premium-ssd",
                "premium-ssd-v2",
                "ultra",
            ][..],
        ),
        (
            "gcp",
            &[
                "pd-standard",
                "pd-balanced",
                "pd-ssd",
                "pd-extreme",
                "hyperdisk-balanced",
            ][..],
        ),
        ("digitalocean", &["volume"][..]),
    ];
    for (provider, types) in want {
        let p = c.provider(provider).unwrap();
        for t in types {
            let vt = p.types.iter().find(|v| v.name == *t);
            let vt = vt.unwrap_or_else(|| panic!("{provider} {t} missing"));
            assert!(vt.source.starts_with("https://"), "{t}");
            assert_eq!(vt.as_of.len(), 10, "{t}");
        }
    }
    assert!(c
        .instances
        .aws
        .iter()
        .any(|i| i.instance_type == "m5.large"));
    assert!(c
        .instances
        .aws
        .iter()
        .any(|i| i.instance_type == "m7i.large"));
    assert!(c.instances.gcp_vcpu.iter().any(|g| g.disk_type == "pd-ssd"));
}

#[test]
fn the_schema_refuses_unknown_keys_bad_dates_and_sources() {
    let good = include_str!("../catalogue/digitalocean.toml");
    let instances = include_str!("../catalogue/instances.toml");
    assert!(Catalogue::parse(&[("do.toml", good)], instances).is_ok());
    for (bad, says) in [
        (
            good.replace("as_of = \"2025-06-01\"", "as_of = \"June 2025\""),
            "not a date",
        ),
        (
            good.replace("source = \"https://docs", "source = \"docs"),
            "not an https URL",
        ),
        (
            good.replace("iops = { base = 7500 }", "iops = { base = 7500, cap = 3 }"),
            "unknown field",
        ),
        (good.replace("max = 16384", "max = 0.5"), "not a range"),
        (
            good.replace("iops = { base = 7500 }\n", ""),
            "no IOPS figure",
        ),
        (
            good.replace("throughput_unit = \"MB/s\"", "throughput_unit = \"GB/h\""),
            "throughput_unit",
        ),
    ] {
        let e = Catalogue::parse(&[("do.toml", &bad)], instances).unwrap_err();
        assert!(e.to_string().contains(says), "{says}: {e}");
    }
}

#[test]
fn gp2_100_gib_is_300_iops_bursting_to_3000_for_2000_seconds() {
    let m = model("aws:gp2:100GiB");
    assert_eq!(m.baseline_iops, 300.0);
    let b = m.burst.expect("a 100 GiB gp2 bursts");
    assert_eq!(
        (b.unit, b.ceiling, b.bucket),
        (BurstUnit::Iops, 3000.0, 5_400_000.0)
    );
    let p = predict(&m, None);
    // AWS: 5.4 M credits / (3,000 - 300) IOPS = 2,000 s at full burst.
    assert_eq!(p.empty_after_s, Some(2000.0));
    // An empty bucket refills at the baseline: 5.4 M / 300 = 5 hours.
    assert_eq!(p.refill_s, Some(18_000.0));
    assert_eq!(m.baseline_bytes_per_sec, 128.0 * MIB);
    // At 1,000 IOPS the bucket lasts 5.4 M / 700 s.
    let slow = predict(&m, Some(1000.0)).empty_after_s.unwrap();
    assert!((slow - 7714.3).abs() < 0.1, "{slow}");
}

#[test]
fn gp2_sizes_follow_3_iops_per_gib_between_100_and_16000() {
    let m = model("aws:gp2:1TiB");
    assert_eq!(m.baseline_iops, 3072.0);
    assert!(m.burst.is_none(), "above 3,000 IOPS baseline: no burst");
    assert_eq!(m.baseline_bytes_per_sec, 250.0 * MIB);
    assert_eq!(model("aws:gp2:10GiB").baseline_iops, 100.0);
    assert_eq!(model("aws:gp2:999GiB").baseline_iops, 2997.0);
    assert!(model("aws:gp2:999GiB").burst.is_some());
    assert_eq!(model("aws:gp2:6000GiB").baseline_iops, 16000.0);
    // Prices: $0.10 per GB-month.
    let price = model("aws:gp2:100GiB").price.unwrap();
    assert!((price.monthly() - 10.0).abs() < 1e-9);
}

#[test]
fn gp3_is_3000_iops_and_125_mibs_at_any_size_unless_provisioned() {
    for size in ["1GiB", "100GiB", "16TiB"] {
        let m = model(&format!("aws:gp3:{size}"));
        assert_eq!(m.baseline_iops, 3000.0, "{size}");
        assert_eq!(m.baseline_bytes_per_sec, 125.0 * MIB, "{size}");
        assert!(m.burst.is_none());
    }
    let m = model("aws:gp3:500GiB:iops=6000:mbps=250");
    assert_eq!(m.baseline_iops, 6000.0);
    assert_eq!(m.baseline_bytes_per_sec, 250.0 * MIB);
    // $0.08/GB + $0.005 per IOPS over 3,000 + $0.04 per MiB/s over 125.
    let p = m.price.unwrap();
    assert!((p.capacity_month - 40.0).abs() < 1e-9);
    assert!((p.iops_month - 15.0).abs() < 1e-9);
    assert!((p.throughput_month - 5.0).abs() < 1e-9);
}

#[test]
fn provisioned_figures_above_the_ratios_name_both_values() {
    // gp3: 500 IOPS per GiB, so 10 GiB holds at most 5,000.
    let e = error("aws:gp3:10GiB:iops=6000").to_string();
    assert!(
        e.contains("6000") && e.contains("5000") && e.contains("10 GiB"),
        "{e}"
    );
    // gp3: 0.25 MiB/s per IOPS: 3,000 IOPS allow 750 MiB/s.
    let e = error("aws:gp3:100GiB:mbps=1000").to_string();
    assert!(e.contains("1000") && e.contains("750"), "{e}");
    // io1: 50 IOPS per GiB.
    let e = error("aws:io1:100GiB:iops=6000").to_string();
    assert!(e.contains("6000") && e.contains("5000"), "{e}");
    assert!(error("aws:io1:100GiB").to_string().contains("iops="));
    assert!(error("aws:gp2:100GiB:iops=3000")
        .to_string()
        .contains("does not let you choose"));
    assert_eq!(model("aws:io2:100GiB:iops=64000").baseline_iops, 64000.0);
}

#[test]
fn unknown_providers_and_types_list_the_known_ones_and_sizes_have_ranges() {
    let e = error("awz:gp2:100GiB").to_string();
    assert!(
        e.contains("awz") && e.contains("aws, azure, gcp, digitalocean"),
        "{e}"
    );
    let e = error("aws:gp4:100GiB").to_string();
    assert!(
        e.contains("gp4") && e.contains("gp2, gp3, io1, io2, st1, sc1"),
        "{e}"
    );
    let e = error("aws:st1:100GiB").to_string();
    assert!(e.contains("100 GiB") && e.contains("125 to 16384"), "{e}");
    let e = error("aws:gp2:20TiB").to_string();
    assert!(e.contains("20480") && e.contains("16384"), "{e}");
    assert!(error("aws:gp2").to_string().contains("needs a size"));
}

#[test]
fn st1_and_sc1_burst_on_throughput_per_tib() {
    // st1: 40 MiB/s per TiB baseline, 250 MiB/s per TiB burst, 1 TiB of credits per TiB.
    let m = model("aws:st1:1TiB");
    assert_eq!(m.baseline_bytes_per_sec, 40.0 * MIB);
    let b = m.burst.unwrap();
    assert_eq!(b.unit, BurstUnit::Bytes);
    assert_eq!(b.ceiling, 250.0 * MIB);
    assert_eq!(b.bucket, 1024.0 * 1024.0 * MIB);
    assert_eq!(m.io_counted_as_bytes, Some(1 << 20));
    // 2 TiB: 80 baseline, 500 burst (the cap).
    let m = model("aws:st1:2TiB");
    assert_eq!(m.baseline_bytes_per_sec, 80.0 * MIB);
    assert_eq!(m.burst.unwrap().ceiling, 500.0 * MIB);
    // 12.5 TiB: a baseline of 500 MiB/s, the burst's cap: no burst left.
    assert!(model("aws:st1:12800GiB").burst.is_none());
    let m = model("aws:sc1:1TiB");
    assert_eq!(m.baseline_bytes_per_sec, 12.0 * MIB);
    assert_eq!(m.burst.unwrap().ceiling, 80.0 * MIB);
}

#[test]
fn azure_tiers_burst_for_30_minutes_up_to_p20_and_sizes_round_up() {
    let m = model("azure:P10");
    assert_eq!((m.baseline_iops, m.size_gib), (500.0, 128.0));
    assert_eq!(m.baseline_bytes_per_sec, 100e6);
    let b = m.burst.unwrap();
    assert_eq!(b.ceiling, 3500.0);
    // 30 minutes at the 3,500 IOPS burst from a full bucket.
    assert_eq!(predict(&m, None).empty_after_s, Some(1800.0));
    assert_eq!(
        model("azure:premium-ssd:100GiB").tier.as_deref(),
        Some("P10")
    );
    let p30 = model("azure:P30");
    assert_eq!(p30.baseline_iops, 5000.0);
    assert!(p30.burst.is_none(), "P30 and up: no credit bursting");
    let e = error("azure:P10:500GiB").to_string();
    assert!(
        e.contains("P10") && e.contains("128") && e.contains("500"),
        "{e}"
    );
    let e10 = model("azure:standard-ssd:128GiB");
    assert_eq!(
        (e10.tier.as_deref(), e10.burst.unwrap().ceiling),
        (Some("E10"), 600.0)
    );
    assert!(model("azure:S30").burst.is_none());
    let v2 = model("azure:premium-ssd-v2:100GiB");
    assert_eq!(
        (v2.baseline_iops, v2.baseline_bytes_per_sec),
        (3000.0, 125e6)
    );
    assert_eq!(
        model("azure:ultra:1024GiB:iops=50000").baseline_iops,
        50000.0
    );
    assert!(error("azure:ultra:10GiB:iops=50000")
        .to_string()
        .contains("300 IOPS per GiB"));
}

#[test]
fn gce_disks_scale_per_gb_from_their_baselines() {
    // pd-ssd: 6,000 + 30 per GB IOPS, 240 + 0.48 per GB MiB/s.
    let m = model("gcp:pd-ssd:200GB");
    assert_eq!(m.baseline_iops, 12000.0);
    assert!((m.baseline_bytes_per_sec / MIB - 336.0).abs() < 1e-9);
    // pd-balanced: 3,000 + 6 per GB, 140 + 0.28 per GB.
    let m = model("gcp:pd-balanced:100GB");
    assert_eq!(m.baseline_iops, 3600.0);
    assert!((m.baseline_bytes_per_sec / MIB - 168.0).abs() < 1e-9);
    // pd-standard: 0.75 read IOPS and 0.12 MiB/s per GB.
    let m = model("gcp:pd-standard:500GB");
    assert_eq!(m.baseline_iops, 375.0);
    assert!((m.baseline_bytes_per_sec / MIB - 60.0).abs() < 1e-9);
    assert_eq!(
        model("gcp:pd-extreme:1TiB:iops=20000").baseline_iops,
        20000.0
    );
    assert_eq!(model("gce:hyperdisk-balanced:100GiB").baseline_iops, 3000.0);
    assert_eq!(model("digitalocean:volume:100GiB").baseline_iops, 7500.0);
}

#[test]
fn a_time_scaled_model_keeps_its_rates_and_shrinks_its_bucket() {
    let m = model("aws:gp2:100GiB:time-scale=40");
    assert_eq!(m.baseline_iops, 300.0);
    let b = m.burst.unwrap();
    assert_eq!(
        (b.ceiling, b.bucket, b.time_scale),
        (3000.0, 135_000.0, 40.0)
    );
    assert_eq!(predict(&m, None).empty_after_s, Some(50.0));
}
