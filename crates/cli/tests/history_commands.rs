//! Every measuring command keeps its runs in the history, as `run` and
//! `fio` do: `ping`, `meta`, `fileserver` and `gobonniego` take `--db`,
//! `--label` and `--no-save`; `history` lists their runs, `show` prints
//! them as they were printed, `compare` keeps them apart from fio-shaped
//! runs, and `export` refuses fio's formats for runs without fio's shape.

mod common;
mod history_util;
use common::*;
use history_util::*;
use std::path::Path;

/// `diskbench ARGS` with the target directory last.
fn measure(args: &[&str], dir: &Path, db: &Path) -> std::process::Output {
    let out = diskbench()
        .args(args)
        .args(db_arg(db))
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", stderr_of(&out));
    out
}

const PING: [&str; 5] = ["ping", "-c", "4", "-i", "0"];
const META: [&str; 4] = ["meta", "-n", "1:1k:0:2", "--files=64"];
const FILESERVER: [&str; 3] = ["fileserver", "--loops", "1"];

fn gobonniego(dir: &Path, db: &Path, extra: &[&str]) -> std::process::Output {
    let out = diskbench()
        .args(["gobonniego", "-size", "0.01", "-threads", "1"])
        .args(["-iops-duration", "0.2", "-dir"])
        .arg(dir)
        .args(extra)
        .args(db_arg(db))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    out
}

#[test]
fn each_command_saves_its_run_with_its_label_and_history_lists_it() {
    on_both(|db| {
        let dir = real_dir();
        for (args, command) in [
            (&PING[..], "ping"),
            (&META[..], "meta"),
            (&FILESERVER[..], "fileserver"),
        ] {
            let label = format!("--label=tool={command}");
            let out = measure(&[args, &[label.as_str()]].concat(), dir.path(), db);
            let err = stderr_of(&out);
            assert!(err.contains("saved as run"), "{command}: {err}");
            let rows = history_json(db, &["--command", command]);
            assert_eq!(rows.len(), 1, "{command}: {rows:?}");
            assert_eq!(rows[0]["command"], command);
            assert_eq!(rows[0]["labels"]["tool"], command);
            assert_eq!(rows[0]["status"], "ok");
        }
        let out = gobonniego(
            dir.path(),
            db,
            &["--label", "tool=gobonniego", "-runs", "2"],
        );
        assert_eq!(
            stderr_of(&out).matches("saved as run").count(),
            2,
            "one entry per GoBonnieGo run: {}",
            stderr_of(&out)
        );
        let rows = history_json(db, &["--label", "tool=gobonniego"]);
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert!(rows.iter().all(|r| r["command"] == "gobonniego"));
        // Its three tests are jobs: the history has its figures.
        assert!(rows[0]["iops"].as_f64().unwrap() > 0.0, "{rows:?}");
        assert!(rows[0]["read_mb_per_s"].as_f64().unwrap() > 0.0);

        let table = stdout_of(&run_ok(&["history"], db));
        for command in ["ping", "meta", "fileserver", "gobonniego"] {
            let line = table
                .lines()
                .find(|l| l.contains(&format!("tool={command}")))
                .unwrap_or_else(|| panic!("no {command} row in\n{table}"));
            assert!(line.contains(&format!(" {command} ")), "{line}");
        }
        // ping's requests are a fio-shaped job: its IOPS is ioping's.
        let ping = &history_json(db, &["--command", "ping"])[0];
        assert!(ping["iops"].as_f64().unwrap() > 0.0, "{ping}");
        // meta's and fileserver's file operations have no IOPS to show.
        let meta = &history_json(db, &["--command", "meta"])[0];
        assert!(meta["iops"].is_null(), "{meta}");
    });
}

#[test]
fn no_save_leaves_no_row_and_creates_no_database() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let dir = real_dir();
    for args in [&PING[..], &META[..], &FILESERVER[..]] {
        let out = measure(
            &[args, &["--no-save", "--label=k=v"]].concat(),
            dir.path(),
            &db,
        );
        assert!(!stderr_of(&out).contains("saved"), "{}", stderr_of(&out));
    }
    gobonniego(dir.path(), &db, &["--no-save"]);
    assert!(!db.exists(), "--no-save created {}", db.display());
    // With something in it, --no-save still adds nothing.
    measure(&PING, dir.path(), &db);
    measure(&[&PING[..], &["--no-save"]].concat(), dir.path(), &db);
    gobonniego(dir.path(), &db, &["--no-save"]);
    assert_eq!(history_json(&db, &[]).len(), 1);
}

#[test]
fn a_database_in_a_missing_directory_is_never_created() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("no-such-dir").join("h.sqlite3");
    let dir = real_dir();
    let out = diskbench()
        .args(PING)
        .args(db_arg(&db))
        .arg(dir.path())
        .output()
        .unwrap();
    // The measurement is printed; only the history entry is lost (exit 1).
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(stdout_of(&out).contains("ioping statistics"));
    assert!(stderr_of(&out).contains("not saved"), "{}", stderr_of(&out));
    assert!(!tmp.path().join("no-such-dir").exists());
}

#[test]
fn show_prints_each_run_as_it_was_printed_and_export_gives_its_figures() {
    on_both(|db| {
        let dir = real_dir();
        let ping = measure(&PING, dir.path(), db);
        // With --json the text is still what `show` prints.
        measure(&[&META[..], &["--json"]].concat(), dir.path(), db);
        measure(&FILESERVER, dir.path(), db);
        gobonniego(dir.path(), db, &[]);

        let shown = stdout_of(&run_ok(&["show", "1"], db));
        assert!(shown.contains("ioping statistics"), "{shown}");
        let printed = stdout_of(&ping);
        let summary = &printed[printed.find("\n---").unwrap()..];
        assert_eq!(&shown, summary);
        let shown = stdout_of(&run_ok(&["show", "2"], db));
        assert!(shown.contains("Sequential Create"), "{shown}");
        let shown = stdout_of(&run_ok(&["show", "3"], db));
        assert!(
            shown.contains("Throughput") && shown.contains("MB/sec"),
            "{shown}"
        );
        let shown = stdout_of(&run_ok(&["show", "4"], db));
        assert!(
            shown.contains("Sequential Write MB/s:") && shown.contains("IOPS:"),
            "{shown}"
        );

        let rec = json_of(&run_ok(&["export", "2", "--format", "json"], db));
        assert_eq!(rec["kind"], "meta");
        let phases = rec["result"]["workload"]["document"]["phases"]
            .as_array()
            .unwrap();
        assert_eq!(phases.len(), 6, "{rec}");
        let rec = json_of(&run_ok(&["export", "1", "--format", "json"], db));
        assert_eq!(rec["result"]["workload"]["document"]["summary"]["count"], 3);
        // ping's requests as fio's JSON: one job, read, the counted requests.
        let fio = json_of(&run_ok(&["export", "1", "--format", "fio-json"], db));
        assert_eq!(fio["jobs"][0]["read"]["total_ios"], 3, "{fio}");
        // meta has no fio shape: refused, naming what works.
        for format in ["fio-json", "csv"] {
            let out = run_with(&["export", "2", "--format", format], db);
            assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
            assert!(
                stderr_of(&out).contains("--format json"),
                "{}",
                stderr_of(&out)
            );
        }
    });
}

#[test]
fn compare_keeps_ping_apart_from_a_fio_job_of_its_shape() {
    on_both(|db| {
        let dir = real_dir();
        measure(&[&PING[..], &["--label=disk=a"]].concat(), dir.path(), db);
        measure(&[&PING[..], &["--label=disk=a"]].concat(), dir.path(), db);
        // Two pings compare with each other.
        let c = json_of(&run_ok(
            &["compare", "--by", "disk", "--format", "json"],
            db,
        ));
        let group = &c["groups"][0];
        assert_eq!(group["runs"], 2, "{c}");
        assert!(group["iops"]["mean"].as_f64().unwrap() > 0.0, "{c}");
        // A fio QD1 random 4 KiB read in the same group is not averaged with them.
        let target = dir.path().join("f");
        run_ok(
            &[
                "fio",
                "--name=t",
                "--rw=randread",
                "--bs=4k",
                "--size=1m",
                "--direct=1",
                "--ioengine=psync",
                "--label=disk=a",
                &format!("--filename={}", target.display()),
            ],
            db,
        );
        let c = json_of(&run_ok(
            &["compare", "--by", "disk", "--format", "json"],
            db,
        ));
        assert!(c["groups"][0]["iops"].is_null(), "{c}");
        let shapes = c["groups"][0]["mixed"]["iops"].as_array().unwrap();
        assert!(
            shapes
                .iter()
                .any(|s| s.as_str().unwrap().starts_with("ping: ")),
            "{c}"
        );
    });
}

#[test]
fn a_profiles_steps_save_where_the_run_saves_with_its_labels() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let dir = real_dir();
    let out = diskbench()
        .args([
            "run",
            "--profile",
            "gobonniego",
            "--size",
            "16m",
            "--runtime",
            "1",
        ])
        .args(["--label", "disk=a"])
        .args(db_arg(&db))
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let rows = history_json(&db, &["--label", "disk=a"]);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["command"], "gobonniego");
    // --no-save reaches the steps too.
    let db2 = tmp.path().join("none.sqlite3");
    let out = diskbench()
        .args([
            "run",
            "--profile",
            "gobonniego",
            "--size",
            "16m",
            "--runtime",
            "1",
        ])
        .arg("--no-save")
        .args(db_arg(&db2))
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(!db2.exists());
}
