//! `latency_target`, `latency_window`, `latency_percentile` and
//! `latency_run` (see `latency_opts`): fio's defaults, its units (both
//! times in microseconds when bare), its bounds, job files and
//! `--parse-only`.

use super::*;
use crate::showcmd;
use model::LatencyTarget;
use std::time::Duration;

fn target(extra: &[&str]) -> LatencyTarget {
    let mut args = vec!["--name=a", "--size=1m", "--ioengine=null"];
    args.extend(extra);
    ok(&args).jobs.remove(0).latency_target
}

#[test]
fn off_by_default_with_fios_defaults() {
    let lt = target(&[]);
    assert_eq!(lt, LatencyTarget::default());
    assert!(!lt.is_on());
    assert_eq!(lt.percentile, 100.0);
    assert_eq!((lt.window, lt.keep_running), (Duration::ZERO, false));
}

#[test]
fn times_are_microseconds_when_bare_and_take_units() {
    let lt = target(&[
        "--latency_target=500",
        "--latency_window=5000000",
        "--latency_percentile=99.9",
        "--latency_run=1",
    ]);
    assert_eq!(lt.target, Duration::from_micros(500));
    assert_eq!(lt.window, Duration::from_secs(5));
    assert_eq!(lt.percentile, 99.9);
    assert!(lt.keep_running && lt.is_on());
    let lt = target(&["--latency_target=2ms", "--latency_window=1s"]);
    assert_eq!(lt.target, Duration::from_millis(2));
    assert_eq!(lt.window, Duration::from_secs(1));
}

#[test]
fn a_percentile_outside_0_to_100_or_not_a_number_is_refused() {
    for bad in ["100.5", "-1", "ninety"] {
        let arg = format!("--latency_percentile={bad}");
        let e = parse(&["--name=a", "--size=1m", &arg])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("latency_percentile") && e.contains("0 to 100"),
            "{e}"
        );
    }
    assert!(parse(&["--name=a", "--latency_run=maybe"]).is_err());
}

#[test]
fn fios_example_job_file_parses_and_parse_only_gives_it_back() {
    // fio's examples/latency-profile.fio, its options.
    let d = Dir::new();
    let f = d.file(
        "latency.fio",
        "[global]\nbs=4k\nrw=randread\nrandom_generator=lfsr\ndirect=1\nioengine=libaio\n\
         iodepth=128\nlatency_target=500000\nlatency_window=5000000\nlatency_percentile=99.9\n\
         [device]\nfilename=/tmp/x\n",
    );
    let args = ok(&["--parse-only", &f]);
    let job = &args.jobs[0];
    let lt = job.latency_target;
    assert_eq!(lt.target, Duration::from_millis(500));
    assert_eq!(lt.window, Duration::from_secs(5));
    assert_eq!((lt.percentile, job.iodepth), (99.9, 128));
    let line = showcmd(&args.groups);
    for part in [
        "--latency_target=500000us",
        "--latency_window=5000000us",
        "--latency_percentile=99.9",
    ] {
        assert!(line.contains(part), "{line}");
    }
    assert!(!line.contains("latency_run"), "{line}");
    // The line parses back to the same target.
    let words: Vec<&str> = line.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(ok(&words).jobs[0].latency_target, lt);
}
