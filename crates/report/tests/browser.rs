//! headless Chromium opens the report from a file
//! with the network unusable, every chart draws, the console stays silent
//! and no request leaves the page. A screenshot is kept for people.
//!
//! Needs Debian's `chromium` (`apt-get install chromium`); without it the
//! test prints "skipped: ..." and passes. `CHROMIUM=/path` picks another.
//!
//! How each check works:
//! - charts: the page's own script lays out every chart and writes
//!   `<meta name="charts">` / `charts-drawn`; `--dump-dom` shows them,
//!   beside `charts-expected`, which the Rust side wrote;
//! - console: `--enable-logging=stderr` prints every console message and
//!   uncaught exception as a `CONSOLE` line; the report logs nothing, so
//!   any such line fails the test;
//! - requests: `--log-net-log` records every URL the network stack saw.
//!   Chromium's own services (component updates, account checks) still
//!   call home despite the flags, so a request counts as the page's when
//!   it was made for a document (its initiator is an origin; a file page's
//!   is "null") or within the file:// site; others are listed as the
//!   browser's. The network is made unusable anyway (every host resolves
//!   to nothing, every request goes to a closed loopback proxy).
//!
//! The checks first run on a page that breaks every rule, so a check that
//! could never fail would fail here instead.

use diskbench_report::{demo, html::render_report};
use model::RunRecord;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(120);

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin")])
        .flat_map(|d| [d.join("chromium"), d.join("chromium-browser")])
        .find(|p| p.is_file())
}

/// What one headless run left behind.
struct Run {
    dom: String,
    stderr: String,
    net_log: PathBuf,
}

/// Runs Chromium on `page` with a fresh profile and no usable network.
fn open(bin: &Path, dir: &Path, name: &str, page: &Path, action: &[String]) -> Run {
    let profile = tempfile::tempdir().expect("a temporary profile directory");
    let net_log = dir.join(format!("{name}.netlog.json"));
    let (out_path, err_path) = (
        dir.join(format!("{name}.out")),
        dir.join(format!("{name}.err")),
    );
    let mut cmd = Command::new(bin);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--disable-dev-shm-usage",
        "--enable-logging=stderr",
        "--v=0",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--proxy-server=127.0.0.1:9",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .arg(format!("--log-net-log={}", net_log.display()))
    .args(action)
    .arg(format!("file://{}", page.display()))
    .stdin(Stdio::null())
    .stdout(std::fs::File::create(&out_path).unwrap())
    .stderr(std::fs::File::create(&err_path).unwrap());
    let mut child = cmd.spawn().expect("chromium starts");
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish {name} in {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Run {
        dom: std::fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
        net_log,
    }
}

/// The console messages and uncaught exceptions Chromium logged.
fn console_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught"))
        .collect()
}

/// `<meta name="NAME" content="N">` in the dumped DOM.
fn meta(dom: &str, name: &str) -> Option<usize> {
    let tag = format!("<meta name=\"{name}\" content=\"");
    let rest = &dom[dom.find(&tag)? + tag.len()..];
    rest[..rest.find('"')?].parse().ok()
}

/// URLs in the net log other than file: and data:, as (the page's, the browser's).
fn requests(net_log: &Path) -> (BTreeSet<String>, BTreeSet<String>) {
    let text = std::fs::read_to_string(net_log).expect("chromium wrote the net log");
    let log: Value = serde_json::from_str(&text)
        .or_else(|_| serde_json::from_str(&format!("{}]}}", text.trim_end().trim_end_matches(','))))
        .expect("the net log is JSON");
    let mut urls: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
    let mut from_page: BTreeSet<u64> = BTreeSet::new();
    for e in log["events"].as_array().expect("net log events") {
        let source = e["source"]["id"].as_u64().unwrap_or(0);
        let p = &e["params"];
        if let Some(url) = p["url"].as_str() {
            if !(url.starts_with("file:") || url.starts_with("data:")) {
                urls.entry(source).or_default().insert(url.to_string());
            }
        }
        let initiator = p["initiator"].as_str();
        let in_file_site = p["network_isolation_key"]
            .as_str()
            .is_some_and(|k| k.contains("file://"));
        if in_file_site || initiator.is_some_and(|i| i != "not an origin") {
            from_page.insert(source);
        }
    }
    let mut page = BTreeSet::new();
    let mut browser = BTreeSet::new();
    for (source, set) in urls {
        if from_page.contains(&source) {
            page.extend(set);
        } else {
            browser.extend(set);
        }
    }
    (page, browser)
}

/// A record whose labels would inject markup (and log to the console) if
/// they were not escaped.
fn hostile_record() -> RunRecord {
    let mut r = demo::records().remove(0);
    r.id = 1000;
    r.labels = [
        (
            "provider",
            "<img src=x onerror=\"console.error('escaped badly')\">",
        ),
        ("disk", "a&b \"quoted\" 'single'"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    r.result.targets[0].path = "/mnt/<script>console.error(1)</script>".into();
    r
}

#[test]
fn report_draws_offline_without_errors_or_requests() {
    let Some(bin) = chromium() else {
        testbed::skip("chromium not found (Debian: apt-get install chromium; or set CHROMIUM)");
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser-report");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let dump = vec!["--dump-dom".to_string()];

    // The checks catch a page that breaks every rule.
    let bad = dir.join("bad.html");
    std::fs::write(
        &bad,
        "<!DOCTYPE html><html><head><link rel=\"stylesheet\" href=\"https://cdn.example.com/a.css\">\
         </head><body><img src=\"http://example.com/b.png\"><script>console.error('bad page');\
         fetch('https://example.org/c.json').catch(function(){});</script></body></html>",
    )
    .unwrap();
    let run = open(&bin, &dir, "bad", &bad, &dump);
    let (page, _) = requests(&run.net_log);
    assert!(
        page.iter().any(|u| u.contains("example.com/b.png")) && page.len() >= 2,
        "the net-log check missed the bad page's requests: {page:?}"
    );
    assert!(
        console_lines(&run.stderr)
            .iter()
            .any(|l| l.contains("bad page")),
        "the console check missed the bad page's error:\n{}",
        run.stderr
    );

    // The report.
    let mut records = demo::records();
    records.push(hostile_record());
    let by = vec!["provider".to_string(), "disk".to_string()];
    let report = dir.join("report.html");
    std::fs::write(&report, render_report(&records, &by)).unwrap();
    let run = open(&bin, &dir, "report", &report, &dump);
    let expected = meta(&run.dom, "charts-expected").expect("charts-expected in the page");
    let charts = meta(&run.dom, "charts");
    let drawn = meta(&run.dom, "charts-drawn");
    assert!(expected > 0);
    assert_eq!(
        (charts, drawn),
        (Some(expected), Some(expected)),
        "charts found / drawn by the page's script vs written (did the script run?)"
    );
    let console = console_lines(&run.stderr);
    assert!(console.is_empty(), "console output: {console:#?}");
    let (page, browser) = requests(&run.net_log);
    assert!(page.is_empty(), "the page made requests: {page:?}");
    if !browser.is_empty() {
        println!("chromium's own background requests (not the page's; the network was unusable): {browser:?}");
    }

    let shot = dir.join("report.png");
    let action = vec![
        format!("--screenshot={}", shot.display()),
        "--window-size=1280,2000".to_string(),
    ];
    let run = open(&bin, &dir, "screenshot", &report, &action);
    let size = std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0);
    assert!(
        size > 10_000,
        "no screenshot ({size} bytes):\n{}",
        run.stderr
    );
    println!(
        "{expected} of {expected} charts drawn; screenshot: {}",
        shot.display()
    );
}

/// Measures, in the laid-out page, what the "Run by run" section shows:
/// the timelines (how many, the fewest dots in one, the shortest) and the
/// one-run table (its height, whether it names `group`). The test appends
/// it to a copy of the report; the report itself has one script only.
fn layout_probe(group: &str) -> String {
    format!(
        "<script>(function(){{\
         function meta(n,v){{var m=document.createElement('meta');m.name=n;m.content=String(v);document.head.appendChild(m);}}\
         var tl=document.querySelectorAll('svg.chart-timeline');var dots=1e9,tall=1e9;\
         Array.prototype.forEach.call(tl,function(s){{dots=Math.min(dots,s.querySelectorAll('circle').length);\
         tall=Math.min(tall,s.getBoundingClientRect().height);}});\
         var t=document.querySelector('table.one-run');\
         meta('timelines',tl.length);meta('timeline-fewest-dots',dots);meta('timeline-shortest',Math.round(tall));\
         meta('one-run-table-height',t?Math.round(t.getBoundingClientRect().height):0);\
         meta('one-run-table-names-group',t&&t.innerText.indexOf({group:?})>=0?1:0);\
         }})();</script>"
    )
}

/// A group of one run in the real browser: a short table row with its
/// figures, not four full-height line charts with one dot each, while the
/// groups of several runs keep their timelines.
#[test]
fn a_group_of_one_run_is_a_short_table_not_line_charts() {
    let Some(bin) = chromium() else {
        testbed::skip("chromium not found (Debian: apt-get install chromium; or set CHROMIUM)");
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser-one-run");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut records = demo::records();
    let mut single = records[0].clone();
    single.id = 2000;
    single.labels = [("provider", "local"), ("disk", "sd-card")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    records.push(single);
    let by = vec!["provider".to_string(), "disk".to_string()];
    let html = render_report(&records, &by);
    let page = dir.join("report.html");
    let probed = html.replacen(
        "</body>",
        &format!("{}</body>", layout_probe("local sd-card")),
        1,
    );
    std::fs::write(&page, probed).unwrap();
    let run = open(&bin, &dir, "one-run", &page, &["--dump-dom".to_string()]);
    let console = console_lines(&run.stderr);
    assert!(console.is_empty(), "console output: {console:#?}");
    let expected = meta(&run.dom, "charts-expected");
    assert_eq!(
        meta(&run.dom, "charts-drawn"),
        expected,
        "every chart drawn"
    );
    let m = |name: &str| meta(&run.dom, name).unwrap_or_else(|| panic!("{name} not measured"));
    // The demo's five groups of several runs, each a point per run and metric.
    assert_eq!(m("timelines"), 5);
    assert!(m("timeline-fewest-dots") >= 2 * 4, "a timeline of one run");
    // The one-run group is a table row, shorter than one panel of a timeline.
    assert_eq!(m("one-run-table-names-group"), 1);
    let (table, shortest) = (m("one-run-table-height"), m("timeline-shortest"));
    assert!(table > 0, "the one-run table is laid out");
    assert!(
        table * 4 < shortest,
        "the one-run table ({table} px) is not small beside a timeline ({shortest} px)"
    );
    println!("one-run table {table} px; shortest timeline {shortest} px");
}

/// A point of a sweep: `iops` random reads at depth `qd`, each in `lat_us`
/// (every tenth ten times slower, for a tail), labelled with its sweep.
fn sweep_point(id: i64, sweep: &str, qd: u32, iops: u64, lat_us: u64) -> RunRecord {
    let mut spec = model::JobSpec::new("sweep");
    spec.rw = model::RwMode::RandRead;
    spec.iodepth = qd;
    spec.options = vec![("bs".into(), "4k".into())];
    let mut read = model::DirStats {
        ios: iops,
        bytes: iops * 4096,
        runtime_ns: 1_000_000_000,
        ..Default::default()
    };
    read.clat.record_n(lat_us * 1000, iops - iops / 10);
    read.clat.record_n(lat_us * 10_000, iops / 10);
    read.lat = read.clat.clone();
    RunRecord {
        id,
        kind: model::RunKind::Fio,
        labels: [("sweep".to_string(), sweep.to_string())].into(),
        prices: Default::default(),
        result: model::RunResult {
            jobs: vec![model::JobResult {
                read,
                runtime_ns: 1_000_000_000,
                ..model::JobResult::empty(&spec, 0, 1)
            }],
            started_unix_ms: 1_763_900_000_000 + id as u64 * 1000,
            finished_unix_ms: 1_763_900_000_000 + id as u64 * 1000 + 1000,
            ..Default::default()
        },
        soak: None,
        state: Default::default(),
        uuid: String::new(),
    }
}

#[test]
fn a_sweep_report_draws_its_saturation_curves() {
    let Some(bin) = chromium() else {
        testbed::skip("chromium not found (Debian: apt-get install chromium; or set CHROMIUM)");
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser-curves");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // An SSD that bends at QD8, and a throttled disk flat at 4000 from QD1.
    let ssd = [
        (1, 9000, 110),
        (2, 17500, 115),
        (4, 33000, 120),
        (8, 52000, 150),
        (16, 54000, 290),
        (32, 54500, 580),
    ];
    let mut records: Vec<RunRecord> = ssd
        .iter()
        .enumerate()
        .map(|(i, &(qd, iops, lat))| sweep_point(i as i64 + 1, "ssd", qd, iops, lat))
        .collect();
    for (i, qd) in [1u32, 2, 4, 8, 16, 32].into_iter().enumerate() {
        records.push(sweep_point(
            20 + i as i64,
            "throttled",
            qd,
            4000,
            u64::from(qd) * 250,
        ));
    }
    let report = dir.join("curves.html");
    std::fs::write(&report, render_report(&records, &[])).unwrap();
    let run = open(&bin, &dir, "curves", &report, &["--dump-dom".to_string()]);
    assert!(run.dom.contains("Saturation curves"), "no curves section");
    assert!(
        run.dom.contains("knee QD8") && run.dom.contains("knee QD1"),
        "knees not marked"
    );
    let expected = meta(&run.dom, "charts-expected").expect("charts-expected in the page");
    assert_eq!(
        meta(&run.dom, "charts-drawn"),
        Some(expected),
        "every chart drawn"
    );
    assert!(console_lines(&run.stderr).is_empty(), "{}", run.stderr);
    let shot = dir.join("curves.png");
    let action = vec![
        format!("--screenshot={}", shot.display()),
        "--window-size=1280,2400".to_string(),
    ];
    open(&bin, &dir, "curves-shot", &report, &action);
    assert!(std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0) > 10_000);
    println!("screenshot: {}", shot.display());
}
