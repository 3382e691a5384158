//! An imported job's figures as its source printed them, and the marks for
//! what has to be derived instead.
//!
//! An imported job keeps fio's own record (`model::Imported`). Its
//! histograms are rebuilt from that record and cannot give back fio's
//! figures (a percentile re-derived from buckets, a bucket table from
//! percentiles), so every renderer asks here first: the source's figure
//! when it has one, printed as it was; otherwise the derivation, which for
//! an imported job is marked approximate (`diskbench.approximate` in JSON,
//! `~` and a footnote in text) so it is never taken for the source's.
//! Runs imported before the record was kept have none, and everything
//! derived from their histograms is marked.

use crate::stats::{LatStats, LatencyBuckets, SampleStats, LAT_LABELS, LAT_MS_LABELS};
use model::{Direction, Imported, JobResult, RunResult};
use serde_json::{Map, Value};

/// What the text marks approximate figures with, and its footnote.
pub const APPROX_MARK: &str = "~";
pub const APPROX_NOTE: &str = "~ approximate: re-derived by diskbench from the latency histogram \
                               it rebuilt on import, not the source's own figure";

/// Why a figure of an imported job is approximate, for JSON's `diskbench.approximate`.
pub const APPROX_REASON: &str =
    "re-derived from the latency histogram rebuilt on import; the source did not give it";

/// The job's source record, when it was imported with one.
pub fn record(job: &JobResult) -> Option<&Imported> {
    job.imported.as_ref().filter(|i| i.source.is_some())
}

/// The run's source record (its document besides the jobs), when it has one.
pub fn run_record(result: &RunResult) -> Option<&Map<String, Value>> {
    result.imported.as_ref()?.source.as_ref()
}

/// Whether the job's histograms were rebuilt on import, so that whatever
/// is derived from them is approximate.
pub fn rebuilt(job: &JobResult) -> bool {
    job.imported.as_ref().is_some_and(|i| !i.exact_histograms)
}

fn dir_key(dir: Direction) -> &'static str {
    crate::stats::dir_name(dir)
}

fn uint(v: Option<&Value>) -> Option<u64> {
    let v = v?;
    v.as_u64()
        .or_else(|| v.as_f64().filter(|f| *f >= 0.0).map(|f| f.round() as u64))
}

fn float(v: Option<&Value>) -> Option<f64> {
    v?.as_f64()
}

/// One of fio's latency objects (`slat_ns`, `clat_ns`, `lat_ns`) as the source gave it.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceLat {
    pub stats: LatStats,
    /// `("99.000000", ns)` under the source's own keys, in its order.
    pub percentiles: Vec<(String, u64)>,
}

impl SourceLat {
    /// The percentiles as numbers, for the text's `99.00th=[...]`.
    pub fn numbered(&self) -> Vec<(f64, u64)> {
        self.percentiles
            .iter()
            .filter_map(|(k, v)| Some((k.parse().ok()?, *v)))
            .collect()
    }
}

/// The source's `read.clat_ns` (or `slat_ns`, `lat_ns`) of the job.
pub fn lat(job: &JobResult, dir: Direction, kind: &str) -> Option<SourceLat> {
    let v = record(job)?.get(&[dir_key(dir), kind])?;
    let percentiles = v
        .get("percentile")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, x)| Some((k.clone(), uint(Some(x))?)))
                .collect()
        })
        .unwrap_or_default();
    Some(SourceLat {
        stats: LatStats {
            min: uint(v.get("min"))?,
            max: uint(v.get("max"))?,
            mean: float(v.get("mean"))?,
            stddev: float(v.get("stddev"))?,
            n: uint(v.get("N"))?,
        },
        percentiles,
    })
}

/// A direction's totals and rates as the source gave them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SourceDir {
    pub io_bytes: u64,
    pub bw_bytes: u64,
    pub iops: f64,
    pub runtime_ms: u64,
    pub total_ios: u64,
    pub short_ios: u64,
    pub drop_ios: u64,
}

pub fn dir(job: &JobResult, dir: Direction) -> Option<SourceDir> {
    let d = record(job)?.get(&[dir_key(dir)])?;
    Some(SourceDir {
        io_bytes: uint(d.get("io_bytes"))?,
        bw_bytes: uint(d.get("bw_bytes"))?,
        iops: float(d.get("iops"))?,
        runtime_ms: uint(d.get("runtime"))?,
        total_ios: uint(d.get("total_ios"))?,
        short_ios: uint(d.get("short_ios")).unwrap_or(0),
        drop_ios: uint(d.get("drop_ios")).unwrap_or(0),
    })
}

/// The source's per-interval statistics of `prefix` (`bw` or `iops`) and,
/// for `bw`, its `bw_agg`; `None` when it took no sample.
pub fn samples(job: &JobResult, dir: Direction, prefix: &str) -> Option<(SampleStats, f64)> {
    let d = record(job)?.get(&[dir_key(dir)])?;
    let key = |k: &str| d.get(format!("{prefix}_{k}"));
    let dev = if prefix == "bw" { "dev" } else { "stddev" };
    let s = SampleStats {
        min: uint(key("min"))?,
        max: uint(key("max"))?,
        mean: float(key("mean"))?,
        stddev: float(key(dev))?,
        samples: uint(key("samples"))?,
    };
    (s.samples > 0).then(|| (s, float(key("agg")).unwrap_or(100.0)))
}

/// fio's `latency_ns`, `latency_us` and `latency_ms` tables, when the source has all three.
pub fn latency_buckets(job: &JobResult) -> Option<LatencyBuckets> {
    let rec = record(job)?;
    let table = |key: &str, labels: &[&str]| -> Option<Vec<f64>> {
        let m = rec.get(&[key])?;
        labels.iter().map(|l| float(m.get(*l))).collect()
    };
    Some(LatencyBuckets {
        ns: table("latency_ns", &LAT_LABELS)?.try_into().ok()?,
        us: table("latency_us", &LAT_LABELS)?.try_into().ok()?,
        ms: table("latency_ms", &LAT_MS_LABELS)?.try_into().ok()?,
    })
}

/// `usr_cpu`, `sys_cpu`, `ctx`, `majf`, `minf` as the source gave them.
pub fn cpu(job: &JobResult) -> Option<(f64, f64, u64, u64, u64)> {
    let rec = record(job)?;
    let at = |k: &str| rec.get(&[k]);
    Some((
        float(at("usr_cpu"))?,
        float(at("sys_cpu"))?,
        uint(at("ctx"))?,
        uint(at("majf"))?,
        uint(at("minf"))?,
    ))
}

/// One of fio's depth tables (`iodepth_level`, ...) as `(label, percent)`, in the source's order.
pub fn depth_table(job: &JobResult, key: &str) -> Option<Vec<(String, f64)>> {
    let m = record(job)?.get(&[key])?.as_object()?;
    m.iter()
        .map(|(k, v)| Some((k.clone(), float(Some(v))?)))
        .collect()
}

/// fio's `latency_target`, `latency_window`, `latency_percentile`, `latency_depth`.
fn recorded_latency_target(job: &JobResult) -> Option<(u64, u64, f64, u64)> {
    let rec = record(job)?;
    let at = |k: &str| rec.get(&[k]);
    Some((
        uint(at("latency_target"))?,
        uint(at("latency_window"))?,
        float(at("latency_percentile"))?,
        uint(at("latency_depth"))?,
    ))
}

/// fio's latency target figures of a job, as its JSON keys and its
/// `latency   :` line give them: `latency_target` (ns), `latency_window`
/// (us), `latency_percentile` and `latency_depth`, the depth the search
/// ended at (`iodepth` for a job without a target, as in fio). An imported
/// job gives its source's.
pub fn latency_target(job: &JobResult) -> (u64, u64, f64, u64) {
    recorded_latency_target(job).unwrap_or_else(|| {
        let lt = &job.spec.latency_target;
        let depth = job.latency_depth.unwrap_or(job.spec.iodepth);
        (
            lt.target.as_nanos() as u64,
            lt.window.as_micros() as u64,
            lt.percentile,
            u64::from(depth),
        )
    })
}
