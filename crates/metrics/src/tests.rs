//! The metrics endpoint checked piece by piece: the exposition format's
//! escaping, label names, listen addresses, the live figures from made-up
//! seconds, the dashboard's queries against the names served, and the HTTP
//! server against a real socket.

use super::exposition::{user_label_name, Exposition, Kind, Sample};
use super::state::{Identity, State, FRESH};
use super::*;
use model::{Histogram, JobSpec, LivePoint, RwMode, SeriesPoint};
use runner::LiveLatency;
use std::time::Duration;

fn labels(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn exposition_escapes_what_the_format_says_and_leaves_out_empty_families() {
    let mut out = Exposition::default();
    out.family(
        "x_total",
        "a \\ help\nline",
        Kind::Counter,
        &[
            Sample::new(labels(&[("a", "q\"uote\\back\nline")]), 3.0),
            Sample::new(Vec::new(), f64::NAN),
        ],
    );
    out.family("empty", "never printed", Kind::Gauge, &[]);
    out.family(
        "y",
        "inf",
        Kind::Gauge,
        &[
            Sample::new(Vec::new(), f64::INFINITY),
            Sample::new(Vec::new(), -f64::INFINITY),
            Sample::new(Vec::new(), 0.25),
        ],
    );
    assert_eq!(
        out.into_text(),
        "# HELP x_total a \\\\ help\\nline\n# TYPE x_total counter\n\
         x_total{a=\"q\\\"uote\\\\back\\nline\"} 3\nx_total NaN\n\
         # HELP y inf\n# TYPE y gauge\ny +Inf\ny -Inf\ny 0.25\n"
    );
}

#[test]
fn user_labels_become_valid_names_apart_from_prometheus_own() {
    assert_eq!(user_label_name("provider"), "label_provider");
    assert_eq!(user_label_name("disk-type.v2"), "label_disk_type_v2");
    assert_eq!(user_label_name("job"), "label_job");
    assert_eq!(user_label_name("é"), "label__");
    let tags: std::collections::BTreeMap<String, String> =
        [("disk-type", "a"), ("disk.type", "b"), ("zone", "c")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
    assert_eq!(
        label_names(&tags).0,
        labels(&[("label_disk_type", "a"), ("label_zone", "c")])
    );
    let warnings = label_names(&tags).1;
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with("--label disk.type is label_disk_type"),
        "{warnings:?}"
    );
}

#[test]
fn listen_addresses_take_the_exporters_forms_and_refuse_the_rest() {
    assert_eq!(
        parse_listen(":9464").unwrap(),
        "0.0.0.0:9464".parse().unwrap()
    );
    assert_eq!(
        parse_listen("[::1]:9464").unwrap(),
        "[::1]:9464".parse().unwrap()
    );
    assert_eq!(
        parse_listen("127.0.0.1:0").unwrap(),
        "127.0.0.1:0".parse().unwrap()
    );
    for bad in ["127.0.0.1", "9464", "127.0.0.1:99999", "", ":x"] {
        let e = parse_listen(bad).unwrap_err().to_string();
        assert!(e.contains("e.g. 127.0.0.1:9464"), "{bad}: {e}");
    }
}

/// A job of two clones.
fn job(name: &str, rw: RwMode) -> JobSpec {
    let mut j = JobSpec::new(name);
    j.rw = rw;
    j.numjobs = 2;
    j
}

fn point(job: u32, clone: u32, start_ms: u64, read_ios: u64) -> LivePoint {
    LivePoint {
        group: 0,
        job,
        clone,
        point: SeriesPoint {
            start_ms,
            duration_ms: 1000,
            read_ios,
            read_bytes: read_ios * 4096,
            ..SeriesPoint::default()
        },
    }
}

fn latency(job: u32, clone: u32, start_ms: u64, values_ns: &[u64]) -> LiveLatency {
    let mut read = Histogram::new();
    values_ns.iter().for_each(|&v| read.record(v));
    LiveLatency {
        group: 0,
        job,
        clone,
        start_ms,
        lat: [read, Histogram::new()],
    }
}

fn update(
    state: &mut State,
    group: u32,
    jobs: &[JobSpec],
    points: &[LivePoint],
    lat: &[LiveLatency],
    now: Instant,
) {
    let result = RunResult::default();
    state.update(
        &LiveUpdate {
            result: &result,
            group,
            jobs,
            groupids: &vec![group; jobs.len()],
            points,
            latencies: lat,
        },
        now,
    );
}

/// The value of the one line starting with `series ` (name and labels).
fn value(text: &str, series: &str) -> Option<f64> {
    let mut found = text
        .lines()
        .filter_map(|l| l.strip_prefix(series)?.strip_prefix(' '));
    let v = found.next()?.parse().ok();
    assert!(found.next().is_none(), "{series} twice in\n{text}");
    v
}

#[test]
fn live_figures_add_up_the_clones_last_seconds_and_expire() {
    let mut state = State::new(
        Identity {
            command: "fio",
            labels: labels(&[("label_zone", "a")]),
        },
        1.5,
    );
    state.run_started(Some("soak-1"), 3, Some(5));
    let jobs = [job("r", RwMode::RandRead)];
    let t0 = Instant::now();
    update(
        &mut state,
        0,
        &jobs,
        &[point(0, 0, 0, 100), point(0, 1, 0, 300)],
        &[
            latency(0, 0, 0, &[1_000; 99]),
            latency(0, 1, 0, &[1_000_000]),
        ],
        t0,
    );
    // Clone 0's next second replaces its first; clone 1's stays.
    update(&mut state, 0, &jobs, &[point(0, 0, 1000, 200)], &[], t0);
    let text = state.render(t0);
    let own = "{job_name=\"r\",group=\"0\",direction=\"read\",label_zone=\"a\"";
    assert_eq!(value(&text, &format!("diskbench_iops{own}}}")), Some(500.0));
    assert_eq!(
        value(&text, &format!("diskbench_bytes_per_second{own}}}")),
        Some(500.0 * 4096.0)
    );
    assert_eq!(
        value(&text, &format!("diskbench_ios_total{own}}}")),
        Some(600.0)
    );
    // 99 I/Os of 1 us and one of 1 ms: the median is 1 us, p99.9 the 1 ms one.
    let q = |q: &str| {
        value(
            &text,
            &format!("diskbench_latency_seconds{own},quantile=\"{q}\"}}"),
        )
    };
    assert!((q("0.5").unwrap() - 1e-6).abs() < 1e-8, "{text}");
    assert!((q("0.999").unwrap() - 1e-3).abs() < 1e-5, "{text}");
    assert_eq!(
        value(&text, &format!("diskbench_latency_seconds_count{own}}}")),
        Some(100.0)
    );
    assert!(
        value(
            &text,
            "diskbench_info{version=\"0.1.0\",command=\"fio\",soak=\"soak-1\",label_zone=\"a\"}"
        )
        .is_some(),
        "{text}"
    );
    assert_eq!(
        value(&text, "diskbench_soak_run{label_zone=\"a\"}"),
        Some(3.0)
    );
    assert_eq!(
        value(&text, "diskbench_soak_planned_runs{label_zone=\"a\"}"),
        Some(5.0)
    );
    assert_eq!(
        value(&text, "diskbench_running{label_zone=\"a\"}"),
        Some(1.0)
    );
    assert!(
        !text.contains("direction=\"write\""),
        "a read job has no write series:\n{text}"
    );

    // Seconds older than FRESH no longer count; the counters stay.
    let later = state.render(t0 + FRESH + Duration::from_millis(1));
    assert_eq!(
        value(&later, &format!("diskbench_iops{own}}}")),
        None,
        "{later}"
    );
    assert!(!later.contains("quantile="), "{later}");
    assert_eq!(
        value(&later, &format!("diskbench_ios_total{own}}}")),
        Some(600.0)
    );
}

#[test]
fn a_new_group_ends_the_live_figures_of_the_last_and_a_run_ends_them_all() {
    let mut state = State::new(
        Identity {
            command: "run",
            labels: Vec::new(),
        },
        0.0,
    );
    state.run_started(None, 1, None);
    let now = Instant::now();
    update(
        &mut state,
        0,
        &[job("a", RwMode::Read)],
        &[point(0, 0, 0, 10)],
        &[],
        now,
    );
    let mut second = point(0, 0, 0, 20);
    second.group = 1;
    update(
        &mut state,
        1,
        &[job("b", RwMode::Write)],
        &[second],
        &[],
        now,
    );
    let text = state.render(now);
    assert!(text.contains("diskbench_iops{job_name=\"b\""), "{text}");
    assert!(!text.contains("diskbench_iops{job_name=\"a\""), "{text}");
    assert!(
        text.contains("diskbench_ios_total{job_name=\"a\",group=\"0\",direction=\"read\"} 10"),
        "{text}"
    );
    // Not a soak: no planned runs.
    assert!(!text.contains("diskbench_soak_planned_runs"), "{text}");

    state.run_finished(&finished_run(), &[cliff_verdict()]);
    let text = state.render(now);
    assert!(!text.contains("diskbench_iops{"), "{text}");
    assert!(text.contains("diskbench_running 0"), "{text}");
    // Two entries of one job (clones without group_reporting) are one job.
    assert_eq!(
        value(
            &text,
            "diskbench_last_run_iops{job_name=\"a\",group=\"0\",direction=\"read\"}"
        ),
        Some(3000.0)
    );
    assert_eq!(value(&text, "diskbench_last_run_latency_seconds{job_name=\"a\",group=\"0\",direction=\"read\",quantile=\"0.5\"}"), Some(5e-6));
    assert_eq!(
        value(&text, "diskbench_cliff_detected{job_name=\"a\"}"),
        Some(1.0)
    );
    assert_eq!(
        value(&text, "diskbench_cliff_run{job_name=\"a\"}"),
        Some(2.0)
    );
    assert_eq!(
        value(&text, "diskbench_cliff_drop_ratio{job_name=\"a\"}"),
        Some(0.66)
    );
}

/// A finished run of job "a": two entries (clones without group_reporting).
fn finished_run() -> RunResult {
    let mut result = RunResult::default();
    let mut a = model::JobResult::empty(&job("a", RwMode::Read), 0, 1);
    a.read.ios = 3000;
    a.read.runtime_ns = 2_000_000_000;
    a.read.lat.record(5_000);
    let clone = a.clone();
    result.jobs = vec![a, clone];
    result
}

/// Job "a" lost 66% of its IOPS in run 2.
fn cliff_verdict() -> report::soak::JobVerdict {
    report::soak::JobVerdict {
        name: "a".into(),
        runs: 3,
        cliff: report::cliff::CliffReport {
            detected: true,
            at_run: Some(2),
            before_iops: 3000.0,
            after_iops: 1000.0,
            drop_pct: 66.0,
            ..Default::default()
        },
        steady: None,
        recovery: None,
        confirmed: true,
    }
}

/// Every family the endpoint has, with its type: a soak's run, live and finished.
fn every_family() -> Vec<(String, String)> {
    let mut state = State::new(
        Identity {
            command: "fio",
            labels: Vec::new(),
        },
        0.0,
    );
    state.run_started(Some("s"), 2, Some(3));
    let now = Instant::now();
    let jobs = [job("a", RwMode::RandRw)];
    update(
        &mut state,
        0,
        &jobs,
        &[point(0, 0, 0, 10)],
        &[latency(0, 0, 0, &[10])],
        now,
    );
    let live = state.render(now);
    state.run_finished(&finished_run(), &[cliff_verdict()]);
    let finished = state.render(now);
    let mut families: Vec<(String, String)> = format!("{live}{finished}")
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split_once(' '))
        .map(|(n, k)| (n.to_string(), k.to_string()))
        .collect();
    families.sort();
    families.dedup();
    families
}

/// The Grafana dashboard (contrib/grafana) asks only for series the
/// endpoint serves, and only for tables and columns the history has: a
/// renamed metric or column cannot leave it behind.
#[test]
fn the_grafana_dashboard_reads_what_diskbench_serves_and_keeps() {
    let dashboard: serde_json::Value =
        serde_json::from_str(include_str!("../../../contrib/grafana/diskbench.json")).unwrap();
    let families = every_family();
    let serves = |name: &str| {
        families.iter().any(|(family, kind)| {
            name == family
                || (kind == "summary"
                    && [family.clone() + "_sum", family.clone() + "_count"]
                        .contains(&name.to_string()))
        })
    };
    let mut promql = Vec::new();
    let mut sql = Vec::new();
    for panel in dashboard["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().into_iter().flatten() {
            promql.extend(target["expr"].as_str().map(str::to_string));
            sql.extend(target["rawSql"].as_str().map(str::to_string));
        }
    }
    for variable in dashboard["templating"]["list"].as_array().unwrap() {
        let query = variable["definition"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        match variable["datasource"]["type"].as_str() {
            Some("prometheus") => promql.push(query),
            Some("grafana-postgresql-datasource") => sql.push(query),
            _ => {}
        }
    }
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let asked: Vec<String> = promql
        .iter()
        .flat_map(|q| words(q))
        .filter(|w| w.starts_with("diskbench_"))
        .collect();
    assert!(asked.len() >= 15, "{asked:?}");
    for name in &asked {
        assert!(
            serves(name),
            "the dashboard asks for {name}, which diskbench does not serve: {families:?}"
        );
    }
    for family in [
        "diskbench_iops",
        "diskbench_latency_seconds",
        "diskbench_soak_run",
        "diskbench_cliff_detected",
    ] {
        assert!(
            asked.iter().any(|a| a == family),
            "the dashboard does not show {family}"
        );
    }
    let schema = include_str!("../../store/src/schema.rs");
    let tables = [("r", "runs"), ("ls", "live_series"), ("l", "labels")];
    assert!(sql.len() >= 4, "{sql:?}");
    for query in &sql {
        for word in words(query) {
            let Some((alias, column)) = word.split_once('.') else {
                continue;
            };
            if tables.iter().any(|(a, _)| *a == alias) {
                let declared = schema.contains(&format!("\n    {column} "))
                    || schema.contains(&format!("ADD COLUMN {column} "));
                assert!(declared, "{word} is not a column of the history: {query}");
            }
        }
        for (_, table) in tables {
            if query.contains(&format!(" {table} ")) {
                assert!(
                    schema.contains(&format!("CREATE TABLE {table} (")),
                    "{table}"
                );
            }
        }
    }
}

fn respond(head: &str) -> String {
    let body = || "m 1\n".to_string();
    String::from_utf8(http::respond(head, exposition::CONTENT_TYPE, &body)).unwrap()
}

#[test]
fn the_server_answers_metrics_and_refuses_the_rest_plainly() {
    let ok = respond("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*");
    assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
    assert!(
        ok.contains("\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"),
        "{ok}"
    );
    assert!(ok.contains("\r\nContent-Length: 4\r\n"), "{ok}");
    assert!(ok.ends_with("\r\n\r\nm 1\n"), "{ok}");
    let query = respond("GET /metrics?x=1 HTTP/1.0");
    assert!(query.starts_with("HTTP/1.1 200 OK\r\n"), "{query}");
    let head = respond("HEAD /metrics HTTP/1.1");
    assert!(
        head.contains("Content-Length: 4\r\n") && head.ends_with("\r\n\r\n"),
        "{head}"
    );
    let cases = [
        ("GET / HTTP/1.1", "404 Not Found"),
        ("POST /metrics HTTP/1.1", "405 Method Not Allowed"),
        ("GET /metrics HTTP/2.0", "505 HTTP Version Not Supported"),
        ("hello", "400 Bad Request"),
        ("", "400 Bad Request"),
    ];
    for (request, status) in cases {
        let r = respond(request);
        assert!(
            r.starts_with(&format!("HTTP/1.1 {status}\r\n")),
            "{request}: {r}"
        );
    }
    assert!(respond("PUT /metrics HTTP/1.1").contains("\r\nAllow: GET, HEAD\r\n"));
}

/// Over a real socket: a request that arrives in pieces is answered, and
/// a client that says nothing does not keep the next one waiting: the
/// server gives up on it at its read timeout (a 400, the connection
/// closed), then answers the next.
#[test]
fn the_server_answers_over_tcp_after_a_silent_client() {
    use std::io::{Read, Write};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    http::serve(listener, exposition::CONTENT_TYPE, || "up 1\n".to_string()).unwrap();
    // Only so that a server that never gives up fails the test instead of
    // hanging it: ten times the server's own timeout.
    let hung = http::READ_TIMEOUT * 10;
    let mut silent = std::net::TcpStream::connect(addr).unwrap();
    silent.set_read_timeout(Some(hung)).unwrap();
    let mut client = std::net::TcpStream::connect(addr).unwrap();
    client.set_read_timeout(Some(hung)).unwrap();
    client.write_all(b"GET /metr").unwrap();
    std::thread::sleep(Duration::from_millis(50));
    client
        .write_all(b"ics HTTP/1.1\r\nHost: t\r\n\r\n")
        .unwrap();
    let mut given_up = String::new();
    silent
        .read_to_string(&mut given_up)
        .expect("the server closes a silent client's connection");
    assert!(given_up.starts_with("HTTP/1.1 400 "), "{given_up}");
    let mut answer = String::new();
    client
        .read_to_string(&mut answer)
        .expect("the next client is answered");
    assert!(
        answer.starts_with("HTTP/1.1 200 OK\r\n") && answer.ends_with("\r\n\r\nup 1\n"),
        "{answer}"
    );
}
