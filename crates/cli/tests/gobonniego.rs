//! `diskbench gobonniego`: GoBonnieGo's flags, its text
//! lines and `-json` keys, the 90/10 IOPS mix from the counters, bad input
//! refused with exit 2, and no test file left behind, even on Ctrl-C.

mod common;
use common::*;
use std::path::Path;
use std::time::Duration;

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/gobonniego-1.0.10-runs2.json"
);

fn small(dir: &Path) -> Vec<String> {
    [
        "gobonniego",
        "-size",
        "0.01",
        "-threads",
        "2",
        "-iops-duration",
        "0.5",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain(["-dir".to_string(), dir.display().to_string()])
    .collect()
}

fn keys(v: &serde_json::Value) -> Vec<String> {
    let mut k: Vec<String> = v
        .as_object()
        .expect("an object")
        .keys()
        .filter(|k| *k != "diskbench")
        .cloned()
        .collect();
    k.sort();
    k
}

#[test]
fn text_lines_as_gobonniego_prints_them_and_nothing_left_behind() {
    let dir = real_dir();
    let out = diskbench().args(small(dir.path())).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    for (line, prefix) in lines.iter().zip([
        "Sequential Write MB/s: ",
        "Sequential Read MB/s: ",
        "IOPS: ",
    ]) {
        let value = line
            .strip_prefix(prefix)
            .unwrap_or_else(|| panic!("{line}"));
        assert!(value.parse::<f64>().unwrap() > 0.0, "{line}");
    }
    assert!(lines[0].split('.').nth(1).is_some_and(|d| d.len() == 2));
    assert!(
        !lines[2].contains('.'),
        "IOPS is a whole number: {}",
        lines[2]
    );
    let err = stderr_of(&out);
    assert!(err.contains("gobonniego starting."), "{err}");
    assert!(
        err.contains("drop_caches") || err.contains("posix_fadvise"),
        "says how the cache was dropped: {err}"
    );
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[test]
fn json_has_gobonniegos_keys_and_a_90_10_iops_mix() {
    let dir = real_dir();
    let out = diskbench()
        .args(small(dir.path()))
        .args(["-json", "-runs", "2"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let sample: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(SAMPLE).unwrap()).unwrap();
    assert_eq!(keys(&doc), keys(&sample));
    let runs = doc["results"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(doc["num_readers_and_writers"], 2);
    assert_eq!(doc["iops_duration_seconds"], 0.5);
    for r in runs {
        assert_eq!(keys(r), keys(&sample["results"][0]));
        assert_eq!(r["write_bytes"], 10 << 20);
        assert_eq!(r["read_bytes"], 10 << 20);
        let ops = r["io_operations"].as_u64().unwrap();
        let (reads, writes) = (
            r["diskbench"]["io_reads"].as_u64().unwrap(),
            r["diskbench"]["io_writes"].as_u64().unwrap(),
        );
        assert_eq!(reads + writes, ops);
        // Enough to see the mix; a loaded machine does fewer in its 0.5 s.
        assert!(ops >= 20, "{r}");
        // Operations 0, 10, 20, ... of each thread write: ceil(n/10) per thread.
        let excess = 10 * writes - ops;
        assert!(excess <= 9 * 2, "{writes} writes in {ops} operations");
        let method = r["diskbench"]["cache_drop_before_read"].as_str().unwrap();
        assert!(["drop_caches", "fadvise"].contains(&method), "{method}");
        if is_root() {
            assert_eq!(method, "drop_caches");
        }
        let iops = r["io_operations"].as_f64().unwrap() / r["io_seconds"].as_f64().unwrap();
        assert!((iops - r["iops"].as_f64().unwrap()).abs() < 1e-6);
    }
    assert!(doc.get("error").is_none());
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn its_json_imports_as_gobonniegos() {
    let dir = real_dir();
    let out = diskbench()
        .args(small(dir.path()))
        .arg("--json")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let file = dir.path().join("gbg.json");
    std::fs::write(&file, &out.stdout).unwrap();
    let imported = diskbench()
        .arg("import")
        .arg(&file)
        .arg("--db")
        .arg(dir.path().join("h.sqlite3"))
        .output()
        .unwrap();
    assert!(imported.status.success(), "{}", stderr_of(&imported));
    assert!(String::from_utf8_lossy(&imported.stdout).contains("gobonniego-1.0.10+diskbench"));
}

#[test]
fn bad_input_is_a_usage_error_with_a_message() {
    let dir = real_dir();
    let d = dir.path().display().to_string();
    let cases: [(&[&str], &str); 8] = [
        (&["-bogus"], "not defined: -bogus"),
        (&["-size", "abc"], "\"abc\" for flag -size"),
        (&["-size", "0"], "-size 0"),
        (&["-threads", "0"], "-threads 0"),
        (&["-threads", "two"], "-threads"),
        (&["-size", "100000", "-dir", &d], "free"),
        (&["-dir", "/nonexistent/deeper"], "does not exist"),
        (&["-runs"], "needs an argument"),
    ];
    for (args, want) in cases {
        let out = diskbench().arg("gobonniego").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr_of(&out));
        let err = stderr_of(&out);
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let out = diskbench()
        .args(["gobonniego", "-json", "-size", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(json_of(&out)["error"].as_str().unwrap().contains("-size"));
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn help_and_version() {
    let out = diskbench().args(["gobonniego", "-h"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "-dir",
        "-size",
        "-runs",
        "-seconds",
        "-threads",
        "-iops-duration",
        "-json",
        "-v",
    ] {
        assert!(text.contains(flag), "{flag}: {text}");
    }
    let out = diskbench()
        .args(["gobonniego", "--version"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("gobonniego version 1.0.10+"));
}

#[test]
fn ctrl_c_removes_the_files_and_exits_130() {
    let dir = real_dir();
    let args = small(dir.path())
        .into_iter()
        .chain(["-iops-duration", "60", "-json"].map(String::from));
    let (out, _) = interrupt(args, Duration::from_millis(1500), &["INT"]);
    assert_eq!(out.status.code(), Some(130), "{}", stderr_of(&out));
    let doc = json_of(&out);
    assert!(doc["error"].as_str().unwrap().contains("interrupted"));
    // The signal ended the run inside it, before its 60 s IOPS test: a run
    // that went on to the end would be in `results`.
    assert_eq!(doc["results"].as_array().map(Vec::len), Some(0), "{doc}");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

/// The small run of [`small`] without `-dir`, started in `cwd`, with `-v`.
fn small_in_cwd(cwd: &Path) -> std::process::Output {
    let args: Vec<String> = small(cwd)
        .into_iter()
        .take_while(|a| a != "-dir")
        .chain(["-v".to_string()])
        .collect();
    diskbench().current_dir(cwd).args(args).output().unwrap()
}

#[test]
fn without_dir_it_measures_the_current_directory() {
    let dir = real_dir();
    let out = small_in_cwd(dir.path());
    assert!(out.status.success(), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    let working = err
        .lines()
        .find_map(|l| l.split_once("Bonnie working directory: ").map(|(_, d)| d))
        .unwrap_or_else(|| panic!("-v names the working directory: {err}"));
    let parent = dir.path().join(working).parent().unwrap().to_path_buf();
    assert_eq!(
        parent.canonicalize().unwrap(),
        dir.path().canonicalize().unwrap(),
        "the test directory goes in the current one: {working}"
    );
    let help = diskbench().args(["gobonniego", "-h"]).output().unwrap();
    assert!(
        stdout_of(&help).contains("(default \".\")"),
        "{}",
        stdout_of(&help)
    );
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[test]
fn it_says_what_it_does_to_the_page_cache_once_before_dropping_it() {
    let dir = real_dir();
    let out = diskbench()
        .args(small(dir.path()))
        .args(["-runs", "2"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    let notice = "before each read and IOPS test";
    assert_eq!(err.matches(notice).count(), 1, "said once: {err}");
    let said = err.find(notice).unwrap();
    let dropped = err.find("Cache before the read test").expect("a drop");
    assert!(said < dropped, "said before the first drop: {err}");
    let host_wide = std::fs::OpenOptions::new()
        .write(true)
        .open("/proc/sys/vm/drop_caches")
        .is_ok();
    let line = err.lines().find(|l| l.contains(notice)).unwrap();
    match host_wide {
        true => assert!(
            line.contains("WHOLE HOST") && line.contains("root"),
            "{line}"
        ),
        false => assert!(
            line.contains("needs root") && line.contains("not done"),
            "{line}"
        ),
    }
}

/// As root GoBonnieGo drops the whole host's page cache before its read and
/// IOPS tests; `-no-drop-caches` keeps other programs' cached files: only
/// the test files' pages are dropped, and the notice says so first.
#[test]
fn no_drop_caches_drops_only_the_test_files_pages() {
    let dir = real_dir();
    let out = diskbench()
        .args(small(dir.path()))
        .args(["-json", "-no-drop-caches", "--no-save"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.contains("the whole host's page cache is left alone (-no-drop-caches)"),
        "{err}"
    );
    let doc = json_of(&out);
    for r in doc["results"].as_array().unwrap() {
        for key in ["cache_drop_before_read", "cache_drop_before_iops"] {
            assert_eq!(r["diskbench"][key], "fadvise", "{key}: {r}");
        }
    }
    assert!(entries(dir.path()).is_empty());
}
