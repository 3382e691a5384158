//! `run` with the job shape people change (`--bs`, `--iodepth`,
//! `--numjobs`, `--direct`/`--buffered`, `--ramp`): put on every test, the
//! tests named for the shape that ran, bad values refused with exit 2; the
//! table's CPU% and runtime columns; and the warning for figures measured
//! too briefly to trust.

mod common;
use common::*;

/// A short `run` (`--runtime 300ms`, no ramp) of `args` on a fresh directory.
fn short_run(args: &[&str]) -> std::process::Output {
    let dir = real_dir();
    diskbench()
        .args(["run", "--no-save", "--size", "16m", "--runtime", "300ms"])
        .args(args)
        .arg(dir.path())
        .output()
        .unwrap()
}

fn job_option<'a>(job: &'a serde_json::Value, key: &str) -> &'a str {
    job["job options"][key]
        .as_str()
        .unwrap_or_else(|| panic!("no {key} in {job}"))
}

#[test]
fn shape_flags_apply_to_every_test_and_name_it() {
    let out = short_run(&["--json", "--ramp", "0", "--iodepth", "8", "--bs", "8k"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    // The QD32 and QD1 random tests are both QD8 now: one test, measured once.
    assert_eq!(
        job_names(&doc),
        [
            "seq-read-8k-qd8",
            "seq-write-8k-qd8",
            "rand-read-8k-qd8",
            "rand-write-8k-qd8",
            "mixed-8k-qd8"
        ]
    );
    for job in doc["jobs"].as_array().unwrap() {
        assert_eq!(job_option(job, "iodepth"), "8", "{job}");
        assert_eq!(job_option(job, "bs"), "8192", "{job}");
        assert_eq!(job_option(job, "ramp_time"), "0", "{job}");
        assert_eq!(job_option(job, "name"), job["jobname"], "{job}");
    }
    assert!(
        stderr_of(&out).contains("rand-read-4k-qd1 is rand-read-8k-qd8"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn buffered_and_numjobs_are_in_the_names_and_the_jobs() {
    let out = short_run(&["--json", "--buffered", "--numjobs", "2", "--ramp=0"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let names = job_names(&doc);
    assert_eq!(names.len(), 7, "{names:?}");
    assert!(
        names.contains(&"rand-read-4k-qd32-x2-buffered"),
        "{names:?}"
    );
    for job in doc["jobs"].as_array().unwrap() {
        assert_eq!(job_option(job, "direct"), "0", "{job}");
        assert_eq!(job_option(job, "numjobs"), "2", "{job}");
    }
    // --direct 0 is --buffered.
    let out = short_run(&["--json", "--direct", "0", "--ramp=0"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(job_names(&json_of(&out))[0].ends_with("-buffered"));
}

#[test]
fn the_headline_follows_the_suite_tests_whatever_their_shape() {
    let out = short_run(&["--ramp", "0", "--iodepth", "16"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    let iops = text.lines().find(|l| l.starts_with("IOPS ")).unwrap();
    assert!(iops.ends_with("(mixed-4k-qd16)"), "{text}");
    assert!(!text.contains("qd32"), "{text}");
}

#[test]
fn bad_shape_values_are_refused_with_exit_2() {
    for (args, says) in [
        (&["--iodepth", "0"][..], "below 1"),
        (&["--iodepth", "-3"], "below 1"),
        (&["--iodepth", "deep"], "not a whole number"),
        (&["--numjobs", "0"], "--numjobs"),
        (&["--bs", "0"], "--bs 4k"),
        (&["--bs", "-4k"], "--bs"),
        (&["--bs", "lots"], "such as 4k"),
        (&["--direct", "2"], "neither 0 nor 1"),
        (&["--direct", "1", "--buffered"], "cannot be used with"),
        (&["--ramp", "-2s"], "negative"),
        (&["--ramp", "later"], "such as 2s"),
        // Direct I/O needs a whole number of sectors.
        (
            &["--bs", "1000"],
            "--bs 1000 is not a multiple of 512 bytes",
        ),
    ] {
        let out = short_run(args);
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn the_table_has_cpu_and_runtime_per_test_and_short_runs_are_flagged() {
    let out = short_run(&["--ramp", "0"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    let header = text.lines().find(|l| l.starts_with("test ")).unwrap();
    assert!(header.ends_with("CPU%  runtime"), "{text}");
    let row = text
        .lines()
        .find(|l| l.starts_with("rand-read-4k-qd1 "))
        .unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    // ..., CPU%, runtime (e.g. "300 ms").
    let cpu: f64 = cells[cells.len() - 3].parse().unwrap();
    assert!((0.0..=100.0).contains(&cpu), "{row}");
    assert_eq!(cells[cells.len() - 1], "ms", "{row}");
    let ms: u64 = cells[cells.len() - 2].parse().unwrap();
    assert!((250..1000).contains(&ms), "{row}");
    // 300 ms a test is too short to trust, said once for every test, with
    // how to fix it.
    let err = stderr_of(&out);
    let short = err
        .lines()
        .find(|l| l.contains("too short to trust"))
        .unwrap_or_else(|| panic!("no too-short check: {err}"));
    assert!(
        short.starts_with("check: all 7 tests measured 0.3 s, too short to trust"),
        "{err}"
    );
    assert!(
        short.ends_with("raise --runtime, e.g. --runtime 30s"),
        "{err}"
    );
    // Before it starts, it says the time to expect: each test's 300 ms.
    let said = err
        .lines()
        .find_map(|l| l.strip_prefix("diskbench run: expected time: about "))
        .unwrap_or_else(|| panic!("no expected time: {err}"));
    let (secs, rest) = said.split_once(" s of measuring (").unwrap();
    let (tests, layout) = rest.split_once(" tests of --runtime 300ms), ").unwrap();
    let tests: f64 = tests.parse().unwrap();
    // The tests share one file of --size 16m: that is what is laid out.
    assert_eq!(layout, "plus laying out 16.0 MiB of test files", "{said}");
    let secs: f64 = secs.parse().unwrap();
    assert!((secs - tests * 0.3).abs() < 1e-6, "{said}");
    let dir = real_dir();
    let out = diskbench()
        .args([
            "run",
            "--no-save",
            "--quick",
            "--size",
            "16m",
            "--runtime",
            "300ms",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    // A quick run's figures are said to be quick ones once, beside the
    // headline, not as a warning on stderr.
    let quick = stdout_of(&out);
    assert!(
        quick.contains("Quick figures: all 7 tests measured 0.3 s each;"),
        "{quick}"
    );
    assert!(quick.contains("drop --quick"), "{quick}");
    assert!(
        !stderr_of(&out).contains("too short"),
        "{}",
        stderr_of(&out)
    );
}
