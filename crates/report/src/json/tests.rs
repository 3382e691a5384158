//! The JSON checked against real fio 3.33 output (the root `fixtures/`): same
//! keys in the same order, same number types, values derived as fio does.

use super::*;
use crate::testutil::*;
use serde_json::Value;

const FIO_SAMPLE: &str = include_str!("../../../../fixtures/fio-3.33-randrw.json");

/// Top-level keys of fio's output that diskbench leaves out, and why: none.
const OMITTED_TOP_KEYS: &[(&str, &str)] = &[];

/// Per-job keys of fio's output that diskbench leaves out, and why.
const OMITTED_JOB_KEYS: &[(&str, &str)] = &[
    (
        "iodepth_level",
        "the queue-depth distribution is not measured",
    ),
    ("iodepth_submit", "submit batch sizes are not measured"),
    (
        "iodepth_complete",
        "completion batch sizes are not measured",
    ),
];

/// Keys of fio's `jobs[].read` that diskbench leaves out: none.
const OMITTED_DIR_KEYS: &[(&str, &str)] = &[];

fn sample() -> Value {
    serde_json::from_str(FIO_SAMPLE).unwrap()
}

fn ours(result: &RunResult) -> Value {
    let text = render(result);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON: {e}\n{text}"))
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

fn without<'a>(keys: Vec<&'a str>, omitted: &[(&str, &str)]) -> Vec<&'a str> {
    keys.into_iter()
        .filter(|k| !omitted.iter().any(|(o, _)| o == k))
        .collect()
}

/// Every key both have holds the same JSON type (integer, float, string, object...).
fn assert_same_types(path: &str, fio: &Value, ours: &Value) {
    let kind = |v: &Value| match v {
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::Bool(_) => "bool",
        Value::Null => "null",
    };
    assert_eq!(
        kind(fio),
        kind(ours),
        "{path}: fio has {fio}, we have {ours}"
    );
    if let (Value::Object(f), Value::Object(o)) = (fio, ours) {
        for (k, fv) in f {
            if let Some(ov) = o.get(k) {
                assert_same_types(&format!("{path}.{k}"), fv, ov);
            }
        }
    }
}

#[test]
fn top_level_has_fios_keys_then_ours() {
    let v = ours(&sample_run());
    let fio = sample();
    let mut expected = without(keys(&fio), OMITTED_TOP_KEYS);
    expected.push("diskbench");
    assert_eq!(keys(&v), expected);
    assert_eq!(v["fio version"], "fio-3.33");
    assert_eq!(v["diskbench"]["version"], "diskbench-0.1.0");
    assert_eq!(v["timestamp"], 1_795_313_286u64);
    assert_eq!(v["timestamp_ms"], 1_795_313_286_785u64);
    assert_eq!(v["time"], "Sun Nov 22 02:08:06 2026");
    assert_eq!(v["diskbench"]["schema_version"], 1);
    assert_eq!(v["diskbench"]["host"]["hostname"], "vm1");
    assert_eq!(v["diskbench"]["targets"][0]["filesystem"], "ext4");
    assert_eq!(v["diskbench"]["interrupted"], false);
    assert!(v.get("error").is_none());
}

#[test]
fn job_keys_are_fios_in_fios_order() {
    let v = ours(&sample_run());
    let fio = sample();
    let mut expected = without(keys(&fio["jobs"][0]), OMITTED_JOB_KEYS);
    // diskbench's own keys come after all of fio's.
    expected.extend(["cliff", "diskbench"]);
    assert_eq!(keys(&v["jobs"][0]), expected);
    let dir_keys = without(keys(&fio["jobs"][0]["read"]), OMITTED_DIR_KEYS);
    for dir in ["read", "write", "trim"] {
        assert_eq!(keys(&v["jobs"][0][dir]), dir_keys, "{dir}");
    }
    for lat in ["slat_ns", "clat_ns", "lat_ns"] {
        assert_eq!(
            keys(&v["jobs"][0]["read"][lat]),
            keys(&fio["jobs"][0]["read"][lat]),
            "{lat}"
        );
    }
    let pct = &v["jobs"][0]["read"]["clat_ns"]["percentile"];
    assert_eq!(
        keys(pct),
        keys(&fio["jobs"][0]["read"]["clat_ns"]["percentile"])
    );
    for key in ["sync", "latency_ns", "latency_us", "latency_ms"] {
        assert_eq!(
            keys(&v["jobs"][0][key]),
            keys(&fio["jobs"][0][key]),
            "{key}"
        );
    }
    assert_eq!(v["jobs"][0]["trim"], fio["jobs"][0]["trim"]);
    assert_eq!(v["jobs"][0]["sync"], fio["jobs"][0]["sync"]);
}

#[test]
fn disk_util_is_fios_keys_types_and_values() {
    let v = ours(&sample_run());
    let fio = sample();
    let (ours, theirs) = (&v["disk_util"][0], &fio["disk_util"][0]);
    assert_eq!(keys(ours), keys(theirs));
    assert_same_types("disk_util[0]", theirs, ours);
    // The sample's counters are fio's; util is 2548 ms busy of 3001.
    for key in ["name", "read_ios", "write_ios", "read_ticks", "in_queue"] {
        assert_eq!(ours[key], theirs[key], "{key}");
    }
    assert_eq!(ours["util"].as_f64(), Some(84.905032));
    let extras = &v["diskbench"]["disk_util"][0];
    assert_eq!(extras["mean_request_bytes"], 4096);
    assert_eq!(extras["time_ms"], 3001);
    // No device measured: no key, as fio writes none.
    let mut none = sample_run();
    none.disk_util.clear();
    let v = self::ours(&none);
    assert!(v.get("disk_util").is_none() && v["diskbench"].get("disk_util").is_none());
}

#[test]
fn number_types_are_fios() {
    let v = ours(&sample_run());
    let fio = sample();
    assert_same_types("$", &fio, &v);
    assert_same_types("jobs[0]", &fio["jobs"][0], &v["jobs"][0]);
}

#[test]
fn direction_values_are_derived_as_fio_does() {
    let v = ours(&sample_run());
    let read = &v["jobs"][0]["read"];
    // The same counts as the sample give the sample's figures.
    assert_eq!(read["io_bytes"], 418_152_448u64);
    assert_eq!(read["io_kbytes"], 408_352u64);
    assert_eq!(read["bw_bytes"], 139_337_703u64);
    assert_eq!(read["bw"], 136_071u64);
    assert_eq!(
        read["bw"].as_u64().unwrap(),
        read["bw_bytes"].as_u64().unwrap() / 1024
    );
    assert_eq!(read["iops"].as_f64().unwrap(), 34017.994002);
    assert_eq!(read["runtime"], 3001);
    assert_eq!(read["total_ios"], 102_088);
    assert_eq!(read["clat_ns"]["N"], 102_088);
    assert_eq!(read["clat_ns"]["min"], 121);
    assert_eq!(read["slat_ns"]["N"], 102_088);
    let p50 = read["clat_ns"]["percentile"]["50.000000"].as_f64().unwrap();
    assert!((p50 - 300_000.0).abs() / 300_000.0 < 0.01, "{p50}");
    let p9999 = read["clat_ns"]["percentile"]["99.990000"].as_f64().unwrap();
    assert!((p9999 - 5_000_000.0).abs() / 5_000_000.0 < 0.01, "{p9999}");
    // Three full 1 s intervals; the 1 ms tail is not a sample.
    assert_eq!(read["iops_samples"], 3);
    assert_eq!(read["iops_min"], 33_088);
    assert_eq!(read["iops_max"], 35_000);
    assert_eq!(read["bw_min"], 33_088 * 4);
    let agg = read["bw_agg"].as_f64().unwrap();
    assert!(agg > 95.0 && agg <= 100.0, "{agg}");
}

#[test]
fn job_values() {
    let result = sample_run();
    let v = ours(&result);
    let job = &v["jobs"][0];
    assert_eq!(job["jobname"], "randrw-75");
    assert_eq!(job["error"], 0);
    assert_eq!(job["elapsed"], 4);
    assert_eq!(job["job options"]["rw"], "randrw");
    assert_eq!(job["job options"]["iodepth"], "16");
    assert_eq!(job["job_runtime"], 3001);
    // user_ns is runtime / 40, system_ns runtime / 4.
    assert_eq!(job["usr_cpu"].as_f64().unwrap(), 2.5);
    assert_eq!(job["sys_cpu"].as_f64().unwrap(), 25.0);
    assert_eq!(job["ctx"], 10_158);
    assert_eq!(job["latency_depth"], 16);
    let buckets: f64 = ["latency_ns", "latency_us", "latency_ms"]
        .iter()
        .flat_map(|k| job[k].as_object().unwrap().values())
        .map(|x| x.as_f64().unwrap())
        .sum();
    assert!((buckets - 100.0).abs() < 0.05, "{buckets}");
    let extras = &job["diskbench"];
    assert_eq!(extras["engine"], "io_uring");
    assert_eq!(extras["clones"], 1);
    assert_eq!(extras["series"].as_array().unwrap().len(), 4);
    assert_eq!(extras["series"][1]["t_ms"], 1000);
    assert_eq!(extras["series"][1]["read_iops"].as_f64().unwrap(), 35_000.0);
    assert_eq!(extras["series"][1]["write_bytes_per_sec"], 12_000 * 4096);
    assert!(extras.get("error").is_none());
}

#[test]
fn a_direction_without_io_has_fios_zero_shape() {
    let v = ours(&run(vec![seq_read_job(SEQ_READ_NAME, 1000)]));
    let job = &v["jobs"][0];
    assert_eq!(job["write"], job["trim"]);
    assert!(job["write"]["clat_ns"].get("percentile").is_none());
    assert_eq!(job["write"]["iops"].as_f64().unwrap(), 0.0);
    assert!(job["write"]["iops"].is_f64());
    // psync: no submission latency, so fio's zero object.
    assert_eq!(job["read"]["slat_ns"], job["trim"]["slat_ns"]);
    assert!(job["read"]["clat_ns"].get("percentile").is_some());
    // A lone job holds (nearly) all of its group's bandwidth.
    assert_eq!(job["read"]["bw_agg"].as_f64().unwrap(), 100.0);
}

#[test]
fn warnings_carry_kind_message_and_fields() {
    let v = ours(&sample_run());
    let w = &v["diskbench"]["warnings"][0];
    assert_eq!(keys(w), ["kind", "message", "job", "cpu_pct"]);
    assert_eq!(w["kind"], "cpu_bound");
    assert!(w["message"].as_str().unwrap().contains("raise numjobs"));
}

#[test]
fn errors_stay_parseable() {
    let mut result = sample_run();
    result.error = Some("disk full".into());
    result.interrupted = true;
    result.jobs[0].error = Some("pwrite failed".into());
    let v = ours(&result);
    assert_eq!(v["error"], "disk full");
    assert_eq!(v["diskbench"]["interrupted"], true);
    assert_eq!(v["jobs"][0]["error"], 1);
    assert_eq!(v["jobs"][0]["diskbench"]["error"], "pwrite failed");

    let message = "no such directory: /nope \"quoted\"";
    let text = error_json(&model::Failure::usage(message), "diskbench-0.1.0");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(keys(&v), ["fio version", "jobs", "error", "diskbench"]);
    assert_eq!(v["fio version"], "fio-3.33");
    assert_eq!(v["diskbench"]["version"], "diskbench-0.1.0");
    assert_eq!(v["jobs"], serde_json::json!([]));
    assert_eq!(v["error"], message);
    assert_eq!(
        v["diskbench"]["failure"],
        serde_json::json!({"kind": "usage", "message": message})
    );
}

/// A failed run's JSON: `error` is the message, and `diskbench.failure`
/// holds it with its kind and facts, from the same value.
#[test]
fn a_failure_is_written_with_its_facts() {
    let mut result = sample_run();
    let mut f = model::Failure::runtime("job 'w': read of 4096 bytes at offset 8192 in /d/f: EIO");
    (f.job, f.op, f.path) = (Some("w".into()), Some("read".into()), Some("/d/f".into()));
    (f.offset, f.len, f.errno) = (Some(8192), Some(4096), Some(5));
    result.fail(f.clone());
    result.jobs[0].fail(f.clone());
    let v = ours(&result);
    assert_eq!(v["jobs"][0]["diskbench"]["error"], f.message.as_str());
    assert_eq!(v["jobs"][0]["diskbench"]["failure"]["errno"], 5);
    assert_eq!(v["error"], f.message.as_str());
    assert!(v.get("partial").is_none());
    let object = &v["diskbench"]["failure"];
    assert_eq!(object["kind"], "runtime");
    assert_eq!(
        (&object["errno"], &object["offset"]),
        (&json!(5), &json!(8192))
    );
    assert_eq!(
        (&object["path"], &object["job"]),
        (&json!("/d/f"), &json!("w"))
    );
    result.fail(model::Failure::new(
        model::FailureKind::Interrupted,
        "interrupted",
    ));
    let v = ours(&result);
    assert_eq!(
        (&v["partial"], &v["diskbench"]["failure"]["kind"]),
        (&json!(true), &json!("interrupted"))
    );
}

#[test]
fn an_empty_run_is_valid() {
    let mut result = run(vec![]);
    result.finished_unix_ms = 0;
    let v = ours(&result);
    assert_eq!(v["jobs"], serde_json::json!([]));
    assert_eq!(v["timestamp"], 1_795_313_282u64);
}

#[test]
fn a_job_that_did_nothing_has_no_nan() {
    let mut job = seq_read_job("empty", 0);
    job.read = model::DirStats::default();
    job.runtime_ns = 0;
    job.series.clear();
    let v = ours(&run(vec![job]));
    let jobs = v["jobs"].to_string();
    assert!(!jobs.contains("null"), "{jobs}");
    assert_eq!(v["jobs"][0]["read"], v["jobs"][0]["trim"]);
    assert_eq!(v["jobs"][0]["usr_cpu"].as_f64().unwrap(), 0.0);
}

#[test]
fn an_imported_job_is_written_as_its_source_wrote_it() {
    let fio = sample();
    let mut result = sample_run();
    result.imported = Some(model::Imported::of(&serde_json::json!({
        "fio version": "fio-3.33",
        "time": "Sun Nov 22 02:08:10 2026",
    })));
    result.jobs[0].imported = Some(model::Imported::of(&fio["jobs"][0]));
    let v = ours(&result);
    assert_eq!(v["time"], "Sun Nov 22 02:08:10 2026");
    assert_eq!(v["fio version"], "fio-3.33");
    let job = v["jobs"][0].as_object().unwrap();
    for (k, want) in fio["jobs"][0].as_object().unwrap() {
        assert_eq!(&job[k], want, "{k}");
    }
    assert_eq!(job["diskbench"], serde_json::json!({"imported": true}));
}

#[test]
fn figures_derived_from_histograms_rebuilt_on_import_are_named_approximate() {
    let mut result = sample_run();
    let measured = ours(&result);
    assert!(measured["jobs"][0]["diskbench"]
        .get("approximate")
        .is_none());
    result.jobs[0].imported = Some(model::Imported::default());
    let v = ours(&result);
    let approximate = v["jobs"][0]["diskbench"]["approximate"]
        .as_object()
        .unwrap();
    let paths: Vec<&str> = approximate.keys().map(String::as_str).collect();
    assert_eq!(
        paths,
        [
            "read.clat_ns.percentile",
            "write.clat_ns.percentile",
            "latency_ns",
            "latency_us",
            "latency_ms"
        ]
    );
    // The figures themselves are as before: only the mark is added.
    assert_eq!(
        v["jobs"][0]["latency_us"],
        measured["jobs"][0]["latency_us"]
    );
}

#[test]
fn a_trim_jobs_trims_fill_its_trim_section_and_normal_lines() {
    let mut job = seq_write_job("tw", 64);
    // 64 trims of 64 KiB in 1 s, 50 to 60 us each (no slat: synchronous).
    job.trim = dir(&[(50_000, 32), (60_000, 32)], 64 << 10, 1_000_000_000, None);
    job.spec.rw = model::RwMode::TrimWrite;
    let result = run(vec![job]);
    let v = ours(&result);
    let trim = &v["jobs"][0]["trim"];
    assert_eq!(trim["total_ios"], 64);
    assert_eq!(trim["io_kbytes"], 4096);
    assert_eq!(trim["io_bytes"], 4u64 << 20);
    assert_eq!(trim["runtime"], 1000);
    assert_eq!(trim["iops"].as_f64(), Some(64.0));
    assert_eq!(trim["bw"], 4096);
    assert_eq!(trim["clat_ns"]["N"], 64);
    assert_eq!(trim["slat_ns"]["N"], 0);
    // The keys are fio's, as for a direction that did nothing.
    let keys = |d: &Value| d.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(trim), keys(&ours(&sample_run())["jobs"][0]["trim"]));
    let text = crate::fio_normal::render(&result);
    assert!(text.contains("  trim: IOPS=64, BW=4096KiB/s"), "{text}");
    assert!(text.contains("issued rwts: total=0,64,64,0"), "{text}");
    assert!(
        text.contains("\n   TRIM: bw=4096KiB/s (4194kB/s), "),
        "{text}"
    );
}

/// A job that went on past errors: fio 3.33's `total_err` and `first_error`
/// between `latency_ms` and `latency_depth`, its `error` the first errno,
/// and the failed writes in `total_ios` (not in the bytes).
#[test]
fn errors_gone_on_past_are_fios_total_err_and_first_error() {
    let mut run = sample_run();
    let job = &mut run.jobs[0];
    job.spec.errors.continue_on = [false, true, false];
    let mut count = model::errors::ErrorCount::default();
    for _ in 0..3 {
        count.add(28, Some(model::Direction::Write), None);
    }
    job.errors = Some(count);
    let (ios, kib) = (job.write.ios, job.write.bytes >> 10);
    let v = ours(&run);
    let j = &v["jobs"][0];
    assert_eq!(
        (j["error"].clone(), j["total_err"].clone()),
        (json!(28), json!(3))
    );
    assert_eq!(j["first_error"], 28);
    assert_eq!(j["write"]["total_ios"], ios + 3);
    assert_eq!(j["write"]["io_kbytes"], kib);
    let order = keys(j);
    let at = |k: &str| order.iter().position(|x| *x == k).unwrap();
    assert!(at("latency_ms") < at("total_err") && at("first_error") < at("latency_depth"));
    // A job without the options has neither key, as in fio.
    assert!(ours(&sample_run())["jobs"][0].get("total_err").is_none());
}
