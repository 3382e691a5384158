//! `diskbench fileserver`: dbench's load from the command
//! line, its output and JSON, its dbench-style flags, bad input refused
//! with exit 2 before any file is written, and nothing left behind.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn small_loadfile() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/tests/data/fileserver_small.txt")
}

/// Operations per pass of the small loadfile, as dbench names them.
const SMALL_COUNTS: [(&str, u64); 17] = [
    ("NTCreateX", 6),
    ("Close", 4),
    ("Rename", 1),
    ("Unlink", 2),
    ("Deltree", 1),
    ("Rmdir", 1),
    ("Mkdir", 3),
    ("Qpathinfo", 3),
    ("Qfileinfo", 1),
    ("Qfsinfo", 1),
    ("Sfileinfo", 1),
    ("Find", 2),
    ("WriteX", 4),
    ("ReadX", 2),
    ("LockX", 1),
    ("UnlockX", 1),
    ("Flush", 1),
];

fn assert_empty(dir: &Path) {
    let left = entries(dir);
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn a_loadfile_replay_counts_each_operation_per_pass_and_client() {
    let dir = real_dir();
    let out = diskbench()
        .args([
            "fileserver",
            "--json",
            "--loops",
            "2",
            "--clients",
            "3",
            "--loadfile",
        ])
        .arg(small_loadfile())
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let doc = json_of(&out);
    for key in [
        "throughput_mb_per_sec",
        "clients",
        "duration_s",
        "max_latency_ms",
        "operations",
    ] {
        assert!(doc.get(key).is_some(), "{key} missing: {doc}");
    }
    assert_eq!(doc["clients"], 3);
    assert_eq!(doc["loops"], 6);
    assert_eq!(doc["status_mismatches"], 0);
    let ops = doc["operations"].as_array().unwrap();
    let names: Vec<&str> = ops.iter().map(|o| o["name"].as_str().unwrap()).collect();
    let expected: Vec<&str> = SMALL_COUNTS.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, expected, "dbench's order");
    for (op, (name, per_pass)) in ops.iter().zip(SMALL_COUNTS) {
        assert_eq!(op["count"].as_u64(), Some(per_pass * 2 * 3), "{name}");
        for key in ["mean_ns", "p99_ns", "max_ns"] {
            assert!(op[key].as_u64().is_some(), "{name}.{key}: {op}");
        }
        assert!(op["p99_ns"].as_u64() <= op["max_ns"].as_u64(), "{op}");
    }
    assert_empty(dir.path());
}

#[test]
fn the_builtin_mix_prints_dbenchs_table_and_summary_line() {
    let dir = real_dir();
    let started = Instant::now();
    let out = diskbench()
        .args(["fileserver", "--clients", "2", "--duration", "1s"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    // 1 s measured after 0.2 s of warmup.
    assert!(started.elapsed() >= Duration::from_millis(1200));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(" Operation      Count    AvgLat    MaxLat    P99Lat\n"),
        "{text}"
    );
    for name in [
        "NTCreateX",
        "WriteX",
        "ReadX",
        "Qpathinfo",
        "Rename",
        "Unlink",
        "Mkdir",
        "Flush",
        "Find",
    ] {
        assert!(
            text.contains(&format!("\n {name} ")),
            "{name} missing:\n{text}"
        );
    }
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("Throughput "), "{text}");
    assert!(
        last.contains(" MB/sec  2 clients  2 procs  max_latency="),
        "{last}"
    );
    assert!(last.ends_with(" ms"), "{last}");
    assert!(
        stderr_of(&out).contains("1 s after 0.2 s of warmup"),
        "{}",
        stderr_of(&out)
    );
    assert_empty(dir.path());
}

#[test]
fn dbenchs_own_flags_work() {
    // dbench -t 1 -c FILE -D DIR 2
    let dir = real_dir();
    let out = diskbench()
        .args(["fileserver", "-t", "1", "--warmup", "0", "-c"])
        .arg(small_loadfile())
        .arg("-D")
        .arg(dir.path())
        .args(["2", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let doc = json_of(&out);
    assert_eq!(doc["clients"], 2);
    assert!(doc["duration_s"].as_f64().unwrap() >= 1.0);
    assert!(doc["loops"].as_u64().unwrap() > 0);
    assert_empty(dir.path());
}

#[test]
fn a_status_other_than_the_loadfiles_is_reported_with_its_line() {
    let dir = real_dir();
    let load = dir.path().join("wrong.txt");
    std::fs::write(
        &load,
        "Mkdir \"\\clients\" NT_STATUS_OK\n\
         Mkdir \"\\clients\\client1\" NT_STATUS_OK\n\
         QUERY_PATH_INFORMATION \"\\clients\\client1\\no.doc\" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND\n\
         NTCreateX \"\\clients\\client1\\no.doc\" 0x40 0x1 7 NT_STATUS_OK\n",
    )
    .unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let out = diskbench()
        .args(["fileserver", "--loops", "1", "--json", "--loadfile"])
        .arg(&load)
        .arg(&work)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    let line = format!(
        "{}:4: client 0: NTCreateX returned NT_STATUS_OBJECT_NAME_NOT_FOUND, the loadfile expects NT_STATUS_OK",
        load.display()
    );
    assert!(err.contains(&line), "{err}");
    assert!(
        !err.contains(":3:"),
        "line 3 expects the error it gets: {err}"
    );
    let doc = json_of(&out);
    assert_eq!(doc["status_mismatches"], 1);
    assert_eq!(doc["mismatch_samples"][0]["line"], 4);
    assert!(doc["error"].is_string());
    assert_eq!(doc["failure"]["kind"], "runtime", "{doc}");
    assert_eq!(doc["failure"]["message"], doc["error"]);
    assert_empty(&work);
}

/// Runs `fileserver ARGS` and checks exit 2, the words of the message on
/// stderr, the same message in JSON, and that nothing was written.
fn refused(args: &[&str], dir: &Path, words: &[&str]) {
    let out = diskbench()
        .arg("fileserver")
        .args(args)
        .args(["--json", "--loops", "1"])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    for w in words {
        assert!(err.contains(w), "{args:?}: '{w}' not in {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    let doc = json_of(&out);
    assert!(doc["error"].as_str().unwrap().contains(words[0]), "{doc}");
    assert_eq!(doc["failure"]["kind"], "usage", "{doc}");
    assert!(
        entries(dir).iter().all(|p| !p
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("diskbench-")),
        "{args:?} wrote in {}",
        dir.display()
    );
}

#[test]
fn bad_input_is_refused_with_exit_2_before_any_file_is_written() {
    let dir = real_dir();
    let d = dir.path().to_str().unwrap();
    let bad = dir.path().join("bad.txt");
    std::fs::write(
        &bad,
        "Close 1 NT_STATUS_OK\n# fine\nWriteX 1 0 NT_STATUS_OK\n",
    )
    .unwrap();
    let bad = bad.to_str().unwrap();
    let missing = dir.path().join("missing.txt");
    let missing = missing.to_str().unwrap();
    let nodir = dir.path().join("no/such/dir");
    let nodir = nodir.to_str().unwrap();
    refused(
        &["--clients", "0", d],
        dir.path(),
        &["0 clients", "between 1 and"],
    );
    refused(
        &["--clients", "two", d],
        dir.path(),
        &["--clients two", "whole number"],
    );
    refused(
        &["--loadfile", missing, d],
        dir.path(),
        &[missing, "/usr/share/dbench/client.txt"],
    );
    refused(
        &["--loadfile", bad, d],
        dir.path(),
        &[&format!("{bad}:3: WriteX takes 4 arguments (HANDLE OFFSET SIZE RETURNED) before the status, found 2")],
    );
    refused(&[nodir], dir.path(), &["does not exist", nodir]);
    refused(
        &["--duration", "soon", d],
        dir.path(),
        &["--duration", "'soon' is not a duration"],
    );
    refused(&["--clients", "2", "3", d], dir.path(), &["disagree"]);
}

#[test]
fn loops_and_duration_together_are_refused() {
    let dir = real_dir();
    let out = diskbench()
        .args(["fileserver", "--loops", "1", "--duration", "1s"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("give one"), "{}", stderr_of(&out));
    assert_empty(dir.path());
}

#[test]
fn the_printed_mix_is_a_loadfile_that_replays_cleanly() {
    let dir = real_dir();
    let out = diskbench()
        .args(["fileserver", "--show-mix"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let mix = dir.path().join("mix.txt");
    std::fs::write(&mix, &out.stdout).unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let out = diskbench()
        .args(["fileserver", "--loops", "1", "--json", "--loadfile"])
        .arg(&mix)
        .arg(&work)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(json_of(&out)["status_mismatches"], 0);
    assert_empty(&work);
}

#[test]
fn a_signal_prints_the_results_so_far_and_removes_the_files() {
    let dir = real_dir();
    let target = dir.path().display().to_string();
    let args = [
        "fileserver",
        "--duration",
        "60s",
        "--warmup",
        "0",
        "--clients",
        "2",
        "--json",
        &target,
    ];
    let (out, _) = interrupt(args, Duration::from_millis(1000), &["INT"]);
    assert_eq!(out.status.code(), Some(130), "{}", stderr_of(&out));
    let doc = json_of(&out);
    assert_eq!(doc["interrupted"], true);
    // Cut short: it measured less than the 60 s it was given.
    let measured = doc["duration_s"].as_f64().unwrap();
    assert!(measured < 60.0, "measured {measured} s");
    assert!(doc["error"].as_str().unwrap().contains("interrupted"));
    assert_eq!(doc["failure"]["kind"], "interrupted", "{doc}");
    assert!(doc["operations"][0]["count"].as_u64().unwrap() > 0);
    assert_empty(dir.path());
}
