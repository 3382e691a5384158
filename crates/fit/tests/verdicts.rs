//! The catalogue's rules and the verdicts on figures made by hand: a
//! requirement without a source is refused, a p99 over the limit is "not
//! fit" with its ratio, one under it "fit", a workload that picks a setting
//! ranks its checks.

use diskbench_fit as fit;
use fit::{catalogue, judge, Verdict};
use model::{Histogram, JobResult, JobSpec, RunResult};

/// A run holding one job of `name` with `syncs` sync latencies (ns) and
/// as many writes of 1 us, over `secs` seconds.
fn run_of(jobs: &[(&str, &[u64], f64)]) -> RunResult {
    let mut r = RunResult::default();
    for (name, syncs, secs) in jobs {
        let mut j = JobResult::empty(&JobSpec::new(*name), 0, 1);
        let mut h = Histogram::new();
        for &s in syncs.iter() {
            h.record(s);
            j.write.clat.record(1_000);
        }
        j.sync = h;
        j.write.ios = syncs.len() as u64;
        j.write.bytes = syncs.len() as u64 * 8192;
        j.write.runtime_ns = (secs * 1e9) as u64;
        j.runtime_ns = j.write.runtime_ns;
        r.jobs.push(j);
    }
    r
}

fn etcd() -> &'static fit::Workload {
    fit::catalogue::find("etcd").unwrap()
}

#[test]
fn every_threshold_has_a_source_address_and_date() {
    for w in catalogue() {
        for c in &w.checks {
            for r in &c.requirements {
                assert!(r.source.url.starts_with("https://"), "{}", r.label);
                assert_eq!(r.source.date.len(), 10, "{}", r.label);
                assert!(r.limit().is_some() || r.note.is_some(), "{}", r.label);
            }
        }
    }
    let names: Vec<&str> = catalogue().iter().map(|w| w.name.as_str()).collect();
    for needed in ["etcd", "postgres", "wal-group-commit", "kafka"] {
        assert!(names.contains(&needed), "{names:?}");
    }
}

#[test]
fn a_threshold_without_a_source_address_or_date_is_refused() {
    let text = r#"
[[workload]]
name = "x"
about = "x"
[[workload.check]]
name = "c"
what = "c"
fio = []
time_based = false
[[workload.check.requirement]]
label = "p99"
figure = "sync_p99"
max_ms = 10.0
source = { document = "d", url = "URL", date = "2019-04-18", checked = { on = "2026-11-27", confirmed = true, date_confirmed = true, what = "WHAT" } }
"#;
    let e = fit::catalogue::parse(text).unwrap_err().to_string();
    assert!(e.contains("https://"), "{e}");
    let undated = text
        .replace("URL", "https://example.org")
        .replace("2019-04-18", "April");
    let e = fit::catalogue::parse(&undated).unwrap_err().to_string();
    assert!(e.contains("date"), "{e}");
    let fine = text.replace("URL", "https://example.org");
    assert!(fit::catalogue::parse(&fine).is_ok());
    // A source that does not say what its page was found to say is refused.
    let unsaid = fine.replace("WHAT", " ");
    let e = fit::catalogue::parse(&unsaid).unwrap_err().to_string();
    assert!(e.contains("checked.what"), "{e}");
    let unchecked = fine.replace(
        r#", checked = { on = "2026-11-27", confirmed = true, date_confirmed = true, what = "WHAT" }"#,
        "",
    );
    let e = fit::catalogue::parse(&unchecked).unwrap_err().to_string();
    assert!(e.contains("checked"), "{e}");
}

/// Each source says whether its page was read and found to say what it is
/// cited for, and a date not read on the page is printed as such.
#[test]
fn every_source_says_what_its_page_was_found_to_say() {
    for w in catalogue() {
        for c in &w.checks {
            for r in &c.requirements {
                let k = &r.source.checked;
                assert_eq!(k.on.len(), 10, "{}", r.label);
                assert!(!k.what.trim().is_empty(), "{}", r.label);
                let line = fit::text::source(&r.source);
                assert_eq!(
                    line.contains("not read on the page"),
                    !k.date_confirmed,
                    "{line}"
                );
            }
        }
    }
    let mut unconfirmed = etcd().clone();
    unconfirmed.checks[0].requirements[0]
        .source
        .checked
        .confirmed = false;
    let run = run_of(&[("etcd-wal", &[2_000_000; 200], 1.0)]);
    let text = fit::text::render(&fit::judge(&unconfirmed, &run));
    assert!(text.contains("not confirmed against the page: "), "{text}");
}

#[test]
fn an_unknown_workload_is_named_with_the_known_ones() {
    let e = fit::catalogue::find("mysql").unwrap_err().to_string();
    assert!(
        e.contains("mysql") && e.contains("etcd") && e.contains("postgres"),
        "{e}"
    );
}

#[test]
fn a_p99_over_the_limit_is_not_fit_with_its_ratio_and_one_under_is_fit() {
    // 10,000 syncs: 9,800 at 2 ms, 200 at 31 ms: the p99 is 31 ms.
    let slow: Vec<u64> = (0..10_000)
        .map(|i| if i < 9_800 { 2_000_000 } else { 31_000_000 })
        .collect();
    let report = judge(etcd(), &run_of(&[("etcd-wal", &slow, 10.0)]));
    let wal = &report.requirements[0];
    assert_eq!(wal.verdict, Verdict::NotFit);
    let ratio = wal.ratio.unwrap();
    assert!((ratio - 3.1).abs() < 0.05, "{ratio}");
    assert!(wal.sure, "the interval lies above the limit: {wal:?}");
    assert_eq!(report.fit, Some(false));
    let text = fit::text::render(&report);
    assert!(text.contains("not fit, 3.1x the limit"), "{text}");
    assert!(text.contains("10,000 syncs"), "{text}");

    let quick: Vec<u64> = (0..10_000).map(|i| 2_000_000 + i * 40).collect();
    let report = judge(etcd(), &run_of(&[("etcd-wal", &quick, 10.0)]));
    let wal = &report.requirements[0];
    assert_eq!(wal.verdict, Verdict::Fit);
    assert!(
        fit::text::line(wal).contains(": fit, "),
        "{}",
        fit::text::line(wal)
    );
    // The backend check did not run: no verdict for the workload.
    assert_eq!(report.fit, None);
}

#[test]
fn a_figure_near_the_limit_says_another_run_may_differ() {
    // 1,000 syncs, the slowest 25 from 9.5 ms up in steps of 40 us: the
    // p99 (rank 990) is 10.06 ms, and ranks 983 to 997 span 9.8-10.4 ms.
    let near: Vec<u64> = (0..1_000u64)
        .map(|i| match i < 975 {
            true => 1_000_000,
            false => 9_500_000 + (i - 975) * 40_000,
        })
        .collect();
    let report = judge(etcd(), &run_of(&[("etcd-wal", &near, 10.0)]));
    let wal = &report.requirements[0];
    assert!(!wal.sure, "{wal:?}");
    assert!(fit::text::line(wal).contains("another run may say otherwise"));
}

#[test]
fn postgres_ranks_its_sync_methods_and_names_the_setting() {
    let pg = fit::catalogue::find("postgres").unwrap();
    let ones = vec![1_000_000u64; 500];
    let twice = vec![1_000_000u64; 1_000];
    let run = run_of(&[("fdatasync", &ones, 1.0), ("fsync", &twice, 1.0)]);
    let report = judge(pg, &run);
    let choice = report.choice.clone().unwrap();
    assert_eq!(choice.ranking[0].0, "fsync");
    assert_eq!(choice.ranking[1].0, "fdatasync");
    assert!((choice.ranking[0].1 - 1_000.0).abs() < 1e-6);
    let text = fit::text::render(&report);
    assert!(text.contains("use wal_sync_method = fsync"), "{text}");
    // No limit anywhere: figures without a verdict.
    assert!(report
        .requirements
        .iter()
        .all(|j| matches!(j.verdict, Verdict::NoLimit | Verdict::NotMeasured)));
}

#[test]
fn the_report_serialises_with_its_figures_and_verdicts() {
    let quick = vec![1_000_000u64; 2_000];
    let report = judge(etcd(), &run_of(&[("etcd-wal", &quick, 2.0)]));
    let v = serde_json::to_value(&report).unwrap();
    assert_eq!(v["workload"], "etcd");
    assert_eq!(v["requirements"][0]["verdict"], "fit");
    assert_eq!(v["requirements"][0]["measured"]["count"], 2_000);
    assert!(v["requirements"][0]["source"]["url"]
        .as_str()
        .unwrap()
        .starts_with("https://"));
}

/// A report kept in the history before sources said what their pages were
/// found to say still reads, with nothing claimed for it.
#[test]
fn a_source_saved_without_its_check_still_reads_as_unchecked() {
    let old = r#"{"document":"d","url":"https://example.org","date":"2019-04-18"}"#;
    let s: fit::Source = serde_json::from_str(old).unwrap();
    assert!(!s.checked.confirmed && !s.checked.date_confirmed);
    assert!(s.checked.what.is_empty());
}
