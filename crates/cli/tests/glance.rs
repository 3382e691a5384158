//! Output read at a glance: `diskbench` alone says where to start, and a
//! quick `run` says each of its warnings and checks once, on a short line,
//! instead of one long line per test repeating the same explanation.

mod common;
use common::*;

/// `diskbench` alone prints a start page: the three commands most people
/// need, one line each, and where the help is; it is not an error.
#[test]
fn diskbench_alone_says_where_to_start() {
    let out = diskbench().output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    for command in ["diskbench run", "diskbench fio", "diskbench compare"] {
        let lines = text.lines().filter(|l| l.trim_start().starts_with(command));
        assert_eq!(lines.count(), 1, "{command}: {text}");
    }
    assert!(text.contains("diskbench --help"), "{text}");
    assert!(text.lines().count() <= 12, "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
    assert_eq!(stderr_of(&out), "");
}

/// `run --quick --size 256m` on a real directory: at most 6 lines on
/// stderr, none over 200 characters; no explanation said twice; a quick
/// run's "too short" is said once on stdout, beside the headline, not on
/// stderr; `--explain` adds each test's whole text.
#[test]
fn a_quick_run_says_each_thing_once_on_a_few_short_lines() {
    let dir = real_dir();
    let out = diskbench()
        .args(["run", "--quick", "--size", "256m", "--no-save"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.lines().count() <= 6,
        "{} lines:\n{err}",
        err.lines().count()
    );
    for line in err.lines() {
        assert!(line.chars().count() <= 200, "{} chars: {line}", line.len());
    }
    assert!(!err.contains("too short"), "{err}");
    for said in [
        "a cache may answer for the disk",
        "was shared",
        "faster than",
    ] {
        assert!(err.matches(said).count() <= 1, "{said} twice:\n{err}");
    }
    let text = stdout_of(&out);
    let quick: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("Quick figures:"))
        .collect();
    assert_eq!(quick.len(), 1, "{text}");
    assert!(
        quick[0].contains("all 7 tests measured 1.2 s each"),
        "{text}"
    );
    // "How precise" says what its slices are once, not per figure.
    assert_eq!(text.matches("measure longer").count(), 1, "{text}");
}

/// The commands that check their figures take `--explain`, for each
/// test's whole text under each line.
#[test]
fn the_commands_with_checks_take_explain() {
    for command in ["run", "sweep", "limit"] {
        let out = diskbench().args([command, "--help"]).output().unwrap();
        let help = stdout_of(&out);
        assert!(help.contains("--explain"), "{command}: {help}");
    }
}

/// A sweep says a warning at the first point it fires on, not at every
/// point, and the pointer to `--explain` once: each point's warnings are
/// still kept with its run.
#[test]
fn a_sweep_says_each_warning_once_not_at_every_point() {
    let dir = real_dir();
    let out = diskbench()
        .args([
            "sweep",
            "--qd",
            "1,2,4",
            "--runtime",
            "100ms",
            "--ramp",
            "0s",
        ])
        .args(["--size", "16m", "--no-save"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    // 100 ms points are too short at every one of the three.
    assert_eq!(err.matches("measured for only").count(), 1, "{err}");
    assert!(err.matches("--explain says").count() <= 1, "{err}");
}
