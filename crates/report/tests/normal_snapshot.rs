//! the `normal` output of a randrw job next to fio's
//! for the same job, with the same sections in the same order.
//!
//! - `fixtures/fio-3.33-randrw.txt`: fio 3.33's normal output of the job
//!   `--name=randrw-75 --size=256m --rw=randrw --rwmixread=75 --bs=4k
//!   --iodepth=16 --numjobs=1 --ioengine=io_uring --direct=1 --runtime=3`.
//! - `fixtures/diskbench-randrw.json`: diskbench's own run of the same job
//!   (`diskbench fio` with those options on ext4, then
//!   `diskbench export RUN --format json`, its `result`): the `RunResult`
//!   as the history keeps it, histograms included, so the text is rendered
//!   here by [`diskbench_report::fio_normal::render`] from measured data.
//!
//! Each line is reduced to the section it belongs to (a run of percentile
//! rows, or of `lat (unit)` distribution lines, is one section), and the
//! two lists must be equal once the sections diskbench leaves out, listed
//! in [`OMITTED`] with the reason, are taken from fio's. On failure the
//! message shows both texts side by side.
//!
//! Within lines, diskbench also leaves out the job header's `pid=` and
//! time (a run's threads share one process, and `diskbench show` renders
//! runs long after) and the write line's `; 0 zone resets` (no zoned
//! devices); the figures themselves differ, as two runs of a disk do.

use model::RunResult;

const FIO_TEXT: &str = include_str!("../../../fixtures/fio-3.33-randrw.txt");
const DISKBENCH_RUN: &str = include_str!("../../../fixtures/diskbench-randrw.json");

/// fio's sections, in fio's order: the list this test checks (the fixture
/// must still read this way, so an edited fixture cannot weaken the test).
const FIO_SECTIONS: &[&str] = &[
    "job start line",
    "version",
    "Starting",
    "job header",
    "read: IOPS=",
    "slat",
    "clat",
    "lat",
    "clat percentiles",
    "percentile rows",
    "bw (",
    "iops",
    "write: IOPS=",
    "slat",
    "clat",
    "lat",
    "clat percentiles",
    "percentile rows",
    "bw (",
    "iops",
    "lat (unit) distribution",
    "cpu",
    "IO depths",
    "submit",
    "complete",
    "issued rwts",
    "latency",
    "Run status group",
    "READ:",
    "WRITE:",
    "Disk stats",
    "disk line",
];

/// What diskbench's `normal` output leaves out of fio's, and why.
const OMITTED: &[(&str, &str)] = &[
    (
        "job start line",
        "fio prints `name: (g=0): rw=..., bs=..., ioengine=..., iodepth=...` as the jobs start; \
         diskbench's text is rendered from the finished run (also by `diskbench show`), \
         and its start-up progress goes to stderr",
    ),
    ("version", "the same start-up banner (`fio-3.33`)"),
    (
        "Starting",
        "the same start-up banner (`Starting 1 process`)",
    ),
    (
        "IO depths",
        "the queue-depth distribution is not measured (the JSON leaves out iodepth_level too)",
    ),
    (
        "submit",
        "submit batch sizes are not measured (no iodepth_submit in the JSON)",
    ),
    (
        "complete",
        "completion batch sizes are not measured (no iodepth_complete in the JSON)",
    ),
    (
        "Disk stats",
        "the fixture run was saved before diskbench read the kernel's disk counters: it loads \
         with none, as every older run must, and prints none (see \
         `measured_disk_stats_close_the_text_as_in_fio`)",
    ),
    (
        "disk line",
        "the per-disk line under `Disk stats`, for the same reason",
    ),
];

/// The section a line of fio's (or our) text belongs to; `None` for a blank line.
fn section(line: &str) -> Option<&'static str> {
    const BY_PREFIX: &[(&str, &str)] = &[
        ("  read: IOPS=", "read: IOPS="),
        ("  write: IOPS=", "write: IOPS="),
        ("    slat (", "slat"),
        ("    clat (", "clat"),
        ("     lat (", "lat"),
        ("    clat percentiles (", "clat percentiles"),
        ("    lat percentiles (", "lat percentiles"),
        ("     |", "percentile rows"),
        ("   bw (", "bw ("),
        ("   iops        :", "iops"),
        ("  lat (nsec)   :", "lat (unit) distribution"),
        ("  lat (usec)   :", "lat (unit) distribution"),
        ("  lat (msec)   :", "lat (unit) distribution"),
        ("  cpu          :", "cpu"),
        ("  IO depths    :", "IO depths"),
        ("     submit    :", "submit"),
        ("     complete  :", "complete"),
        ("     issued rwts:", "issued rwts"),
        ("     latency   :", "latency"),
        ("Run status group ", "Run status group"),
        ("   READ: bw=", "READ:"),
        ("  WRITE: bw=", "WRITE:"),
        ("Disk stats (", "Disk stats"),
        ("Starting ", "Starting"),
        ("fio-", "version"),
    ];
    if line.trim().is_empty() {
        return None;
    }
    if let Some((_, s)) = BY_PREFIX.iter().find(|(p, _)| line.starts_with(p)) {
        return Some(s);
    }
    Some(if line.contains(": (groupid=") {
        "job header"
    } else if line.contains(": (g=") {
        "job start line"
    } else if line.starts_with("  ") && line.contains(": ios=") {
        "disk line"
    } else {
        "UNKNOWN"
    })
}

/// The sections of a text in order, a run of the same section counted once.
fn sections(text: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for s in text.lines().filter_map(section) {
        if out.last() != Some(&s) {
            out.push(s);
        }
    }
    out
}

fn side_by_side(left: &str, right: &str) -> String {
    let width = left.lines().map(str::len).max().unwrap_or(0).min(110);
    let mut l = left.lines();
    let mut r = right.lines();
    let mut out = format!("{:<width$} | {}\n", "fio 3.33", "diskbench");
    loop {
        match (l.next(), r.next()) {
            (None, None) => break out,
            (a, b) => {
                out.push_str(&format!(
                    "{:<width$} | {}\n",
                    a.unwrap_or(""),
                    b.unwrap_or("")
                ));
            }
        }
    }
}

fn diskbench_run() -> RunResult {
    serde_json::from_str(DISKBENCH_RUN)
        .unwrap_or_else(|e| panic!("fixtures/diskbench-randrw.json does not decode: {e}"))
}

fn diskbench_text() -> String {
    diskbench_report::fio_normal::render(&diskbench_run())
}

#[test]
fn measured_disk_stats_close_the_text_as_in_fio() {
    let mut run = diskbench_run();
    assert!(run.disk_util.is_empty(), "an older run loads without them");
    run.disk_util = vec![model::DiskUtil {
        name: "vda".into(),
        read_ios: 101439,
        write_ios: 33784,
        io_ticks: 2541,
        time_ms: 3001,
        ..Default::default()
    }];
    let ours = diskbench_report::fio_normal::render(&run);
    let expected: Vec<&str> = FIO_SECTIONS
        .iter()
        .copied()
        .filter(|s| ["Disk stats", "disk line"].contains(s) || !OMITTED.iter().any(|(o, _)| o == s))
        .collect();
    assert_eq!(
        sections(&ours),
        expected,
        "\n{}",
        side_by_side(FIO_TEXT, &ours)
    );
    assert!(ours.ends_with("\n\nDisk stats (read/write):\n  vda: ios=101439/33784, merge=0/0, ticks=0/0, in_queue=0, util=84.67%\n"), "{ours}");
}

#[test]
fn fios_text_has_the_sections_this_test_checks() {
    assert_eq!(sections(FIO_TEXT), FIO_SECTIONS, "\n{FIO_TEXT}");
    for (omitted, _) in OMITTED {
        assert!(FIO_SECTIONS.contains(omitted), "{omitted}");
    }
}

#[test]
fn normal_output_has_fios_sections_in_fios_order() {
    let ours = diskbench_text();
    let expected: Vec<&str> = FIO_SECTIONS
        .iter()
        .copied()
        .filter(|s| !OMITTED.iter().any(|(o, _)| o == s))
        .collect();
    let omitted: String = OMITTED
        .iter()
        .map(|(s, why)| format!("  {s}: {why}\n"))
        .collect();
    assert_eq!(
        sections(&ours),
        expected,
        "\ndiskbench's sections differ from fio's (left out on purpose:\n{omitted})\n\n{}",
        side_by_side(FIO_TEXT, &ours)
    );
}

#[test]
fn same_job_on_both_sides() {
    // The fixture is the job of fio's text: same name, group, one process,
    // both directions, fio's default percentile list.
    let ours = diskbench_text();
    let header = |t: &str| -> String {
        let line = t.lines().find(|l| l.contains(": (groupid=")).unwrap();
        line.split(": err=").next().unwrap().to_string()
    };
    assert_eq!(header(&ours), header(FIO_TEXT));
    assert_eq!(header(&ours), "randrw-75: (groupid=0, jobs=1)");
    for landmark in [
        "     |  1.00th=[",
        "     | 99.99th=[",
        "     issued rwts: total=",
        "     latency   : target=0, window=0, percentile=100.00%, depth=16\n",
    ] {
        assert!(FIO_TEXT.contains(landmark), "fio: {landmark}");
        assert!(ours.contains(landmark), "diskbench: {landmark}\n{ours}");
    }
}
