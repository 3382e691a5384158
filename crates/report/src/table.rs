//! The `diskbench run` summary for the terminal: what was measured (the
//! target), one aligned row per job and direction, and the three headline
//! figures of Brian Cunnie's 2018 benchmark of cloud disks (IOPS, Read MB/s, Write MB/s).
//!
//! fio's text answers every question; this answers the first one, "how fast
//! is this disk?", in a screenful. Bandwidth is in decimal MB/s (10^6 bytes,
//! as disk vendors and Brian Cunnie's 2018 benchmark of cloud disks quote it) with MiB/s beside it, and latency
//! is the total latency (submission + completion) a program sees, with
//! units chosen per value (`212 us`, `5.50 ms`).
//!
//! # Headline rule
//!
//! Each figure comes from a named job of the default suite, whose names are
//! the constants below (the suite imports them, so the two cannot drift):
//!
//! - **IOPS**: reads + writes per second of [`HEADLINE_IOPS_JOB`];
//! - **Read MB/s**: the read bandwidth of [`HEADLINE_READ_JOB`];
//! - **Write MB/s**: the write bandwidth of [`HEADLINE_WRITE_JOB`].
//!
//! When the named job is not in the run (a profile or a fio job file), the
//! figure falls back to the best of all jobs: the highest total IOPS, the
//! highest read bandwidth, the highest write bandwidth (from the sequential
//! jobs when there are any: bonnie's random seeks are not its "Read MB/s"),
//! and the headline says which job it came from. A figure no job can give (nothing wrote) is
//! shown as "n/a".
//!
//! An interrupted run has no fallback: the jobs it never reached might have
//! been the best, and the suite's later jobs are missing only because it
//! stopped, so "best of all jobs" would put a sequential test's IOPS under
//! the mixed test's heading. Each figure then comes from its named job or is
//! absent, and the headline says the run was interrupted before that job.
//! A run of a single job keeps that job's figures: there is no other.

use crate::format::{latency, mb_per_sec, mib_per_sec, size_both};
use crate::stats::{self, DIRECTIONS};
use model::{DirStats, Direction, JobResult, RunResult, TargetInfo};
use std::fmt::Write;

/// The default suite's job that gives the headline IOPS (4 KiB random reads and writes, QD32).
pub const HEADLINE_IOPS_JOB: &str = "mixed-4k-qd32";
/// The default suite's job that gives the headline Read MB/s (1 MiB sequential reads, QD8).
pub const HEADLINE_READ_JOB: &str = "seq-read-1m-qd8";
/// The default suite's job that gives the headline Write MB/s (1 MiB sequential writes, QD8).
pub const HEADLINE_WRITE_JOB: &str = "seq-write-1m-qd8";

/// A default-suite test's name for the shape that ran: `rand-read-4k-qd32`,
/// with `-x4` for four workers and `-buffered` without direct I/O. `run`'s
/// shape flags (`--bs`, `--iodepth`, `--numjobs`, `--buffered`) rename the
/// tests by it, so a name always says what ran.
pub fn suite_test_name(stem: &str, shape: &SuiteShape) -> String {
    let mut name = format!(
        "{stem}-{}-qd{}",
        model::units::format_size(shape.bs_bytes),
        shape.iodepth
    );
    if shape.numjobs > 1 {
        let _ = write!(name, "-x{}", shape.numjobs);
    }
    if !shape.direct {
        name.push_str("-buffered");
    }
    name
}

/// The shape a default-suite test name tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SuiteShape {
    pub bs_bytes: u64,
    pub iodepth: u32,
    pub numjobs: u32,
    pub direct: bool,
}

/// The stem and shape of a name [`suite_test_name`] made (`mixed-8k-qd16`
/// is `mixed` at 8 KiB, QD16); `None` for any other name.
pub fn parse_suite_test_name(name: &str) -> Option<(&str, SuiteShape)> {
    let (rest, direct) = match name.strip_suffix("-buffered") {
        Some(rest) => (rest, false),
        None => (name, true),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let (rest, numjobs) = match rest.rsplit_once("-x") {
        Some((r, n)) if digits(n) => (r, n.parse().ok()?),
        _ => (rest, 1),
    };
    let (rest, qd) = rest.rsplit_once("-qd").filter(|(_, q)| digits(q))?;
    let (stem, bs) = rest.rsplit_once('-')?;
    let shape = SuiteShape {
        bs_bytes: model::units::parse_size(bs).ok()?,
        iodepth: qd.parse().ok()?,
        numjobs,
        direct,
    };
    // Only the canonical spelling: `4k`, not `4096` or `4KiB`.
    (!stem.is_empty() && suite_test_name(stem, &shape) == name).then_some((stem, shape))
}

/// True when `name` is the suite test `headline_job` names, in any shape.
fn is_suite_test(name: &str, headline_job: &str) -> bool {
    let stem = |n| parse_suite_test_name(n).map(|(stem, _)| stem);
    name == headline_job || (stem(name).is_some() && stem(name) == stem(headline_job))
}

/// The device's kernel name, with what makes it virtual: `vda (virtio)`.
pub fn device_text(t: &TargetInfo) -> Option<String> {
    let device = t.device.clone()?;
    Some(match &t.virtual_disk {
        Some(kind) => format!("{device} ({kind})"),
        None => device,
    })
}

/// The model; a virtual disk's missing one says why it is missing.
pub fn model_text(t: &TargetInfo) -> Option<String> {
    match (&t.model, &t.virtual_disk) {
        (Some(model), _) => Some(model.clone()),
        (None, Some(kind)) => Some(format!("unknown ({kind} reports none)")),
        (None, None) => None,
    }
}

/// `yes` or `no`; a virtual disk's flag is the virtual device's setting
/// (virtio says 1 whatever backs it, EBS's NVMe says 0 over hard disks
/// too), so it is "unknown" with that reason, never a "yes" or "no"
/// about the storage.
pub fn rotational_text(t: &TargetInfo) -> Option<String> {
    let rotational = t.rotational?;
    Some(match &t.virtual_disk {
        Some(kind) => format!(
            "unknown ({kind} says rotational={}: the virtual device's flag, not the storage's)",
            u8::from(rotational)
        ),
        None => if rotational { "yes" } else { "no" }.to_string(),
    })
}

/// What was measured, from `result.targets[0]`; every fact not known reads "unknown".
pub fn target_header(result: &RunResult) -> String {
    let t = result.targets.first();
    let known = |v: Option<String>| v.unwrap_or_else(|| "unknown".to_string());
    let filesystem = t.and_then(|t| {
        let fs = t.filesystem.clone()?;
        Some(match &t.mount_source {
            Some(src) => format!("{fs} on {src}"),
            None => fs,
        })
    });
    let rows = [
        (
            "Target",
            known(t.map(|t| t.path.clone()).filter(|p| !p.is_empty())),
        ),
        ("Filesystem", known(filesystem)),
        ("Device", known(t.and_then(device_text))),
        ("Model", known(t.and_then(model_text))),
        (
            "Device size",
            known(t.and_then(|t| t.device_bytes).map(size_both)),
        ),
        (
            "Free space",
            known(t.and_then(|t| t.free_bytes).map(size_both)),
        ),
        ("Rotational", known(t.and_then(rotational_text))),
        ("I/O scheduler", known(t.and_then(|t| t.scheduler.clone()))),
        (
            "Block size",
            known(
                t.and_then(|t| t.logical_block_bytes)
                    .map(|b| format!("{b} B (logical)")),
            ),
        ),
    ];
    let mut out = String::new();
    for (key, value) in rows {
        let _ = writeln!(out, "{key:<14}{value}");
    }
    out
}

/// One row per job and direction (mixed jobs get a read and a write row),
/// columns aligned, failed jobs listed under the table. The last two
/// columns are the test's, on its first row: the benchmark's own CPU use
/// (user + system, a share of its threads' wall time, as fio's `usr_cpu` +
/// `sys_cpu`: near 100% means the tool, not the disk, was the limit) and
/// how long the figures were measured for (after the ramp).
pub fn summary_table(result: &RunResult) -> String {
    let header = [
        "test", "rw", "MB/s", "MiB/s", "IOPS", "lat mean", "p50", "p99", "CPU%", "runtime",
    ];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for job in &result.jobs {
        for (i, dir) in shown_directions(job).into_iter().enumerate() {
            let mut cells = row(job, dir);
            if i == 0 {
                let (usr, sys) = stats::cpu_percents(job);
                cells.push(format!("{:.1}", usr + sys));
                cells.push(runtime(job.runtime_ns));
            }
            rows.push(cells);
        }
    }
    let right = [false, false, true, true, true, true, true, true, true, true];
    let mut out = aligned(&rows, &right);
    for job in &result.jobs {
        if let Some(error) = &job.error {
            let _ = writeln!(out, "{}: failed: {error}", job.name);
        }
        if let Some(v) = &job.verify {
            verify_lines(&job.name, v, &mut out);
        }
    }
    out
}

/// A test's measured time: `7.00 s`, `1.20 s`, `350 ms`.
fn runtime(ns: u64) -> String {
    match ns {
        0..=999_999_999 => format!("{} ms", ns / 1_000_000),
        _ => format!("{:.2} s", ns as f64 / 1e9),
    }
}

/// What `verify=` found: a clean count, or every bad chunk kept.
fn verify_lines(job: &str, v: &model::VerifyResult, out: &mut String) {
    if v.bad == 0 {
        let _ = writeln!(
            out,
            "{job}: verify ({}): {} chunks read back and checked, none bad",
            v.algo, v.checked
        );
        return;
    }
    for f in &v.failures {
        let _ = writeln!(out, "  bad chunk: {f}");
    }
    if v.bad > v.failures.len() as u64 {
        let _ = writeln!(out, "  ... and {} more", v.bad - v.failures.len() as u64);
    }
}

/// The directions a job did, or (if it did nothing) the ones it meant to.
fn shown_directions(job: &JobResult) -> Vec<Direction> {
    let did: Vec<Direction> = DIRECTIONS
        .into_iter()
        .filter(|&d| stats::dir_stats(job, d).ios > 0)
        .collect();
    if !did.is_empty() {
        return did;
    }
    let mut meant = Vec::new();
    if job.spec.rw.reads() {
        meant.push(Direction::Read);
    }
    if job.spec.rw.writes() {
        meant.push(Direction::Write);
    }
    meant
}

fn row(job: &JobResult, dir: Direction) -> Vec<String> {
    let d = stats::dir_stats(job, dir);
    // Total latency; completion latency if an engine recorded no total.
    let h = if d.lat.is_empty() { &d.clat } else { &d.lat };
    let lat = |ns: f64| {
        if h.is_empty() {
            "-".to_string()
        } else {
            latency(ns)
        }
    };
    vec![
        job.name.clone(),
        stats::dir_name(dir).to_string(),
        format!("{:.1}", mb_per_sec(d.bytes_per_sec())),
        format!("{:.1}", mib_per_sec(d.bytes_per_sec())),
        format!("{:.0}", d.iops()),
        lat(h.mean()),
        lat(h.percentile(50.0) as f64),
        lat(h.percentile(99.0) as f64),
    ]
}

/// Columns padded to their widest cell, two spaces apart; `right[i]` aligns column i right.
fn aligned(rows: &[Vec<String>], right: &[bool]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (c, cell) in r.iter().enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            let w = widths[c];
            if right.get(c).copied().unwrap_or(false) {
                let _ = write!(line, "{cell:>w$}");
            } else {
                let _ = write!(line, "{cell:<w$}");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// One headline figure and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct HeadlineFigure {
    pub value: f64,
    pub job: String,
    /// True when the suite's named job was missing and this is the best of all jobs.
    pub fallback: bool,
}

/// The three figures "Benchmarking the Disk Speed of IaaSes" compares disks by; `None` when no job could give one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Headline {
    pub iops: Option<HeadlineFigure>,
    pub read_mb_per_sec: Option<HeadlineFigure>,
    pub write_mb_per_sec: Option<HeadlineFigure>,
    /// The run was interrupted: a missing figure is missing for that reason.
    pub interrupted: bool,
}

/// The three headline figures by the rule in the module docs.
pub fn headline_figures(result: &RunResult) -> Headline {
    let total_iops = |j: &JobResult| j.read.iops() + j.write.iops();
    let read_mb = |j: &JobResult| mb_per_sec(j.read.bytes_per_sec());
    let write_mb = |j: &JobResult| mb_per_sec(j.write.bytes_per_sec());
    Headline {
        iops: figure(result, HEADLINE_IOPS_JOB, total_iops, |j| j.total_ios() > 0),
        read_mb_per_sec: figure(result, HEADLINE_READ_JOB, read_mb, |j| did(&j.read)),
        write_mb_per_sec: figure(result, HEADLINE_WRITE_JOB, write_mb, |j| did(&j.write)),
        interrupted: result.interrupted,
    }
}

fn did(d: &DirStats) -> bool {
    d.ios > 0
}

/// A run of the default suite: one of its headline jobs is there.
fn is_suite(result: &RunResult) -> bool {
    let named = [HEADLINE_IOPS_JOB, HEADLINE_READ_JOB, HEADLINE_WRITE_JOB];
    result
        .jobs
        .iter()
        .any(|j| named.iter().any(|n| is_suite_test(&j.name, n)))
}

fn figure(
    result: &RunResult,
    name: &str,
    value: impl Fn(&JobResult) -> f64,
    eligible: impl Fn(&JobResult) -> bool,
) -> Option<HeadlineFigure> {
    if let Some(job) = result.jobs.iter().find(|j| is_suite_test(&j.name, name)) {
        return Some(HeadlineFigure {
            value: value(job),
            job: job.name.clone(),
            fallback: false,
        });
    }
    // A run of one job of its own (its clones aside, not the suite stopped
    // after its first test) has no other job to mistake for it:
    // interrupted or not, its figures are its own.
    let one_job = result.jobs.iter().all(|j| j.name == result.jobs[0].name);
    if result.interrupted && (is_suite(result) || !one_job) {
        return None;
    }
    // A sequential job gives Read or Write MB/s when there is one: a
    // profile's random seeks by three workers (bonnie's) move more bytes
    // than its block read, but "Read MB/s" means the streaming figure. And a
    // random job gives the IOPS when there is one: an imported GoBonnieGo
    // run's 64 KiB sequential write does more I/Os a second than its 512 B
    // random test, but "IOPS" means the random figure.
    let preferred = |j: &&JobResult| j.spec.rw.is_random() == (name == HEADLINE_IOPS_JOB);
    let eligible = |j: &&JobResult| eligible(j);
    let pool: Vec<&JobResult> = match result.jobs.iter().filter(eligible).any(|j| preferred(&j)) {
        true => result
            .jobs
            .iter()
            .filter(eligible)
            .filter(preferred)
            .collect(),
        false => result.jobs.iter().filter(eligible).collect(),
    };
    pool.into_iter()
        .max_by(|a, b| value(a).total_cmp(&value(b)))
        .map(|job| HeadlineFigure {
            value: value(job),
            job: job.name.clone(),
            fallback: true,
        })
}

/// The three figures, one per line: `IOPS  41523  (mixed-4k-qd32)`.
pub fn headline(result: &RunResult) -> String {
    let h = headline_figures(result);
    let suite = is_suite(result);
    let missing = |name: &str, otherwise: &str| match (h.interrupted, suite) {
        (true, true) => format!("the run was interrupted before {name}"),
        (true, false) => "the run was interrupted: no best of part of the jobs".to_string(),
        (false, _) => otherwise.to_string(),
    };
    let lines = [
        (
            "IOPS",
            h.iops.as_ref().map(|f| (format!("{:.0}", f.value), f)),
            missing(HEADLINE_IOPS_JOB, "no job did I/O"),
        ),
        (
            "Read MB/s",
            h.read_mb_per_sec
                .as_ref()
                .map(|f| (format!("{:.1}", f.value), f)),
            missing(HEADLINE_READ_JOB, "no job read"),
        ),
        (
            "Write MB/s",
            h.write_mb_per_sec
                .as_ref()
                .map(|f| (format!("{:.1}", f.value), f)),
            missing(HEADLINE_WRITE_JOB, "no job wrote"),
        ),
    ];
    let width = lines
        .iter()
        .filter_map(|(_, v, _)| v.as_ref())
        .map(|(s, _)| s.len())
        .max()
        .unwrap_or(3);
    let mut out = String::new();
    for (label, value, missing) in lines {
        let _ = match value {
            Some((text, f)) => {
                let source = if f.fallback {
                    format!("best of all jobs: {}", f.job)
                } else {
                    f.job.clone()
                };
                writeln!(out, "{label:<11}{text:>width$}  ({source})")
            }
            None => writeln!(out, "{label:<11}{:>width$}  ({missing})", "n/a"),
        };
    }
    for job in &result.jobs {
        if let Some(sentence) = crate::cliff::sentence(&crate::cliff::within_run(job)) {
            let _ = writeln!(out, "{}: {sentence}", job.name);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::*;

    /// A virtio disk says rotational=1 and has no model whatever backs it:
    /// the header must not present either as a fact about the storage.
    #[test]
    fn a_virtual_disk_is_named_and_its_defaults_are_not_facts() {
        let mut r = sample_run();
        r.targets[0].rotational = Some(true);
        r.targets[0].model = None;
        r.targets[0].virtual_disk = Some("virtio".into());
        let text = target_header(&r);
        assert!(text.contains("Device        vda (virtio)\n"), "{text}");
        assert!(
            text.contains("Model         unknown (virtio reports none)\n"),
            "{text}"
        );
        assert!(
            text.contains("Rotational    unknown (virtio says rotational=1: the virtual device's flag, not the storage's)\n"),
            "{text}"
        );
        // A physical disk's facts stand as they are.
        r.targets[0].virtual_disk = None;
        let text = target_header(&r);
        assert!(text.contains("Rotational    yes\n") && text.contains("Model         unknown\n"));
    }

    #[test]
    fn header_lists_the_target_and_says_unknown() {
        let text = target_header(&sample_run());
        assert!(text.contains("Target        /mnt/data\n"), "{text}");
        assert!(text.contains("Filesystem    ext4 on /dev/vda1\n"), "{text}");
        assert!(
            text.contains("Device size   20.0 GiB (21.5 GB)\n"),
            "{text}"
        );
        assert!(
            text.contains("Free space    12.0 GiB (12.9 GB)\n"),
            "{text}"
        );
        assert!(text.contains("Model         unknown\n"), "{text}");
        assert!(text.contains("I/O scheduler mq-deadline\n"), "{text}");
        assert!(text.contains("Block size    512 B (logical)\n"), "{text}");
        let mut bare = run(vec![]);
        bare.targets.clear();
        let empty = target_header(&bare);
        assert_eq!(empty.lines().count(), 9);
        assert!(empty.lines().all(|l| l.ends_with("unknown")), "{empty}");
    }

    #[test]
    fn table_rows_are_aligned_and_mixed_jobs_split() {
        let text = summary_table(&suite_run());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + 1 + 1 + 2 + 2, "{text}");
        assert!(lines[0].starts_with("test "), "{text}");
        // Right-aligned numbers: every "MB/s" cell ends in the same column.
        let end = lines[0].find("MB/s").unwrap() + 4;
        for l in &lines[1..] {
            assert_eq!(&l[end - 2..end - 1], ".", "{l:?} in\n{text}");
        }
        let seq = lines.iter().find(|l| l.starts_with(SEQ_READ_NAME)).unwrap();
        // 1500 MiB in 1 s: 1572.9 MB/s, 1500.0 MiB/s, 1500 IOPS, 5 ms mean.
        for cell in [
            "read", "1572.9", "1500.0", "1500", "5.00 ms", "4.01 ms", "6.00 ms",
        ] {
            assert!(seq.contains(cell), "{cell} in {seq:?}");
        }
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("randrw-75")).count(),
            2
        );
        assert!(lines
            .iter()
            .any(|l| l.starts_with("randrw-75") && l.contains(" write ")));
    }

    #[test]
    fn suite_names_say_their_shape_and_the_headline_finds_them_in_any() {
        let shape = SuiteShape {
            bs_bytes: 8192,
            iodepth: 16,
            numjobs: 4,
            direct: false,
        };
        let name = suite_test_name("mixed", &shape);
        assert_eq!(name, "mixed-8k-qd16-x4-buffered");
        assert_eq!(parse_suite_test_name(&name), Some(("mixed", shape)));
        let (stem, plain) = parse_suite_test_name(MIXED_NAME).unwrap();
        assert_eq!((stem, plain.bs_bytes, plain.iodepth), ("mixed", 4096, 32));
        assert!(plain.direct && plain.numjobs == 1);
        for other in [
            "randread",
            "mixed-4096-qd1",
            "-4k-qd1",
            "mixed-4k-qd",
            "SEQ1M-Q8T1-read",
        ] {
            assert_eq!(parse_suite_test_name(other), None, "{other}");
        }
        // The mixed test at QD16 still gives the IOPS, not the faster randrw-75.
        let mut result = suite_run();
        for job in &mut result.jobs {
            if job.name == MIXED_NAME {
                job.name = "mixed-4k-qd16".into();
            }
        }
        let iops = headline_figures(&result).iops.unwrap();
        assert_eq!((iops.job.as_str(), iops.fallback), ("mixed-4k-qd16", false));
    }

    #[test]
    fn each_test_shows_its_cpu_use_and_runtime_once() {
        let mut result = suite_run();
        for job in &mut result.jobs {
            job.cpu.user_ns = job.runtime_ns / 10;
            job.cpu.system_ns = job.runtime_ns / 4;
            job.cpu.wall_ns = job.runtime_ns;
        }
        let text = summary_table(&result);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].ends_with("CPU%  runtime"), "{text}");
        // 10% user + 25% system of the threads' wall time.
        let seq = lines.iter().find(|l| l.starts_with(SEQ_READ_NAME)).unwrap();
        let measured = runtime(result.jobs[0].runtime_ns);
        let cells: Vec<&str> = seq.split_whitespace().collect();
        assert_eq!(
            cells[cells.len() - 3..].join(" "),
            format!("35.0 {measured}")
        );
        // A mixed job's figures are on its read row only.
        let mixed: Vec<&&str> = lines
            .iter()
            .filter(|l| l.starts_with("randrw-75"))
            .collect();
        assert!(mixed[0].contains("35.0"), "{text}");
        assert!(!mixed[1].contains("35.0"), "{text}");
        assert_eq!(runtime(1_200_000_000), "1.20 s");
        assert_eq!(runtime(350_000_000), "350 ms");
    }

    #[test]
    fn failed_jobs_are_named_under_the_table() {
        let mut result = run(vec![seq_read_job("broken", 0)]);
        result.jobs[0].read = DirStats::default();
        result.jobs[0].error = Some("EIO at offset 0".into());
        let text = summary_table(&result);
        assert!(text.contains("broken  read"), "{text}");
        assert!(text.contains("broken: failed: EIO at offset 0\n"), "{text}");
    }

    #[test]
    fn headline_picks_the_named_jobs() {
        let h = headline_figures(&suite_run());
        let iops = h.iops.unwrap();
        // randrw-75 has more IOPS (45k) than mixed-4k-qd32 (40k), but the name decides.
        assert_eq!(
            (iops.job.as_str(), iops.value, iops.fallback),
            (MIXED_NAME, 40_000.0, false)
        );
        let read = h.read_mb_per_sec.unwrap();
        assert_eq!(read.job, SEQ_READ_NAME);
        assert!((read.value - 1572.864).abs() < 1e-6);
        assert_eq!(h.write_mb_per_sec.unwrap().job, SEQ_WRITE_NAME);
        let text = headline(&suite_run());
        assert_eq!(
            text,
            "IOPS        40000  (mixed-4k-qd32)\n\
             Read MB/s  1572.9  (seq-read-1m-qd8)\n\
             Write MB/s 1258.3  (seq-write-1m-qd8)\n"
        );
    }

    #[test]
    fn headline_falls_back_to_the_best_job() {
        let result = run(vec![
            randrw_job(),
            seq_read_job("big-read", 2000),
            seq_read_job("small-read", 10),
        ]);
        let h = headline_figures(&result);
        let iops = h.iops.unwrap();
        assert_eq!((iops.job.as_str(), iops.fallback), ("randrw-75", true));
        assert_eq!(h.read_mb_per_sec.unwrap().job, "big-read");
        assert_eq!(h.write_mb_per_sec.unwrap().job, "randrw-75");
        let text = headline(&result);
        assert!(text.contains("(best of all jobs: big-read)"), "{text}");

        let read_only = run(vec![seq_read_job("r", 10)]);
        assert_eq!(headline_figures(&read_only).write_mb_per_sec, None);
        assert!(headline(&read_only).contains("Write MB/s"));
        assert!(
            headline(&read_only).contains("n/a  (no job wrote)"),
            "{}",
            headline(&read_only)
        );
        assert_eq!(headline_figures(&run(vec![])), Headline::default());
    }

    /// bonnie's profile: three random seekers move more bytes than the one
    /// block reader, but its Read MB/s is the block read.
    #[test]
    fn read_mb_per_sec_falls_back_to_a_sequential_job() {
        let mut seeks = seq_read_job("random-seeks", 3000);
        seeks.spec.rw = model::RwMode::RandRead;
        let result = run(vec![seq_read_job("block-read", 2000), seeks]);
        let read = headline_figures(&result).read_mb_per_sec.unwrap();
        assert_eq!((read.job.as_str(), read.fallback), ("block-read", true));
    }

    /// Stopped after the sequential tests: no IOPS from seq-read, no best of
    /// part of the suite; the figures it reached are its own.
    #[test]
    fn an_interrupted_run_takes_figures_only_from_the_jobs_they_name() {
        let mut result = run(vec![seq_read_job(HEADLINE_READ_JOB, 2000)]);
        result.interrupted = true;
        let h = headline_figures(&result);
        assert_eq!(h.iops, None);
        assert_eq!(h.write_mb_per_sec, None);
        assert_eq!(h.read_mb_per_sec.unwrap().job, HEADLINE_READ_JOB);
        let text = headline(&result);
        assert!(!text.contains("best of all jobs"), "{text}");
        assert!(
            text.contains("n/a  (the run was interrupted before mixed-4k-qd32)"),
            "{text}"
        );
    }
}
