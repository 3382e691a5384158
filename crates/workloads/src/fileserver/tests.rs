//! Replays against a real directory: the file's operations in its order,
//! counts that are the file's times the passes, expected errors honoured,
//! mismatches reported with their line, the built-in mix complete.

use super::*;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const SMALL: &str = include_str!("../../tests/data/fileserver_small.txt");

fn small() -> Loadfile {
    Loadfile::parse("fileserver_small.txt", SMALL).unwrap()
}

fn passes(clients: u32, loops: u64) -> Options {
    Options {
        clients,
        loops: Some(loops),
        warmup: Duration::ZERO,
        trace: true,
        ..Options::default()
    }
}

fn replay(load: &Loadfile, opts: &Options) -> (Summary, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let summary = run(load, dir.path(), opts);
    (summary, dir)
}

#[test]
fn the_replay_performs_the_files_operations_in_order() {
    let load = small();
    let (s, _dir) = replay(&load, &passes(2, 2));
    let expected: Vec<(u32, OpKind)> = load.lines.iter().map(|l| (l.number, l.op.kind())).collect();
    assert_eq!(s.traces.len(), 2);
    for trace in &s.traces {
        let got: Vec<_> = trace.iter().map(|t| (t.line, t.kind)).collect();
        let twice: Vec<_> = expected.iter().chain(&expected).cloned().collect();
        assert_eq!(got, twice);
        // The first pass gets exactly the loadfile's statuses (but for the
        // shared `\clients`, which another client may have made first).
        for (t, line) in trace.iter().zip(&load.lines) {
            if !(line.number == 4 && t.status == status::Status::ObjectNameCollision) {
                assert_eq!(t.status, line.expect, "line {}", line.number);
            }
        }
    }
    assert_eq!(s.mismatches, 0, "{:?}", s.samples);
    assert_eq!(s.loops, 4);
}

#[test]
fn counts_are_the_files_counts_times_the_passes() {
    let load = small();
    let (s, _dir) = replay(&load, &passes(3, 2));
    let per_pass = load.counts();
    for kind in OpKind::ALL {
        assert_eq!(
            s.count(kind),
            per_pass[kind as usize] * 3 * 2,
            "{}",
            kind.name()
        );
    }
    // Bytes: per pass 1 + 65536 + 4096 + 4096 written, 65536 + 4096 read.
    assert_eq!(s.bytes_written, (1 + 65536 + 4096 + 4096) * 6);
    assert_eq!(s.bytes_read, (65536 + 4096) * 6);
    assert_eq!(s.short_reads, 0);
}

#[test]
fn each_client_works_in_its_own_tree() {
    let mut load = small();
    // Stop before the files are removed, to look at them.
    load.lines.retain(|l| l.number <= 33);
    let (s, dir) = replay(&load, &passes(2, 1));
    assert_eq!(s.mismatches, 0, "{:?}", s.samples);
    for client in ["client0", "client1"] {
        let docs = dir.path().join("clients").join(client).join("docs");
        assert_eq!(
            std::fs::metadata(docs.join("final.doc")).unwrap().len(),
            69632
        );
        assert!(!docs.join("report.doc").exists());
        assert_eq!(
            std::fs::metadata(docs.join("scratch.tmp")).unwrap().len(),
            4096
        );
    }
    assert!(!dir.path().join("clients/client2").exists());
}

#[test]
fn an_expected_error_is_not_a_mismatch_and_a_wrong_status_is() {
    let text = "\
Mkdir \"\\clients\" NT_STATUS_OK
Mkdir \"\\clients\\client1\" NT_STATUS_OK
QUERY_PATH_INFORMATION \"\\clients\\client1\\gone.txt\" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND
NTCreateX \"\\clients\\client1\\gone.txt\" 0x40 0x1 5 NT_STATUS_OK
ReadX 5 0 4096 4096 NT_STATUS_OK
NTCreateX \"\\clients\\client1\\here.txt\" 0x40 0x5 6 NT_STATUS_OK
QUERY_PATH_INFORMATION \"\\clients\\client1\\here.txt\" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND
Close 6 NT_STATUS_OK
";
    let load = Loadfile::parse("errors.txt", text).unwrap();
    let (s, _dir) = replay(&load, &passes(1, 1));
    let seen: Vec<(u32, &str, &str)> = s
        .samples
        .iter()
        .map(|m| (m.line, m.expected.as_str(), m.got.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            (4, "NT_STATUS_OK", "NT_STATUS_OBJECT_NAME_NOT_FOUND"),
            (5, "NT_STATUS_OK", "NT_STATUS_INVALID_HANDLE"),
            (7, "NT_STATUS_OBJECT_NAME_NOT_FOUND", "NT_STATUS_OK"),
        ]
    );
    assert_eq!(s.mismatches, 3);
    assert_eq!(s.samples[0].keyword, "NTCreateX");
}

#[test]
fn names_are_found_whatever_their_case_unless_told_not_to() {
    let text = "\
Mkdir \"\\clients\" NT_STATUS_OK
Mkdir \"\\clients\\client1\" NT_STATUS_OK
NTCreateX \"\\clients\\client1\\Mixed.DOC\" 0x40 0x5 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
QUERY_PATH_INFORMATION \"\\clients\\client1\\mixed.doc\" 1004 NT_STATUS_OK
";
    let load = Loadfile::parse("case.txt", text).unwrap();
    let (s, _dir) = replay(&load, &passes(1, 1));
    assert_eq!(s.mismatches, 0, "{:?}", s.samples);
    let mut opts = passes(1, 1);
    opts.client.resolve = false;
    let (s, _dir) = replay(&load, &opts);
    assert_eq!(s.mismatches, 1);
    assert_eq!(s.samples[0].line, 5);
}

#[test]
fn the_builtin_mix_exercises_every_listed_operation() {
    let (s, dir) = replay(&builtin_mix(), &passes(2, 1));
    assert_eq!(s.mismatches, 0, "{:?}", s.samples);
    for kind in [
        OpKind::NtCreateX,
        OpKind::WriteX,
        OpKind::ReadX,
        OpKind::Qpathinfo,
        OpKind::Qfileinfo,
        OpKind::Rename,
        OpKind::Unlink,
        OpKind::Mkdir,
        OpKind::Flush,
        OpKind::Find,
        OpKind::Deltree,
        OpKind::Close,
    ] {
        assert!(s.count(kind) > 0, "{} never ran", kind.name());
    }
    assert_eq!(s.bytes_read, 2 * s.bytes_written);
    // The mix removes its own tree at the end of each pass.
    assert!(!dir.path().join("clients/client0/mix").exists());
}

#[test]
fn a_timed_run_stops_on_time_and_measures_after_the_warmup() {
    let opts = Options {
        clients: 2,
        duration: Duration::from_millis(600),
        warmup: Duration::from_millis(200),
        trace: true,
        ..Options::default()
    };
    let (s, _dir) = replay(&small(), &opts);
    // On time: the 600 ms measured, by the run's own clock (the last
    // operation, an fsync on a loaded machine's busy disk or a client
    // waiting for a CPU, may add to it: how much is the machine's, so it
    // is not bound here).
    assert!(s.duration >= Duration::from_millis(590), "{:?}", s.duration);
    assert!(s.loops > 0);
    assert!(s.throughput_mb_per_sec() > 0.0);
    assert!(!s.interrupted);
    // Operations started in the warmup (a quarter of the time) are not
    // counted: some are left out, and most are in. The share is not bound
    // tighter because on a loaded machine the clients may get little CPU in
    // the warmup (CI once saw 6228 of 6260 counted).
    let all: usize = s.traces.iter().map(Vec::len).sum();
    let counted: u64 = OpKind::ALL.iter().map(|&k| s.count(k)).sum();
    let share = counted as f64 / all as f64;
    assert!(counted < all as u64, "{counted} of {all} counted");
    assert!(share >= 0.5, "{counted} of {all} counted");
}

#[test]
fn the_stop_flag_ends_the_run_at_once() {
    let stop = Arc::new(AtomicBool::new(false));
    let opts = Options {
        duration: Duration::from_secs(60),
        warmup: Duration::ZERO,
        stop: Arc::clone(&stop),
        ..Options::default()
    };
    let flag = Arc::clone(&stop);
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        flag.store(true, Ordering::Relaxed);
    });
    let (s, _dir) = replay(&small(), &opts);
    setter.join().unwrap();
    // Ended by the flag, inside the 60 s it was given.
    assert!(s.duration < opts.duration, "{:?}", s.duration);
    assert!(s.interrupted);
    assert!(s.count(OpKind::NtCreateX) > 0);
}

#[test]
fn times_in_the_first_column_are_waited_for_unless_ignored() {
    let text = "\
0.000 Mkdir \"\\clients\" NT_STATUS_OK
0.300 QUERY_FS_INFORMATION 259 NT_STATUS_OK
";
    let load = Loadfile::parse("timed.txt", text).unwrap();
    let (s, _dir) = replay(&load, &passes(1, 2));
    // Two passes that each wait until 0.3 s, by the run's own clock.
    assert!(s.duration >= Duration::from_millis(600), "{:?}", s.duration);
    // The wait is not part of the operation's latency.
    assert!(s.max_latency_ns() < 250_000_000, "{}", s.max_latency_ns());
    // Side by side, the same passes without waiting take a fraction of it.
    let mut opts = passes(1, 2);
    opts.timed = false;
    let (quick, _dir) = replay(&load, &opts);
    assert!(
        quick.duration < s.duration / 2,
        "{:?} untimed, {:?} timed",
        quick.duration,
        s.duration
    );
}

#[test]
fn report_has_dbenchs_lines_and_the_json_keys() {
    let (s, _dir) = replay(&small(), &passes(2, 1));
    let text = report::text(&s);
    assert!(
        text.contains(" Operation      Count    AvgLat    MaxLat    P99Lat\n"),
        "{text}"
    );
    assert!(text.contains("\n NTCreateX         12 "), "{text}");
    assert!(
        text.contains("MB/sec  2 clients  2 procs  max_latency="),
        "{text}"
    );
    let doc = report::json(&s, "diskbench-test");
    for key in [
        "throughput_mb_per_sec",
        "clients",
        "duration_s",
        "max_latency_ms",
        "operations",
    ] {
        assert!(doc.get(key).is_some(), "{key} missing: {doc}");
    }
    let op = &doc["operations"][0];
    assert_eq!(op["name"], "NTCreateX");
    assert_eq!(op["count"], 12);
    for key in ["mean_ns", "p99_ns", "max_ns"] {
        assert!(op[key].as_u64().unwrap() > 0, "{key}: {op}");
    }
}

#[test]
fn debian_client_txt_replays_its_first_lines_without_a_mismatch() {
    let path = Path::new("/usr/share/dbench/client.txt");
    if !path.exists() {
        testbed::skip(format!(
            "{} is not installed (apt-get install dbench)",
            path.display()
        ));
        return;
    }
    let text = std::fs::read_to_string(path).unwrap();
    let first: String = text.lines().take(8_000).map(|l| format!("{l}\n")).collect();
    let load = Loadfile::parse("client.txt", &first).unwrap();
    let mut opts = passes(2, 1);
    opts.trace = false;
    let (s, _dir) = replay(&load, &opts);
    assert_eq!(s.mismatches, 0, "{:#?}", s.samples);
    assert_eq!(s.short_reads, 0);
}
