//! `diskbench import` (issue 4, part 3): fio's JSON made by fio in the test
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
        eprintln!("skipped: fio is not installed");
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
    assert!(history_json(&db, &[]).is_empty());
}
