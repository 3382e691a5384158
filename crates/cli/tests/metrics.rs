//! `--metrics-listen`: scraped while `diskbench fio` runs, by this test and
//! by a real Prometheus (Debian's `prometheus`; the test skips without it).
//! The job is rate-limited (`rate_iops`), so its IOPS are known whatever
//! the machine, and every second's figure is the run's.

mod common;

use common::diskbench;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

const RATE_IOPS: f64 = 2000.0;

/// A child process killed and reaped however the test ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `diskbench fio` running one rate-limited random read for `runtime`,
/// serving metrics on a free port; returns it, the port it serves on, and
/// the rest of its stderr (as it ends).
fn start_fio(runtime: &str) -> (Killed, SocketAddr, Receiver<String>) {
    let bin = std::path::PathBuf::from(diskbench().get_program());
    let child = std::process::Command::new(bin)
        .args([
            "fio",
            "--no-save",
            "--output-format=json",
            "--label",
            "provider=test",
            "--metrics-listen",
            "127.0.0.1:0",
            "--name=live",
            "--ioengine=null",
            "--size=64m",
            "--rw=randread",
            "--bs=4k",
            "--time_based",
        ])
        .arg(format!("--runtime={runtime}"))
        .arg(format!("--rate_iops={RATE_IOPS}"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting diskbench");
    let mut child = Killed(child);
    let stderr = child.0.stderr.take().unwrap();
    let (addr_tx, addr_rx) = channel();
    let (rest_tx, rest_rx) = channel();
    std::thread::spawn(move || {
        let mut rest = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("diskbench: live metrics at http://") {
                let addr = url.trim_end_matches("/metrics").parse::<SocketAddr>();
                let _ = addr_tx.send(addr.expect("the address said"));
            }
            rest.push_str(&line);
            rest.push('\n');
        }
        let _ = rest_tx.send(rest);
    });
    let Ok(addr) = addr_rx.recv_timeout(Duration::from_secs(10)) else {
        drop(child);
        panic!("diskbench never said where it serves: {:?}", rest_rx.recv());
    };
    (child, addr, rest_rx)
}

/// `GET path` in HTTP/1.0 (so the answer is not chunked): status and body.
fn get(addr: SocketAddr, path: &str) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2))?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n")?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    Ok((status, body.to_string()))
}

/// One sample: name, labels, value.
type Parsed = (String, Vec<(String, String)>, f64);

/// Parses exposition text (format 0.0.4), failing on any line that is not
/// valid: a HELP or TYPE line, a sample of the family TYPE'd last (or of its
/// `_sum`/`_count` for a summary), labels quoted and escaped, a number.
fn parse_exposition(text: &str) -> Vec<Parsed> {
    assert!(text.ends_with('\n'), "the text ends without a newline");
    let mut samples = Vec::new();
    let mut typed: Vec<String> = Vec::new();
    let mut family: Option<(String, String)> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# ") {
            let mut words = rest.splitn(3, ' ');
            let (what, name, tail) = (words.next(), words.next(), words.next());
            let name = name.unwrap_or_else(|| panic!("no name: {line}"));
            assert!(valid_name(name), "bad name: {line}");
            match what {
                Some("HELP") => assert!(tail.is_some_and(|t| !t.is_empty()), "{line}"),
                Some("TYPE") => {
                    let kind = tail.unwrap_or_default();
                    assert!(
                        ["gauge", "counter", "summary", "histogram", "untyped"].contains(&kind),
                        "{line}"
                    );
                    assert!(!typed.contains(&name.to_string()), "TYPE twice: {line}");
                    typed.push(name.to_string());
                    family = Some((name.to_string(), kind.to_string()));
                }
                _ => {}
            }
            continue;
        }
        assert!(!line.is_empty(), "an empty line");
        let (name, labels, value) = parse_sample(line);
        let (fam, kind) = family
            .clone()
            .unwrap_or_else(|| panic!("a sample before its TYPE: {line}"));
        let base = match kind.as_str() {
            "summary" => name
                .strip_suffix("_sum")
                .or(name.strip_suffix("_count"))
                .unwrap_or(&name),
            _ => &name,
        };
        assert_eq!(base, fam, "a sample outside its family: {line}");
        let quantile = labels.iter().any(|(k, _)| k == "quantile");
        if kind == "summary" {
            assert_eq!(
                quantile,
                name == fam,
                "quantiles go on the summary's own lines: {line}"
            );
        }
        let mut names: Vec<&String> = labels.iter().map(|(k, _)| k).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), labels.len(), "a label twice: {line}");
        samples.push((name, labels, value));
    }
    let mut series: Vec<String> = samples
        .iter()
        .map(|(n, l, _)| format!("{n}{l:?}"))
        .collect();
    series.sort();
    let all = series.len();
    series.dedup();
    assert_eq!(series.len(), all, "a series twice in\n{text}");
    samples
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

fn parse_sample(line: &str) -> Parsed {
    let name_end = line
        .find(['{', ' '])
        .unwrap_or_else(|| panic!("no value: {line}"));
    let name = &line[..name_end];
    assert!(valid_name(name), "bad name: {line}");
    let mut rest = &line[name_end..];
    let mut labels = Vec::new();
    if let Some(inner) = rest.strip_prefix('{') {
        rest = inner;
        loop {
            if let Some(after) = rest.strip_prefix('}') {
                rest = after;
                break;
            }
            let eq = rest
                .find("=\"")
                .unwrap_or_else(|| panic!("bad label: {line}"));
            let key = &rest[..eq];
            assert!(
                valid_name(key) && !key.starts_with("__"),
                "bad label name: {line}"
            );
            let mut value = String::new();
            let mut chars = rest[eq + 2..].char_indices();
            let end = loop {
                match chars.next() {
                    Some((_, '\\')) => match chars.next() {
                        Some((_, '\\')) => value.push('\\'),
                        Some((_, '"')) => value.push('"'),
                        Some((_, 'n')) => value.push('\n'),
                        _ => panic!("bad escape: {line}"),
                    },
                    Some((i, '"')) => break eq + 2 + i + 1,
                    Some((_, '\n')) | None => panic!("unterminated label value: {line}"),
                    Some((_, c)) => value.push(c),
                }
            };
            labels.push((key.to_string(), value));
            rest = &rest[end..];
            rest = rest.strip_prefix(',').unwrap_or(rest);
        }
    }
    let mut fields = rest
        .strip_prefix(' ')
        .unwrap_or_else(|| panic!("no space before the value: {line}"))
        .split(' ');
    let value = fields.next().unwrap_or_default();
    let value: f64 = match value {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        v => v.parse().unwrap_or_else(|_| panic!("bad value: {line}")),
    };
    if let Some(ts) = fields.next() {
        ts.parse::<i64>()
            .unwrap_or_else(|_| panic!("bad timestamp: {line}"));
    }
    assert!(fields.next().is_none(), "trailing fields: {line}");
    (name.to_string(), labels, value)
}

fn label<'a>(labels: &'a [(String, String)], key: &str) -> Option<&'a str> {
    labels
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

#[test]
fn a_scrape_while_fio_runs_is_valid_and_has_the_jobs_iops() {
    let (mut fio, addr, stderr) = start_fio("3");
    let mut live = Vec::new();
    let mut scrapes = 0;
    while fio.0.try_wait().unwrap().is_none() {
        // The server goes with the process: a scrape as it ends may fail.
        if let Ok((status, body)) = get(addr, "/metrics") {
            assert_eq!(status, 200, "{body}");
            scrapes += 1;
            for (name, labels, value) in parse_exposition(&body) {
                assert_eq!(label(&labels, "label_provider"), Some("test"), "{name}");
                let ours = label(&labels, "job_name") == Some("live");
                if name == "diskbench_iops" && ours {
                    assert_eq!(label(&labels, "direction"), Some("read"));
                    live.push(value);
                }
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let mut stdout = String::new();
    fio.0
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let status = fio.0.wait().unwrap();
    assert!(status.success(), "{status}: {:?}", stderr.recv());
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("fio's JSON");
    let final_iops = json["jobs"][0]["read"]["iops"].as_f64().unwrap();
    assert!(
        (final_iops - RATE_IOPS).abs() < RATE_IOPS * 0.05,
        "{final_iops}"
    );
    assert!(scrapes >= 5, "{scrapes} scrapes");
    assert!(!live.is_empty(), "no diskbench_iops in {scrapes} scrapes");
    for v in &live {
        assert!(
            (v - final_iops).abs() < final_iops * 0.1,
            "live {v} vs final {final_iops}"
        );
    }
}

/// The address is bound before anything runs: one in use, or not an
/// address, is a usage error at once, before any I/O (a JSON document for
/// `--output-format=json`, no table for `run`).
#[test]
fn a_port_in_use_or_a_bad_address_is_a_usage_error_before_the_run() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = taken.local_addr().map(|a| (taken, a)).unwrap();
    let job = [
        "--name=long",
        "--ioengine=null",
        "--size=64m",
        "--time_based",
        "--runtime=60",
    ];
    for (addr, says) in [
        (taken.1.to_string(), "in use"),
        ("localhost".to_string(), "give HOST:PORT"),
    ] {
        let out = diskbench()
            .args(["fio", "--no-save", "--output-format=json"])
            .arg(format!("--metrics-listen={addr}"))
            .args(job)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{addr}: {err}");
        assert!(
            err.contains(says) && err.contains("--metrics-listen"),
            "{addr}: {err}"
        );
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(doc["diskbench"]["failure"]["kind"], "usage", "{doc}");
        // Refused before the run: the 60 s job never started.
        assert_eq!(doc["jobs"], serde_json::json!([]), "{addr}: it ran");
    }
    let dir = tempfile::tempdir().unwrap();
    let out = diskbench()
        .args(["run", "--quick", "--no-save", "--metrics-listen"])
        .arg(taken.1.to_string())
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("diskbench run: cannot serve metrics on"),
        "{err}"
    );
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Prometheus' HTTP API: the query's answer (`status`, `data.result`, ...).
fn query(prometheus: SocketAddr, promql: &str) -> serde_json::Value {
    let escaped: String = promql
        .bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    match get(prometheus, &format!("/api/v1/query?query={escaped}")) {
        Ok((_, body)) => serde_json::from_str(&body).unwrap_or_default(),
        Err(_) => serde_json::Value::Null,
    }
}

/// The PromQL of the Grafana dashboard's panels and variables, with its
/// variables as "everything".
fn dashboard_queries() -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../contrib/grafana/diskbench.json");
    let text = std::fs::read_to_string(path).expect("contrib/grafana/diskbench.json");
    let dashboard: serde_json::Value = serde_json::from_str(&text).expect("the dashboard's JSON");
    let mut queries = Vec::new();
    for panel in dashboard["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().into_iter().flatten() {
            queries.extend(target["expr"].as_str().map(str::to_string));
        }
    }
    for variable in dashboard["templating"]["list"].as_array().unwrap() {
        // label_values(SELECTOR, label) is Grafana's, not PromQL: its selector is.
        let definition = variable["definition"].as_str().unwrap_or_default();
        if let Some(inner) = definition.strip_prefix("label_values(") {
            queries.push(inner[..inner.rfind(',').unwrap()].to_string());
        }
    }
    queries
        .iter()
        .map(|q| q.replace("$instance", ".*").replace("$job_name", ".*"))
        .collect()
}

#[test]
fn prometheus_scrapes_the_jobs_iops() {
    let Some(prometheus_bin) = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|d| d.join("prometheus"))
            .find(|p| p.is_file())
    }) else {
        testbed::skip("no prometheus binary: apt-get install prometheus");
        return;
    };
    let (_fio, target, _) = start_fio("30");
    let dir = tempfile::tempdir().unwrap();
    // A free port for Prometheus: taken, noted, let go.
    let web = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let config = dir.path().join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  \
             - job_name: diskbench\n    static_configs:\n      - targets: ['{target}']\n"
        ),
    )
    .unwrap();
    let prometheus = std::process::Command::new(prometheus_bin)
        .arg(format!("--config.file={}", config.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.path().join("data").display()
        ))
        .arg(format!("--web.listen-address={web}"))
        .arg("--log.level=warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting prometheus");
    let mut prometheus = Killed(prometheus);
    let deadline = Instant::now() + Duration::from_secs(25);
    let found = loop {
        let answer = query(web, "diskbench_iops{job_name=\"live\"}");
        let found = answer["data"]["result"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if !found.is_empty() || Instant::now() > deadline {
            break found;
        }
        if let Some(status) = prometheus.0.try_wait().unwrap() {
            let mut err = String::new();
            let _ = prometheus.0.stderr.take().unwrap().read_to_string(&mut err);
            panic!("prometheus ended ({status}): {err}");
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    let targets = get(web, "/api/v1/targets").map(|(_, body)| body);
    assert_eq!(found.len(), 1, "{found:?}; targets: {targets:?}");
    let series = &found[0];
    assert_eq!(series["metric"]["job"], "diskbench", "{series}");
    assert_eq!(series["metric"]["direction"], "read", "{series}");
    assert_eq!(series["metric"]["label_provider"], "test", "{series}");
    let iops: f64 = series["value"][1].as_str().unwrap().parse().unwrap();
    assert!((iops - RATE_IOPS).abs() < RATE_IOPS * 0.1, "{series}");
    // The dashboard's queries are PromQL this Prometheus runs.
    let queries = dashboard_queries();
    assert!(queries.len() >= 10, "{queries:?}");
    for q in queries {
        let answer = query(web, &q);
        assert_eq!(answer["status"], "success", "{q}: {answer}");
    }
}
