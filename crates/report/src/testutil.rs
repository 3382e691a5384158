//! Hand-built results for the renderers' tests: known latencies, counts and
//! per-second points, shaped like the fio sample in the root `fixtures/`.

use crate::table::{HEADLINE_IOPS_JOB, HEADLINE_READ_JOB, HEADLINE_WRITE_JOB};
use model::{
    CpuUsage, DirStats, DiskUtil, EngineKind, Histogram, HostInfo, JobResult, JobSpec, RunResult,
    RwMode, SeriesPoint, TargetInfo, Warning,
};

pub const SEQ_READ_NAME: &str = HEADLINE_READ_JOB;
pub const SEQ_WRITE_NAME: &str = HEADLINE_WRITE_JOB;
pub const MIXED_NAME: &str = HEADLINE_IOPS_JOB;

/// A histogram holding each `(value_ns, times)`.
pub fn hist(values: &[(u64, u64)]) -> Histogram {
    let mut h = Histogram::new();
    for &(v, n) in values {
        h.record_n(v, n);
    }
    h
}

/// One direction: I/Os of `bs` bytes with the given completion latencies;
/// total latency = slat + clat (slat 0 and absent when `slat_ns` is None).
pub fn dir(clat: &[(u64, u64)], bs: u64, runtime_ns: u64, slat_ns: Option<u64>) -> DirStats {
    let ios: u64 = clat.iter().map(|&(_, n)| n).sum();
    let s = slat_ns.unwrap_or(0);
    let lat: Vec<(u64, u64)> = clat.iter().map(|&(v, n)| (v + s, n)).collect();
    DirStats {
        ios,
        bytes: ios * bs,
        runtime_ns,
        slat: slat_ns.map(|v| hist(&[(v, ios / 2), (v + 2000, ios - ios / 2)])),
        clat: hist(clat),
        lat: hist(&lat),
        ..DirStats::default()
    }
}

pub fn point(start_ms: u64, duration_ms: u64, read: (u64, u64), write: (u64, u64)) -> SeriesPoint {
    SeriesPoint {
        start_ms,
        duration_ms,
        read_ios: read.0,
        read_bytes: read.1,
        write_ios: write.0,
        write_bytes: write.1,
        ..SeriesPoint::default()
    }
}

pub fn spec(name: &str, rw: RwMode, bs: u64, iodepth: u32, engine: EngineKind) -> JobSpec {
    let mut s = JobSpec::new(name);
    s.rw = rw;
    s.bs_bytes = bs;
    s.iodepth = iodepth;
    s.engine = engine;
    s.options = vec![
        ("name".into(), name.into()),
        ("rw".into(), rw.fio_name().into()),
        ("bs".into(), model::units::format_size(bs)),
        ("iodepth".into(), iodepth.to_string()),
        ("ioengine".into(), engine.fio_name().into()),
        ("direct".into(), "1".into()),
    ];
    s
}

pub fn job(spec: JobSpec, read: DirStats, write: DirStats, series: Vec<SeriesPoint>) -> JobResult {
    let runtime_ns = read.runtime_ns.max(write.runtime_ns);
    JobResult {
        read,
        write,
        runtime_ns,
        cpu: CpuUsage {
            user_ns: runtime_ns / 40,
            system_ns: runtime_ns / 4,
            voluntary_ctx: 10_000,
            involuntary_ctx: 158,
            minor_faults: 14,
            major_faults: 0,
            kernel_helpers_ns: 0,
            wall_ns: 0,
        },
        series,
        ..JobResult::empty(&spec, 0, 1)
    }
}

/// Like the sample: 4k random I/O, 75% reads, QD16, io_uring, 3.001 s.
pub fn randrw_job() -> JobResult {
    let rt = 3_001_000_000;
    let read = dir(
        &[
            (121, 1),
            (200_000, 50_000),
            (300_000, 40_000),
            (600_000, 11_999),
            (5_000_000, 88),
        ],
        4096,
        rt,
        Some(5000),
    );
    let write = dir(
        &[(250_000, 20_000), (400_000, 14_010)],
        4096,
        rt,
        Some(6000),
    );
    let series = vec![
        point(0, 1000, (34_000, 34_000 * 4096), (11_000, 11_000 * 4096)),
        point(1000, 1000, (35_000, 35_000 * 4096), (12_000, 12_000 * 4096)),
        point(2000, 1000, (33_088, 33_088 * 4096), (11_010, 11_010 * 4096)),
        point(3000, 1, (0, 0), (0, 0)),
    ];
    let mut s = spec("randrw-75", RwMode::RandRw, 4096, 16, EngineKind::IoUring);
    s.rwmix_read_pct = 75;
    job(s, read, write, series)
}

/// 1 MiB sequential reads with psync (no slat), `ios` of them in 1 s.
pub fn seq_read_job(name: &str, ios: u64) -> JobResult {
    let d = dir(
        &[(4_000_000, ios / 2), (6_000_000, ios - ios / 2)],
        1 << 20,
        1_000_000_000,
        None,
    );
    let series = vec![point(0, 1000, (ios, ios << 20), (0, 0))];
    job(
        spec(name, RwMode::Read, 1 << 20, 8, EngineKind::Sync),
        d,
        DirStats::default(),
        series,
    )
}

/// 1 MiB sequential writes with psync, `ios` of them in 1 s.
pub fn seq_write_job(name: &str, ios: u64) -> JobResult {
    let d = dir(&[(8_000_000, ios)], 1 << 20, 1_000_000_000, None);
    let series = vec![point(0, 1000, (0, 0), (ios, ios << 20))];
    job(
        spec(name, RwMode::Write, 1 << 20, 8, EngineKind::Sync),
        DirStats::default(),
        d,
        series,
    )
}

/// 4k mixed I/O at QD32: `read_ios` and `write_ios` in 1 s.
pub fn mixed_job(name: &str, read_ios: u64, write_ios: u64) -> JobResult {
    let rt = 1_000_000_000;
    let read = dir(&[(900_000, read_ios)], 4096, rt, Some(3000));
    let write = dir(&[(1_100_000, write_ios)], 4096, rt, Some(3000));
    let series = vec![point(
        0,
        1000,
        (read_ios, read_ios * 4096),
        (write_ios, write_ios * 4096),
    )];
    job(
        spec(name, RwMode::RandRw, 4096, 32, EngineKind::IoUring),
        read,
        write,
        series,
    )
}

pub fn run(jobs: Vec<JobResult>) -> RunResult {
    RunResult {
        schema_version: model::result::SCHEMA_VERSION,
        tool_version: "diskbench-0.1.0".into(),
        command_line: vec!["diskbench".into(), "run".into(), "/mnt/data".into()],
        started_unix_ms: 1_795_313_282_000,
        finished_unix_ms: 1_795_313_286_785,
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
            mount_source: Some("/dev/vda1".into()),
            device: Some("vda".into()),
            device_bytes: Some(20 << 30),
            free_bytes: Some(12 << 30),
            rotational: Some(false),
            scheduler: Some("mq-deadline".into()),
            logical_block_bytes: Some(512),
            ..TargetInfo::default()
        }],
        jobs,
        // The fixture's disk_util entry (util: 2548 ms busy of 3001).
        disk_util: vec![DiskUtil {
            name: "vda".into(),
            read_ios: 93376,
            write_ios: 31143,
            read_sectors: 93376 * 8,
            write_sectors: 31143 * 8,
            read_ticks: 24920,
            write_ticks: 8829,
            in_queue: 33749,
            io_ticks: 2548,
            time_ms: 3001,
            ..DiskUtil::default()
        }],
        warnings: vec![Warning::CpuBound {
            job: "randrw-75".into(),
            cpu_pct: 97.0,
        }],
        error: None,
        interrupted: false,
        failure: None,
        global_options: Vec::new(),
        imported: None,
        workload: None,
        volume: None,
    }
}

/// The sample's job alone, in group 0.
pub fn sample_run() -> RunResult {
    run(vec![randrw_job()])
}

/// The default suite's three headline jobs plus one more, in groups 0 to 3.
pub fn suite_run() -> RunResult {
    let mut jobs = vec![
        seq_read_job(SEQ_READ_NAME, 1500),
        seq_write_job(SEQ_WRITE_NAME, 1200),
        mixed_job(MIXED_NAME, 30_000, 10_000),
        randrw_job(),
    ];
    for (i, j) in jobs.iter_mut().enumerate() {
        j.groupid = i as u32;
    }
    run(jobs)
}

/// A history record of one job that read `iops` 4 KiB blocks in one
/// second (so its IOPS is `iops`), no labels: the compare tests' run.
pub fn record_with_job(iops: u64) -> model::RunRecord {
    let spec = JobSpec::new("j");
    let second = 1_000_000_000;
    let job = JobResult {
        read: dir(&[(100_000, iops)], 4096, second, None),
        runtime_ns: second,
        ..JobResult::empty(&spec, 0, 1)
    };
    model::RunRecord {
        id: 0,
        kind: model::RunKind::Fio,
        labels: Default::default(),
        prices: Default::default(),
        result: RunResult {
            jobs: vec![job],
            ..Default::default()
        },
        soak: None,
        state: Default::default(),
        uuid: String::new(),
    }
}
