//! compare's figures against values computed by hand from known inputs.

use super::*;
use crate::table::{HEADLINE_IOPS_JOB, HEADLINE_READ_JOB, HEADLINE_WRITE_JOB};
use crate::testutil::{self, hist, job, spec};
use model::{DirStats, EngineKind, Prices, RunKind, RunRecord, RwMode};
use serde_json::Value;

const SECOND_NS: u64 = 1_000_000_000;

/// One direction that did `ios` I/Os and moved `bytes` in 1 s, every I/O
/// taking `lat_ns` (so every percentile is exactly `lat_ns`).
fn one_second(ios: u64, bytes: u64, lat_ns: u64) -> DirStats {
    DirStats {
        ios,
        bytes,
        runtime_ns: SECOND_NS,
        slat: None,
        clat: hist(&[(lat_ns, ios)]),
        lat: hist(&[(lat_ns, ios)]),
        ..DirStats::default()
    }
}

/// A run of the default suite's three headline jobs giving exactly these
/// figures: `iops` (all reads), Read and Write MB/s, and p99 latency.
pub(crate) fn record(
    id: i64,
    labels: &[(&str, &str)],
    iops: u64,
    read_mb: f64,
    write_mb: f64,
    p99_us: u64,
) -> RunRecord {
    let none = DirStats::default;
    let mb = |v: f64| (v * 1e6).round() as u64;
    let jobs = vec![
        job(
            spec(
                HEADLINE_IOPS_JOB,
                RwMode::RandRw,
                4096,
                32,
                EngineKind::Sync,
            ),
            one_second(iops, iops * 4096, p99_us * 1000),
            none(),
            vec![],
        ),
        job(
            spec(
                HEADLINE_READ_JOB,
                RwMode::Read,
                1 << 20,
                8,
                EngineKind::Sync,
            ),
            one_second(100, mb(read_mb), 5_000_000),
            none(),
            vec![],
        ),
        job(
            spec(
                HEADLINE_WRITE_JOB,
                RwMode::Write,
                1 << 20,
                8,
                EngineKind::Sync,
            ),
            none(),
            one_second(100, mb(write_mb), 7_000_000),
            vec![],
        ),
    ];
    let mut result = testutil::run(jobs);
    // A clean run: a test that wants one that warned adds the warning.
    result.warnings.clear();
    result.started_unix_ms += id as u64 * 60_000;
    RunRecord {
        id,
        kind: RunKind::Suite,
        labels: labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        prices: Prices::default(),
        result,
        soak: None,
        state: Default::default(),
        uuid: String::new(),
    }
}

fn by(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

const GP2: &[(&str, &str)] = &[("provider", "aws"), ("disk", "gp2"), ("size", "20GiB")];
const IO1: &[(&str, &str)] = &[("provider", "aws"), ("disk", "io1"), ("size", "20GiB")];
const PD: &[(&str, &str)] = &[("provider", "google"), ("disk", "pd-ssd")];

fn sample() -> Vec<RunRecord> {
    vec![
        record(1, GP2, 1000, 90.0, 100.0, 500),
        record(2, GP2, 1100, 92.0, 104.0, 600),
        record(3, GP2, 1300, 94.0, 102.0, 700),
        record(4, GP2, 1200, 96.0, 106.0, 800),
        record(5, IO1, 1210, 94.0, 102.0, 900),
        record(6, PD, 11728, 138.0, 149.0, 300),
    ]
}

#[test]
fn means_deviations_and_intervals_equal_the_direct_computation() {
    let c = compare(&sample(), &by(&["provider", "disk"]));
    let g = &c.groups[0];
    assert_eq!(g.name(), "disk=gp2 provider=aws");
    assert_eq!((g.runs, g.run_ids.clone()), (4, vec![1, 2, 3, 4]));
    // By hand: mean 1150, squares 22500+2500+22500+2500 = 50000, var 50000/3.
    let iops = g.iops.unwrap();
    let sd = (50_000.0f64 / 3.0).sqrt();
    let half = 3.1824 * sd / 2.0;
    assert_eq!(iops.n, 4);
    assert!(close(iops.mean, 1150.0), "{iops:?}");
    assert!(close(iops.stddev, sd), "{iops:?}");
    assert!(close(iops.ci95_low, 1150.0 - half) && close(iops.ci95_high, 1150.0 + half));
    // Read 90, 92, 94, 96: mean 93, var (9+1+1+9)/3.
    let read = g.read_mb_per_s.unwrap();
    assert!(close(read.mean, 93.0) && close(read.stddev, (20.0f64 / 3.0).sqrt()));
    let write = g.write_mb_per_s.unwrap();
    assert!(close(write.mean, 103.0) && close(write.stddev, (20.0f64 / 3.0).sqrt()));
    let p99 = g.p99_latency_us.unwrap();
    assert!(close(p99.mean, 650.0) && close(p99.stddev, (50_000.0f64 / 3.0).sqrt()));
    // Merged: 4600 I/Os, the slowest 1200 at 800 us: the p99 is 800, not the mean 650.
    assert_eq!(g.p99_latency_us_merged, Some(800.0));
}

#[test]
fn one_run_has_no_spread_and_no_runs_no_groups() {
    let c = compare(&sample(), &by(&["disk"]));
    let io1 = c.groups.iter().find(|g| g.labels["disk"] == "io1").unwrap();
    let s = io1.iops.unwrap();
    assert_eq!(
        (s.n, s.mean, s.stddev, s.ci95_low, s.ci95_high),
        (1, 1210.0, 0.0, 1210.0, 1210.0)
    );
    assert_eq!(io1.p99_latency_us_merged, Some(900.0));
    let empty = compare(&[], &[]);
    assert!(empty.groups.is_empty());
    for text in [
        render_table(&empty),
        render_markdown(&empty),
        render_csv(&empty),
    ] {
        assert!(!text.is_empty());
    }
    let json: Value = serde_json::from_str(&render_json(&empty)).unwrap();
    assert_eq!(json, serde_json::json!({"groups": []}));
}

#[test]
fn groups_follow_the_labels() {
    let runs = sample();
    // By provider: aws (5 runs) before google (1).
    let c = compare(&runs, &by(&["provider"]));
    let names: Vec<(String, usize)> = c.groups.iter().map(|g| (g.name(), g.runs)).collect();
    assert_eq!(
        names,
        [("provider=aws".into(), 5), ("provider=google".into(), 1)]
    );
    // Default: identical label sets (gp2's size label makes it differ from pd-ssd's set).
    let c = compare(&runs, &[]);
    assert_eq!(c.groups.len(), 3);
    assert_eq!(c.groups.iter().map(|g| g.runs).sum::<usize>(), 6);
    assert_eq!(c.groups[0].labels.len(), 3);
    // A run lacking a `by` label groups with the others lacking it, and sorts first.
    let c = compare(&runs, &by(&["size"]));
    assert_eq!(c.groups.len(), 2);
    assert!(c.groups[0].labels.is_empty() && c.groups[0].runs == 1);
    assert_eq!(c.groups[1].labels["size"], "20GiB");
    assert_eq!(c.groups[1].run_ids, [1, 2, 3, 4, 5]);
}

#[test]
fn costs_follow_the_documented_formula() {
    let mut runs = sample();
    for r in &mut runs[..4] {
        r.prices = Prices {
            per_gib_month: Some(0.10),
            per_million_ios: Some(0.05),
            per_month: Some(65.0),
        };
    }
    let c = compare(&runs, &by(&["provider", "disk"]));
    let f = *c.groups[0].cost.figures().unwrap();
    // 65 + 0.10 x 20 GiB + 0.05 x (1150 IOPS x 2,592,000 s / 1e6).
    let monthly = 65.0 + 2.0 + 0.05 * 1150.0 * 2.592;
    assert!(close(f.monthly, monthly), "{f:?}");
    assert!(close(f.per_1000_iops.unwrap(), monthly / 1.15));
    assert!(close(f.per_mb_per_s.unwrap(), monthly / 93.0));
    assert_eq!(f.capacity_gib, Some(20.0));
    assert_eq!(c.groups[1].cost, Cost::Unpriced);

    // Same prices, capacity from the device (20 GiB in the test target) when there is no size label.
    runs[5].prices = Prices {
        per_gib_month: Some(0.17),
        ..Prices::default()
    };
    let c = compare(&runs, &by(&["disk"]));
    let pd = c
        .groups
        .iter()
        .find(|g| g.labels["disk"] == "pd-ssd")
        .unwrap();
    assert!(close(pd.cost.figures().unwrap().monthly, 0.17 * 20.0));
    // Without a device size either: unknown, and it says how to fix it.
    runs[5].result.targets.clear();
    let c = compare(&runs, &by(&["disk"]));
    let pd = c
        .groups
        .iter()
        .find(|g| g.labels["disk"] == "pd-ssd")
        .unwrap();
    assert!(matches!(&pd.cost, Cost::Unknown(why) if why.contains("size=20GiB")));
    // Different prices within a group: mixed.
    let c = compare(&runs, &by(&["provider"]));
    assert!(matches!(c.groups[0].cost, Cost::Mixed(_)));
    let json: Value = serde_json::from_str(&render_json(&c)).unwrap();
    assert_eq!(json["groups"][0]["monthly_cost"], "mixed");
    assert!(render_table(&c).contains("provider=aws: costs are mixed"));
}

#[test]
fn sizes_are_read_with_fio_rules() {
    let mut r = record(1, &[("size", "500G")], 1, 1.0, 1.0, 1);
    assert_eq!(cost::capacity_bytes(&r), Ok(500 << 30));
    r.labels.insert("size".into(), "1.5 TiB".into());
    assert_eq!(cost::capacity_bytes(&r), Ok(1536 << 30));
    r.labels.insert("size".into(), "big".into());
    assert!(cost::capacity_bytes(&r)
        .unwrap_err()
        .to_string()
        .contains("'big'"));
}

#[test]
fn p99_follows_the_job_that_feeds_iops() {
    // No suite job names: IOPS (and so p99) come from the job with the most IOPS.
    let mut r = record(1, &[], 0, 1.0, 1.0, 1);
    r.result.jobs = vec![
        job(
            spec("slow", RwMode::RandRead, 4096, 1, EngineKind::Sync),
            one_second(10, 40960, 9_000_000),
            DirStats::default(),
            vec![],
        ),
        job(
            spec("fast", RwMode::RandRw, 4096, 1, EngineKind::Sync),
            one_second(500, 2_048_000, 250_000),
            one_second(100, 409_600, 2_000_000),
            vec![],
        ),
    ];
    let f = RunFigures::of(&r.result);
    assert_eq!(f.iops, Some(600.0));
    // 600 I/Os, the slowest 100 (16.7%) at 2 ms: p99 is 2 ms.
    assert_eq!(f.p99_latency_us, Some(2000.0));
    // A run with no I/O at all has no figures, and compare still works.
    r.result.jobs.clear();
    assert_eq!(RunFigures::of(&r.result), RunFigures::default());
    let c = compare(&[r], &[]);
    assert_eq!((c.groups[0].runs, c.groups[0].iops), (1, None));
    assert!(render_table(&c).contains("n/a"));
}

/// A deviation of 0 from one run would claim a certainty one run cannot
/// give: the figure stands alone in the table, Markdown, CSV and JSON, and
/// no note explains a ± that is not there.
#[test]
fn one_run_shows_no_spread_anywhere() {
    let c = compare(&[record(1, PD, 11728, 138.0, 149.0, 300)], &by(&["disk"]));
    let table = render_table(&c);
    assert!(!table.contains('±'), "{table}");
    assert!(!table.contains("standard deviation"), "{table}");
    let row = table.lines().nth(1).unwrap();
    for cell in ["11728", "138.0", "149.0", "300 us"] {
        assert!(row.contains(cell), "{cell} in {table}");
    }
    assert!(!render_markdown(&c).contains('±'));
    let csv = render_csv(&c);
    assert!(
        csv.lines()
            .nth(1)
            .unwrap()
            .starts_with("pd-ssd,1,11728,,,,138,,,,149,,,,300,,,,"),
        "{csv}"
    );
    let json: Value = serde_json::from_str(&render_json(&c)).unwrap();
    let iops = &json["groups"][0]["iops"];
    assert_eq!(iops["mean"].as_f64(), Some(11728.0));
    for key in ["stddev", "ci95_low", "ci95_high"] {
        assert!(iops[key].is_null(), "{key}: {iops}");
    }
}

#[test]
fn table_and_markdown_look_like_the_iaas_study() {
    let c = compare(&sample(), &by(&["provider", "disk"]));
    let table = render_table(&c);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 5, "{table}");
    assert!(lines[0].starts_with("provider  disk    "), "{table}");
    assert!(lines[1].starts_with("aws       gp2"), "{table}");
    // The repeated provider is left blank, as in Brian Cunnie's 2018 benchmark of cloud disks.
    assert!(lines[2].starts_with("          io1"), "{table}");
    for cell in ["1150 ± 129", "93.0 ± 2.6", "103.0 ± 2.6", "650 ± 129 us"] {
        assert!(lines[1].contains(cell), "{cell} in {table}");
    }
    // One run has no spread: the figure alone, never "± 0".
    assert!(
        lines[3].contains(" 11728 ") && lines[3].ends_with(" 1"),
        "{table}"
    );
    assert!(!lines[3].contains('±'), "{table}");
    // The table shows ±, so the note under it says what ± is.
    assert!(
        table.contains("± is the sample standard deviation of the group's runs"),
        "{table}"
    );
    assert!(
        !table.contains("cost"),
        "no prices, no cost columns: {table}"
    );

    let md = render_markdown(&c);
    let lines: Vec<&str> = md.lines().collect();
    assert_eq!(
        lines[0],
        "| provider | disk | IOPS | Read MB/s | Write MB/s | p99 latency | runs |"
    );
    assert_eq!(lines[1], "| --- | --- | ---: | ---: | ---: | ---: | ---: |");
    assert!(
        lines[3].starts_with("|  | io1 | 1210 | 94.0 | 102.0 | 900 us | 1 |"),
        "{md}"
    );
    assert!(
        md.contains("\n- ± is the sample standard deviation"),
        "{md}"
    );
    // A blog post has no command line: the --format hint is the terminal's.
    assert!(!md.contains("--format") && table.contains("--format csv or json"));
}

#[test]
fn csv_has_a_column_per_statistic_and_quotes() {
    let mut runs = sample();
    runs[5]
        .labels
        .insert("disk".into(), "pd-ssd, \"big\"".into());
    let csv = render_csv(&compare(&runs, &by(&["provider", "disk"])));
    let lines: Vec<&str> = csv.lines().collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(header.len(), 2 + 1 + 16 + 6);
    assert_eq!(&header[..4], ["provider", "disk", "runs", "iops_mean"]);
    assert_eq!(header.last(), Some(&"warned_runs"));
    assert!(lines[1].starts_with("aws,gp2,4,1150,129.0994"), "{csv}");
    assert!(
        lines[3].starts_with("google,\"pd-ssd, \"\"big\"\"\",1,11728,,,,"),
        "{csv}"
    );
    assert!(lines[1].ends_with(",800,,,,,"), "{csv}");
}

#[test]
fn json_has_exactly_the_documented_keys() {
    let mut runs = sample();
    runs[0].prices.per_month = Some(10.0);
    runs[1].prices.per_month = Some(10.0);
    runs[2].prices.per_month = Some(10.0);
    runs[3].prices.per_month = Some(10.0);
    let text = render_json(&compare(&runs, &by(&["provider", "disk"])));
    let json: Value = serde_json::from_str(&text).unwrap();
    let top: Vec<&String> = json.as_object().unwrap().keys().collect();
    assert_eq!(top, ["groups"]);
    let groups = json["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 3);
    let keys: Vec<&String> = groups[0].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "labels",
            "runs",
            "iops",
            "read_mb_per_s",
            "write_mb_per_s",
            "p99_latency_us",
            "p99_latency_us_merged",
            "p99_latency_us_approximate_runs",
            "warned_runs",
            "monthly_cost",
            "cost_per_1000_iops",
            "cost_per_mb_per_s",
            "mixed"
        ]
    );
    for m in Metric::ALL {
        let stat: Vec<&String> = groups[0][m.key()].as_object().unwrap().keys().collect();
        assert_eq!(stat, ["mean", "stddev", "ci95_low", "ci95_high"]);
    }
    let g = &groups[0];
    assert_eq!(
        g["labels"],
        serde_json::json!({"disk": "gp2", "provider": "aws"})
    );
    assert_eq!(
        (g["runs"].as_u64(), g["iops"]["mean"].as_f64()),
        (Some(4), Some(1150.0))
    );
    assert_eq!(g["p99_latency_us_merged"].as_f64(), Some(800.0));
    assert_eq!(g["monthly_cost"].as_f64(), Some(10.0));
    assert!(close(
        g["cost_per_1000_iops"].as_f64().unwrap(),
        10.0 / 1.15
    ));
    assert!(groups[1]["monthly_cost"].is_null());
}

/// A QD32 mixed test, a QD4 write and a 512-byte test averaged as one IOPS
/// describe no disk: the column is left out and the note names the shapes;
/// the columns whose jobs match are still averaged.
#[test]
fn unlike_jobs_are_not_averaged_and_the_note_names_them() {
    let mut runs = vec![
        record(1, GP2, 1000, 90.0, 100.0, 500),
        record(2, GP2, 1100, 92.0, 104.0, 600),
        record(3, GP2, 1300, 94.0, 102.0, 700),
    ];
    runs[1].result.jobs[0].spec.rw = RwMode::RandWrite;
    runs[1].result.jobs[0].spec.iodepth = 4;
    runs[2].result.jobs[0].spec.bs_bytes = 512;
    let c = compare(&runs, &by(&["disk"]));
    let g = &c.groups[0];
    assert_eq!(g.iops, None);
    assert_eq!(g.p99_latency_us, None);
    assert!(g.read_mb_per_s.is_some() && g.write_mb_per_s.is_some());
    let (metric, shapes) = &g.mixed[0];
    assert_eq!(*metric, Metric::Iops);
    assert_eq!(
        shapes,
        &[
            "randrw 4k qd32 x1 buffered psync",
            "randwrite 4k qd4 x1 buffered psync",
            "randrw 512 qd32 x1 buffered psync"
        ]
    );
    let text = render_table(&c);
    assert!(text.contains("mixed"), "{text}");
    assert!(
        text.contains("disk=gp2: IOPS not averaged: its runs measured unlike jobs (randrw 4k qd32"),
        "{text}"
    );
}

#[test]
fn a_p99_from_histograms_rebuilt_on_import_is_marked_approximate() {
    let mut runs = sample();
    let measured = compare(&runs, &by(&["provider", "disk"]));
    assert!(measured
        .groups
        .iter()
        .all(|g| g.p99_approximate_runs.is_empty()));
    assert!(!render_table(&measured).contains('~'));
    // Run 2 imported before its source's record was kept: rebuilt histograms.
    for job in &mut runs[1].result.jobs {
        job.imported = Some(model::Imported::default());
    }
    let c = compare(&runs, &by(&["provider", "disk"]));
    assert_eq!(c.groups[0].p99_approximate_runs, [runs[1].id]);
    assert!(c.groups[1..]
        .iter()
        .all(|g| g.p99_approximate_runs.is_empty()));
    let table = render_table(&c);
    assert!(table.contains(" ~"), "{table}");
    assert!(
        table.contains("p99 latency is approximate: run(s) 2 were imported"),
        "{table}"
    );
    let json: Value = serde_json::from_str(&render_json(&c)).unwrap();
    assert_eq!(
        json["groups"][0]["p99_latency_us_approximate_runs"],
        serde_json::json!([2])
    );
    assert!(render_csv(&c).lines().nth(1).unwrap().ends_with(",2,"));
    // Histograms carried whole by diskbench's own export are not approximate.
    for job in &mut runs[1].result.jobs {
        job.imported.as_mut().unwrap().exact_histograms = true;
    }
    assert!(compare(&runs, &by(&["provider"])).groups[0]
        .p99_approximate_runs
        .is_empty());
}

#[test]
fn runs_that_warned_are_marked_per_run_and_per_group() {
    let mut runs = sample();
    let clean = compare(&runs, &by(&["provider", "disk"]));
    assert!(clean.groups.iter().all(|g| g.warned_runs.is_empty()));
    assert!(!render_table(&clean).contains("warned"));
    runs[1].result.warnings.push(model::Warning::ShortRun {
        job: HEADLINE_IOPS_JOB.into(),
        runtime_ms: 3,
    });
    runs[1].result.warnings.push(model::Warning::Check {
        name: "too-short".into(),
        job: None,
        text: "too short to trust".into(),
    });
    let c = compare(&runs, &by(&["provider", "disk"]));
    assert_eq!(c.groups[0].warned_runs, [(runs[1].id, 2, 2)]);
    assert!(c.groups[1..].iter().all(|g| g.warned_runs.is_empty()));
    let table = render_table(&c);
    let marked: Vec<&str> = table
        .lines()
        .filter(|l| {
            l.trim_end()
                .ends_with(&format!("{WARNED_MARK}{}", c.groups[0].runs))
        })
        .collect();
    assert_eq!(marked.len(), 1, "{table}");
    assert!(
        table.contains(&format!("run(s) {} (2 warnings) warned", runs[1].id)),
        "{table}"
    );
    let json: Value = serde_json::from_str(&render_json(&c)).unwrap();
    assert_eq!(
        json["groups"][0]["warned_runs"],
        serde_json::json!([{"id": runs[1].id, "warnings": 2, "kinds": 2}])
    );
    // Seven tests' checks of one kind are one kind of warning.
    for _ in 0..6 {
        runs[1].result.warnings.push(model::Warning::Check {
            name: "too-short".into(),
            job: None,
            text: "too short to trust".into(),
        });
    }
    let c = compare(&runs, &by(&["provider", "disk"]));
    let table = render_table(&c);
    assert!(
        table.contains(&format!(
            "run(s) {} (8 warnings of 2 kinds) warned",
            runs[1].id
        )),
        "{table}"
    );
    let csv = render_csv(&c);
    let ends = format!(",{}", runs[1].id);
    assert!(csv.lines().nth(1).unwrap().ends_with(&ends), "{csv}");
}
