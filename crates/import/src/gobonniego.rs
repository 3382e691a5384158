//! GoBonnieGo's `-json` output, one `RunResult` per run (`-runs 10` gives
//! ten history entries, so `compare` averages them as Brian Cunnie's 2018 benchmark of cloud disks did).
//!
//! GoBonnieGo's method (Brian Cunnie's 2018 benchmark of cloud disks and GoBonnieGo's README): N threads (one per core)
//! each write a file of random data in 64 KiB blocks (the files add up to
//! twice the RAM, or `-size` GiB), read them back in 64 KiB blocks, then
//! for a while seek to random places and read or write 512 bytes, one write
//! in ten. Its MB are 10^6 bytes. Each figure becomes a job named for what
//! GoBonnieGo did, not for a diskbench suite test it was not (the headline
//! takes Read and Write MB/s from the sequential jobs and the IOPS from the
//! random one):
//!
//! - sequential write -> `gobonniego-write-64k` (bytes and seconds as written);
//! - sequential read -> `gobonniego-read-64k`;
//! - IOPS -> `gobonniego-iops-512b`, a 90/10 random mix of 512-byte
//!   I/Os. The file gives only the total count: the split into reads and
//!   writes follows GoBonnieGo's fixed one-in-ten ratio and is approximate;
//!   the total, and so the IOPS, is exact.
//!
//! Byte counts and durations are taken as written (`write_bytes` with
//! `write_seconds`, or `write_nanoseconds` in older versions); a run with
//! only the rates gets one second and the bytes that rate implies.
//! GoBonnieGo records no latencies, so the histograms stay empty. Its I/O
//! is buffered: when the data set is under twice the RAM, the run carries
//! diskbench's page-cache warning. GoBonnieGo's own default is twice the
//! RAM, cut to whole blocks per thread, so 2% below it still counts as
//! twice.

/// The imported jobs' names.
pub const WRITE_JOB: &str = "gobonniego-write-64k";
pub const READ_JOB: &str = "gobonniego-read-64k";
pub const IOPS_JOB: &str = "gobonniego-iops-512b";

use super::{check, float, uint};
use crate::Problem;
use model::{
    DirStats, EngineKind, FileTarget, HostInfo, JobResult, JobSpec, RunResult, RwMode, TargetInfo,
    Warning,
};
use serde_json::Value;
use std::path::PathBuf;

const SEQ_BLOCK: u64 = 64 << 10;
const IOPS_BLOCK: u64 = 512;

pub fn looks_like(doc: &Value) -> bool {
    doc.get("results")
        .and_then(Value::as_array)
        .is_some_and(|runs| runs.iter().any(|r| r.get("iops").is_some()))
}

/// Where the run happened and how, shared by its jobs.
struct Setup {
    dir: PathBuf,
    threads: u32,
    mem_bytes: u64,
    file_bytes: Option<u64>,
}

pub fn parse(doc: &Value, command_line: &[String]) -> Result<Vec<RunResult>, Problem> {
    let runs = doc
        .get("results")
        .and_then(Value::as_array)
        .filter(|r| !r.is_empty())
        .ok_or("GoBonnieGo output with no runs in \"results\"")?;
    check_doc(doc, runs)?;
    let threads = (uint(doc, "num_readers_and_writers") as u32).max(1);
    let setup = Setup {
        dir: PathBuf::from(doc["gobonniego_directory"].as_str().unwrap_or("")),
        threads,
        mem_bytes: uint(doc, "physical_memory_bytes"),
        file_bytes: float(doc, "disk_space_used_gib")
            .map(|gib| (gib * (1u64 << 30) as f64) as u64 / threads as u64),
    };
    let version = doc["version"].as_str().unwrap_or("unknown");
    let mut start = doc["start_time"]
        .as_str()
        .and_then(dates::parse_rfc3339_ms)
        .unwrap_or(0);
    let mut out = Vec::with_capacity(runs.len());
    for (i, run) in runs.iter().enumerate() {
        let r = one_run(run, &setup, version, command_line, start)
            .map_err(|e| format!("run {}: {e}", i + 1))?;
        start = r.finished_unix_ms;
        out.push(r);
    }
    Ok(out)
}

/// The figures of one run the conversion reads.
const RUN_FIGURES: [&str; 12] = [
    "write_megabytes_per_second",
    "read_megabytes_per_second",
    "iops",
    "write_bytes",
    "read_bytes",
    "io_operations",
    "write_seconds",
    "read_seconds",
    "io_seconds",
    "write_nanoseconds",
    "read_nanoseconds",
    "io_nanoseconds",
];

/// What GoBonnieGo's output must hold to be imported (see [`check`]): a
/// date for its first run, and figures that are numbers.
fn check_doc(doc: &Value, runs: &[Value]) -> Result<(), Problem> {
    check::figures(
        doc,
        "",
        &[
            "disk_space_used_gib",
            "num_readers_and_writers",
            "physical_memory_bytes",
            "iops_duration_seconds",
        ],
    )?;
    for key in ["version", "gobonniego_directory"] {
        check::string(doc, "", key)?;
    }
    for (i, run) in runs.iter().enumerate() {
        let path = format!("results[{i}]");
        if !run.is_object() {
            return Err(format!("{path} is not an object: each run is one").into());
        }
        check::figures(run, &path, &RUN_FIGURES)?;
    }
    let (path, date) = match check::string(doc, "", "start_time")? {
        Some(date) => ("start_time".to_string(), date),
        None => match check::string(&runs[0], "results[0]", "start_time")? {
            Some(date) => ("results[0].start_time".to_string(), date),
            None => {
                return Err(
                    "start_time is missing: GoBonnieGo's -json output dates the run \
                            there, and without it the run would be dated 1970-01-01; \
                            give the file as GoBonnieGo wrote it"
                        .into(),
                )
            }
        },
    };
    match dates::parse_rfc3339_ms(date) {
        Some(ms) if ms > 0 => Ok(()),
        _ => Err(format!(
            "{path} is {date:?}, not a date: GoBonnieGo writes an RFC 3339 time \
             such as 2026-11-22T02:07:58Z"
        )
        .into()),
    }
}

/// Bytes (or operations) and nanoseconds of one phase: `{prefix}_bytes` with
/// `{prefix}_seconds` or `{prefix}_nanoseconds`, else the rate over one second.
fn phase(
    run: &Value,
    count_key: &str,
    prefix: &str,
    rate_key: &str,
    scale: f64,
) -> Result<(u64, u64), Problem> {
    let secs = float(run, &format!("{prefix}_seconds"))
        .or_else(|| float(run, &format!("{prefix}_nanoseconds")).map(|ns| ns / 1e9));
    match (run.get(count_key).and_then(Value::as_u64), secs) {
        (Some(count), Some(s)) if s > 0.0 => Ok((count, (s * 1e9).round() as u64)),
        _ => match float(run, rate_key) {
            Some(rate) if rate >= 0.0 => Ok(((rate * scale).round() as u64, 1_000_000_000)),
            _ => Err(format!("no \"{count_key}\" with a duration, and no \"{rate_key}\"").into()),
        },
    }
}

fn one_run(
    run: &Value,
    setup: &Setup,
    version: &str,
    command_line: &[String],
    previous_end: u64,
) -> Result<RunResult, Problem> {
    let (w_bytes, w_ns) = phase(
        run,
        "write_bytes",
        "write",
        "write_megabytes_per_second",
        1e6,
    )?;
    let (r_bytes, r_ns) = phase(run, "read_bytes", "read", "read_megabytes_per_second", 1e6)?;
    let (ops, io_ns) = phase(run, "io_operations", "io", "iops", 1.0)?;
    let started = run["start_time"]
        .as_str()
        .and_then(dates::parse_rfc3339_ms)
        .unwrap_or(previous_end);
    let dir = |bytes: u64, ios: u64, ns: u64| DirStats {
        ios,
        bytes,
        runtime_ns: ns,
        ..DirStats::default()
    };
    let writes = ops.saturating_add(5) / 10;
    let jobs = vec![
        job(
            setup,
            0,
            WRITE_JOB,
            RwMode::Write,
            SEQ_BLOCK,
            DirStats::default(),
            dir(w_bytes, w_bytes.div_ceil(SEQ_BLOCK), w_ns),
        ),
        job(
            setup,
            1,
            READ_JOB,
            RwMode::Read,
            SEQ_BLOCK,
            dir(r_bytes, r_bytes.div_ceil(SEQ_BLOCK), r_ns),
            DirStats::default(),
        ),
        job(
            setup,
            2,
            IOPS_JOB,
            RwMode::RandRw,
            IOPS_BLOCK,
            dir(
                (ops - writes).saturating_mul(IOPS_BLOCK),
                ops - writes,
                io_ns,
            ),
            dir(writes.saturating_mul(IOPS_BLOCK), writes, io_ns),
        ),
    ];
    let mut warnings = Vec::new();
    let twice_ram = setup.mem_bytes.saturating_mul(2);
    if setup.mem_bytes > 0 && r_bytes.saturating_add(r_bytes / 50) < twice_ram {
        warnings.push(Warning::DataSetFitsInCache {
            job: READ_JOB.to_string(),
            data_bytes: r_bytes,
            ram_bytes: setup.mem_bytes,
        });
    }
    Ok(RunResult {
        schema_version: model::result::SCHEMA_VERSION,
        tool_version: format!("gobonniego-{version}"),
        command_line: command_line.to_vec(),
        started_unix_ms: started,
        // Saturating: hostile durations must not overflow (fuzz/import_json).
        finished_unix_ms: started
            .saturating_add(w_ns.saturating_add(r_ns).saturating_add(io_ns) / 1_000_000),
        host: HostInfo {
            mem_bytes: setup.mem_bytes,
            ..HostInfo::default()
        },
        targets: vec![TargetInfo {
            path: setup.dir.display().to_string(),
            ..TargetInfo::default()
        }],
        jobs,
        warnings,
        ..RunResult::default()
    })
}

fn job(
    setup: &Setup,
    groupid: u32,
    name: &str,
    rw: RwMode,
    bs: u64,
    read: DirStats,
    write: DirStats,
) -> JobResult {
    let mut spec = JobSpec::new(name);
    spec.rw = rw;
    spec.rwmix_read_pct = 90;
    spec.bs_bytes = bs;
    spec.numjobs = setup.threads;
    spec.size_bytes = setup.file_bytes;
    spec.target = FileTarget::Generated {
        directory: setup.dir.clone(),
        nrfiles: 1,
        shared: None,
    };
    spec.options = vec![
        ("rw".into(), rw.fio_name().into()),
        ("bs".into(), model::units::format_size(bs)),
        ("numjobs".into(), setup.threads.to_string()),
    ];
    let runtime_ns = read.runtime_ns.max(write.runtime_ns);
    JobResult {
        engine: EngineKind::Sync,
        read,
        write,
        runtime_ns,
        ..JobResult::empty(&spec, groupid, setup.threads)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_gives_its_own_figures() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/gobonniego-1.0.10-runs2.json"
        );
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let runs = parse(&doc, &[]).unwrap();
        assert_eq!(runs.len(), 2);
        for (r, want) in runs.iter().zip(doc["results"].as_array().unwrap()) {
            let h = report::headline_figures(r);
            let close = |got: f64, key: &str| {
                let w = want[key].as_f64().unwrap();
                assert!((got - w).abs() / w < 1e-6, "{key}: {got} vs {w}");
            };
            // Named for what GoBonnieGo did, not for a suite test it was not,
            // and each headline from the job that measured it.
            let names: Vec<&str> = r.jobs.iter().map(|j| j.name.as_str()).collect();
            assert_eq!(names, [WRITE_JOB, READ_JOB, IOPS_JOB]);
            let iops = h.iops.unwrap();
            assert_eq!(iops.job, IOPS_JOB);
            close(iops.value, "iops");
            let read = h.read_mb_per_sec.unwrap();
            assert_eq!(read.job, READ_JOB);
            close(read.value, "read_megabytes_per_second");
            let write = h.write_mb_per_sec.unwrap();
            assert_eq!(write.job, WRITE_JOB);
            close(write.value, "write_megabytes_per_second");
            assert_eq!(
                r.jobs[2].total_ios(),
                want["io_operations"].as_u64().unwrap()
            );
            assert_eq!(r.tool_version, "gobonniego-1.0.10");
            assert_eq!(r.targets[0].path, "/mnt/data/gobonniego");
            assert!(matches!(r.warnings[0], Warning::DataSetFitsInCache { .. }));
        }
        assert_eq!(runs[0].started_unix_ms, 1_795_313_278_383);
        assert_eq!(runs[0].jobs[0].clones, 2);
    }

    #[test]
    fn older_versions_with_nanoseconds_and_rate_only_runs() {
        let doc = serde_json::json!({"version": "1.0.5", "num_readers_and_writers": 4,
        "start_time": "2019-03-01T10:00:00Z",
        "results": [
            {"write_megabytes_per_second": 1608.76, "read_megabytes_per_second": 11717.75,
             "iops": 307918.59, "write_bytes": 536870912, "write_nanoseconds": 333716345,
             "read_bytes": 536870912, "read_nanoseconds": 45816888,
             "io_operations": 222180, "io_nanoseconds": 721554345},
            {"write_megabytes_per_second": 100.0, "read_megabytes_per_second": 200.0, "iops": 3000.0}
        ]});
        let runs = parse(&doc, &[]).unwrap();
        let h = report::headline_figures(&runs[0]);
        assert!((h.write_mb_per_sec.unwrap().value - 1608.76).abs() < 0.01);
        assert!((h.iops.unwrap().value - 307_918.59).abs() < 0.01);
        let h = report::headline_figures(&runs[1]);
        assert!((h.read_mb_per_sec.unwrap().value - 200.0).abs() < 1e-9);
        assert!((h.iops.unwrap().value - 3000.0).abs() < 1e-9);
        let start = "2019-03-01T10:00:00Z";
        let e = parse(
            &serde_json::json!({"start_time": start, "results": [{"iops": 5}]}),
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("run 1: no \"write_bytes\""), "{e}");
    }

    /// GoBonnieGo's default data set is twice the RAM, cut to whole 64 KiB
    /// blocks per thread: a run of that size did not deserve the page-cache
    /// warning, one of half that did.
    #[test]
    fn the_page_cache_warning_only_when_the_data_set_was_smaller_than_twice_ram() {
        let ram: u64 = 1 << 30;
        let warned = |read_bytes: u64| {
            let doc = serde_json::json!({"version": "1.0.10", "physical_memory_bytes": ram,
                "start_time": "2026-01-01T00:00:00Z",
                "results": [{"write_bytes": read_bytes, "write_seconds": 1.0,
                    "read_bytes": read_bytes, "read_seconds": 1.0,
                    "io_operations": 1000, "io_seconds": 1.0}]});
            let runs = parse(&doc, &[]).unwrap();
            !runs[0].warnings.is_empty()
        };
        assert!(
            !warned(2 * ram - 4 * SEQ_BLOCK),
            "twice the RAM, less the rounding"
        );
        assert!(warned(ram), "half of twice the RAM");
    }
}
