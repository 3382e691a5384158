//! Figures derived from a [`RunResult`] the way fio derives them, computed
//! in one place so the JSON and the text renderers can never disagree.
//!
//! The model stores base units (counts, bytes, ns); everything here is a
//! derivation: rates, fio's per-interval `bw`/`iops` statistics, the latency
//! distribution buckets and the per-group aggregates of `Run status group`.
//! Rates use the nanosecond runtimes (more exact than fio's milliseconds);
//! standard deviations are sample deviations (n - 1), as fio's `calc_lat`.

use model::{DirStats, Direction, Histogram, JobResult, RunResult, SeriesPoint};

pub const DIRECTIONS: [Direction; 2] = [Direction::Read, Direction::Write];

/// A side of a job's figures: a direction, or a trim mode's trims (fio's
/// third direction, which the model keeps apart from reads and writes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Read,
    Write,
    Trim,
}

impl Side {
    /// The direction of reads and writes; `None` for trims.
    pub fn direction(self) -> Option<Direction> {
        match self {
            Side::Read => Some(Direction::Read),
            Side::Write => Some(Direction::Write),
            Side::Trim => None,
        }
    }
}

impl From<Direction> for Side {
    fn from(dir: Direction) -> Side {
        match dir {
            Direction::Read => Side::Read,
            Direction::Write => Side::Write,
        }
    }
}

pub fn dir_stats(job: &JobResult, side: impl Into<Side>) -> &DirStats {
    match side.into() {
        Side::Read => &job.read,
        Side::Write => &job.write,
        Side::Trim => &job.trim,
    }
}

/// fio's name of a direction: `read`, `write`.
pub fn dir_name(dir: Direction) -> &'static str {
    match dir {
        Direction::Read => "read",
        Direction::Write => "write",
    }
}

/// A runtime as fio's whole milliseconds; a non-zero runtime is at least 1 ms,
/// so a direction that ran is never mistaken for one that did not.
pub fn runtime_ms(ns: u64) -> u64 {
    if ns == 0 {
        0
    } else {
        (ns.saturating_add(500_000) / 1_000_000).max(1)
    }
}

/// `count` per second over `ns`, 0 when nothing ran.
pub fn per_sec(count: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        count as f64 * 1e9 / ns as f64
    }
}

/// Percent of `part_ns` in `whole_ns` (fio's `usr_cpu`, `sys_cpu`).
pub fn percent(part_ns: u64, whole_ns: u64) -> f64 {
    if whole_ns == 0 {
        0.0
    } else {
        part_ns as f64 * 100.0 / whole_ns as f64
    }
}

/// fio's `usr_cpu` and `sys_cpu` of a job: CPU time over the wall time of
/// all its threads added up (fio's `total_run_time`), so a group of clones
/// never shows more than 100% per clone. Runs saved before the wall time
/// was kept use the job's runtime.
pub fn cpu_percents(job: &JobResult) -> (f64, f64) {
    let wall = match job.cpu.wall_ns {
        0 => job.runtime_ns,
        w => w,
    };
    (
        percent(job.cpu.user_ns, wall),
        percent(job.cpu.system_ns, wall),
    )
}

/// fio's `{min, max, mean, stddev, N}` of one latency kind.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LatStats {
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub stddev: f64,
    pub n: u64,
}

impl LatStats {
    pub fn of(h: &Histogram) -> LatStats {
        if h.is_empty() {
            return LatStats::default();
        }
        LatStats {
            min: h.min(),
            max: h.max(),
            mean: h.mean(),
            stddev: sample_stddev(h),
            n: h.count(),
        }
    }
}

/// The histogram's population deviation turned into fio's sample deviation.
pub fn sample_stddev(h: &Histogram) -> f64 {
    let n = h.count();
    if n < 2 {
        return 0.0;
    }
    let n = n as f64;
    h.stddev() * (n / (n - 1.0)).sqrt()
}

/// The `clat` percentiles of [`model::DEFAULT_PERCENTILES`], empty when nothing
/// was recorded (fio then omits the `percentile` object).
pub fn percentiles(h: &Histogram) -> Vec<(f64, u64)> {
    percentiles_at(h, &model::DEFAULT_PERCENTILES)
}

/// `(percentile, ns)` for each of a job's `percentile_list`; empty when `h` is.
pub fn percentiles_at(h: &Histogram, list: &[f64]) -> Vec<(f64, u64)> {
    if h.is_empty() {
        return Vec::new();
    }
    list.iter().map(|&p| (p, h.percentile(p))).collect()
}

/// fio's statistics of per-interval samples (`bw_*`, `iops_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SampleStats {
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub stddev: f64,
    pub samples: u64,
}

impl SampleStats {
    pub fn of(values: &[u64]) -> Option<SampleStats> {
        let (&first, rest) = values.split_first()?;
        let n = values.len() as f64;
        let mean = values.iter().map(|&v| v as f64).sum::<f64>() / n;
        let stddev = if values.len() < 2 {
            0.0
        } else {
            let ss: f64 = values.iter().map(|&v| (v as f64 - mean).powi(2)).sum();
            (ss / (n - 1.0)).sqrt()
        };
        Some(SampleStats {
            min: rest.iter().copied().fold(first, u64::min),
            max: rest.iter().copied().fold(first, u64::max),
            mean,
            stddev,
            samples: values.len() as u64,
        })
    }
}

/// The intervals fio would have sampled: full ones only. A last, shorter
/// interval (the tail of the run) is left out, as fio only takes a sample
/// when a whole averaging window has passed; if there is nothing else, it is used.
pub fn full_intervals(series: &[SeriesPoint]) -> impl Iterator<Item = &SeriesPoint> {
    let longest = series.iter().map(|p| p.duration_ms).max().unwrap_or(0);
    series
        .iter()
        .filter(move |p| p.duration_ms > 0 && p.duration_ms == longest)
}

fn point_counts(p: &SeriesPoint, side: Side) -> (u64, u64) {
    match side {
        Side::Read => (p.read_ios, p.read_bytes),
        Side::Write => (p.write_ios, p.write_bytes),
        Side::Trim => (p.trim_ios, p.trim_bytes),
    }
}

/// Per-interval bandwidth of one side in KiB/s (whole numbers, as fio's
/// samples), or `None` when the side did no I/O.
pub fn bw_stats(job: &JobResult, side: impl Into<Side>) -> Option<SampleStats> {
    interval_stats(job, side.into(), |_, bytes, ms| {
        bytes as u128 * 1000 / ms as u128 / 1024
    })
}

/// Per-interval IOPS of one side (whole numbers), or `None` when it did no I/O.
pub fn iops_stats(job: &JobResult, side: impl Into<Side>) -> Option<SampleStats> {
    interval_stats(job, side.into(), |ios, _, ms| {
        ios as u128 * 1000 / ms as u128
    })
}

fn interval_stats(
    job: &JobResult,
    side: Side,
    rate: impl Fn(u64, u64, u64) -> u128,
) -> Option<SampleStats> {
    if dir_stats(job, side).ios == 0 {
        return None;
    }
    let values: Vec<u64> = full_intervals(&job.series)
        .map(|p| {
            let (ios, bytes) = point_counts(p, side);
            u64::try_from(rate(ios, bytes, p.duration_ms)).unwrap_or(u64::MAX)
        })
        .collect();
    SampleStats::of(&values)
}

/// fio's `bw_agg` / `per=`: this job's mean interval bandwidth as a percent of
/// its group's aggregate bandwidth, at most 100; 100 when the aggregate is tiny.
pub fn bw_agg_percent(mean_kib_per_sec: f64, group_agg_bytes_per_sec: u64) -> f64 {
    if group_agg_bytes_per_sec <= 1024 {
        return 100.0;
    }
    // fio passes the mean as an int.
    let mean = mean_kib_per_sec.trunc();
    (mean * 100.0 / (group_agg_bytes_per_sec as f64 / 1024.0)).min(100.0)
}

pub const LAT_LABELS: [&str; 10] = [
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000",
];
pub const LAT_MS_LABELS: [&str; 12] = [
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
];
const LAT_BOUNDS: [u64; 11] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000];

/// fio's latency distribution (`latency_ns/us/ms`, `lat (usec)   :` lines):
/// the percent of a job's I/Os, reads and writes together, whose completion
/// latency falls in each bucket. A bucket is named by its upper bound:
/// `"250"` in `us` holds 100 us up to, not including, 250 us.
///
/// fio fills these from the completion latency (`clat`: from submission to
/// completion), as its HOWTO says ("from when I/O leaves fio and when it gets
/// completed") and as the sample shows (sub-microsecond buckets filled while
/// every total latency was above 50 us). Each histogram bucket counts at its
/// lowest value (clamped to the exact min and max), so a value near a bucket
/// edge may be counted on the wrong side by less than 1%.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LatencyBuckets {
    pub ns: [f64; 10],
    pub us: [f64; 10],
    pub ms: [f64; 12],
}

pub fn latency_buckets(job: &JobResult) -> LatencyBuckets {
    let mut counts_ns = [0u64; 10];
    let mut counts_us = [0u64; 10];
    let mut counts_ms = [0u64; 12];
    let mut total = 0u64;
    // Every completion of the job, its trims too, as fio counts them.
    let clats = DIRECTIONS.map(|dir| &dir_stats(job, dir).clat);
    for h in clats.into_iter().chain([&job.trim.clat]) {
        for (low, count) in h.buckets() {
            let v = low.clamp(h.min(), h.max());
            total += count;
            if v < 1000 {
                counts_ns[bucket_index(v)] += count;
            } else if v < 1_000_000 {
                counts_us[bucket_index(v / 1000)] += count;
            } else {
                counts_ms[bucket_index(v / 1_000_000)] += count;
            }
        }
    }
    LatencyBuckets {
        ns: counts_ns.map(|c| bucket_percent(c, total)),
        us: counts_us.map(|c| bucket_percent(c, total)),
        ms: counts_ms.map(|c| bucket_percent(c, total)),
    }
}

/// The first bucket whose bound is above `v`; past the last bound, the `>=` bucket.
fn bucket_index(v: u64) -> usize {
    LAT_BOUNDS
        .iter()
        .position(|&b| v < b)
        .unwrap_or(LAT_BOUNDS.len())
}

/// fio's `stat_calc_lat`: a non-empty bucket shows at least 0.01%.
fn bucket_percent(count: u64, total: u64) -> f64 {
    if total == 0 || count == 0 {
        return 0.0;
    }
    (count as f64 * 100.0 / total as f64).max(0.01)
}

/// One direction of one reporting group: fio's `Run status group` line.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GroupDir {
    pub io_bytes: u64,
    /// The group's bytes over its longest runtime.
    pub agg_bytes_per_sec: u64,
    /// The slowest and fastest job's bandwidth.
    pub min_bw: u64,
    pub max_bw: u64,
    pub min_run_ns: u64,
    pub max_run_ns: u64,
}

/// The jobs of one `groupid`, aggregated per direction (`None`: no job of the group ran it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Group {
    pub id: u32,
    pub read: Option<GroupDir>,
    pub write: Option<GroupDir>,
    /// The trims of the group's trim jobs (fio's `TRIM:` line).
    pub trim: Option<GroupDir>,
}

impl Group {
    pub fn dir(&self, dir: Direction) -> Option<&GroupDir> {
        match dir {
            Direction::Read => self.read.as_ref(),
            Direction::Write => self.write.as_ref(),
        }
    }
}

/// The reporting groups of a run, by ascending id.
pub fn groups(result: &RunResult) -> Vec<Group> {
    let mut ids: Vec<u32> = result.jobs.iter().map(|j| j.groupid).collect();
    ids.sort_unstable();
    ids.dedup();
    ids.into_iter()
        .map(|id| {
            let members: Vec<&JobResult> = result.jobs.iter().filter(|j| j.groupid == id).collect();
            Group {
                id,
                read: group_dir(&members, Direction::Read),
                write: group_dir(&members, Direction::Write),
                trim: group_dir(&members, Side::Trim),
            }
        })
        .collect()
}

fn group_dir(members: &[&JobResult], side: impl Into<Side> + Copy) -> Option<GroupDir> {
    group_of(members.iter().map(|j| dir_stats(j, side)))
}

/// The group's figures from its jobs' figures in one direction.
fn group_of<'a>(stats: impl Iterator<Item = &'a DirStats>) -> Option<GroupDir> {
    let ran: Vec<&DirStats> = stats.filter(|d| d.runtime_ns > 0 && d.ios > 0).collect();
    let first = ran.first()?;
    let mut g = GroupDir {
        min_bw: u64::MAX,
        min_run_ns: first.runtime_ns,
        max_run_ns: first.runtime_ns,
        ..GroupDir::default()
    };
    for d in &ran {
        let bw = d.bytes_per_sec() as u64;
        g.io_bytes += d.bytes;
        g.min_bw = g.min_bw.min(bw);
        g.max_bw = g.max_bw.max(bw);
        g.min_run_ns = g.min_run_ns.min(d.runtime_ns);
        g.max_run_ns = g.max_run_ns.max(d.runtime_ns);
    }
    g.agg_bytes_per_sec = per_sec(g.io_bytes, g.max_run_ns) as u64;
    Some(g)
}

/// The aggregate bandwidth of the group `job` belongs to, on one side.
pub fn group_agg(result: &RunResult, job: &JobResult, dir: impl Into<Side> + Copy) -> u64 {
    let members: Vec<&JobResult> = result
        .jobs
        .iter()
        .filter(|j| j.groupid == job.groupid)
        .collect();
    group_dir(&members, dir).map_or(0, |g| g.agg_bytes_per_sec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::*;

    #[test]
    fn sample_stddev_is_fios() {
        let mut h = Histogram::new();
        h.record(10);
        h.record(20);
        // Population deviation 5; sample deviation 5 * sqrt(2).
        assert!((sample_stddev(&h) - 7.0710678).abs() < 1e-6);
        let s = SampleStats::of(&[10, 20]).unwrap();
        assert_eq!((s.min, s.max, s.samples), (10, 20, 2));
        assert!((s.stddev - 7.0710678).abs() < 1e-6);
        assert_eq!(SampleStats::of(&[]), None);
    }

    #[test]
    fn interval_stats_skip_the_short_tail() {
        let job = randrw_job();
        let iops = iops_stats(&job, Direction::Read).unwrap();
        assert_eq!(iops.samples, 3);
        assert_eq!((iops.min, iops.max), (33_088, 35_000));
        let bw = bw_stats(&job, Direction::Read).unwrap();
        assert_eq!(bw.min, 33_088 * 4);
        let read_only = seq_read_job(SEQ_READ_NAME, 1_000_000_000);
        assert_eq!(bw_stats(&read_only, Direction::Write), None);
    }

    #[test]
    fn buckets_use_clat_of_both_directions() {
        let job = randrw_job();
        let b = latency_buckets(&job);
        let total: f64 = b.ns.iter().chain(&b.us).chain(&b.ms).sum();
        assert!((total - 100.0).abs() < 0.05, "{total}");
        // 200 us reads land in "250" us, 5 ms reads in "10" ms.
        assert!(b.us[6] > 30.0);
        assert!(b.ms[2] > 0.0);
        assert_eq!(bucket_index(1999), 10);
        assert_eq!(bucket_index(2000), 11);
        assert_eq!(bucket_percent(1, 1_000_000), 0.01);
    }

    #[test]
    fn groups_aggregate_their_jobs() {
        let result = run(vec![seq_read_job("a", 1000), seq_read_job("b", 2000)]);
        let g = groups(&result);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].write, None);
        let read = g[0].read.unwrap();
        assert_eq!((read.min_bw, read.max_bw), (1000 << 20, 2000 << 20));
        assert_eq!(read.io_bytes, 3000 << 20);
        assert_eq!(read.agg_bytes_per_sec, 3000 << 20);
        assert_eq!(
            group_agg(&result, &result.jobs[0], Direction::Read),
            3000 << 20
        );
    }

    #[test]
    fn bw_agg_is_fios_percent_of_the_group() {
        // The sample: bw_mean 135016 KiB/s, bw_bytes 139337703, bw_agg 99.223958.
        let pct = bw_agg_percent(135_016.0, 139_337_703);
        assert_eq!(crate::format::six_decimals(pct), 99.223958);
        assert_eq!(bw_agg_percent(10.0, 0), 100.0);
        assert_eq!(bw_agg_percent(1e9, 1 << 20), 100.0);
    }
}
