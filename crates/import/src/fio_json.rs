//! fio's JSON output (`--output-format=json` or `json+`) as one `RunResult`
//! with one `JobResult` per entry of fio's `jobs` (a `group_reporting`
//! group is one entry, as fio writes it).
//!
//! fio's own record is kept whole (`model::Imported`: the document's keys
//! on the run, each `jobs` entry on its job), so `show` and `export` give
//! back fio's figures as fio wrote them: its percentiles under its own
//! keys, its `latency_*` tables, means, deviations, per-interval
//! statistics, `disk_util`. The typed fields are filled too, for the
//! history's comparisons: counts, bytes, per-direction runtimes (so IOPS
//! and bandwidth come out as fio's), CPU use, context switches and faults,
//! the job options, and latency histograms rebuilt as [`super::hist`]
//! describes (fio's bins from `json+`, an approximation from the
//! percentiles otherwise), which are only ever shown marked approximate;
//! diskbench's own export carries its measured histograms whole, and those
//! are taken as they are.
//! Host facts are not in fio's output and stay unknown.

use super::check;
use super::hist::FioLat;
use super::uint;
use crate::Problem;
use model::units::{parse_bool, parse_duration, parse_size};
use model::{
    CpuUsage, DirStats, EngineKind, FileTarget, Histogram, Imported, JobResult, JobSpec, RunResult,
    RwMode, TargetInfo, Warning,
};
use serde_json::Value;
use std::path::PathBuf;

pub fn parse(doc: &Value, command_line: &[String]) -> Result<RunResult, Problem> {
    let jobs = doc
        .get("jobs")
        .and_then(Value::as_array)
        .ok_or("fio's output without a \"jobs\" list")?;
    check_doc(doc, jobs)?;
    let global = options(doc.get("global options"));
    let mut results = Vec::with_capacity(jobs.len());
    for (i, job) in jobs.iter().enumerate() {
        results.push(job_result(job, &global).map_err(|e| format!("job {}: {e}", i + 1))?);
    }
    mark_grouped_clones(&mut results);
    let finished = match uint(doc, "timestamp_ms") {
        0 => uint(doc, "timestamp").saturating_mul(1000),
        ms => ms,
    };
    let longest_s = jobs.iter().map(|j| uint(j, "elapsed")).max().unwrap_or(0);
    Ok(RunResult {
        schema_version: model::result::SCHEMA_VERSION,
        // diskbench's own JSON names its version under `diskbench`, and
        // gives fio's as `fio version`.
        tool_version: (doc["diskbench"]["version"].as_str())
            .or(doc["fio version"].as_str())
            .unwrap_or("fio")
            .to_string(),
        command_line: command_line.to_vec(),
        started_unix_ms: finished.saturating_sub(longest_s.saturating_mul(1000)),
        finished_unix_ms: finished,
        targets: targets(&results),
        error: doc.get("error").and_then(Value::as_str).map(String::from),
        warnings: warnings(doc),
        jobs: results,
        imported: Some(without_jobs(doc)),
        ..RunResult::default()
    })
}

/// The warnings and checks diskbench's own export carries
/// (`diskbench.warnings`: each one's kind, its fields and its message), so
/// a run that warned is imported warning; a kind this version does not
/// know is kept as its message.
fn warnings(doc: &Value) -> Vec<Warning> {
    let Some(list) = doc["diskbench"]["warnings"].as_array() else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|w| match serde_json::from_value::<Warning>(w.clone()) {
            Ok(typed) => Some(typed),
            Err(_) => Some(Warning::Check {
                name: w["kind"].as_str().unwrap_or("warning").to_string(),
                job: None,
                text: w["message"].as_str()?.to_string(),
            }),
        })
        .collect()
}

/// The document's own keys besides `jobs` (kept on each job), as read.
fn without_jobs(doc: &Value) -> Imported {
    let mut rest = doc.clone();
    if let Some(m) = rest.as_object_mut() {
        m.shift_remove("jobs");
    }
    Imported::of(&rest)
}

/// The job-level figures the conversion reads.
const JOB_FIGURES: [&str; 9] = [
    "groupid",
    "error",
    "elapsed",
    "job_runtime",
    "usr_cpu",
    "sys_cpu",
    "ctx",
    "majf",
    "minf",
];

/// What fio's output must hold to be imported (see [`check`]): its date,
/// and in every job a name and the figures of its directions, as numbers.
fn check_doc(doc: &Value, jobs: &[Value]) -> Result<(), Problem> {
    check::figures(doc, "", &["timestamp", "timestamp_ms"])?;
    let date = doc.get("timestamp_ms").or_else(|| doc.get("timestamp"));
    match date.and_then(Value::as_f64).map(|t| t > 0.0) {
        None => {
            return Err(
                "timestamp is missing: fio's JSON output dates the run there \
                        (seconds since 1970, and timestamp_ms), and without it the run \
                        would be dated 1970-01-01; give the file as fio wrote it"
                    .into(),
            )
        }
        Some(false) => {
            return Err("timestamp is 0, which dates the run 1970-01-01: \
                        give the file as fio wrote it"
                .into())
        }
        Some(true) => {}
    }
    if jobs.is_empty() {
        return Err("jobs is empty: there is no job to import".into());
    }
    for (i, job) in jobs.iter().enumerate() {
        let path = format!("jobs[{i}]");
        check::required(job, &path, "jobname", "fio names every job")?;
        check::string(job, &path, "jobname")?;
        check::object(job, &path, "job options")?;
        check::figures(job, &path, &JOB_FIGURES)?;
        let mut directions = 0;
        for dir in ["read", "write", "trim", "sync"] {
            let Some(stats) = check::object(job, &path, dir)? else {
                continue;
            };
            let at = format!("{path}.{dir}");
            check::all_figures(stats, &at)?;
            if dir == "read" || dir == "write" {
                directions += 1;
                for key in ["io_bytes", "total_ios", "runtime"] {
                    check::required(
                        stats,
                        &at,
                        key,
                        "fio writes it for both directions, 0 when unused",
                    )?;
                }
            }
        }
        if directions == 0 {
            return Err(format!(
                "{path} has neither read nor write: fio writes both for every job, \
                 so there is nothing to import"
            )
            .into());
        }
    }
    Ok(())
}

/// fio writes one entry per clone, unless `group_reporting` merged them
/// into one (fio does not echo that option): a job with `numjobs=N` and
/// fewer than N entries of its name was merged from N clones.
fn mark_grouped_clones(jobs: &mut [JobResult]) {
    for i in 0..jobs.len() {
        let (name, group, numjobs) = (&jobs[i].name, jobs[i].groupid, jobs[i].spec.numjobs);
        let entries = jobs
            .iter()
            .filter(|j| &j.name == name && j.groupid == group)
            .count();
        if numjobs > 1 && entries < numjobs as usize {
            jobs[i].clones = numjobs;
            jobs[i].spec.group_reporting = true;
        }
    }
}

/// fio's `{"key": "value"}` option objects, in order.
fn options(v: Option<&Value>) -> Vec<(String, String)> {
    v.and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let text = match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (k.clone(), text)
                })
                .collect()
        })
        .unwrap_or_default()
}

fn job_result(job: &Value, global: &[(String, String)]) -> Result<JobResult, Problem> {
    let name = job
        .get("jobname")
        .and_then(Value::as_str)
        .ok_or("no \"jobname\"")?
        .to_string();
    let own = options(job.get("job options"));
    let spec = spec(&name, global, own)?;
    let mut read = dir_stats(job.get("read"));
    let mut write = dir_stats(job.get("write"));
    // A trim mode's trims (fio writes a trim section for every job).
    let trim = dir_stats(job.get("trim"));
    let mut imported = Imported::of(job);
    if let Some([r, w]) = carried_histograms(job, [&read, &write]) {
        [
            (read.slat, read.clat, read.lat),
            (write.slat, write.clat, write.lat),
        ] = [r, w];
        imported.exact_histograms = true;
    }
    let runtime_ns = match read.runtime_ns.max(write.runtime_ns).max(trim.runtime_ns) {
        0 => uint(job, "job_runtime").saturating_mul(1_000_000),
        ns => ns,
    };
    // fio gives CPU use as a percentage of its job_runtime (every thread's
    // runtime added): kept as the time that gives back the same percentage.
    let wall_ns = match uint(job, "job_runtime").saturating_mul(1_000_000) {
        0 => runtime_ns,
        ns => ns,
    };
    let cpu_ns =
        |key| (super::float(job, key).unwrap_or(0.0).max(0.0) / 100.0 * wall_ns as f64) as u64;
    let cpu = CpuUsage {
        user_ns: cpu_ns("usr_cpu"),
        system_ns: cpu_ns("sys_cpu"),
        voluntary_ctx: uint(job, "ctx"),
        involuntary_ctx: 0,
        minor_faults: uint(job, "minf"),
        major_faults: uint(job, "majf"),
        kernel_helpers_ns: 0,
        wall_ns,
    };
    // A job that went on past errors (continue_on_error) has the first
    // one's errno as its error and ends well; its counts are kept as such.
    let errors = job.get("total_err").map(|_| model::errors::ErrorCount {
        total: uint(job, "total_err"),
        first: uint(job, "first_error") as i32,
        ..Default::default()
    });
    let went_on = errors.as_ref().map(|e| u64::from(e.first.unsigned_abs()));
    let error = match uint(job, "error") {
        0 => None,
        code if Some(code) == went_on => None,
        code => Some(format!("fio reported error {code}")),
    };
    let clones = match spec.group_reporting {
        true => spec.numjobs,
        false => 1,
    };
    Ok(JobResult {
        name,
        read,
        write,
        trim,
        runtime_ns,
        cpu,
        error,
        errors,
        imported: Some(imported),
        ..JobResult::empty(&spec, uint(job, "groupid") as u32, clones)
    })
}

/// `slat`, `clat` and `lat` of one direction.
type Histograms = (Option<Histogram>, Histogram, Histogram);

/// The measured histograms diskbench's own export carries whole
/// (`diskbench.histograms`, see `report::json::render_with_histograms`),
/// for both directions, when each holds as many I/Os as fio's figures
/// beside it (`N`); otherwise `None`, and the rebuilt ones stay.
fn carried_histograms(job: &Value, rebuilt: [&DirStats; 2]) -> Option<[Histograms; 2]> {
    let carried = job.get("diskbench")?.get("histograms")?;
    let parse = |dir: &str, kind: &str| -> Option<Histogram> {
        serde_json::from_value(carried.get(dir)?.get(kind)?.clone()).ok()
    };
    let mut out = Vec::with_capacity(2);
    for (dir, d) in ["read", "write"].into_iter().zip(rebuilt) {
        let (slat, clat, lat) = (parse(dir, "slat"), parse(dir, "clat")?, parse(dir, "lat")?);
        let count = |h: Option<&Histogram>| h.map_or(0, Histogram::count);
        let agrees = clat.count() == d.clat.count()
            && lat.count() == d.lat.count()
            && count(slat.as_ref()) == count(d.slat.as_ref());
        if !agrees {
            return None;
        }
        out.push((slat, clat, lat));
    }
    out.try_into().ok()
}

fn dir_stats(v: Option<&Value>) -> DirStats {
    let Some(v) = v.filter(|v| v.is_object()) else {
        return DirStats::default();
    };
    let clat_src = FioLat::of(v.get("clat_ns"));
    let clat = clat_src.histogram(None);
    let slat_src = FioLat::of(v.get("slat_ns"));
    let slat = (slat_src.n > 0).then(|| slat_src.histogram(None));
    let lat = FioLat::of(v.get("lat_ns")).histogram(Some(&clat));
    DirStats {
        ios: uint(v, "total_ios"),
        bytes: uint(v, "io_bytes"),
        runtime_ns: uint(v, "runtime").saturating_mul(1_000_000),
        slat,
        clat,
        lat,
        response: None,
        prios: Vec::new(),
    }
}

/// The job as a `JobSpec`: fio's job options (global ones first) read
/// leniently, since fio accepted them already; `options` keeps the job's
/// own options as fio echoed them.
fn spec(
    name: &str,
    global: &[(String, String)],
    own: Vec<(String, String)>,
) -> Result<JobSpec, Problem> {
    let mut s = JobSpec::new(name);
    let mut directory = None;
    for (key, value) in global.iter().chain(own.iter()) {
        let bad = |e: &dyn std::fmt::Display| format!("option {key}={value}: {e}");
        let first = value.split([',', '-', ':']).next().unwrap_or(value);
        match key.as_str() {
            "rw" | "readwrite" => {
                let base = value.split(':').next().unwrap_or(value);
                s.rw = RwMode::parse(base).ok_or_else(|| bad(&"unknown rw"))?;
            }
            "rwmixread" => s.rwmix_read_pct = first.parse::<u32>().map_err(|e| bad(&e))?.min(100),
            "rwmixwrite" => {
                s.rwmix_read_pct = 100 - first.parse::<u32>().map_err(|e| bad(&e))?.min(100)
            }
            "bs" | "blocksize" => s.bs_bytes = parse_size(first).map_err(|e| bad(&e))?,
            "size" => s.size_bytes = parse_size(value).ok(),
            "iodepth" => s.iodepth = first.parse().map_err(|e| bad(&e))?,
            "numjobs" => s.numjobs = first.parse().map_err(|e| bad(&e))?,
            "ioengine" => s.engine = EngineKind::parse(value).unwrap_or(EngineKind::Sync),
            "direct" => s.direct = parse_bool(value).unwrap_or(true),
            "buffered" => s.direct = !parse_bool(value).unwrap_or(true),
            "runtime" => s.runtime = parse_duration(value).ok(),
            "ramp_time" => s.ramp_time = parse_duration(value).unwrap_or_default(),
            "time_based" => s.time_based = value.is_empty() || parse_bool(value).unwrap_or(true),
            "group_reporting" => {
                s.group_reporting = value.is_empty() || parse_bool(value).unwrap_or(true)
            }
            "filename" => s.target = FileTarget::Named(PathBuf::from(value)),
            "directory" => directory = Some(PathBuf::from(value)),
            _ => {}
        }
    }
    if let (Some(dir), FileTarget::Generated { .. }) = (directory, &s.target) {
        s.target = FileTarget::Generated {
            directory: dir,
            nrfiles: 1,
            shared: None,
        };
    }
    s.options = own;
    Ok(s)
}

/// The places the jobs measured, each once: only their paths are known,
/// and only when the job named one (fio's default is its working directory,
/// which the output does not say).
fn targets(jobs: &[JobResult]) -> Vec<TargetInfo> {
    let mut out: Vec<TargetInfo> = Vec::new();
    for job in jobs {
        let path = match &job.spec.target {
            FileTarget::Named(p) => p.display().to_string(),
            FileTarget::Generated { directory, .. } => directory.display().to_string(),
        };
        if path != "." && !out.iter().any(|t| t.path == path) {
            out.push(TargetInfo {
                path,
                ..TargetInfo::default()
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(name: &str) -> Value {
        let path = format!("{}/../../fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn the_randrw_sample_keeps_fios_figures() {
        let doc = sample("fio-3.33-randrw.json");
        let r = parse(&doc, &[]).unwrap();
        assert_eq!(r.tool_version, "fio-3.33");
        let job = &r.jobs[0];
        assert_eq!(
            (job.name.as_str(), job.spec.rw, job.spec.iodepth),
            ("randrw-75", RwMode::RandRw, 16)
        );
        assert_eq!(job.spec.engine, EngineKind::IoUring);
        let fio_read = &doc["jobs"][0]["read"];
        assert_eq!(job.read.ios, fio_read["total_ios"].as_u64().unwrap());
        assert!((job.read.iops() - fio_read["iops"].as_f64().unwrap()).abs() < 1e-5);
        assert_eq!(
            job.read.bytes_per_sec() as u64,
            fio_read["bw_bytes"].as_u64().unwrap()
        );
        let p99 = fio_read["clat_ns"]["percentile"]["99.000000"]
            .as_f64()
            .unwrap();
        assert!((job.read.clat.percentile(99.0) as f64 - p99).abs() / p99 < 0.005);
        assert!((job.read.lat.mean() - fio_read["lat_ns"]["mean"].as_f64().unwrap()).abs() < 1.0);
        assert_eq!(
            job.read.slat.as_ref().map(|h| h.count()),
            Some(job.read.ios)
        );
        assert_eq!(job.cpu.ctx(), 10158);
        assert_eq!(r.targets[0].path, "/mnt/data/f");
        // fio's normal text shows the same CPU percentages.
        let text = report::fio_normal::render(&r);
        assert!(text.contains("usr=2.80%, sys=28.03%, ctx=10158"), "{text}");
    }

    /// fio 3.33's keys for a job that went on past errors (as its run of
    /// 12 MiB written to a tmpfs of 8 MiB with `ignore_error=,ENOSPC` gives):
    /// its error is the first one's errno, and it did not fail.
    /// diskbench's JSON says `fio-3.33` where fio says its version, and
    /// names diskbench's own under `diskbench`: the import keeps that one.
    #[test]
    fn diskbench_json_keeps_diskbenchs_version() {
        let mut doc = sample("fio-3.33-randrw.json");
        doc["diskbench"] = serde_json::json!({"version": "diskbench-9.8.7"});
        assert_eq!(parse(&doc, &[]).unwrap().tool_version, "diskbench-9.8.7");
    }

    #[test]
    fn errors_gone_on_past_are_counts_not_a_failure() {
        let mut doc = sample("fio-3.33-randrw.json");
        let job = &mut doc["jobs"][0];
        job["error"] = 28.into();
        job["total_err"] = 64.into();
        job["first_error"] = 28.into();
        let r = parse(&doc, &[]).unwrap();
        let e = r.jobs[0].errors.as_ref().expect("the count");
        assert_eq!((e.total, e.first, r.jobs[0].error.as_ref()), (64, 28, None));
        // A later error that ended the job is still its failure.
        doc["jobs"][0]["error"] = 5.into();
        let r = parse(&doc, &[]).unwrap();
        assert_eq!(r.jobs[0].error.as_deref(), Some("fio reported error 5"));
    }

    #[test]
    fn a_trim_jobs_trim_section_is_kept() {
        let doc = sample("fio-3.33-trimwrite.json");
        let r = parse(&doc, &[]).unwrap();
        let job = &r.jobs[0];
        assert_eq!(job.spec.rw, RwMode::TrimWrite);
        assert_eq!((job.trim.ios, job.trim.bytes), (64, 4 << 20));
        assert_eq!((job.write.ios, job.write.bytes), (64, 4 << 20));
        assert_eq!(job.read.ios, 0);
        let fio_trim = &doc["jobs"][0]["trim"];
        assert!((job.trim.iops() - fio_trim["iops"].as_f64().unwrap()).abs() < 1e-5);
        assert_eq!(job.total_ios(), 128);
    }

    #[test]
    fn json_plus_bins_and_group_reporting() {
        let doc = sample("fio-3.33-jobfile-jsonplus.json");
        let r = parse(&doc, &[]).unwrap();
        assert_eq!(r.jobs.len(), 2);
        let (seq, rand) = (&r.jobs[0], &r.jobs[1]);
        assert_eq!(
            (seq.spec.bs_bytes, seq.spec.engine),
            (16 << 10, EngineKind::Libaio)
        );
        assert!(seq.spec.direct);
        let bins = doc["jobs"][0]["read"]["clat_ns"]["bins"]
            .as_object()
            .unwrap();
        assert_eq!(
            seq.read.clat.buckets().map(|b| b.1).sum::<u64>(),
            seq.read.ios
        );
        assert!(bins.len() >= seq.read.clat.buckets().count());
        assert_eq!((rand.clones, rand.groupid), (2, 1));
        assert_eq!(rand.spec.rw, RwMode::RandWrite);
        assert_eq!(r.targets[0].path, "/mnt/data");
    }
}
