//! A best-of profile (`crystal`) shown as CrystalDiskMark shows it, so its
//! users read it at a glance: one row per test (SEQ1M Q8T1, SEQ1M Q1T1,
//! RND4K Q32T1, RND4K Q1T1), Read and Write side by side, each as MB/s
//! (10^6 bytes), IOPS and mean latency in µs, the three figures
//! CrystalDiskMark's text export gives.
//!
//! CrystalDiskMark runs each test five times and shows the best pass (the
//! highest MB/s), which flatters a disk that is fast only now and then; so
//! the JSON keeps every pass's figures and says which one was kept, and the
//! run's `jobs` hold every pass as its own job (`NAME-passK`).
//!
//! A test is found by its name: `ROW-read` or `ROW-write` (`ROW` with `-`
//! for CrystalDiskMark's space), with `-passK` after it when there are
//! several passes.

use model::{DirStats, JobResult, RunResult};
use serde_json::{json, Value};
use std::fmt::Write as _;

/// The job name of pass `k` of test `name`.
pub fn pass_name(name: &str, k: u32) -> String {
    format!("{name}-pass{k}")
}

/// What one pass of one test measured.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Figures {
    pass: u32,
    mb_per_sec: f64,
    iops: f64,
    mean_latency_us: f64,
}

impl Figures {
    fn of(pass: u32, d: &DirStats) -> Figures {
        let lat = if d.lat.is_empty() { &d.clat } else { &d.lat };
        Figures {
            pass,
            mb_per_sec: report::stats::per_sec(d.bytes, d.runtime_ns) / 1e6,
            iops: d.iops(),
            mean_latency_us: lat.mean() / 1e3,
        }
    }

    fn json(&self) -> Value {
        json!({
            "pass": self.pass,
            "mb_per_sec": round3(self.mb_per_sec),
            "iops": round3(self.iops),
            "mean_latency_us": round3(self.mean_latency_us),
        })
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// One direction of one row: every pass, and which is kept.
struct Cell {
    job: String,
    passes: Vec<Figures>,
}

impl Cell {
    /// The best pass, as CrystalDiskMark keeps it: the highest MB/s.
    fn best(&self) -> Option<&Figures> {
        self.passes
            .iter()
            .max_by(|a, b| a.mb_per_sec.total_cmp(&b.mb_per_sec))
    }
}

/// A row of the grid: `SEQ1M Q8T1` and its read and write cells.
struct Row {
    label: String,
    read: Option<Cell>,
    write: Option<Cell>,
}

/// `SEQ1M-Q8T1-read-pass2` -> (`SEQ1M-Q8T1`, read, `SEQ1M-Q8T1-read`, 2).
fn parse_name(name: &str) -> Option<(&str, bool, &str, u32)> {
    let (test, pass) = match name.rsplit_once("-pass") {
        Some((t, k)) if k.parse::<u32>().is_ok() => (t, k.parse().ok()?),
        _ => (name, 1),
    };
    let (row, dir) = test.rsplit_once('-')?;
    match dir {
        "read" => Some((row, true, test, pass)),
        "write" => Some((row, false, test, pass)),
        _ => None,
    }
}

fn rows(result: &RunResult) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    for job in &result.jobs {
        let Some((row, read, test, pass)) = parse_name(&job.name) else {
            continue;
        };
        let label = row.replace('-', " ");
        let at = match rows.iter().position(|r| r.label == label) {
            Some(i) => i,
            None => {
                rows.push(Row {
                    label,
                    read: None,
                    write: None,
                });
                rows.len() - 1
            }
        };
        let cell = match read {
            true => &mut rows[at].read,
            false => &mut rows[at].write,
        };
        let cell = cell.get_or_insert_with(|| Cell {
            job: test.to_string(),
            passes: Vec::new(),
        });
        cell.passes.push(Figures::of(pass, direction(job, read)));
    }
    rows
}

fn direction(job: &JobResult, read: bool) -> &DirStats {
    match read {
        true => &job.read,
        false => &job.write,
    }
}

/// The grid, for the text output.
pub fn grid(result: &RunResult, passes: u32) -> String {
    let mut out = format!(
        "CrystalDiskMark's tests, best of {passes} pass{} (MB/s = 1,000,000 bytes/s; latency: mean)\n",
        if passes == 1 { "" } else { "es" }
    );
    let _ = writeln!(out, "{:<12} | {:^36} | {:^36}", "", "Read", "Write");
    let _ = writeln!(
        out,
        "{:<12} | {:>10} {:>12} {:>12} | {:>10} {:>12} {:>12}",
        "", "MB/s", "IOPS", "us", "MB/s", "IOPS", "us"
    );
    for row in rows(result) {
        let _ = write!(out, "{:<12}", row.label);
        for cell in [&row.read, &row.write] {
            match cell.as_ref().and_then(Cell::best) {
                Some(f) => {
                    let _ = write!(
                        out,
                        " | {:>10.2} {:>12.1} {:>12.2}",
                        f.mb_per_sec, f.iops, f.mean_latency_us
                    );
                }
                None => {
                    let _ = write!(out, " | {:>10} {:>12} {:>12}", "-", "-", "-");
                }
            }
        }
        out.push('\n');
    }
    out
}

/// The `profile` object of the JSON: every pass's figures and the kept one.
pub fn json(result: &RunResult, profile: &str, passes: u32) -> Value {
    let cell_json = |c: &Option<Cell>| {
        c.as_ref().map(|c| {
            json!({
                "job": c.job,
                "kept_pass": c.best().map(|f| f.pass),
                "kept": c.best().map(Figures::json),
                "passes": c.passes.iter().map(Figures::json).collect::<Vec<_>>(),
            })
        })
    };
    json!({
        "name": profile,
        "passes": passes,
        "kept": "the pass with the highest MB/s, as CrystalDiskMark shows it",
        "tests": rows(result).iter().map(|r| json!({
            "name": r.label,
            "read": cell_json(&r.read),
            "write": cell_json(&r.write),
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job that moved `read_mb` and `write_mb` MB in one second.
    pub(crate) fn job(name: &str, read_mb: u64, write_mb: u64) -> JobResult {
        let args = [format!("--name={name}"), "--size=1m".into()];
        let spec = &fio::parse_args(args).unwrap().jobs[0];
        let mut r = JobResult::empty(spec, 0, spec.numjobs.max(1));
        r.read.bytes = read_mb * 1_000_000;
        r.read.runtime_ns = 1_000_000_000;
        r.write.bytes = write_mb * 1_000_000;
        r.write.runtime_ns = 1_000_000_000;
        r
    }

    #[test]
    fn names_are_read_back_as_rows_directions_and_passes() {
        assert_eq!(
            parse_name("SEQ1M-Q8T1-read-pass2"),
            Some(("SEQ1M-Q8T1", true, "SEQ1M-Q8T1-read", 2))
        );
        assert_eq!(
            parse_name("RND4K-Q1T1-write"),
            Some(("RND4K-Q1T1", false, "RND4K-Q1T1-write", 1))
        );
        assert_eq!(parse_name("mixed"), None);
    }

    #[test]
    fn the_best_pass_is_kept_and_every_pass_is_in_the_json() {
        let result = RunResult {
            jobs: vec![
                job("SEQ1M-Q8T1-read-pass1", 300, 0),
                job("SEQ1M-Q8T1-read-pass2", 500, 0),
                job("SEQ1M-Q8T1-read-pass3", 400, 0),
                job("SEQ1M-Q8T1-write-pass1", 0, 90),
            ],
            ..Default::default()
        };
        let text = grid(&result, 3);
        let row = text.lines().find(|l| l.starts_with("SEQ1M Q8T1")).unwrap();
        assert!(row.contains("500.00") && row.contains("90.00"), "{text}");
        assert!(!row.contains("300.00"), "{text}");
        let doc = json(&result, "crystal", 3);
        let read = &doc["tests"][0]["read"];
        assert_eq!(read["kept_pass"], 2);
        assert_eq!(read["passes"].as_array().unwrap().len(), 3);
        assert_eq!(read["passes"][0]["mb_per_sec"], 300.0);
        assert_eq!(doc["tests"][0]["write"]["kept"]["mb_per_sec"], 90.0);
    }
}
