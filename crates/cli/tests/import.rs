//! `diskbench import`: fio's JSON made by fio in the test
//! and GoBonnieGo's sample come into the history with the figures the files
//! hold; a file that is neither is refused and nothing is imported.

mod common;
mod history_util;
use common::*;
use history_util::*;
use std::path::Path;

#[test]
fn imported_fio_json_gives_the_files_figures() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let file = tmp.path().join("fio.json");
    let Ok(fio) = std::process::Command::new("fio")
        .args([
            "--name=x",
            "--ioengine=null",
            "--size=16m",
            "--rw=randrw",
            "--output-format=json",
        ])
        .current_dir(tmp.path())
        .output()
    else {
        testbed::skip("fio is not installed");
        return;
    };
    assert!(fio.status.success(), "{}", stderr_of(&fio));
    std::fs::write(&file, &fio.stdout).unwrap();
    let original: serde_json::Value = serde_json::from_slice(&fio.stdout).unwrap();

    let out = diskbench()
        .args(["import", "--label", "source=fio"])
        .arg(&file)
        .args(db_arg(&db))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(stdout_of(&out).contains("as run 1"), "{}", stdout_of(&out));
    let runs = history_json(&db, &["--command", "import-fio", "--label", "source=fio"]);
    assert_eq!(runs.len(), 1);
    let back = json_of(&run_ok(&["export", "1", "--format", "fio-json"], &db));
    for dir in ["read", "write"] {
        let (want, got) = (&original["jobs"][0][dir], &back["jobs"][0][dir]);
        for key in ["total_ios", "io_bytes", "bw_bytes", "bw", "runtime"] {
            assert_eq!(got[key], want[key], "{dir}.{key}");
        }
        let (w, g) = (
            want["iops"].as_f64().unwrap(),
            got["iops"].as_f64().unwrap(),
        );
        assert!((w - g).abs() <= 1e-6 * w.max(1.0), "{dir} iops: {g} vs {w}");
        let (w, g) = (&want["clat_ns"], &got["clat_ns"]);
        assert_eq!(
            (g["N"].as_u64(), g["min"].as_u64(), g["max"].as_u64()),
            (w["N"].as_u64(), w["min"].as_u64(), w["max"].as_u64())
        );
    }
    assert_eq!(back["fio version"], original["fio version"]);
    assert_eq!(back["jobs"][0]["jobname"], "x");
}

#[test]
fn imported_gobonniego_runs_give_the_files_figures() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let sample =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/gobonniego-1.0.10-runs2.json");
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sample).unwrap()).unwrap();
    let out = diskbench()
        .args(["import", "--label=provider=vm"])
        .arg(&sample)
        .args(db_arg(&db))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(
        stdout_of(&out).contains("as runs 1, 2"),
        "{}",
        stdout_of(&out)
    );
    assert!(
        stderr_of(&out).contains("page cache"),
        "{}",
        stderr_of(&out)
    );
    let runs = history_json(&db, &["--command", "import-gobonniego"]);
    assert_eq!(runs.len(), 2);
    for (run, want) in runs.iter().zip(original["results"].as_array().unwrap()) {
        for (got, key) in [
            ("iops", "iops"),
            ("read_mb_per_s", "read_megabytes_per_second"),
            ("write_mb_per_s", "write_megabytes_per_second"),
        ] {
            let (g, w) = (run[got].as_f64().unwrap(), want[key].as_f64().unwrap());
            assert!((g - w).abs() / w < 1e-6, "{key}: {g} vs {w}");
        }
        assert_eq!(run["labels"]["provider"], "vm");
    }
}

#[test]
fn a_file_that_is_neither_is_refused_and_nothing_is_imported() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let good =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/gobonniego-1.0.10-runs2.json");
    let bad = tmp.path().join("results.csv");
    std::fs::write(&bad, "iops,read\n1,2\n").unwrap();
    let out = diskbench()
        .arg("import")
        .arg(&good)
        .arg(&bad)
        .args(db_arg(&db))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(
        err.contains(&bad.display().to_string()) && err.contains("nothing was imported"),
        "{err}"
    );
    assert!(!db.exists(), "a refused import created the history");
}

/// Junk that looks like fio's or GoBonnieGo's output is refused, naming the
/// field and what is wrong with it, instead of becoming a run of 1970.
#[test]
fn junk_figures_and_missing_dates_are_refused_by_field() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let fio_dir = r#""read":{"io_bytes":4096,"total_ios":1,"runtime":1}"#;
    let cases = [
        (
            r#"{"fio version":"fio-3.33","jobs":[{"jobname":"x","read":{"iops":"abc"}}]}"#
                .to_string(),
            vec!["timestamp is missing", "1970-01-01"],
        ),
        (
            r#"{"fio version":"fio-3.33","timestamp":1700000000,"jobs":[{"jobname":"x","read":{"iops":"abc"}}]}"#
                .to_string(),
            vec!["jobs[0].read.iops is \"abc\" (a string), not a number"],
        ),
        (
            format!(r#"{{"fio version":"fio-3.33","timestamp":"soon","jobs":[{{"jobname":"x",{fio_dir}}}]}}"#),
            vec!["timestamp is \"soon\" (a string), not a number"],
        ),
        (
            format!(r#"{{"fio version":"fio-3.33","timestamp":1700000000,"jobs":[{{"jobname":"x",{fio_dir},"usr_cpu":-3}}]}}"#),
            vec!["jobs[0].usr_cpu is -3: a figure cannot be negative"],
        ),
        (
            r#"{"fio version":"fio-3.33","timestamp":1700000000,"jobs":[{"jobname":"x","read":{"iops":5}}]}"#
                .to_string(),
            vec!["jobs[0].read.io_bytes is missing"],
        ),
        (
            format!(r#"{{"fio version":"fio-3.33","timestamp":1700000000,"jobs":[{{{fio_dir}}}]}}"#),
            vec!["jobs[0].jobname is missing"],
        ),
        (
            r#"{"version":"1.0.10","results":[{"iops":5,"write_megabytes_per_second":1,"read_megabytes_per_second":1}]}"#
                .to_string(),
            vec!["start_time is missing", "1970-01-01"],
        ),
        (
            r#"{"start_time":"2026-11-22T02:07:58Z","results":[{"iops":"many","write_megabytes_per_second":1,"read_megabytes_per_second":1}]}"#
                .to_string(),
            vec!["results[0].iops is \"many\" (a string), not a number"],
        ),
    ];
    for (text, parts) in cases {
        let file = tmp.path().join("junk.json");
        std::fs::write(&file, &text).unwrap();
        let out = diskbench()
            .arg("import")
            .arg(&file)
            .args(db_arg(&db))
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{text}: {err}");
        for part in parts.iter().chain(&["junk.json", "nothing was imported"]) {
            assert!(
                err.contains(part),
                "{text}: {err:?} should contain {part:?}"
            );
        }
    }
    assert!(!db.exists(), "a refused import created the history");
}

/// The same result imported twice counted twice in every comparison. Now
/// the second import is refused with the id the run already has, nothing
/// is added, and `--again` keeps a copy on purpose.
#[test]
fn the_same_result_imported_twice_is_refused_with_its_id() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db_in(&tmp);
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/fio-3.33-randrw.json");
    let file = file.display().to_string();
    run_ok(&["import", &file], &db);
    let first = history_json(&db, &[]);
    assert_eq!(first.len(), 1);
    let id = first[0]["id"].as_i64().unwrap();
    let again = run_with(&["import", &file], &db);
    assert_eq!(again.status.code(), Some(2), "{}", stderr_of(&again));
    let err = stderr_of(&again);
    assert!(
        err.contains(&format!("imported before: its result is run {id} in")),
        "{err}"
    );
    assert!(err.contains("--again"), "{err}");
    assert_eq!(history_json(&db, &[]).len(), 1);
    // One file given twice on one command line is refused the same way.
    let other = tmp.path().join("other.sqlite3");
    let twice = run_with(&["import", &file, &file], &other);
    assert_eq!(twice.status.code(), Some(2), "{}", stderr_of(&twice));
    assert!(stderr_of(&twice).contains("holds the same result as"));
    run_ok(&["import", "--again", &file], &db);
    let runs = history_json(&db, &[]);
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["iops"], runs[1]["iops"]);
}
