//! What a new user types first, wrong as often as right: each mistake is a
//! usage error (exit 2) that says in diskbench's words what was wrong and
//! what to type instead, never a message from the parser's internals.

mod common;
use common::*;

/// Saves a null-engine run in `db`, so the history commands have one to read.
fn save_one(db: &std::path::Path) {
    let out = diskbench()
        .args(["fio", "--name=t", "--ioengine=null", "--size=4m"])
        .arg(format!("--db={}", db.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
}

/// `show abc` used to answer "invalid digit found in string".
#[test]
fn a_run_id_that_is_not_a_number_names_where_ids_come_from() {
    let dir = real_dir();
    let db = dir.path().join("h.sqlite3");
    save_one(&db);
    let cases: [&[&str]; 6] = [
        &["show", "abc"],
        &["show", "0"],
        &["rm", "1", "x"],
        &["export", "1.5"],
        &["compare", "last"],
        &["report", "-o", "r.html", "first"],
    ];
    for args in cases {
        let out = diskbench()
            .args(args)
            .arg(format!("--db={}", db.display()))
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("is not a run id"), "{args:?}: {err}");
        assert!(err.contains("diskbench history"), "{args:?}: {err}");
        assert!(!err.contains("invalid digit"), "{args:?}: {err}");
    }
}

/// `report -o` or `chart -o` into a directory that is not there (or onto a
/// directory) is the user's to fix: exit 2 naming it, not an I/O error.
#[test]
fn an_output_in_a_missing_directory_is_a_usage_error() {
    let dir = real_dir();
    let db = dir.path().join("h.sqlite3");
    save_one(&db);
    let missing = dir.path().join("no/such/dir/r.html");
    let here = dir.path().display().to_string();
    let cases: [(Vec<String>, &str); 3] = [
        (
            vec!["report".into(), "-o".into(), missing.display().to_string()],
            "does not exist: create it or choose another -o",
        ),
        (
            vec![
                "chart".into(),
                "-o".into(),
                missing.with_extension("svg").display().to_string(),
            ],
            "does not exist: create it or choose another -o",
        ),
        (
            vec!["report".into(), "-o".into(), here.clone()],
            "is a directory: give a file name, e.g. -o",
        ),
    ];
    for (args, expected) in cases {
        let out = diskbench()
            .args(&args)
            .arg(format!("--db={}", db.display()))
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
    }
    assert!(!dir.path().join("no").exists());
}

/// A negative price was taken for a flag, and clap's tip (`-- -1`) would
/// have made it the directory to measure: it is refused as a price instead.
#[test]
fn a_negative_price_is_refused_as_a_price() {
    for flag in [
        "--price-gib-month",
        "--price-per-million-ios",
        "--price-month",
    ] {
        let out = diskbench()
            .args(["run", "--no-save", flag, "-1"])
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
        assert!(
            err.contains("'-1' is not a price: use a number of at least 0"),
            "{flag}: {err}"
        );
        assert!(!err.contains("-- -1"), "{flag}: {err}");
    }
}

/// `compare --help` says what each --format is for, not only its name.
#[test]
fn compare_help_explains_each_format() {
    let out = diskbench().args(["compare", "--help"]).output().unwrap();
    let help = stdout_of(&out);
    for line in [
        "- table:",
        "- markdown:",
        "- csv:",
        "- json:",
        "blog posts",
        "95% interval",
    ] {
        assert!(help.contains(line), "{line:?} in {help}");
    }
}

/// A directory this user may not write in is the user's to fix, as a
/// read-only mount is: every command that makes test files there exits 2 (`fio` 1, as fio exits)
/// naming it, before describing the target (`run` used to print the
/// target's facts, then fail with exit 1; `meta` alone said 2).
#[test]
fn a_directory_the_user_cannot_write_is_a_usage_error_for_every_command() {
    use std::os::unix::fs::PermissionsExt;
    use std::process::Command as StdCommand;
    let bin = assert_cmd::cargo::cargo_bin("diskbench");
    // Root may write anywhere: run as nobody (65534) through setpriv.
    let as_user = |args: &[&str]| -> std::process::Output {
        let mut cmd = match is_root() {
            true => {
                let mut c = StdCommand::new("setpriv");
                c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                    .arg(&bin);
                c
            }
            false => StdCommand::new(&bin),
        };
        cmd.args(args)
            .env("DISKBENCH_DB", "/nonexistent/history.sqlite3");
        cmd.output().expect("diskbench runs")
    };
    if is_root() && StdCommand::new("setpriv").arg("--help").output().is_err() {
        testbed::skip("needs setpriv (util-linux) to run as an unprivileged user");
        return;
    }
    let dir = real_dir();
    let shut = dir.path().join("shut");
    std::fs::create_dir(&shut).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&shut, std::fs::Permissions::from_mode(0o555)).unwrap();
    let d = shut.to_str().unwrap();
    let directory = format!("--directory={d}");
    let cases: [&[&str]; 6] = [
        &["run", "--no-save", "--size", "1m", "--runtime", "1", d],
        &["fio", "--no-save", "--name=t", "--size=64k", &directory],
        &["ping", "-c", "1", d],
        &["meta", "-n", "1", d],
        &["fileserver", "-t", "1", d],
        &["gobonniego", "-dir", d, "-size", "0.001"],
    ];
    for args in cases {
        let out = as_user(args);
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), refused_code(args[0]), "{args:?}: {err}");
        assert!(
            err.contains("is not writable by this user") && err.contains("choose a directory"),
            "{args:?}: {err}"
        );
        assert!(
            !stdout_of(&out).contains("Filesystem"),
            "{args:?}: described first"
        );
    }
    assert!(entries(&shut).is_empty());
}

/// `import` says "1 job" and "2 runs", not "1 job(s)".
#[test]
fn import_counts_in_words() {
    let dir = real_dir();
    let db = dir.path().join("h.sqlite3");
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let out = diskbench()
        .arg("import")
        .arg(fixtures.join("fio-3.33-randrw.json"))
        .arg(fixtures.join("gobonniego-1.0.10-runs2.json"))
        .arg(format!("--db={}", db.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    assert!(text.contains("(fio-3.33, 1 job) as run 1 in"), "{text}");
    assert!(
        text.contains("(gobonniego-1.0.10, 2 runs) as runs 2, 3 in"),
        "{text}"
    );
    assert!(!text.contains("(s)"), "{text}");
}
