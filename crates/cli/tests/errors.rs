//! Failures end to end, with the real binary: the exit code, the message on
//! stderr and the JSON error object all come from one value, so they agree.
//! The JSON keeps `error` (the message, as before) and adds the failure
//! object (`diskbench.failure` in fio's JSON, `failure` in the other
//! commands' documents, and `jobs[].diskbench.failure` for a failed job)
//! with its kind and, when known, the job, operation, path, offset, length
//! and errno.

mod common;
use common::*;
use serde_json::{json, Value};

/// The message after `prefix` on stderr (the line the user reads).
fn stderr_message(err: &str, prefix: &str) -> String {
    err.lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no '{prefix}' line in {err}"))
        .to_string()
}

/// An injected I/O error: exit 1, and the failure keeps the errno, the
/// operation, the file and the offset the message names.
#[test]
fn an_injected_io_error_keeps_its_errno_offset_and_file() {
    let cases = [
        ("eio@read:5", "randread", "read", 5),
        ("enospc@write:3", "randwrite", "write", 28),
        ("erofs@write:2", "randwrite", "write", 30),
    ];
    for (fault, rw, op, errno) in cases {
        let dir = real_dir();
        let out = diskbench()
            .args(["fio", "--no-save", "--output-format=json"])
            .arg(format!("--directory={}", dir.path().display()))
            .args(["--size=4m", "--bs=4k", "--direct=1"])
            .arg(format!("--inject-fault={fault}"))
            .args(["--name=j", &format!("--rw={rw}")])
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(1), "{fault}: {err}");
        let doc = json_of(&out);
        let message = stderr_message(&err, "diskbench: ");
        assert_eq!(doc["error"], message.as_str(), "{fault}");
        let f = &doc["diskbench"]["failure"];
        assert_eq!(f["message"], message.as_str(), "{fault}");
        assert_eq!(f["kind"], "runtime", "{fault}: {f}");
        assert_eq!(f["errno"], errno, "{fault}: {f}");
        assert_eq!(
            (&f["job"], &f["op"], &f["len"]),
            (&json!("j"), &json!(op), &json!(4096))
        );
        let offset = f["offset"].as_u64().unwrap_or_else(|| panic!("{f}"));
        let path = f["path"].as_str().unwrap_or_else(|| panic!("{f}"));
        assert!(
            path.starts_with(&dir.path().display().to_string()),
            "{path}"
        );
        assert_eq!(offset % 4096, 0, "{f}");
        assert!(
            message.contains(&format!(
                "{op} of 4096 bytes at offset {offset} in {path}: "
            )),
            "{message}"
        );
        assert!(
            message.ends_with(&format!("(os error {errno})")),
            "{message}"
        );
        assert_eq!(doc["jobs"][0]["error"], 1, "{fault}");
        // The job's own entry carries the same failure object.
        let job = &doc["jobs"][0]["diskbench"];
        assert_eq!(job["error"], message.as_str());
        assert_eq!(&job["failure"], f, "{fault}");
    }
}

/// A directory that does not exist: exit 1 for `fio` (as fio exits), 2 for the others; the failure names the path and
/// ENOENT, for `fio` and for the commands with their own JSON documents.
#[test]
fn a_missing_directory_is_a_usage_failure_naming_the_path() {
    let missing = real_dir().path().join("not-there");
    let shown = missing.display().to_string();
    let directory = format!("--directory={shown}");
    let fio = [
        "fio",
        "--no-save",
        "--output-format=json",
        &directory,
        "--name=r",
        "--rw=read",
        "--size=1m",
    ];
    let run = ["run", "--json", "--no-save", &shown];
    let meta = ["meta", "--json", "-n", "1", &shown];
    // fio and run keep fio's JSON shape; meta has its own document.
    for (args, prefix, failure_at) in [
        (&fio[..], "diskbench: ", "/diskbench/failure"),
        (&run[..], "diskbench run: ", "/diskbench/failure"),
        (&meta[..], "diskbench meta: ", "/failure"),
    ] {
        let out = diskbench().args(args).output().unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), refused_code(args[0]), "{args:?}: {err}");
        let doc = json_of(&out);
        let message = stderr_message(&err, prefix);
        assert!(message.contains("does not exist"), "{message}");
        assert_eq!(doc["error"], message.as_str());
        let f = &doc
            .pointer(failure_at)
            .unwrap_or_else(|| panic!("no {failure_at} in {doc}"));
        assert_eq!(
            (&f["kind"], &f["path"]),
            (&json!("usage"), &json!(shown)),
            "{args:?}: {f}"
        );
        if failure_at != "/failure" {
            assert_eq!(f["errno"], json!(2), "{args:?}: {f}");
        }
    }
}

/// Bad options, refused before anything ran: exit 1 (as fio exits), and the JSON is one
/// document whose failure says `usage` with the message stderr has.
#[test]
fn a_parse_error_is_a_usage_failure_in_the_json_too() {
    let out = diskbench()
        .args(["fio", "--no-save", "--output-format=json"])
        .args(["--name=x", "--rw=read", "--no_such_option=1"])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let doc = json_of(&out);
    let message = stderr_message(&err, "diskbench fio: ");
    assert_eq!(doc["error"], message.as_str());
    assert_eq!(
        doc["diskbench"]["failure"],
        json!({"kind": "usage", "message": message})
    );
    assert_eq!(doc["jobs"], json!([]));
}

/// A value clap refuses (`run --bs 3x`) is still one JSON document on
/// stdout with `--json`, and the usual message and exit 2 without it.
#[test]
fn a_refused_run_option_is_a_usage_failure_in_the_json_too() {
    let dir = real_dir();
    let out = diskbench()
        .args(["run", "--json", "--no-save", "--bs", "3x"])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let doc = json_of(&out);
    let message = stderr_message(&err, "error: ");
    assert!(message.contains("'3x'"), "{message}");
    assert_eq!(
        doc["diskbench"]["failure"],
        json!({"kind": "usage", "message": message})
    );
    assert_eq!(doc["jobs"], json!([]));

    let out = diskbench()
        .args(["run", "--no-save", "--bs", "3x"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Interrupted: 128 for SIGINT and SIGTERM, as fio exits, and the failure's kind
/// says `interrupted` beside fio's `partial`.
#[test]
fn an_interrupted_run_says_so_in_the_failure() {
    let dir = real_dir();
    for (signal, code) in [("INT", 128), ("TERM", 128)] {
        let args = [
            "fio".to_string(),
            "--no-save".into(),
            "--output-format=json".into(),
            format!("--directory={}", dir.path().display()),
            "--name=r".into(),
            "--rw=randread".into(),
            "--size=4m".into(),
            "--runtime=30".into(),
            "--time_based".into(),
        ];
        let (out, _) = interrupt(args, std::time::Duration::from_millis(1500), &[signal]);
        assert_eq!(out.status.code(), Some(code), "{}", stderr_of(&out));
        let doc: Value = json_of(&out);
        assert_eq!(doc["partial"], true);
        assert_eq!(doc["error"], "interrupted");
        assert_eq!(
            doc["diskbench"]["failure"],
            json!({"kind": "interrupted", "message": "interrupted"})
        );
    }
}
