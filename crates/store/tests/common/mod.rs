//! Runs to save in the store tests, and a place the tests cannot write to.
#![allow(dead_code)]

use model::{
    CpuUsage, DirStats, DiskUtil, EngineKind, HostInfo, JobResult, JobSpec, LivePoint, Prices,
    RunKind, RunRecord, RunResult, RwMode, SeriesPoint, TargetInfo,
};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A one-job run that read `ios` 4 KiB blocks in one second, with latencies
/// spread from 100 us to 100 us + `ios` ns, started at `started_unix_ms`.
pub fn result(name: &str, ios: u64, started_unix_ms: u64) -> RunResult {
    let mut spec = JobSpec::new(name);
    spec.rw = RwMode::RandRead;
    spec.engine = EngineKind::Null;
    let mut read = DirStats {
        ios,
        bytes: ios * 4096,
        runtime_ns: 1_000_000_000,
        ..DirStats::default()
    };
    for i in 0..ios {
        read.clat.record(100_000 + i);
        read.lat.record(101_000 + i);
    }
    RunResult {
        schema_version: model::result::SCHEMA_VERSION,
        tool_version: "diskbench-test".into(),
        command_line: vec!["diskbench".into(), "fio".into(), format!("--name={name}")],
        started_unix_ms,
        finished_unix_ms: started_unix_ms + 1000,
        host: HostInfo {
            hostname: "vm1".into(),
            kernel: "6.18.0".into(),
            cpu_model: "Virtual CPU".into(),
            cpus: 2,
            mem_bytes: 4 << 30,
            ..HostInfo::default()
        },
        targets: vec![TargetInfo {
            path: "/mnt/data".into(),
            filesystem: Some("ext4".into()),
            device: Some("vda".into()),
            device_bytes: Some(20 << 30),
            rotational: Some(false),
            scheduler: Some("mq-deadline".into()),
            logical_block_bytes: Some(512),
            ..TargetInfo::default()
        }],
        jobs: vec![JobResult {
            engine: EngineKind::Null,
            read,
            runtime_ns: 1_000_000_000,
            cpu: CpuUsage {
                user_ns: 1000,
                ..CpuUsage::default()
            },
            ..JobResult::empty(&spec, 0, 1)
        }],
        // The kernel's side of the same second: kept and loaded back.
        disk_util: vec![DiskUtil {
            name: "vda".into(),
            read_ios: ios,
            read_sectors: ios * 8,
            read_ticks: ios / 10,
            io_ticks: 900,
            in_queue: ios / 10,
            time_ms: 1000,
            ..DiskUtil::default()
        }],
        warnings: Vec::new(),
        error: None,
        interrupted: false,
        failure: None,
        global_options: Vec::new(),
        imported: None,
        workload: None,
        volume: None,
    }
}

pub fn record(kind: RunKind, labels: &[(&str, &str)], result: RunResult) -> RunRecord {
    RunRecord {
        id: 0,
        kind,
        labels: labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
        prices: Prices::default(),
        result,
        soak: None,
        state: Default::default(),
        uuid: String::new(),
    }
}

/// A database path whose directory cannot be written: a mode-555 directory
/// for a normal user; for root (who writes anywhere) a path in sysfs. `None`
/// (with the reason printed) when neither is available.
pub fn unwritable_db_path(tmp: &std::path::Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let dir = tmp.join("read-only");
    std::fs::create_dir(&dir).ok()?;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).ok()?;
    if std::fs::write(dir.join("probe"), b"").is_err() {
        return Some(dir.join("history.sqlite3"));
    }
    let sys = PathBuf::from("/sys/diskbench-test/history.sqlite3");
    if std::fs::create_dir_all(sys.parent()?).is_err() {
        return Some(sys);
    }
    testbed::skip("no unwritable place found (root here, and /sys accepts new directories)");
    None
}

/// One second of one clone of job `job` of group 0, as a live run writes it.
pub fn point(job: u32, clone: u32, second: u64, ios: u64) -> LivePoint {
    LivePoint {
        group: 0,
        job,
        clone,
        point: SeriesPoint {
            start_ms: second * 1000,
            duration_ms: 1000,
            read_ios: ios,
            read_bytes: ios * 4096,
            ..SeriesPoint::default()
        },
    }
}
