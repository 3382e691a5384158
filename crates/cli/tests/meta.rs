//! `diskbench meta` (bonnie++ -n) from the command line:
//! every phase touches exactly NUM×1024 files (also with --threads), the
//! JSON names the six phases in order, the CSV line has bonnie++'s 50
//! fields, no file is left behind, and bad input exits 2 with the fix.

mod common;
use common::*;
use std::time::Duration;

const PHASES: [&str; 6] = [
    "sequential_create",
    "sequential_stat",
    "sequential_delete",
    "random_create",
    "random_stat",
    "random_delete",
];

fn meta_json(args: &[&str]) -> (serde_json::Value, tempfile::TempDir) {
    let dir = real_dir();
    let out = diskbench()
        .arg("meta")
        .args(args)
        .arg("--json")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", stderr_of(&out));
    assert!(entries(dir.path()).is_empty(), "{args:?} left files behind");
    (json_of(&out), dir)
}

fn check_phases(doc: &serde_json::Value, files: u64) {
    let phases = doc["phases"].as_array().unwrap();
    let names: Vec<_> = phases.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, PHASES);
    for p in phases {
        assert_eq!(p["files"], files, "{p}");
        assert_eq!(p["operations"], files, "{p}");
        assert!(p["files_per_sec"].as_f64().unwrap() > 0.0, "{p}");
        let lat = &p["latency_ns"];
        let keys = ["min", "p50", "p90", "p99", "p99.9", "max"];
        let values: Vec<u64> = keys.iter().map(|k| lat[k].as_u64().unwrap()).collect();
        assert!(values.windows(2).all(|w| w[0] <= w[1]), "{lat}");
        assert!(values[0] > 0, "{lat}");
    }
}

#[test]
fn meta_json_names_six_phases_each_touching_num_x_1024_files() {
    let (doc, _dir) = meta_json(&["-n", "1"]);
    assert_eq!(doc["files"], 1024);
    check_phases(&doc, 1024);
    assert_eq!(doc["phases"][0]["bytes"], 0, "default files are empty");
}

#[test]
fn meta_sizes_and_dirs_reach_the_result() {
    let (doc, _dir) = meta_json(&["-n", "1:2k:512:5"]);
    check_phases(&doc, 1024);
    assert_eq!(
        (doc["dirs"].as_u64(), doc["max_size_bytes"].as_u64()),
        (Some(5), Some(2048))
    );
    let written = doc["phases"][0]["bytes"].as_u64().unwrap();
    assert!((512 * 1024..=2048 * 1024).contains(&written), "{written}");
    assert_eq!(
        doc["phases"][1]["bytes"], written,
        "stat reads every byte back"
    );
}

#[test]
fn meta_threads_touch_num_x_1024_files_in_total() {
    for n in ["1", "1:100:0:4"] {
        let (doc, _dir) = meta_json(&["-n", n, "--threads", "2"]);
        assert_eq!(doc["threads"], 2);
        check_phases(&doc, 1024);
    }
}

#[test]
fn meta_text_shows_the_bonnie_block_and_csv_has_its_fields() {
    let dir = real_dir();
    let out = diskbench()
        .args(["meta", "-n", "1:1k:0:2", "-m", "box"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("------Sequential Create------ --------Random Create--------"));
    assert!(text.contains("box "), "{text}");
    assert!(text.contains("files:max "), "{text}");
    assert!(text.contains("  1:1024:0/2 "), "{text}");
    for name in PHASES {
        assert!(text.contains(name), "{text}");
    }
    // diskbench's own phase table writes times as everywhere else, with a
    // space before the unit (bonnie++'s block above keeps its `9395us`).
    let table = &text[text.find("\nphase ").expect("the phase table")..];
    for row in table
        .lines()
        .filter(|l| PHASES.iter().any(|p| l.starts_with(p)))
    {
        let glued = row
            .split_whitespace()
            .find(|w| w.starts_with(|c: char| c.is_ascii_digit()) && w.ends_with('s'));
        assert_eq!(glued, None, "a unit glued to its number in {row:?}");
        assert!(row.contains(" us ") || row.contains(" ms "), "{row}");
    }
    let out = diskbench()
        .args(["meta", "-n", "1:1k:0:2", "-m", "box", "-z", "7", "--csv"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let line = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let f: Vec<&str> = line.split(',').collect();
    assert_eq!(f.len(), 50, "{line}");
    assert_eq!(&f[..5], ["1.98", "2.00a", "box", "1", "7"]);
    assert_eq!(&f[21..26], ["1", "1024", "", "", "2"]);
    assert!(f[26..38].iter().all(|v| !v.is_empty()), "{line}");
    assert!(
        f[44..50]
            .iter()
            .all(|v| v.ends_with("us") || v.ends_with('s')),
        "{line}"
    );
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn meta_bad_input_exits_2_naming_the_fix() {
    let dir = real_dir();
    let missing = dir.path().join("missing");
    let missing = missing.to_str().unwrap();
    let here = dir.path().to_str().unwrap();
    for (args, says) in [
        (vec!["-n", "0", here], "NUM 0"),
        (vec!["-n", "abc", here], "not a whole number"),
        (
            vec!["-n", "1:10:100", here],
            "MIN (100) is larger than MAX (10)",
        ),
        (vec!["-n", "1:0:0:0", here], "DIRS must be 1 to"),
        (vec!["-n", "1", missing], "does not exist"),
        (vec!["-n", "1024:1t", here], "free"),
        (vec!["-n", "1", "--threads", "0", here], "--threads 0"),
    ] {
        let out = diskbench().arg("meta").args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr_of(&out));
        assert!(
            stderr_of(&out).contains(says),
            "{args:?}: {}",
            stderr_of(&out)
        );
        assert!(!stderr_of(&out).contains("panicked"), "{args:?}");
        let out = diskbench()
            .arg("meta")
            .args(&args)
            .arg("--json")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?} --json");
        assert!(json_of(&out)["error"].as_str().unwrap().contains(says));
    }
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn meta_interrupt_keeps_finished_phases_and_removes_files() {
    let dir = real_dir();
    let target = dir.path().display().to_string();
    let (out, _) = interrupt(
        ["meta", "-n", "512", "--json", &target],
        Duration::from_millis(700),
        &["INT"],
    );
    assert_eq!(out.status.code(), Some(130), "{}", stderr_of(&out));
    let doc = json_of(&out);
    assert!(doc["error"].is_string(), "{doc}");
    // The run stopped inside its phases (half a million files each), not
    // after them: fewer than the six phases are reported.
    assert!(doc["phases"].as_array().unwrap().len() < 6, "{doc}");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

/// `--runtime` says the time to expect before anything starts: six phases
/// of the time each, and the most the run may take with its files put back
/// between passes (1.5 times: `meta -n 4 --runtime 1s` took 11.9 s when a
/// phase could take three).
#[test]
fn meta_runtime_says_the_expected_time_first() {
    let dir = real_dir();
    let out = diskbench()
        .args(["meta", "--files", "64", "--runtime", "500ms", "--no-save"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    let said = err
        .find(
            "diskbench meta: expected time: about 3 s (6 phases of 0.5 s; putting the files back \
             between passes included, over by 4.5 s)",
        )
        .unwrap_or_else(|| panic!("no expected time: {err}"));
    assert_eq!(
        said,
        err.find("diskbench meta").unwrap(),
        "said first: {err}"
    );
}
