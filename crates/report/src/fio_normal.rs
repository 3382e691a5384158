//! fio's human-readable `normal` output, line for line where diskbench has
//! the data, so a fio user reads it at a glance (and the scripts that grep
//! fio's text keep working).
//!
//! The layout and the number formats follow fio 3.33's `stat.c`
//! (`show_thread_status_normal`, `show_ddir_status`, `display_lat`,
//! `show_clat_percentiles`, `show_latencies`, `show_group_stats`); see
//! `fixtures/fio-3.33-randrw.txt` (at the root). Lines fio prints from data
//! we do not collect are left out: `; 0 zone resets`. `Disk stats` closes the text when the run measured a
//! device (fio 3.33 prints no `sectors=` there, though its HOWTO shows it).
//! diskbench adds no line of its own: the depth really kept is in the JSON.
//! `issued rwts` counts the I/Os diskbench counted (the JSON's `total_ios`:
//! those still in flight at the deadline are reaped, not counted), and
//! `latency` is fio's latency_target line: the depth a `latency_target`
//! search ended at, or `iodepth` and a target of 0 without one. Warnings are
//! not part of this output: the CLI prints [`crate::warnings_text`] on stderr.
//!
//! An imported job prints its source's figures (`crate::source`); a figure
//! derived from the histograms rebuilt on import instead is marked `~` just
//! before its label (`   ~clat percentiles`, ` ~lat (usec)`), and a
//! footnote after the job says what that means.

use crate::cliff;
use crate::format::{
    fio_bw_in, fio_bytes_in, fio_iops, fio_lat_unit, fio_percentile_unit, fio_rate_in,
    fio_scale_up, num2str,
};
use crate::source;
use crate::stats::{self, Group, GroupDir, LatStats, SampleStats, Side, DIRECTIONS};
use crate::unified;
use model::depth::{BATCH_LABELS, LEVEL_LABELS};
use model::units::OutputUnits;
use model::{DepthStats, DirStats, Direction, DiskUtil, JobResult, RunResult, UnifiedRw};
use std::fmt::Write;

pub mod header;

/// Every job's block, then one `Run status group` block per group.
pub fn render(result: &RunResult) -> String {
    render_stamped(result, None)
}

/// [`render`] as `diskbench fio` prints it, each job's line ending in fio's
/// `: pid=PID: DATE` ([`header::stamp`], the date the run's end).
pub fn render_stamped(result: &RunResult, pid: Option<u32>) -> String {
    let groups = stats::groups(result);
    let mut out = String::new();
    let stamp = pid.map(|pid| header::stamp(pid, result.finished_unix_ms / 1000));
    for job in &result.jobs {
        job_block(&mut out, result, job, stamp.as_deref().unwrap_or(""));
        if let Some(sentence) = cliff::sentence(&cliff::within_run(job)) {
            let _ = writeln!(out, "  {sentence}");
        }
    }
    // unified_rw_reporting: each group's figures summed too (see `unified`).
    let mixed_groups = unified::any(result).then(|| stats::groups(&unified::mixed_run(result)));
    for (i, group) in groups.iter().enumerate() {
        let summed = |pick: fn(&UnifiedRw) -> bool| {
            let members = result.jobs.iter().filter(|j| j.groupid == group.id);
            members.clone().count() > 0 && members.map(|j| &j.spec.unified_rw).all(pick)
        };
        let mixed = match &mixed_groups {
            Some(m) if !summed(|u| *u == UnifiedRw::None) => m[i].read.as_ref(),
            _ => None,
        };
        let apart = !summed(|u| *u == UnifiedRw::Mixed);
        group_block(&mut out, group, mixed, apart, group_units(result, group.id));
    }
    disk_block(&mut out, &result.disk_util);
    if result.disk_util.is_empty() {
        source_disk_block(&mut out, result);
    }
    out
}

/// An imported run's `Disk stats`, from the source's `disk_util` as fio wrote it.
fn source_disk_block(out: &mut String, result: &RunResult) {
    let Some(disks) = source::run_record(result)
        .and_then(|r| r.get("disk_util"))
        .and_then(|d| d.as_array())
        .filter(|d| !d.is_empty())
    else {
        return;
    };
    out.push_str("\nDisk stats (read/write):\n");
    for d in disks {
        let n = |k: &str| d.get(k).map_or_else(String::new, |v| v.to_string());
        let _ = writeln!(
            out,
            "  {}: ios={}/{}, merge={}/{}, ticks={}/{}, in_queue={}, util={:.2}%",
            d.get("name").and_then(|v| v.as_str()).unwrap_or("?"),
            n("read_ios"),
            n("write_ios"),
            n("read_merges"),
            n("write_merges"),
            n("read_ticks"),
            n("write_ticks"),
            n("in_queue"),
            d.get("util").and_then(|v| v.as_f64()).unwrap_or(0.0)
        );
    }
}

/// fio 3.33's `Disk stats` block: what the kernel counted for each device,
/// reads first; none when the run measured no device, as fio prints none.
fn disk_block(out: &mut String, disks: &[DiskUtil]) {
    if disks.is_empty() {
        return;
    }
    out.push_str("\nDisk stats (read/write):\n");
    for d in disks {
        let [ri, wi, rm, wm, rt, wt, q] = d.fio_counters();
        let _ = writeln!(
            out,
            "  {}: ios={ri}/{wi}, merge={rm}/{wm}, ticks={rt}/{wt}, in_queue={q}, util={:.2}%",
            d.name,
            d.util()
        );
    }
}

/// fio 3.33 prints every job of a group with the `kb_base` of the group's
/// last job, and each job with its own `unit_base` (the group's line with
/// the last job's): checked with jobs of one group that differ.
fn group_units(result: &RunResult, groupid: u32) -> OutputUnits {
    let last = result.jobs.iter().rev().find(|j| j.groupid == groupid);
    last.map_or_else(OutputUnits::default, |j| j.spec.units)
}

fn job_block(out: &mut String, result: &RunResult, job: &JobResult, stamp: &str) {
    let err = job.error_code();
    let _ = write!(
        out,
        "{}: (groupid={}, jobs={}): err={err:2}",
        job.name, job.groupid, job.clones
    );
    match (&job.error, err) {
        (Some(message), _) => {
            let _ = writeln!(out, " ({message}){stamp}");
        }
        (None, 0) => {
            let _ = writeln!(out, "{stamp}");
        }
        // The first error the job went on past, as fio names it.
        (None, errno) => {
            let _ = writeln!(out, " (error={}){stamp}", strerror(errno));
        }
    }
    if let Some(desc) = &job.spec.description {
        let _ = writeln!(out, "  Description  : [{desc}]");
    }
    let mut approximate = false;
    if job.spec.unified_rw != UnifiedRw::Mixed {
        for dir in DIRECTIONS {
            if stats::dir_stats(job, dir).bytes > 0 {
                approximate |= dir_block(out, result, job, dir, stats::dir_name(dir));
            }
        }
        trim_block(out, result, job);
    }
    // unified_rw_reporting: the directions summed, in their place or after them.
    if job.spec.unified_rw != UnifiedRw::None {
        let run = unified::mixed_run(result);
        let mixed = unified::mixed_job(job);
        approximate |= dir_block(out, &run, &mixed, Direction::Read, "mixed");
    }
    approximate |= latency_distribution(out, job);
    sync_block(out, job);
    let (usr, sys, ctx, majf, minf) = source::cpu(job).unwrap_or_else(|| {
        let (usr, sys) = stats::cpu_percents(job);
        let c = &job.cpu;
        (usr, sys, c.ctx(), c.major_faults, c.minor_faults)
    });
    let _ = writeln!(
        out,
        "  cpu          : usr={usr:.2}%, sys={sys:.2}%, ctx={ctx}, majf={majf}, minf={minf}"
    );
    depth_lines(out, job);
    issued_lines(out, job);
    if approximate {
        let _ = writeln!(out, "  {}", source::APPROX_NOTE);
    }
}

/// `line` with the mark of an approximate figure just before its first
/// word (`   ~clat percentiles`) when `approximate`.
fn marked(line: String, approximate: bool) -> String {
    let indent = line.len() - line.trim_start_matches(' ').len();
    match (approximate, indent) {
        (true, 1..) => format!(
            "{}{}{}",
            &line[..indent - 1],
            source::APPROX_MARK,
            &line[indent..]
        ),
        _ => line,
    }
}

/// fio's `IO depths`, `submit` and `complete` lines: an imported job's from
/// its source's tables, none for one imported without them (nothing
/// measured them).
fn depth_lines(out: &mut String, job: &JobResult) {
    if source::record(job).is_some() {
        return source_depth_lines(out, job);
    }
    let d = &job.depth;
    if d.level.iter().all(|&n| n == 0) {
        return;
    }
    for (title, labels, counts) in [
        ("  IO depths    :", &LEVEL_LABELS, &d.level),
        ("     submit    :", &BATCH_LABELS, &d.submit),
        ("     complete  :", &BATCH_LABELS, &d.complete),
    ] {
        let cells: Vec<String> = labels
            .iter()
            .zip(DepthStats::percents(counts))
            .map(|(label, p)| format!("{label}={p:.1}%"))
            .collect();
        let _ = writeln!(out, "{title} {}", cells.join(", "));
    }
    // The depth really kept (Little's law) is not a line here: fio's normal
    // output has none, and a parser of it must see fio's lines only. The
    // JSON carries it (`diskbench.mean_depth`), and a depth not kept is a
    // warning kept with the run.
}

/// An imported job's depth lines, from the source's tables as it wrote them.
fn source_depth_lines(out: &mut String, job: &JobResult) {
    for (title, key) in [
        ("  IO depths    :", "iodepth_level"),
        ("     submit    :", "iodepth_submit"),
        ("     complete  :", "iodepth_complete"),
    ] {
        if let Some(table) = source::depth_table(job, key) {
            let cells: Vec<String> = table
                .iter()
                .map(|(label, p)| format!("{label}={p:.1}%"))
                .collect();
            let _ = writeln!(out, "{title} {}", cells.join(", "));
        }
    }
}

/// fio's `issued rwts` (read, write, trim, sync) and `latency` lines, from
/// the same figures as the JSON's `total_ios`, `short_ios`, `drop_ios` and
/// `latency_*` keys.
fn issued_lines(out: &mut String, job: &JobResult) {
    let counts = |dir| match source::dir(job, dir) {
        Some(s) => (s.total_ios, s.short_ios, s.drop_ios),
        None => {
            let done = stats::dir_stats(job, dir).ios;
            (done + job.failed_ios(dir) + job.replayed(dir).0, 0, 0)
        }
    };
    let (r, w) = (counts(Direction::Read), counts(Direction::Write));
    let t = job.trim.ios;
    let _ = writeln!(
        out,
        "     issued rwts: total={},{},{t},0 short={},{},0,0 dropped={},{},0,0",
        r.0, w.0, r.1, w.1, r.2, w.2
    );
    // fio 3.33's line for a job with continue_on_error (or ignore_error).
    if let Some(e) = job.errors.as_ref().filter(|_| job.spec.errors.any()) {
        let first = i64::from(e.first);
        let _ = writeln!(
            out,
            "     errors    : total={}, first_error={first}/<{}>",
            e.total,
            strerror(first)
        );
    }
    let (target, window, percentile, depth) = source::latency_target(job);
    let _ = writeln!(
        out,
        "     latency   : target={target}, window={window}, percentile={percentile:.2}%, depth={depth}"
    );
}

/// One latency kind of a direction as printed: its statistics and its
/// percentiles, the source's when it has them.
struct LatShown {
    name: String,
    /// The title of the percentiles when it is not the name (a priority's
    /// share of the I/Os).
    percentiles_of: Option<String>,
    stats: LatStats,
    percentiles: Vec<(f64, u64)>,
    /// The percentiles were re-derived from a histogram rebuilt on import.
    approximate: bool,
}

/// `slat`, `clat` and `lat` of one direction, in fio's order: `d`'s, or
/// the source's for a direction an imported job recorded (`dir`).
fn lat_kinds(job: &JobResult, dir: Option<Direction>, d: &DirStats) -> Vec<LatShown> {
    let spec = &job.spec;
    let kinds = [
        ("slat", "slat_ns", d.slat.as_ref(), spec.slat_percentiles),
        ("clat", "clat_ns", Some(&d.clat), spec.clat_percentiles),
        (" lat", "lat_ns", Some(&d.lat), spec.lat_percentiles),
    ];
    let mut out = Vec::new();
    for (name, key, histogram, wanted) in kinds {
        if let Some(src) = dir.and_then(|dir| source::lat(job, dir, key)) {
            let percentiles = src.numbered();
            out.push(LatShown {
                name: name.to_string(),
                percentiles_of: None,
                stats: src.stats,
                percentiles,
                approximate: false,
            });
        } else if let Some(h) = histogram {
            let percentiles = match wanted {
                true => stats::percentiles_at(h, &spec.percentile_list),
                false => Vec::new(),
            };
            out.push(LatShown {
                name: name.to_string(),
                percentiles_of: None,
                stats: LatStats::of(h),
                approximate: source::rebuilt(job) && !percentiles.is_empty(),
                percentiles,
            });
        }
    }
    out.extend(prio_kinds(job, d));
    out
}

/// fio's per-priority latencies (`clat prio 1/0`, or `lat prio` with
/// `lat_percentiles`), each with its share of the I/Os, when the
/// direction's I/Os went with two priorities or more (as the JSON's `prios`).
fn prio_kinds(job: &JobResult, d: &DirStats) -> Vec<LatShown> {
    let spec = &job.spec;
    let used: Vec<_> = d.prios.iter().filter(|p| p.lat.count() > 0).collect();
    if used.len() < 2 {
        return Vec::new();
    }
    let (kind, wanted) = match spec.lat_percentiles {
        true => ("lat", true),
        false => ("clat", spec.clat_percentiles),
    };
    let all: u64 = used.iter().map(|p| p.lat.count()).sum();
    // fio 3.42 adds the hint (`1/0/3`); a job without hints keeps 3.33's `1/0`.
    let hinted = used
        .iter()
        .any(|p| model::prio::IoPrio::of_value(p.prio).hint > 0);
    let shown = |p: &&model::prio::PrioLatency| {
        let prio = model::prio::IoPrio::of_value(p.prio);
        let mut name = format!("{kind} prio {}/{}", prio.class, prio.level);
        if hinted {
            name.push_str(&format!("/{}", prio.hint));
        }
        let share = 100.0 * p.lat.count() as f64 / all as f64;
        LatShown {
            percentiles_of: Some(format!("{name} ({share:.2}% of IOs)")),
            name,
            stats: LatStats::of(&p.lat),
            percentiles: match wanted {
                true => stats::percentiles_at(&p.lat, &spec.percentile_list),
                false => Vec::new(),
            },
            approximate: false,
        }
    };
    used.iter().map(shown).collect()
}

/// One direction's lines; true when a figure in them is approximate.
fn dir_block(
    out: &mut String,
    result: &RunResult,
    job: &JobResult,
    dir: Direction,
    name: &str,
) -> bool {
    let d = stats::dir_stats(job, dir);
    if d.runtime_ns == 0 {
        return false;
    }
    let units = OutputUnits {
        bits: job.spec.units.bits,
        ..group_units(result, job.groupid)
    };
    let (iops, bw, bytes, runtime_ms) = match source::dir(job, dir) {
        Some(s) => (s.iops, s.bw_bytes, s.io_bytes, s.runtime_ms),
        None => (
            d.iops(),
            stats::per_sec(d.bytes, d.runtime_ns) as u64,
            d.bytes,
            stats::runtime_ms(d.runtime_ns),
        ),
    };
    let _ = writeln!(
        out,
        "  {name}: IOPS={}, BW={}({}/{}msec)",
        fio_iops(iops),
        fio_bw_in(bw, units),
        fio_bytes_in(bytes, units, false),
        runtime_ms
    );
    let kinds = lat_kinds(job, Some(dir), d);
    lat_lines(out, &kinds);
    // diskbench's own: a rate-limited job's response time, from the moment
    // its schedule meant each I/O to start (a stall is not hidden).
    if let Some(response) = &d.response {
        lat_line(out, "resp", &LatStats::of(response));
        let values = stats::percentiles_at(response, &job.spec.percentile_list);
        percentile_block(out, "resp", &values, false);
    }
    let imported = source::record(job).map(|_| {
        let bw = source::samples(job, dir, "bw");
        (bw, source::samples(job, dir, "iops").map(|(s, _)| s))
    });
    sample_lines(out, result, job, Side::from(dir), units, imported);
    kinds.iter().any(|k| k.approximate)
}

/// A side's per-second samples: bandwidth with its share of the group's,
/// and IOPS.
type Samples = (Option<(SampleStats, f64)>, Option<SampleStats>);

/// The `bw` and `iops` lines of per-second samples: an imported run's own
/// (`imported`), or the series' on `side`.
fn sample_lines(
    out: &mut String,
    result: &RunResult,
    job: &JobResult,
    side: Side,
    units: OutputUnits,
    imported: Option<Samples>,
) {
    let (bw_samples, iops_samples) = imported.unwrap_or_else(|| {
        let bw = stats::bw_stats(job, side).map(|s| {
            let agg = stats::bw_agg_percent(s.mean, stats::group_agg(result, job, side));
            (s, agg)
        });
        (bw, stats::iops_stats(job, side))
    });
    if let Some((s, agg)) = bw_samples {
        let (mut min, mut max, mut mean, mut dev) = (s.min, s.max, s.mean, s.stddev);
        // fio 3.33 keeps these figures in KiB/s under kb_base=1000 and
        // labels them kB/s (MiB/s above 1 GiB/s either way); bytes always.
        let mut unit = if units.kb_base_1000 { "kB" } else { "KiB" };
        if mean > 1024.0 * 1024.0 {
            (min, max, mean, dev) = (min / 1024, max / 1024, mean / 1024.0, dev / 1024.0);
            unit = "MiB";
        }
        let _ = writeln!(
            out,
            "   bw ({unit:>5}/s): min={min:5}, max={max:5}, per={agg:.2}%, avg={mean:5.2}, stdev={dev:5.2}, samples={}",
            s.samples
        );
    }
    if let Some(s) = iops_samples {
        let _ = writeln!(
            out,
            "   iops        : min={:5}, max={:5}, avg={:5.2}, stdev={:5.2}, samples={}",
            s.min, s.max, s.mean, s.stddev, s.samples
        );
    }
}

/// The latency lines of `kinds`, then their percentiles, as fio orders them.
fn lat_lines(out: &mut String, kinds: &[LatShown]) {
    for k in kinds {
        lat_line(out, &k.name, &k.stats);
    }
    for k in kinds {
        // ` lat` lines up with `clat` on the figures' line only: fio's
        // percentile titles all start four spaces in.
        let title = k.percentiles_of.as_ref().unwrap_or(&k.name).trim_start();
        percentile_block(out, title, &k.percentiles, k.approximate);
    }
}

/// A trim mode's trims, as fio prints them after the writes: no slat (a
/// trim is synchronous).
fn trim_block(out: &mut String, result: &RunResult, job: &JobResult) {
    let d = &job.trim;
    if d.runtime_ns == 0 || d.bytes == 0 {
        return;
    }
    let units = OutputUnits {
        bits: job.spec.units.bits,
        ..group_units(result, job.groupid)
    };
    let _ = writeln!(
        out,
        "  trim: IOPS={}, BW={}({}/{}msec)",
        fio_iops(d.iops()),
        fio_bw_in(stats::per_sec(d.bytes, d.runtime_ns) as u64, units),
        fio_bytes_in(d.bytes, units, false),
        stats::runtime_ms(d.runtime_ns)
    );
    lat_lines(out, &lat_kinds(job, None, d));
    sample_lines(out, result, job, Side::Trim, units, None);
}

/// The job's syncs (`fsync=`, `fdatasync=`, `sync_file_range=`): their
/// latency and its percentiles at the job's list, as fio prints them after
/// the latency distribution; nothing for a job that synced nothing.
fn sync_block(out: &mut String, job: &JobResult) {
    if job.sync.is_empty() {
        return;
    }
    let _ = writeln!(out, "  fsync/fdatasync/sync_file_range:");
    lat_line(out, "sync", &LatStats::of(&job.sync));
    let percentiles = stats::percentiles_at(&job.sync, &job.spec.percentile_list);
    percentile_block(out, "sync", &percentiles, false);
}

/// `    clat (usec): min=53, max=5780, avg=326.87, stdev=157.60`, omitted when empty.
fn lat_line(out: &mut String, name: &str, s: &LatStats) {
    if s.n == 0 {
        return;
    }
    let (unit, div) = fio_lat_unit(s.min, s.max, s.stddev);
    let _ = writeln!(
        out,
        "    {name} ({unit}): min={}, max={}, avg={:5.2}, stdev={:5.2}",
        num2str(s.min / div, 6, false, ""),
        num2str(s.max / div, 6, false, ""),
        s.mean / div as f64,
        s.stddev / div as f64
    );
}

/// fio's percentile block: `[  212]` right-aligned to the widest value, as
/// many per line as fit in 80 columns (four with the default list), each
/// percentile with as many decimals as the list needs (fio 3.33 prints
/// `50th` for `50:99`, `50.0th` for `50:99.9`, `1.00th` for the default).
/// Marked `~` when `approximate`.
fn percentile_block(out: &mut String, name: &str, values: &[(f64, u64)], approximate: bool) {
    let (Some(minv), Some(maxv)) = (
        values.iter().map(|&(_, v)| v).min(),
        values.iter().map(|&(_, v)| v).max(),
    ) else {
        return;
    };
    let (unit, scale) = fio_percentile_unit(minv, maxv);
    let title = marked(format!("    {name} percentiles ({unit}):"), approximate);
    let _ = write!(out, "{title}\n     |");
    let divisor = 1000u64.pow(scale);
    // fio: width of maxv / divisor, truncated, at least 5.
    let width = (maxv / divisor)
        .checked_ilog10()
        .map_or(1, |d| d as usize + 1)
        .max(5);
    let precision = values.iter().map(|&(p, _)| decimals(p)).max().unwrap_or(0);
    // fio: the percentile is `precision + 3` wide (` 1.00`, ` 50`).
    let pw = precision + 3;
    let per_line = (80 - 7) / (precision + 10 + width);
    for (j, &(pct, v)) in values.iter().enumerate() {
        if j != 0 && j % per_line == 0 {
            out.push_str("     |");
        }
        let last = j == values.len() - 1;
        let _ = write!(
            out,
            " {pct:pw$.precision$}th=[{:>width$}]{}",
            fio_scale_up(v, scale),
            if last { '\n' } else { ',' }
        );
        if !last && j % per_line == per_line - 1 {
            out.push('\n');
        }
    }
}

/// Decimals needed to print a percentile exactly (at most 3).
fn decimals(p: f64) -> usize {
    (0..3)
        .find(|&d| {
            let scaled = p * 10f64.powi(d as i32);
            (scaled - scaled.round()).abs() < 1e-6
        })
        .unwrap_or(3)
}

/// `  lat (usec)   : 250=12.52%, 500=84.62%, ...`, five per line, non-zero
/// buckets only: the source's tables for an imported job, else derived from
/// the histograms. True when what was printed is approximate.
fn latency_distribution(out: &mut String, job: &JobResult) -> bool {
    let (b, approximate) = match source::latency_buckets(job) {
        Some(b) => (b, false),
        None => (stats::latency_buckets(job), source::rebuilt(job)),
    };
    let before = out.len();
    lat_dist_lines(out, "nsec", &stats::LAT_LABELS, &b.ns, approximate);
    lat_dist_lines(out, "usec", &stats::LAT_LABELS, &b.us, approximate);
    lat_dist_lines(out, "msec", &stats::LAT_MS_LABELS, &b.ms, approximate);
    approximate && out.len() > before
}

fn lat_dist_lines(
    out: &mut String,
    unit: &str,
    labels: &[&str],
    values: &[f64],
    approximate: bool,
) {
    let shown: Vec<String> = labels
        .iter()
        .zip(values)
        .filter(|(_, &v)| v > 0.0)
        .map(|(l, v)| format!("{l}={v:.2}%"))
        .collect();
    for line in shown.chunks(5) {
        let text = marked(
            format!("  lat ({unit})   : {}", line.join(", ")),
            approximate,
        );
        let _ = writeln!(out, "{text}");
    }
}

/// A group's lines: each direction's (`apart`), then the directions summed
/// (`mixed`, with unified_rw_reporting).
fn group_block(
    out: &mut String,
    group: &Group,
    mixed: Option<&GroupDir>,
    apart: bool,
    units: OutputUnits,
) {
    let _ = writeln!(out, "\nRun status group {} (all jobs):", group.id);
    let dirs = [
        (group.read.as_ref().filter(|_| apart), "   READ"),
        (group.write.as_ref().filter(|_| apart), "  WRITE"),
        (group.trim.as_ref().filter(|_| apart), "   TRIM"),
        (mixed, "  MIXED"),
    ];
    for (g, label) in dirs {
        let Some(g) = g else { continue };
        let first = |b: u64| fio_rate_in(b, units, false);
        let second = |b: u64| fio_rate_in(b, units, true);
        let _ = writeln!(
            out,
            "{label}: bw={}, {}-{} ({}-{}), io={} ({}), run={}-{}msec",
            fio_bw_in(g.agg_bytes_per_sec, units),
            first(g.min_bw),
            first(g.max_bw),
            second(g.min_bw),
            second(g.max_bw),
            fio_bytes_in(g.io_bytes, units, false),
            fio_bytes_in(g.io_bytes, units, true),
            stats::runtime_ms(g.min_run_ns),
            stats::runtime_ms(g.max_run_ns)
        );
    }
}

/// The text of errno `n` as the C library gives it ("No space left on
/// device"), without Rust's " (os error N)"; "Success" for 0.
fn strerror(n: i64) -> String {
    let text = std::io::Error::from_raw_os_error(n as i32).to_string();
    match text.rfind(" (os error ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests;
