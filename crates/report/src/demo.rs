//! Made-up but realistic history, shaped like Brian Cunnie's 2018 benchmark of cloud disks (GoBonnieGo on four clouds): AWS gp2
//! and io1, GCE pd-standard 20 GiB (which falls off a cliff after four
//! runs), GCE pd-ssd and a local NVMe drive, with prices, latency
//! histograms and per-second series. The report's tests and the browser
//! test render it; it also shows what a report looks like without a cloud
//! account. Deterministic: the same records every time.

use crate::table::{HEADLINE_IOPS_JOB, HEADLINE_READ_JOB, HEADLINE_WRITE_JOB};
use model::{
    DirStats, EngineKind, Histogram, HostInfo, JobResult, JobSpec, Prices, RunKind, RunRecord,
    RunResult, RwMode, SeriesPoint, TargetInfo,
};

/// A disk of the demo: labels, prices and its figures before and after its cliff.
struct Disk {
    labels: [(&'static str, &'static str); 3],
    prices: Prices,
    /// (IOPS, read MB/s, write MB/s) while credits last, and after.
    fast: (f64, f64, f64),
    slow: (f64, f64, f64),
    /// Runs before the cliff (runs past `cliff` are slow).
    cliff: usize,
    device_bytes: u64,
}

fn disks() -> Vec<Disk> {
    let gib = 1u64 << 30;
    let price = |gib_month: Option<f64>, month: Option<f64>| Prices {
        per_gib_month: gib_month,
        per_million_ios: None,
        per_month: month,
    };
    vec![
        Disk {
            labels: [("provider", "aws"), ("disk", "gp2"), ("size", "20GiB")],
            prices: price(Some(0.10), None),
            fast: (3634.0, 92.0, 103.0),
            slow: (3634.0, 92.0, 103.0),
            cliff: usize::MAX,
            device_bytes: 20 * gib,
        },
        Disk {
            labels: [("provider", "aws"), ("disk", "io1"), ("size", "20GiB")],
            prices: price(Some(0.125), Some(65.0)),
            fast: (1210.0, 94.0, 102.0),
            slow: (1210.0, 94.0, 102.0),
            cliff: usize::MAX,
            device_bytes: 20 * gib,
        },
        Disk {
            labels: [
                ("provider", "google"),
                ("disk", "pd-standard"),
                ("size", "20GiB"),
            ],
            prices: price(Some(0.04), None),
            fast: (300.0, 98.0, 135.0),
            slow: (80.0, 6.0, 13.0),
            cliff: 4,
            device_bytes: 20 * gib,
        },
        Disk {
            labels: [
                ("provider", "google"),
                ("disk", "pd-ssd"),
                ("size", "256GiB"),
            ],
            prices: price(Some(0.17), None),
            fast: (11728.0, 138.0, 149.0),
            slow: (11728.0, 138.0, 149.0),
            cliff: usize::MAX,
            device_bytes: 256 * gib,
        },
        Disk {
            labels: [("provider", "vsphere"), ("disk", "nvme"), ("size", "1TiB")],
            prices: Prices::default(),
            fast: (28484.0, 1614.0, 1577.0),
            slow: (28484.0, 1614.0, 1577.0),
            cliff: usize::MAX,
            device_bytes: 1024 * gib,
        },
    ]
}

/// A repeatable noise in -1..1 from a seed (splitmix64).
fn noise(seed: u64) -> f64 {
    let z = model::rng::splitmix64(seed);
    (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

/// Latencies of mean `mean_ns` with an exponential tail (p99 about 3.4x the
/// mean), spread over buckets placed on the nines scale so the curve is smooth to p99.99.
fn latencies(mean_ns: f64, ios: u64, seed: u64) -> Histogram {
    const POINTS: u64 = 120;
    let mut h = Histogram::new();
    let mut given = 0u64;
    let jitter = 1.0 + 0.05 * noise(seed);
    for k in 0..POINTS {
        let upper = 1.0 - 10f64.powf(-5.0 * (k + 1) as f64 / POINTS as f64);
        let mid = 1.0 - 10f64.powf(-5.0 * (k as f64 + 0.5) / POINTS as f64);
        let upto = if k + 1 == POINTS {
            ios
        } else {
            (upper * ios as f64) as u64
        };
        let v = mean_ns * jitter * (0.35 + 0.65 * -(1.0 - mid).ln());
        h.record_n(v.max(1.0) as u64, upto.saturating_sub(given));
        given = given.max(upto);
    }
    h
}

/// A job of `secs` seconds at `iops` per direction, with its per-second series.
fn job(
    name: &str,
    rw: RwMode,
    bs: u64,
    read: (f64, f64),
    write: (f64, f64),
    secs: u64,
    seed: u64,
) -> JobResult {
    let mut spec = JobSpec::new(name);
    spec.rw = rw;
    spec.bs_bytes = bs;
    spec.iodepth = if bs > 4096 { 8 } else { 32 };
    spec.engine = EngineKind::IoUring;
    let runtime_ns = secs * 1_000_000_000;
    let mut series = Vec::new();
    let (mut r_ios, mut w_ios) = (0u64, 0u64);
    for s in 0..secs {
        let wobble = 1.0 + 0.04 * noise(seed * 1000 + s);
        let (r, w) = ((read.0 * wobble) as u64, (write.0 * wobble) as u64);
        r_ios += r;
        w_ios += w;
        series.push(SeriesPoint {
            start_ms: s * 1000,
            duration_ms: 1000,
            read_ios: r,
            read_bytes: r * bs,
            write_ios: w,
            write_bytes: w * bs,
            ..SeriesPoint::default()
        });
    }
    let dir = |ios: u64, mean_ns: f64, salt: u64| {
        if ios == 0 {
            return DirStats::default();
        }
        let lat = latencies(mean_ns, ios, seed + salt);
        DirStats {
            ios,
            bytes: ios * bs,
            runtime_ns,
            slat: None,
            clat: lat.clone(),
            lat,
            response: None,
            prios: Vec::new(),
        }
    };
    let total = (read.0 + write.0).max(1.0);
    let qd = spec.iodepth as f64;
    JobResult {
        name: name.to_string(),
        read: dir(r_ios, read.1.max(qd * 1e9 / total), 1),
        write: dir(w_ios, write.1.max(qd * 1e9 / total * 1.3), 2),
        runtime_ns,
        series,
        ..JobResult::empty(&spec, 0, 1)
    }
}

/// About five runs per disk, ten minutes apart, ids from 1.
pub fn records() -> Vec<RunRecord> {
    let mut out = Vec::new();
    let start = 1_773_000_000_000u64;
    for (d, disk) in disks().into_iter().enumerate() {
        let runs = if disk.cliff < usize::MAX { 8 } else { 5 };
        for i in 0..runs {
            let id = out.len() as i64 + 1;
            let seed = id as u64 * 7919;
            let (iops, rd, wr) = if i < disk.cliff { disk.fast } else { disk.slow };
            let n = |x: f64, k: u64| x * (1.0 + 0.03 * noise(seed + k));
            let mb = |mbs: f64| mbs * 1e6 / (1 << 20) as f64;
            let jobs = vec![
                job(
                    HEADLINE_READ_JOB,
                    RwMode::Read,
                    1 << 20,
                    (mb(n(rd, 1)), 0.0),
                    (0.0, 0.0),
                    10,
                    seed,
                ),
                job(
                    HEADLINE_WRITE_JOB,
                    RwMode::Write,
                    1 << 20,
                    (0.0, 0.0),
                    (mb(n(wr, 2)), 0.0),
                    10,
                    seed + 1,
                ),
                job(
                    HEADLINE_IOPS_JOB,
                    RwMode::RandRw,
                    4096,
                    (n(iops, 3) * 0.75, 0.0),
                    (n(iops, 3) * 0.25, 0.0),
                    20,
                    seed + 2,
                ),
            ];
            let started = start + (d as u64 * 3600 + i as u64 * 600) * 1000;
            out.push(RunRecord {
                id,
                kind: RunKind::Suite,
                labels: disk
                    .labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                prices: disk.prices,
                result: RunResult {
                    schema_version: model::result::SCHEMA_VERSION,
                    tool_version: "diskbench-0.1.0".into(),
                    command_line: vec!["diskbench".into(), "run".into(), "/mnt/bench".into()],
                    started_unix_ms: started,
                    finished_unix_ms: started + 45_000,
                    host: HostInfo {
                        hostname: format!("{}-{}", disk.labels[0].1, disk.labels[1].1),
                        kernel: "6.12.0".into(),
                        cpu_model: "Intel(R) Xeon(R) CPU @ 2.20GHz".into(),
                        cpus: 4,
                        mem_bytes: 16 << 30,
                        ..HostInfo::default()
                    },
                    targets: vec![TargetInfo {
                        path: "/mnt/bench".into(),
                        filesystem: Some("ext4".into()),
                        mount_source: Some("/dev/sdb1".into()),
                        device: Some("sdb".into()),
                        model: Some(format!("{} disk", disk.labels[1].1)),
                        device_bytes: Some(disk.device_bytes),
                        rotational: Some(disk.labels[1].1 == "pd-standard"),
                        ..TargetInfo::default()
                    }],
                    jobs,
                    disk_util: Vec::new(),
                    warnings: Vec::new(),
                    error: None,
                    interrupted: false,
                    failure: None,
                    global_options: Vec::new(),
                    imported: None,
                    workload: None,
                    volume: None,
                },
                soak: None,
                state: Default::default(),
                uuid: String::new(),
            });
        }
    }
    out
}
