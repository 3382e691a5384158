//! The history from the command line: measuring
//! commands save their runs, `history`/`show`/`rm`/`export` read them back,
//! `import` brings in fio and GoBonnieGo results, and a database that
//! cannot be written never costs the measurement.

mod common;
mod history_util;
use common::*;
use history_util::*;
use std::path::{Path, PathBuf};

#[test]
fn fio_saves_its_run_with_labels_and_prices() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let out = diskbench()
        .args(NULL_JOB)
        // Where the run went is said with the checks (or on a terminal).
        .arg("--diskbench-checks")
        .args(["--label", "provider=aws", "--label=disk=gp2"])
        .args(["--price-gib-month=0.1", "--price-per-million-ios", "0.05"])
        .args(["--price-month=20", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.contains(&format!("saved as run 1 in {}", db.display())),
        "{err}"
    );
    assert!(stdout_of(&out).contains("IOPS="));
    let rec = json_of(&run_ok(&["export", "1", "--format", "json"], &db));
    assert_eq!(rec["id"], 1);
    assert_eq!(rec["kind"], "fio");
    assert_eq!(rec["labels"]["provider"], "aws");
    assert_eq!(rec["labels"]["disk"], "gp2");
    assert_eq!(rec["prices"]["per_gib_month"], 0.1);
    assert_eq!(rec["prices"]["per_million_ios"], 0.05);
    assert_eq!(rec["prices"]["per_month"], 20.0);
    assert_eq!(rec["result"]["jobs"][0]["read"]["ios"], 1024);
    // The merged histogram is kept, bucket by bucket.
    assert_eq!(rec["result"]["jobs"][0]["read"]["clat"]["n"], 1024);
    assert!(rec["result"]["jobs"][0]["read"]["clat"]["buckets"]
        .as_array()
        .is_some_and(|b| !b.is_empty()));
}

#[test]
fn the_environment_names_the_database_and_no_save_saves_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let out = diskbench()
        .args(NULL_JOB)
        .arg("--no-save")
        .env("DISKBENCH_DB", &db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(!stderr_of(&out).contains("saved"), "{}", stderr_of(&out));
    assert!(!db.exists(), "--no-save created the database");
    let out = diskbench()
        .args(NULL_JOB)
        .env("DISKBENCH_DB", &db)
        .env("DISKBENCH_CHECKS", "1")
        .output()
        .unwrap();
    assert!(
        stderr_of(&out).contains("saved as run 1"),
        "{}",
        stderr_of(&out)
    );
    assert!(db.exists());
}

#[test]
fn history_lists_and_filters_in_every_format() {
    on_both(|db| {
        run_ok(
            &[&NULL_JOB[..], &["--label=provider=aws", "--label=disk=gp2"]].concat(),
            db,
        );
        run_ok(
            &[&NULL_JOB[..], &["--label=provider=gce", "--rw=write"]].concat(),
            db,
        );

        let table = stdout_of(&run_ok(&["history"], db));
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 3, "{table}");
        assert!(lines[0].starts_with("id  started (UTC)"), "{table}");
        for col in [
            "command",
            "labels",
            "target",
            "device",
            "IOPS",
            "Read MB/s",
            "Write MB/s",
        ] {
            assert!(lines[0].contains(col), "{col} in {table}");
        }
        assert!(
            lines[1].contains("disk=gp2,provider=aws") && lines[1].contains(" fio "),
            "{table}"
        );
        assert!(lines[2].contains("provider=gce"), "{table}");

        let all = history_json(db, &[]);
        assert_eq!(all.len(), 2);
        assert!(all[0]["iops"].as_f64().unwrap() > 0.0);
        assert!(all[0]["read_mb_per_s"].as_f64().unwrap() > 0.0);
        assert!(all[0]["write_mb_per_s"].is_null());
        assert!(all[1]["write_mb_per_s"].as_f64().unwrap() > 0.0);

        let aws = history_json(db, &["--label", "provider=aws"]);
        assert_eq!(aws.len(), 1);
        assert_eq!(aws[0]["id"], 1);
        assert!(history_json(db, &["--label", "provider=aws", "--label", "disk=io1"]).is_empty());
        assert!(history_json(db, &["--command", "run"]).is_empty());
        assert_eq!(
            history_json(db, &["--command", "fio", "--since", "1h"]).len(),
            2
        );
        assert!(history_json(db, &["--until", "2000-01-01"]).is_empty());

        let csv = stdout_of(&run_ok(
            &["history", "--format", "csv", "--label", "provider=gce"],
            db,
        ));
        let rows: Vec<&str> = csv.lines().collect();
        assert_eq!(rows.len(), 2, "{csv}");
        assert!(
            rows[0].starts_with("id,started_unix_ms,started_utc,command,labels"),
            "{csv}"
        );
        assert!(rows[1].starts_with("2,"), "{csv}");

        let bad = diskbench()
            .args(["history", "--since", "last tuesday"])
            .args(db_arg(db))
            .output()
            .unwrap();
        assert_eq!(bad.status.code(), Some(2));
        assert!(
            stderr_of(&bad).contains("not a time"),
            "{}",
            stderr_of(&bad)
        );
    });
}

/// stderr without the line that only the measuring command prints.
fn without_saved_line(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|l| !l.starts_with("saved as run "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// fio's normal output from its first result on, without the
/// `: pid=N: DATE` that ends each job's first line: what `show` gives back
/// of a fio run (the lines before the run and the process id are not kept).
fn results_as_printed(stdout: &str) -> String {
    let first = stdout
        .find("(groupid=")
        .and_then(|at| stdout[..at].rfind('\n'));
    let from = first.map_or(0, |at| at + 1);
    stdout[from..]
        .lines()
        .map(|l| match l.find(": pid=") {
            Some(at) if l.contains("(groupid=") => format!("{}\n", &l[..at]),
            _ => format!("{l}\n"),
        })
        .collect()
}

#[test]
fn show_prints_a_fio_runs_results_as_fio_printed_them() {
    on_both(|db| {
        let two_jobs = [
            "fio",
            "--diskbench-checks",
            "--ioengine=null",
            "--size=4m",
            "--name=t",
            "--rw=randrw",
            "--name=second",
            "--rw=write",
        ];
        let ran = run_ok(&two_jobs, db);
        let shown = run_ok(&["show", "1"], db);
        assert!(
            stdout_of(&ran).starts_with("t: (g=0): rw=randrw"),
            "{}",
            stdout_of(&ran)
        );
        assert_eq!(stdout_of(&shown), results_as_printed(&stdout_of(&ran)));
        assert_eq!(stderr_of(&shown), without_saved_line(&stderr_of(&ran)));
    });
}

#[test]
fn run_saves_a_suite_and_show_prints_its_table() {
    on_both(|db| {
        let dir = real_dir();
        let ran = diskbench()
            .arg("run")
            .arg(dir.path())
            .args(["--quick", "--engine", "null", "--size", "4m"])
            .args(["--label", "disk=null", "--price-month", "5"])
            .args(db_arg(db))
            .output()
            .unwrap();
        assert!(ran.status.success(), "{}", stderr_of(&ran));
        assert!(
            stderr_of(&ran).contains("saved as run 1"),
            "{}",
            stderr_of(&ran)
        );
        let rec = json_of(&run_ok(&["export", "1"], db));
        assert_eq!(rec["kind"], "suite");
        assert_eq!(rec["labels"]["disk"], "null");
        assert_eq!(rec["prices"]["per_month"], 5.0);
        let shown = stdout_of(&run_ok(&["show", "1"], db));
        let printed = stdout_of(&ran);
        // The target block was printed before the run (free space may differ
        // by what the run wrote); the table and the headline are the same.
        let tail = |s: &str| s.split_once("\ntest ").map(|(_, t)| t.to_string());
        assert!(tail(&printed).is_some(), "{printed}");
        assert_eq!(tail(&shown), tail(&printed), "{shown}\n---\n{printed}");
        assert!(shown.starts_with("Target "), "{shown}");
        let history = stdout_of(&run_ok(&["history"], db));
        assert!(
            history.contains(" run ") && history.contains("disk=null"),
            "{history}"
        );
    });
}

#[test]
fn rm_removes_runs_and_refuses_unknown_ones() {
    on_both(|db| {
        run_ok(&NULL_JOB, db);
        run_ok(&NULL_JOB, db);
        let bad = diskbench()
            .args(["rm", "1", "7"])
            .args(db_arg(db))
            .output()
            .unwrap();
        assert_eq!(bad.status.code(), Some(1));
        assert!(
            stderr_of(&bad).contains("no run 7 in"),
            "{}",
            stderr_of(&bad)
        );
        assert_eq!(
            history_json(db, &[]).len(),
            2,
            "a failed rm removed something"
        );
        let out = run_ok(&["rm", "1"], db);
        assert!(
            stdout_of(&out).contains("removed run 1"),
            "{}",
            stdout_of(&out)
        );
        let left = history_json(db, &[]);
        assert_eq!((left.len(), left[0]["id"].as_i64()), (1, Some(2)));
        let gone = diskbench()
            .args(["show", "1"])
            .args(db_arg(db))
            .output()
            .unwrap();
        assert_eq!(gone.status.code(), Some(1));
        assert!(
            stderr_of(&gone).contains("no run 1 in")
                && stderr_of(&gone).contains("diskbench history"),
            "{}",
            stderr_of(&gone)
        );
    });
}

#[test]
fn export_formats_parse() {
    on_both(|db| {
        run_ok(&[&NULL_JOB[..], &["--rw=randrw"]].concat(), db);
        let fio = json_of(&run_ok(&["export", "1", "--format", "fio-json"], db));
        assert_eq!(fio["fio version"], "fio-3.33");
        assert!(fio["diskbench"]["version"]
            .as_str()
            .unwrap()
            .starts_with("diskbench-"));
        let read = &fio["jobs"][0]["read"];
        let ios = read["total_ios"].as_u64().unwrap();
        assert!(ios > 0 && read["iops"].as_f64().unwrap() > 0.0);
        let csv = stdout_of(&run_ok(&["export", "1", "--format", "csv"], db));
        let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
        assert_eq!(
            rows[0],
            [
                "run",
                "job",
                "rw",
                "ios",
                "bytes",
                "runtime_ns",
                "iops",
                "bytes_per_sec",
                "lat_mean_ns",
                "lat_p50_ns",
                "lat_p99_ns",
                "lat_percentiles"
            ]
        );
        assert_eq!(rows.len(), 3, "{csv}");
        assert_eq!((rows[1][1], rows[1][2], rows[2][2]), ("t", "read", "write"));
        assert_eq!(rows[1][3].parse::<u64>().unwrap(), ios);
        for row in &rows[1..] {
            for cell in &row[6..11] {
                assert!(cell.parse::<f64>().is_ok(), "{cell:?} in {csv}");
            }
            assert_eq!(row[11], "measured", "{csv}");
        }
        let json = json_of(&run_ok(&["export", "1", "--format", "json"], db));
        assert_eq!(json["result"]["jobs"][0]["read"]["ios"].as_u64(), Some(ios));
    });
}

#[test]
fn eight_processes_saving_at_once_lose_no_run() {
    on_both(|db| {
        let bin = assert_cmd::cargo::cargo_bin("diskbench");
        let children: Vec<_> = (0..8)
            .map(|i| {
                std::process::Command::new(&bin)
                    .env("XDG_DATA_HOME", TEST_DATA_HOME)
                    .args(NULL_JOB)
                    .arg("--diskbench-checks")
                    .arg(format!("--label=proc={i}"))
                    .args(db_arg(db))
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "{}", stderr_of(&out));
            assert!(
                stderr_of(&out).contains("saved as run"),
                "{}",
                stderr_of(&out)
            );
        }
        let runs = history_json(db, &[]);
        assert_eq!(runs.len(), 8);
        let mut procs: Vec<String> = runs
            .iter()
            .map(|r| r["labels"]["proc"].as_str().unwrap().to_string())
            .collect();
        procs.sort();
        assert_eq!(procs, (0..8).map(|i| i.to_string()).collect::<Vec<_>>());
    });
}

/// A database path that cannot be written: a mode-555 directory, or (for
/// root, who writes anywhere) a path in sysfs.
fn unwritable_db(tmp: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let dir = tmp.join("read-only");
    std::fs::create_dir(&dir).ok()?;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).ok()?;
    if std::fs::write(dir.join("probe"), b"").is_err() {
        return Some(dir.join("sub/history.sqlite3"));
    }
    let sys = PathBuf::from("/sys/diskbench-test/history.sqlite3");
    if std::fs::create_dir_all(sys.parent()?).is_err() {
        return Some(sys);
    }
    testbed::skip("no unwritable place found (root here, and /sys accepts new directories)");
    None
}

#[test]
fn an_unwritable_database_still_prints_the_result_and_exits_1() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(db) = unwritable_db(tmp.path()) else {
        return;
    };
    let out = diskbench()
        .args(NULL_JOB)
        .arg("--output-format=json")
        .args(db_arg(&db))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let doc = json_of(&out);
    assert_eq!(doc["jobs"][0]["read"]["total_ios"], 1024);
    let err = stderr_of(&out);
    assert!(
        err.contains("not saved: ") && err.contains("the results above are complete"),
        "{err}"
    );
    assert!(err.contains("--db"), "{err}");
}

#[test]
fn a_database_from_a_newer_diskbench_is_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    run_ok(&NULL_JOB, &db);
    // Stamp it as a future schema version (the header's user_version, bytes 60..64).
    let mut bytes = std::fs::read(&db).unwrap();
    if bytes.len() < 100 || !bytes.starts_with(b"SQLite format 3\0") {
        panic!("{} is not an SQLite file", db.display());
    }
    bytes[60..64].copy_from_slice(&999u32.to_be_bytes());
    std::fs::write(&db, &bytes).unwrap();
    let out = diskbench()
        .args(NULL_JOB)
        .args(db_arg(&db))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout_of(&out).contains("IOPS="),
        "the result was not printed"
    );
    let err = stderr_of(&out);
    assert!(
        err.contains("newer diskbench") && err.contains("not saved"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&db).unwrap(),
        bytes,
        "the newer database was changed"
    );
    let hist = diskbench()
        .arg("history")
        .args(db_arg(&db))
        .output()
        .unwrap();
    assert_eq!(hist.status.code(), Some(1));
}

/// Reading never creates a database ("no history at PATH"); writing
/// creates only the file, in a directory that exists, so a typo in --db
/// leaves nothing behind.
#[test]
fn reading_creates_nothing_and_writing_creates_no_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("none.db");
    let report = tmp.path().join("r.html").display().to_string();
    let chart = tmp.path().join("c.svg").display().to_string();
    let reads: [&[&str]; 7] = [
        &["history"],
        &["show", "1"],
        &["export", "1"],
        &["rm", "1"],
        &["compare"],
        &["report", "-o", &report],
        &["chart", "-o", &chart],
    ];
    for args in reads {
        let out = run_with(args, &missing);
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        let want = format!("no history at {}", missing.display());
        assert!(
            err.contains(&want) && err.contains("--db"),
            "{args:?}: {err}"
        );
        assert!(!missing.exists(), "{args:?} created the database");
    }
    let nested = tmp.path().join("no/such/dir/h.db");
    let sample =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/gobonniego-1.0.10-runs2.json");
    let import = ["import", sample.to_str().unwrap()];
    for args in [&NULL_JOB[..], &import[..]] {
        let out = run_with(args, &nested);
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("does not exist") && err.contains("mkdir -p"),
            "{args:?}: {err}"
        );
        assert!(
            !tmp.path().join("no").exists(),
            "{args:?} created directories"
        );
    }
    run_ok(&NULL_JOB, &missing);
    assert!(missing.exists(), "a run in an existing directory is saved");
}

/// `diskbench export 1 | head -1`: a closed stdout ends the command as it
/// ends `cat` (141, 128 + SIGPIPE, or a quiet success), never by a panic
/// (exit 101) and never with a message.
#[test]
fn a_closed_stdout_ends_commands_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    run_ok(&NULL_JOB, &db);
    let db_flag = format!("--db={}", db.display());
    let commands: [&[&str]; 4] = [
        &["export", "1", &db_flag],
        &["history", &db_flag],
        &["show", "1", &db_flag],
        &[
            "fio",
            "--name=t",
            "--ioengine=null",
            "--size=4m",
            "--no-save",
            "--output-format=json",
        ],
    ];
    for args in commands {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("diskbench"))
            .env("DISKBENCH_DB", TEST_DB)
            .args(args)
            .stdout(writer)
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert!(err.is_empty(), "{args:?}: {err}");
        assert!(
            out.status.success() || out.status.code() == Some(128 + SIGPIPE),
            "{args:?}: {:?} {err}",
            out.status
        );
    }
}

/// SIGPIPE's number on Linux.
const SIGPIPE: i32 = 13;

#[test]
fn bad_history_flags_are_usage_errors() {
    let out = diskbench()
        .args(NULL_JOB)
        .arg("--label=oops")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("not a label"),
        "{}",
        stderr_of(&out)
    );
    let out = diskbench()
        .args(NULL_JOB)
        .args(["--price-month", "cheap"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("not a price"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn an_interrupted_run_is_saved_as_interrupted() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let bin = assert_cmd::cargo::cargo_bin("diskbench");
    let child = std::process::Command::new(bin)
        .args([
            "fio",
            "--diskbench-checks",
            "--name=long",
            "--ioengine=null",
            "--size=4m",
            "--time_based",
        ])
        .args(["--runtime=60"])
        .args(db_arg(&db))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(128), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("saved as run 1"),
        "{}",
        stderr_of(&out)
    );
    let runs = history_json(&db, &[]);
    assert_eq!(runs[0]["interrupted"], true);
    assert!(runs[0]["iops"].as_f64().unwrap() > 0.0);
}
