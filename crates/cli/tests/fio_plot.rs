//! fio-plot (PyPI `fio-plot`, checked with 1.1.21)
//! draws its bar charts from a folder of diskbench JSON results as it does
//! from fio's, and the values it shows are diskbench's.
//!
//! fio-plot's `-l`/`-N`/`-L`/`-C`/`-H` charts read a folder of fio JSON files
//! (bench-fio names them `<rw>-<iodepth>-<numjobs>.json`, but fio-plot opens
//! every `*.json` and picks files by their `job options`). The first test
//! needs no Python: it checks that every JSON path fio-plot reads exists in
//! diskbench's output with the JSON type it has in fio 3.33's (the report
//! crate's fixture). The second runs fio-plot itself when it is installed
//! (`.ci/run` installs it) and skips with a printed reason otherwise.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command as Process;

/// What fio-plot 1.1.21 reads from each job, by source file:
/// - `jsonimport.py` (choosing files): `job options` `rw`, `iodepth`,
///   `numjobs` (compared with `-r`, and `int()`-ed against `-d`/`-n`);
/// - `jsonparsing.py`: `jobname` (compared with "All clients");
/// - `jsonparsing_support.get_json_mapping` (every chart): `job options`
///   `bs`, per direction `bw`, `iops`, `iops_stddev`, `lat_ns.mean`,
///   `lat_ns.stddev`; `latency_ms/us/ns` (the `-H` histogram); `usr_cpu`,
///   `sys_cpu`.
///
/// `hostname` and `steadystate` are read only when present (fio's
/// client/server mode and steadystate jobs): neither applies here.
const JOB_PATHS: &[&str] = &[
    "jobname",
    "job options",
    "job options.rw",
    "job options.bs",
    "job options.iodepth",
    "job options.numjobs",
    "latency_ns",
    "latency_us",
    "latency_ms",
    "usr_cpu",
    "sys_cpu",
];

/// Read under `read` and `write` (fio-plot's `-f read|write` for mixed jobs).
const DIR_PATHS: &[&str] = &["bw", "iops", "iops_stddev", "lat_ns.mean", "lat_ns.stddev"];

/// Top-level keys: `validate_json_file` wants two of "fio version",
/// "global options", "client_stats", "jobs"; the chart prints "fio version".
const TOP_PATHS: &[&str] = &["fio version", "jobs"];

const FIO_SAMPLE: &str = include_str!("../../../fixtures/fio-3.33-randrw.json");

fn at<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |v, key| v.get(key))
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::Bool(_) => "bool",
        Value::Null => "null",
    }
}

/// The paths fio-plot reads, job-relative ones prefixed by `jobs.0.`.
fn all_paths() -> Vec<String> {
    let mut paths: Vec<String> = TOP_PATHS.iter().map(|p| p.to_string()).collect();
    paths.extend(JOB_PATHS.iter().map(|p| format!("jobs.0.{p}")));
    for dir in ["read", "write"] {
        paths.extend(DIR_PATHS.iter().map(|p| format!("jobs.0.{dir}.{p}")));
    }
    paths
}

/// `at` with `jobs.0` meaning the first job of the array.
fn lookup<'a>(doc: &'a Value, path: &str) -> Option<&'a Value> {
    match path.strip_prefix("jobs.0.") {
        Some(rest) => at(doc.get("jobs")?.get(0)?, rest),
        None => at(doc, path),
    }
}

/// A randrw job, both directions busy, on the null engine (no device noise).
fn randrw_job(dir: &Path, iodepth: u32) -> Value {
    fio_ok_in(
        dir,
        &format!(
            "--name=randrw --ioengine=null --rw=randrw --bs=4k --iodepth={iodepth} \
             --numjobs=1 --size=64m --runtime=1 --time_based"
        ),
    )
}

#[test]
fn every_path_fio_plot_reads_is_there_with_fios_type() {
    let fio: Value = serde_json::from_str(FIO_SAMPLE).unwrap();
    let dir = real_dir();
    let ours = randrw_job(dir.path(), 4);
    for path in all_paths() {
        let f = lookup(&fio, &path).unwrap_or_else(|| panic!("fio's sample has no {path}"));
        let o = lookup(&ours, &path).unwrap_or_else(|| panic!("diskbench's JSON has no {path}"));
        assert_eq!(kind(f), kind(o), "{path}: fio has {f}, diskbench {o}");
    }
    // The values fio-plot parses: job options as typed, iodepth and numjobs
    // integers, the latency buckets' keys numbers (or ">=2000") as in fio.
    let options = &ours["jobs"][0]["job options"];
    assert_eq!(options["rw"], "randrw");
    assert_eq!(options["bs"], "4k");
    assert_eq!(options["iodepth"].as_str().unwrap().parse::<u32>(), Ok(4));
    assert_eq!(options["numjobs"].as_str().unwrap().parse::<u32>(), Ok(1));
    for key in ["latency_ns", "latency_us", "latency_ms"] {
        let names =
            |v: &Value| -> Vec<String> { v[key].as_object().unwrap().keys().cloned().collect() };
        assert_eq!(names(&ours["jobs"][0]), names(&fio["jobs"][0]), "{key}");
        for (name, v) in ours["jobs"][0][key].as_object().unwrap() {
            assert!(
                name == ">=2000" || name.parse::<u64>().is_ok(),
                "{key}.{name}"
            );
            assert_eq!(kind(v), "float", "{key}.{name}");
        }
    }
    for dir in ["read", "write"] {
        let d = &ours["jobs"][0][dir];
        assert!(d["iops"].as_f64().unwrap() > 0.0, "{dir}: {d}");
        assert!(d["lat_ns"]["mean"].as_f64().unwrap() > 0.0, "{dir}: {d}");
    }
}

/// The Python that reads a folder the way fio-plot's `-l` chart does and
/// prints, per file's iodepth, the IOPS and mean latency it draws (ns).
const READ_AS_FIO_PLOT: &str = r#"
import json, sys
from fio_plot.fiolib import getdata, shared_chart, defaultsettings
s = defaultsettings.get_default_settings()
s.update({"input_directory": [sys.argv[1]], "rw": "randrw", "filter": [sys.argv[2]],
          "iodepth": [1, 2, 4], "numjobs": [1], "graphtype": "bargraph2d_qd",
          "compare_graph": False})
s = getdata.configure_default_settings(s, getdata.get_routing_dict(), "bargraph2d_qd")
data = getdata.get_json_data(s)
rs = shared_chart.get_record_set(s, data, shared_chart.get_dataset_types(data))
print(json.dumps({"iodepth": [int(x) for x in rs["x_axis"]],
                  "iops": rs["iops_series_raw"], "lat_ns": rs["lat_series_raw"]}))
"#;

fn fio_plot_missing() -> Option<String> {
    let probe = Process::new("python3")
        .args(["-c", "import fio_plot"])
        .output();
    match probe {
        Err(e) => Some(format!("python3 cannot run: {e}")),
        Ok(out) if !out.status.success() => {
            Some("fio-plot is not installed (pip install fio-plot)".into())
        }
        Ok(_) => {
            let which = Process::new("fio-plot").arg("--help").output();
            match which {
                Ok(out) if out.status.success() => None,
                _ => Some("the fio-plot command is not on PATH".into()),
            }
        }
    }
}

#[test]
fn fio_plot_draws_diskbench_json_with_diskbenchs_values() {
    if let Some(reason) = fio_plot_missing() {
        testbed::skip(reason);
        return;
    }
    let work = real_dir();
    let results = tempfile::tempdir().unwrap();
    let mut ours = Vec::new();
    for iodepth in [1, 2, 4] {
        let doc = randrw_job(work.path(), iodepth);
        let file = results.path().join(format!("randrw-{iodepth}-1.json"));
        std::fs::write(&file, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
        ours.push(doc);
    }
    for filter in ["read", "write"] {
        let png = results.path().join(format!("chart-{filter}.png"));
        let out = Process::new("fio-plot")
            .env("MPLBACKEND", "Agg")
            .current_dir(results.path())
            .args([
                "-i",
                ".",
                "-T",
                "diskbench",
                "-l",
                "-r",
                "randrw",
                "-f",
                filter,
                "-o",
            ])
            .arg(&png)
            .output()
            .unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        assert!(
            out.status.success(),
            "fio-plot -l -f {filter} failed:\n{}\n{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        let image = std::fs::read(&png).unwrap();
        assert!(
            image.starts_with(b"\x89PNG"),
            "{} is not a PNG",
            png.display()
        );

        let out = Process::new("python3")
            .args(["-c", READ_AS_FIO_PLOT])
            .arg(results.path())
            .arg(filter)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        let read: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(read["iodepth"], serde_json::json!([1, 2, 4]));
        for (i, doc) in ours.iter().enumerate() {
            let d = &doc["jobs"][0][filter];
            assert_eq!(read["iops"][i], d["iops"], "{filter} iops at {i}");
            assert_eq!(
                read["lat_ns"][i], d["lat_ns"]["mean"],
                "{filter} lat at {i}"
            );
        }
    }
}
