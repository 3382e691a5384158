//! A run's warnings and checks are part of what it measured: a figure read
//! without them can mislead. So the history keeps every one of them, and
//! they come back with the run: from `run`'s own checks (a test too short
//! to trust) to `export`, through fio's JSON and `import` into another
//! history, and as a mark on the run in `history` and `compare`.

mod common;
mod history_util;
use common::*;
use history_util::*;
use serde_json::Value;

/// The kinds of the warnings of run `id` as the history keeps them.
fn kept_kinds(db: &std::path::Path, id: &str) -> Vec<String> {
    let record = json_of(&run_ok(&["export", id], db));
    record["result"]["warnings"]
        .as_array()
        .unwrap_or_else(|| panic!("no warnings list in {record}"))
        .iter()
        .map(|w| w["kind"].as_str().unwrap().to_string())
        .collect()
}

/// A buffered 1 MiB job warns that the page cache can hold it.
fn warned_fio_run(db: &std::path::Path, dir: &std::path::Path) {
    let file = dir.join("f").display().to_string();
    let out = diskbench()
        .args(["fio", "--name=small", "--rw=read", "--bs=4k", "--size=1M"])
        .arg(format!("--filename={file}"))
        .args(db_arg(db))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
}

#[test]
fn warnings_survive_fio_json_export_and_import() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = real_dir();
    let db = db_in(&tmp);
    warned_fio_run(&db, dir.path());
    let before = kept_kinds(&db, "1");
    assert!(
        before.iter().any(|k| k == "data_set_fits_in_cache"),
        "{before:?}"
    );
    let doc = stdout_of(&run_ok(&["export", "1", "--format", "fio-json"], &db));
    let file = tmp.path().join("run.json");
    std::fs::write(&file, doc).unwrap();
    let other = tmp.path().join("other.sqlite3");
    run_ok(&["import", &file.display().to_string()], &other);
    assert_eq!(kept_kinds(&other, "1"), before);
    // history marks the run beside its status, and its JSON lists them.
    let listed = stdout_of(&run_ok(&["history"], &other));
    let mark = format!("ok, {} warning", before.len());
    assert!(listed.contains(&mark), "{listed}");
    let rows = history_json(&other, &[]);
    assert_eq!(rows[0]["warnings"].as_array().unwrap().len(), before.len());
    // show says them again, as the run printed them.
    let shown = stderr_of(&run_ok(&["show", "1"], &other));
    assert!(
        shown.contains("warning: job 'small': buffered I/O"),
        "{shown}"
    );
}

#[test]
fn runs_own_checks_are_kept_with_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = real_dir();
    let db = db_in(&tmp);
    let out = diskbench()
        .args(["run", "--size", "16m", "--runtime", "300ms", "--ramp", "0"])
        .args(["--explain"])
        .args(db_arg(&db))
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let said = stderr_of(&out);
    assert!(said.contains("too short to trust"), "{said}");
    let record = json_of(&run_ok(&["export", "1"], &db));
    let checks: Vec<&Value> = record["result"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == "check")
        .collect();
    // show says the checks again as the run said them: each kind once.
    let shown = stderr_of(&run_ok(&["show", "1"], &db));
    let lines = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("check: "))
            .map(String::from)
            .collect()
    };
    assert!(!lines(&said).is_empty(), "{said}");
    assert_eq!(
        lines(&shown),
        lines(&said),
        "shown:\n{shown}\nsaid:\n{said}"
    );
    // Each test's check is kept whole, and --explain printed it.
    let short: Vec<&&Value> = checks.iter().filter(|w| w["name"] == "too-short").collect();
    assert_eq!(short.len(), 7, "{checks:?}");
    for check in short {
        let text = check["text"].as_str().unwrap();
        let job = check["job"].as_str().unwrap();
        assert!(text.starts_with(&format!("job '{job}': ")), "{text}");
        assert!(
            said.contains(&format!("  {text}\n")),
            "kept {text:?}, printed {said}"
        );
    }
}
