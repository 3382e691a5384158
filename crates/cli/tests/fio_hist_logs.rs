//! fio's histogram logs (`write_hist_log`, `log_hist_msec`,
//! `log_hist_coarseness`), `per_job_logs=0` and `log_max_value`, run end to
//! end on the null engine: the files have fio 3.33's shape, hold every I/O
//! the JSON counts, and give the JSON's percentiles back, both by reading
//! the bins here and through fio's own `fiologparser_hist.py` when python3
//! (with numpy and pandas) and the script are on the machine.

mod common;
use common::*;
use model::fio_plat::{bin_range, PLAT_BINS};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Each line of a hist log as numbers: time, direction, bs, bins.
fn hist_lines(path: &Path) -> Vec<Vec<u64>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    text.lines()
        .map(|l| l.split(", ").map(|f| f.parse().unwrap()).collect())
        .collect()
}

/// Each direction's bins summed over the lines.
fn summed(lines: &[Vec<u64>]) -> [Vec<u64>; 2] {
    let mut dirs = [vec![0u64; PLAT_BINS], vec![0u64; PLAT_BINS]];
    for l in lines {
        for (sum, b) in dirs[l[1] as usize].iter_mut().zip(&l[3..]) {
            *sum += b;
        }
    }
    dirs
}

/// The bin where the count reaches `pct` percent, diskbench's rank rule.
fn rank_bin(bins: &[u64], pct: f64) -> usize {
    let n: u64 = bins.iter().sum();
    let rank = ((pct / 100.0) * n as f64).ceil().max(1.0) as u64;
    let mut seen = 0;
    bins.iter()
        .position(|&c| {
            seen += c;
            seen >= rank
        })
        .unwrap()
}

const DIRS: [&str; 2] = ["read", "write"];
const PCTS: [(f64, &str); 3] = [
    (50.0, "50.000000"),
    (90.0, "90.000000"),
    (99.0, "99.000000"),
];

fn clat_pct(job: &Value, dir: usize, key: &str) -> u64 {
    job[DIRS[dir]]["clat_ns"]["percentile"][key]
        .as_u64()
        .unwrap()
}

/// A rate-limited randrw job over five 200 ms intervals.
const JOB: &str = "--name=h --ioengine=null --size=1g --rw=randrw --rate=8m --bsrange=4k-16k \
                   --runtime=1 --time_based --write_hist_log --log_hist_msec=200";

#[test]
fn hist_log_is_fios_and_gives_the_jsons_percentiles() {
    let dir = real_dir();
    let doc = fio_ok_in(dir.path(), JOB);
    let job = &doc["jobs"][0];
    let lines = hist_lines(&dir.path().join("h_clat_hist.1.log"));
    // fio: `time, dir, bs, 1856 bins`, one line per direction per interval
    // (five here, the last one the job's end), bs that of an I/O. A loaded
    // machine may end the 1 s job late: as many more intervals as its own
    // runtime holds (a last sliver of one may go without a line of its
    // own), none stamped past its end.
    let runtime_ns = job["diskbench"]["runtime_ns"].as_u64().unwrap();
    let runtime_ms = runtime_ns / 1_000_000;
    let interval = 200_000_000;
    let (whole, begun) = (runtime_ns / interval, runtime_ns.div_ceil(interval));
    assert!(
        (2 * whole..=2 * begun).contains(&(lines.len() as u64)),
        "{} lines in {runtime_ms} ms",
        lines.len()
    );
    for l in &lines {
        assert_eq!(l.len(), 3 + PLAT_BINS);
        assert!(l[1] <= 1 && (4096..=16384).contains(&l[2]), "{:?}", &l[..3]);
        assert!(
            l[0] <= runtime_ms + 1,
            "{:?} after {runtime_ms} ms",
            &l[..3]
        );
    }
    let bins = summed(&lines);
    for d in 0..2 {
        let total: u64 = bins[d].iter().sum();
        assert_eq!(
            total,
            job[DIRS[d]]["total_ios"].as_u64().unwrap(),
            "{}",
            DIRS[d]
        );
        // Each diskbench bucket lies in one fio bin, so the JSON's
        // percentile is inside the bin where the log's count reaches it.
        for (pct, key) in PCTS {
            let (low, width) = bin_range(rank_bin(&bins[d], pct));
            let want = clat_pct(job, d, key);
            assert!(
                (low..low + width).contains(&want),
                "{} p{pct}: JSON {want} ns, log's bin {low}..{}",
                DIRS[d],
                low + width
            );
        }
    }
}

#[test]
fn coarse_and_shared_hist_logs() {
    let dir = real_dir();
    let stale = dir.path().join("s_clat_hist.log");
    std::fs::write(&stale, "left from an earlier run\n").unwrap();
    let doc = fio_ok_in(
        dir.path(),
        "--name=s --ioengine=null --size=1m --rw=read --numjobs=3 --per_job_logs=0 \
         --write_hist_log=s --log_hist_msec=100 --log_hist_coarseness=3 --write_iops_log=s",
    );
    let lines = hist_lines(&stale);
    // One file for the three clones, emptied first (fio 3.33 would append
    // to it), 1856 / 8 bins a line; each clone's 256 I/Os are there.
    assert!(lines.iter().all(|l| l.len() == 3 + PLAT_BINS / 8));
    let total: u64 = lines.iter().map(|l| l[3..].iter().sum::<u64>()).sum();
    let ios: u64 = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["read"]["total_ios"].as_u64().unwrap())
        .sum();
    assert_eq!((total, ios), (768, 768));
    let iops = std::fs::read_to_string(dir.path().join("s_iops.log")).unwrap();
    assert_eq!(iops.lines().count(), 768, "one line per I/O of every clone");
    let names: Vec<String> = entries(dir.path())
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.contains(".part") && !n.contains(".1.log")),
        "{names:?}"
    );
}

#[test]
fn log_max_value_logs_each_windows_largest_latency() {
    let dir = real_dir();
    let doc = fio_ok_in(
        dir.path(),
        "--name=m --ioengine=null --size=1g --rw=randread --rate_iops=2000 --runtime=1 \
         --time_based --write_lat_log=m --log_avg_msec=250 --log_max_value=1",
    );
    let clat = std::fs::read_to_string(dir.path().join("m_clat.1.log")).unwrap();
    let values: Vec<u64> = clat
        .lines()
        .map(|l| l.split(", ").nth(1).unwrap().parse().unwrap())
        .collect();
    assert!(values.len() >= 4, "{clat}");
    // The windows (the last, partial one included) cover every I/O, so the
    // largest of their maxima is the job's.
    let max = doc["jobs"][0]["read"]["clat_ns"]["max"].as_u64().unwrap();
    assert_eq!(values.iter().max(), Some(&max), "{clat}");
}

/// python3 with numpy and pandas, and fio's script; or why not.
fn fiologparser(scratch: &Path) -> Result<(String, PathBuf), String> {
    let python = ["python3", "/usr/bin/python3"]
        .into_iter()
        .find(|p| {
            Command::new(p)
                .args(["-c", "import numpy, pandas"])
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .ok_or("no python3 with numpy and pandas (apt-get install python3-pandas)")?;
    let mut candidates: Vec<PathBuf> = std::env::var_os("FIOLOGPARSER_HIST")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    candidates.extend(
        [
            "/usr/bin/fiologparser_hist.py",
            "/usr/local/bin/fiologparser_hist.py",
        ]
        .map(PathBuf::from),
    );
    if let Some(script) = candidates.into_iter().find(|p| p.exists()) {
        return Ok((python.to_string(), script));
    }
    // Debian's fio package ships it compressed among its documents.
    let gz = Path::new("/usr/share/doc/fio/fiologparser_hist.py.gz");
    let out = Command::new("gzip")
        .arg("-dc")
        .arg(gz)
        .output()
        .map_err(|e| format!("gzip: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "fiologparser_hist.py not found (set FIOLOGPARSER_HIST, or install fio: {})",
            gz.display()
        ));
    }
    let script = scratch.join("fiologparser_hist.py");
    std::fs::write(&script, out.stdout).unwrap();
    Ok((python.to_string(), script))
}

#[test]
fn fiologparser_hist_reads_the_log_and_agrees_with_the_json() {
    let dir = real_dir();
    let (python, script) = match fiologparser(dir.path()) {
        Ok(found) => found,
        Err(why) => {
            testbed::skip(why);
            return;
        }
    };
    let doc = fio_ok_in(dir.path(), JOB);
    let job = &doc["jobs"][0];
    let log = dir.path().join("h_clat_hist.1.log");
    // One interval over the whole run, no weighting: the run's percentiles.
    let out = Command::new(&python)
        .arg(&script)
        .args([
            "--noweight",
            "-i",
            "1000000",
            "--percentiles",
            "50:90:99",
            "--directions",
            "rw",
        ])
        .arg(&log)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // end-time, dir, samples, min, avg, median, 50%, 90%, 99%, max
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(", ").collect())
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    let bins = summed(&hist_lines(&log));
    for (d, row) in rows.iter().enumerate() {
        assert_eq!(row[1], &DIRS[d][..1], "{text}");
        let samples: u64 = row[2].parse().unwrap();
        assert_eq!(
            samples,
            job[DIRS[d]]["total_ios"].as_u64().unwrap(),
            "{text}"
        );
        for (i, (pct, key)) in PCTS.into_iter().enumerate() {
            let theirs: f64 = row[6 + i].parse().unwrap();
            let ours = clat_pct(job, d, key) as f64;
            // fiologparser interpolates between the middles of neighbouring
            // bins: its answer lies between the non-empty bins on either
            // side of the one where the count reaches the percentile.
            let at = rank_bin(&bins[d], pct);
            let before = (0..at).rev().find(|&b| bins[d][b] > 0).unwrap_or(at);
            let after = (at + 1..PLAT_BINS).find(|&b| bins[d][b] > 0).unwrap_or(at);
            // At the edge of a power of two the next bin is twice as wide and
            // its interpolation can land just past it (CI saw p90 at 1024.8 ns
            // with the next bin ending at 1024): one bin's width of slack.
            let (low, low_width) = bin_range(before);
            let (high_low, high_width) = bin_range(after);
            let lowest = low.saturating_sub(low_width) as f64;
            assert!(
                (lowest..=(high_low + 2 * high_width) as f64).contains(&theirs),
                "{} p{pct}: fiologparser_hist {theirs}, JSON {ours}\n{text}",
                DIRS[d]
            );
            eprintln!(
                "{} p{pct}: fiologparser_hist {theirs:.1} ns, diskbench JSON {ours} ns ({:+.2}%)",
                DIRS[d],
                (theirs - ours) / ours * 100.0
            );
        }
    }
}
