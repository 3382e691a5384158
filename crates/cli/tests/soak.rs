//! Repetition (`--runs`, `--duration`, `--pause`) on `run`
//! and `fio`, each run saved as it finishes and written while it goes on,
//! so a soak killed with SIGKILL keeps its finished runs and the series of
//! the unfinished one up to its last seconds. The null engine makes the
//! runs fast and timing-free.

mod common;
mod history_util;
use common::*;
use history_util::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Child, Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

/// A time-based null job of `runtime` seconds.
fn null_job(runtime: u32) -> Vec<String> {
    [
        "fio",
        "--name=t",
        "--ioengine=null",
        "--size=1g",
        "--time_based",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--runtime={runtime}")])
    .collect()
}

fn spawn(args: &[String], db: &Path) -> Child {
    StdCommand::new(assert_cmd::cargo::cargo_bin("diskbench"))
        .args(args)
        .args(db_arg(db))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The history as JSON, read while another process may be writing it.
fn history(db: &Path) -> Vec<Value> {
    history_json(db, &[])
}

fn record(db: &Path, id: u64) -> Value {
    json_of(&run_ok(
        &["export", &id.to_string(), "--format", "json"],
        db,
    ))
}

fn series_len(record: &Value) -> usize {
    record["result"]["jobs"][0]["series"]
        .as_array()
        .map_or(0, |s| s.len())
}

/// Polls the history until `ready` holds (or fails after a minute).
fn wait_for(db: &Path, what: &str, ready: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if db.exists() {
            let runs = history(db);
            if ready(&runs) {
                return runs;
            }
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn soak_of(runs: &[Value]) -> (String, Vec<u64>) {
    let id = runs[0]["soak"].as_str().expect("a soak id").to_string();
    assert!(runs.iter().all(|r| r["soak"] == id.as_str()), "{runs:?}");
    let numbers = runs
        .iter()
        .map(|r| r["soak_run"].as_u64().unwrap())
        .collect();
    (id, numbers)
}

#[test]
fn runs_3_with_a_pause_saves_3_runs_of_one_soak() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let args = [null_job(1), vec!["--runs".into(), "3".into()]].concat();
    let args = [
        args,
        vec!["--pause".into(), "200ms".into(), "--label=disk=gp2".into()],
    ]
    .concat();
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let out = run_ok(&args, &db);
    let runs = history(&db);
    assert_eq!(runs.len(), 3, "{runs:?}");
    // Three runs of 1 s and two pauses of 200 ms, by the runs' own records.
    let span = runs[2]["finished_unix_ms"].as_u64().unwrap()
        - runs[0]["started_unix_ms"].as_u64().unwrap();
    assert!(span >= 3400, "three runs and two pauses in {span} ms");
    let (soak, numbers) = soak_of(&runs);
    assert_eq!(numbers, [1, 2, 3]);
    assert!(runs
        .iter()
        .all(|r| r["status"] == "ok" && r["labels"]["disk"] == "gp2"));
    let gap = runs[1]["started_unix_ms"].as_u64().unwrap()
        - runs[0]["finished_unix_ms"].as_u64().unwrap();
    assert!(gap >= 200, "the pause comes between runs: {gap} ms");

    // Each run's output, then the list of runs with their history ids.
    let text = stdout_of(&out);
    assert_eq!(text.matches("Run status group 0").count(), 3, "{text}");
    assert!(text.contains(&format!("soak {soak}: 3 runs")), "{text}");
    for k in 1..=3 {
        assert!(text.contains(&format!("run {k}/3 at ")), "{text}");
        assert!(text.contains(&format!("(history run {k},")), "{text}");
    }
    // The job only reads: its write figure is "n/a", not a dash with a unit.
    assert!(text.contains("MB/s, Write n/a"), "{text}");
    assert!(!text.contains("- MB/s"), "{text}");
    // `history --soak` selects them, and the table shows the soak.
    assert_eq!(history_json(&db, &["--soak", &soak]).len(), 3);
    assert!(history_json(&db, &["--soak", "nope"]).is_empty());
    let table = stdout_of(&run_ok(&["history"], &db));
    assert!(table.contains(&format!("{soak} #3")), "{table}");
}

#[test]
fn duration_3s_with_1s_runs_saves_about_3_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let args = [null_job(1), vec!["--duration=3s".into()]].concat();
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let out = run_ok(&args, &db);
    let runs = history(&db);
    // Runs of 1 s for 3 s: more than one, and none started once the 3 s
    // had passed. By the runs' own records: the soak decides on the next
    // run after the last one finished, and its 3 s count from its start,
    // before the first run's; so every run that another followed finished
    // within 3 s of the first run's start.
    assert!(runs.len() >= 2, "{runs:?}");
    let first = runs[0]["started_unix_ms"].as_u64().unwrap();
    for r in &runs[..runs.len() - 1] {
        let finished = r["finished_unix_ms"].as_u64().unwrap();
        assert!(
            finished <= first + 3000,
            "a run started after this one, which ended past 3 s: {runs:?}"
        );
    }
    let (_, numbers) = soak_of(&runs);
    assert_eq!(numbers, (1..=runs.len() as u64).collect::<Vec<_>>());
    // No run number "of N" without --runs.
    assert!(stdout_of(&out).contains("run 1 at "), "{}", stdout_of(&out));
}

#[test]
fn a_soak_killed_with_sigkill_keeps_its_finished_runs_and_series() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let args = [null_job(3), vec!["--runs".into(), "5".into()]].concat();
    let mut child = spawn(&args, &db);
    // Two runs saved, and the third written while it goes on.
    wait_for(&db, "run 3 to be written while it runs", |runs| {
        runs.len() == 3
            && runs[..2].iter().all(|r| r["status"] == "ok")
            && runs[2]["status"] == "running"
            && series_len(&record(&db, 3)) >= 1
    });
    let written = series_len(&record(&db, 3));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    let runs = history(&db);
    assert_eq!(runs.len(), 3, "{runs:?}");
    let (_, numbers) = soak_of(&runs);
    assert_eq!(numbers, [1, 2, 3]);
    let status: Vec<&str> = runs.iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(status, ["ok", "ok", "killed"]);
    let third = record(&db, 3);
    assert_eq!(third["state"], "killed");
    let series = third["result"]["jobs"][0]["series"].as_array().unwrap();
    assert!(series.iter().all(|p| p["read_ios"].as_u64().unwrap() > 0));
    // The series as it was written up to the kill: every second seen in
    // the history just before it is kept.
    assert!(
        series.len() >= written && written >= 1,
        "{} seconds kept of {written} written before the kill",
        series.len()
    );
    assert!(runs[2]["iops"].as_f64().unwrap() > 0.0);

    // show and export print what is there; the killed run says so.
    let shown = run_ok(&["show", "3"], &db);
    assert!(stdout_of(&shown).contains("IOPS="), "{}", stdout_of(&shown));
    assert!(
        stderr_of(&shown).contains("killed"),
        "{}",
        stderr_of(&shown)
    );
    let csv = stdout_of(&run_ok(&["export", "3", "--format", "csv"], &db));
    assert_eq!(csv.lines().count(), 2, "{csv}");
}

#[test]
fn ctrl_c_during_a_soak_saves_the_partial_run_and_exits_128_as_fio() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let args = [null_job(3), vec!["--runs".into(), "5".into()]].concat();
    let child = spawn(&args, &db);
    wait_for(&db, "run 2 to be running", |runs| {
        runs.len() == 2 && runs[1]["status"] == "running"
    });
    let sent = StdCommand::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(128), "{}", stderr_of(&out));
    let runs = history(&db);
    let status: Vec<&str> = runs.iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(status, ["ok", "interrupted"], "{runs:?}");
    assert_eq!(soak_of(&runs).1, [1, 2]);
    assert!(runs[1]["iops"].as_f64().unwrap() > 0.0);
    let text = stdout_of(&out);
    assert!(text.contains(": 2 runs in"), "{text}");
    assert!(
        text.contains("run 2/5 at ") && text.contains("(interrupted)"),
        "{text}"
    );
}

#[test]
fn run_prints_a_line_per_run_and_the_table_of_the_last() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let dir = tmp.path().display().to_string();
    let args = [
        "run", &dir, "--quick", "--engine", "null", "--size", "16m", "--runs", "2",
    ];
    let text = stdout_of(&run_ok(&args, &db));
    assert_eq!(text.matches("Target ").count(), 1, "{text}");
    let (runs, rest) = text.split_once("Across the runs").expect("the spread");
    let (_, verdicts) = rest.split_once("Over the runs:").expect("the verdicts");
    assert_eq!(
        runs.matches("seq-read-1m-qd8").count(),
        2,
        "one table and its headline: {text}"
    );
    assert!(
        verdicts.contains("  seq-read-1m-qd8: no cliff over 2 runs; steady state not judged"),
        "{verdicts}"
    );
    assert!(
        text.contains("run 1/2 at ") && text.contains("run 2/2 at "),
        "{text}"
    );
    let runs = history(&db);
    assert_eq!(soak_of(&runs).1, [1, 2]);
    assert!(runs.iter().all(|r| r["command"] == "run"));

    // --json: one document, every run's JSON under `runs`.
    let args = [
        "run", &dir, "--quick", "--engine", "null", "--size", "16m", "--runs", "1", "--json",
    ];
    let doc = json_of(&run_ok(&args, &db));
    assert_eq!(doc["soak"]["runs"], 1);
    assert!(doc["runs"][0]["jobs"].as_array().unwrap().len() >= 7);
}

/// A soak of two 1-second null runs printed in `format`, saved in a fresh history.
fn two_runs_as(format: &str) -> std::process::Output {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let format = format!("--output-format={format}");
    let args = [null_job(1), vec!["--runs=2".into(), format]].concat();
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    run_ok(&args, &db)
}

#[test]
fn fio_json_of_a_soak_is_one_document() {
    let doc = json_of(&two_runs_as("json"));
    assert_eq!(doc["soak"]["planned_runs"], 2);
    assert_eq!(doc["soak"]["history_ids"], serde_json::json!([1, 2]));
    assert_eq!(doc["runs"].as_array().unwrap().len(), 2);
    assert!(doc["runs"][1]["jobs"][0]["read"]["iops"].as_f64().unwrap() > 0.0);
}

/// fio's terse format has no soak: diskbench's own `diskbench-soak` lines
/// follow the runs' terse lines, instead of no summary at all.
#[test]
fn fio_terse_of_a_soak_ends_with_the_soaks_lines() {
    let text = stdout_of(&two_runs_as("terse"));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7, "{text}");
    assert!(lines[..2].iter().all(|l| l.starts_with("3;")), "{text}");
    let soak: Vec<&str> = lines[2].split(';').collect();
    assert_eq!(&soak[..2], ["diskbench-soak", "1"], "{text}");
    assert_eq!(
        (soak[3], soak[5]),
        ("2", "2"),
        "runs done and planned: {text}"
    );
    for (n, line) in lines[3..5].iter().enumerate() {
        let run: Vec<&str> = line.split(';').collect();
        let want = [(n + 1).to_string(), (n + 1).to_string()];
        assert_eq!(run[..2], ["diskbench-soak-run", "1"], "{text}");
        assert_eq!(run[2..4], want, "run number and history id: {text}");
    }
    let job: Vec<&str> = lines[5].split(';').collect();
    assert_eq!(job[..4], ["diskbench-soak-job", "1", "t", "2"], "{text}");
    let spread: Vec<&str> = lines[6].split(';').collect();
    assert_eq!(
        spread[..4],
        ["diskbench-soak-spread", "1", "t", "2"],
        "{text}"
    );
    assert_eq!(
        spread.len(),
        13,
        "min, median, max of three figures: {text}"
    );
    let iops: Vec<f64> = spread[4..7].iter().map(|v| v.parse().unwrap()).collect();
    assert!(
        iops[0] > 0.0 && iops[0] <= iops[1] && iops[1] <= iops[2],
        "{text}"
    );
}

/// A soak's point is how far apart its runs are: each job's min / median /
/// max across the runs, not only the last run's table.
#[test]
fn a_soak_prints_each_jobs_min_median_and_max_across_the_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let dir = tmp.path().display().to_string();
    let base = [
        "run",
        &dir,
        "--quick",
        "--engine",
        "null",
        "--size",
        "16m",
        "--runtime",
        "300ms",
        "--runs",
        "3",
    ];
    let text = stdout_of(&run_ok(&base, &db));
    let (_, across) = text
        .split_once("Across the runs (min / median / max):")
        .unwrap_or_else(|| panic!("no spread: {text}"));
    let across = across.split("Over the runs:").next().unwrap();
    for job in ["seq-read-1m-qd8", "rand-write-4k-qd1", "mixed-4k-qd32"] {
        let line = across
            .lines()
            .find(|l| l.trim_start().starts_with(job))
            .unwrap_or_else(|| panic!("{job}: {across}"));
        let cols: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cols[1], "3", "runs: {line}");
        let iops: Vec<f64> = [cols[2], cols[4], cols[6]]
            .iter()
            .map(|v| v.parse().unwrap())
            .collect();
        assert!(iops[0] <= iops[1] && iops[1] <= iops[2], "{line}");
    }
    let json_args: Vec<&str> = base.iter().copied().chain(["--json"]).collect();
    let doc = json_of(&run_ok(&json_args, &db));
    for job in doc["soak"]["jobs"].as_array().unwrap() {
        let a = &job["across_runs"];
        assert_eq!(a["runs"], 3, "{job}");
        for figure in ["iops", "mb_per_sec", "p99_clat_us"] {
            let f = |k: &str| a[figure][k].as_f64().unwrap();
            assert!(
                f("min") <= f("median") && f("median") <= f("max"),
                "{figure}: {a}"
            );
        }
        assert!(a["iops"]["min"].as_f64().unwrap() > 0.0, "{a}");
    }
}

#[test]
fn bad_repetition_flags_are_usage_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let dir = tmp.path().display().to_string();
    for bad in [
        &["--runs", "0"][..],
        &["--runs=-1"],
        &["--duration", "soon"],
        &["--duration=0"],
        &["--pause", "1s"],
        &["--runs"],
    ] {
        let fio = diskbench()
            .args(NULL_JOB)
            .args(bad)
            .args(db_arg(&db))
            .output()
            .unwrap();
        assert_eq!(
            fio.status.code(),
            Some(1),
            "fio {bad:?}: {}",
            stderr_of(&fio)
        );
        assert!(
            stderr_of(&fio).starts_with("diskbench fio: "),
            "{}",
            stderr_of(&fio)
        );
        let run = diskbench()
            .args(["run", &dir, "--engine", "null"])
            .args(bad)
            .args(db_arg(&db))
            .output()
            .unwrap();
        assert_eq!(
            run.status.code(),
            Some(2),
            "run {bad:?}: {}",
            stderr_of(&run)
        );
    }
    assert!(!db.exists(), "nothing ran, nothing was saved");
}
