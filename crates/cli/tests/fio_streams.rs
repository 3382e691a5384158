//! What `diskbench fio` writes on stdout and stderr: what fio writes there,
//! nothing more. Its trust checks (a buffered job on a file the page cache
//! holds, a run too short to settle, a queue capped by a synchronous
//! engine, what the job file asks that diskbench carries out differently)
//! and the line saying where the run was saved stay off stderr, in the
//! JSON's `diskbench.warnings` and the history, unless asked for with
//! `--diskbench-checks` or `DISKBENCH_CHECKS=1`. fio's own suite and the
//! scripts around fio take any byte on stderr for a failed run.

mod common;
use common::*;
use std::path::Path;

/// A job that trips every check that does not depend on the machine's
/// speed: buffered I/O on 1 MiB (the page cache holds it), a run of a few
/// ms, psync asked for a queue of 8, and three job options diskbench
/// carries out differently (gtod_reduce, random_generator, wait_for).
const CHECKED: &[&str] = &[
    "--gtod_reduce=1",
    "--random_generator=lfsr",
    "--name=a",
    "--size=1m",
    "--rw=read",
    "--ioengine=psync",
    "--iodepth=8",
    "--name=b",
    "--size=1m",
    "--rw=write",
    "--wait_for=a",
];

/// The kinds of warning [`CHECKED`] gives, as the JSON names them.
const KINDS: &[&str] = &["data_set_fits_in_cache", "short_run", "depth_capped"];

/// The notes of the job file, as the JSON's messages start.
const NOTES: &[&str] = &[
    "gtod_reduce=1:",
    "random_generator:",
    "job 'b' has wait_for=a",
];

fn dfio(dir: &Path, extra: &[&str], env: Option<(&str, &str)>) -> std::process::Output {
    let mut cmd = diskbench();
    cmd.current_dir(dir)
        .args(["fio", "--no-save", "--output-format=json"])
        .args(extra)
        .args(CHECKED);
    if let Some((k, v)) = env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// Every check of [`CHECKED`] is in the JSON's `diskbench.warnings`.
fn assert_all_kept(doc: &serde_json::Value) {
    let warnings = doc["diskbench"]["warnings"].as_array().unwrap();
    let kinds: Vec<&str> = warnings.iter().filter_map(|w| w["kind"].as_str()).collect();
    for kind in KINDS {
        assert!(kinds.contains(kind), "{kind} missing: {kinds:?}");
    }
    let messages: Vec<&str> = (warnings.iter())
        .filter(|w| w["kind"] == "approximation")
        .filter_map(|w| w["message"].as_str())
        .collect();
    for note in NOTES {
        assert!(
            messages.iter().any(|m| m.starts_with(note)),
            "{note}: {messages:?}"
        );
    }
}

#[test]
fn checks_stay_off_stderr_and_in_the_json() {
    let dir = real_dir();
    let out = dfio(dir.path(), &[], None);
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(stderr_of(&out), "", "stderr must be byte-empty");
    assert_all_kept(&json_of(&out));
    // fio's own stderr for the buffered, short job is empty: the reference.
    // (For psync at iodepth=8 fio may print its own note, "queue depth
    // will be capped at 1", depending on how its job process ends.)
    let theirs = ["--output-format=json", "--gtod_reduce=1"];
    let theirs = [&theirs[..], &CHECKED[2..6]].concat();
    if let Some(fio) = real_fio_in(dir.path(), &theirs) {
        assert!(fio.status.success(), "{}", stderr_of(&fio));
        assert_eq!(stderr_of(&fio), "", "fio's stderr");
    }
}

#[test]
fn checks_are_printed_when_asked_by_flag_or_variable() {
    let dir = real_dir();
    let by_flag = dfio(dir.path(), &["--diskbench-checks"], None);
    let by_env = dfio(dir.path(), &[], Some(("DISKBENCH_CHECKS", "1")));
    for out in [by_flag, by_env] {
        assert!(out.status.success(), "{}", stderr_of(&out));
        let doc = json_of(&out);
        assert_all_kept(&doc);
        // Each warning of the result, one line each on stderr.
        let err = stderr_of(&out);
        for w in doc["diskbench"]["warnings"].as_array().unwrap() {
            let line = format!("warning: {}\n", w["message"].as_str().unwrap());
            assert!(err.contains(&line), "{line} not in {err}");
        }
    }
    // DISKBENCH_CHECKS=0 asks for nothing.
    let off = dfio(dir.path(), &[], Some(("DISKBENCH_CHECKS", "0")));
    assert_eq!(stderr_of(&off), "");
}

#[test]
fn help_names_the_flag_and_the_variable() {
    let out = diskbench().args(["fio", "--help"]).output().unwrap();
    let help = stdout_of(&out);
    assert!(help.contains("--diskbench-checks") && help.contains("DISKBENCH_CHECKS=1"));
}

#[test]
fn a_saved_run_says_where_only_when_asked() {
    let dir = real_dir();
    let db = dir.path().join("h.sqlite3");
    let job = ["--name=t", "--ioengine=null", "--size=1m"];
    let quiet = diskbench()
        .args(["fio", "--db"])
        .arg(&db)
        .args(job)
        .output()
        .unwrap();
    assert!(quiet.status.success(), "{}", stderr_of(&quiet));
    assert_eq!(stderr_of(&quiet), "");
    let said = diskbench()
        .args(["fio", "--diskbench-checks", "--db"])
        .arg(&db)
        .args(job)
        .output()
        .unwrap();
    assert!(said.status.success(), "{}", stderr_of(&said));
    // The quiet run was saved all the same: this one is the second.
    let line = format!("saved as run 2 in {}", db.display());
    assert!(stderr_of(&said).contains(&line), "{}", stderr_of(&said));
}

/// `--debug=parse` traces the options on stdout, as fio does; stderr stays
/// byte-empty, as fio's does, in a run as with `--parse-only`.
#[test]
fn debug_parse_leaves_stderr_empty() {
    let dir = real_dir();
    for extra in [&["--parse-only"][..], &[]] {
        let out = diskbench()
            .current_dir(dir.path())
            .args(["fio", "--no-save", "--debug=parse"])
            .args(extra)
            .args(["--name=a", "--ioengine=null", "--size=1m", "--rw=read"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{extra:?}: {}", stderr_of(&out));
        assert!(
            stdout_of(&out).contains("handle_option"),
            "{extra:?}: the trace is on stdout"
        );
        assert_eq!(stderr_of(&out), "", "{extra:?}");
    }
}
