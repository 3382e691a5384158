//! Issue 5: named profiles for `diskbench run --profile NAME`, listed by
//! `diskbench profiles`; each is data (tests in fio's form, then steps that
//! are other diskbench commands) and takes --size and --runtime.

mod common;
use common::*;

fn run(dir: &std::path::Path, extra: &[&str]) -> std::process::Output {
    diskbench()
        .arg("run")
        .arg(dir)
        .args(["--no-save", "--quick", "--engine", "null", "--size", "16m"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn profiles_lists_every_profile_with_its_origin() {
    let out = diskbench().arg("profiles").output().unwrap();
    assert!(out.status.success());
    let text = stdout_of(&out);
    for name in [
        "default",
        "gobonniego",
        "mysql-16k",
        "ebs-4k",
        "vps-4k",
        "bonnie",
        "crystal",
    ] {
        assert!(text.lines().any(|l| l.starts_with(name)), "{name}: {text}");
    }
    assert!(
        text.contains("seed 001") && text.contains("CrystalDiskMark"),
        "{text}"
    );
}

#[test]
fn crystal_runs_its_eight_tests_and_shrinks_with_size_and_runtime() {
    let dir = real_dir();
    let out = run(
        dir.path(),
        &["--profile", "crystal", "--runtime", "300ms", "--json"],
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let names = job_names(&doc);
    assert_eq!(names.len(), 8, "{names:?}");
    assert_eq!(names[0], "SEQ1M-Q8T1-read");
    assert_eq!(doc["jobs"][0]["job options"]["iodepth"], "8");
    assert_eq!(doc["jobs"][0]["job options"]["size"], "16m");
    let ms = doc["jobs"][7]["job_runtime"].as_u64().unwrap();
    assert!((250..1000).contains(&ms), "--runtime 300ms: {ms} ms");
}

#[test]
fn bonnie_runs_its_tests_then_the_metadata_step() {
    let dir = real_dir();
    let out = run(dir.path(), &["--profile", "bonnie", "--runtime", "300ms"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    for part in [
        "block-write",
        "random-seeks",
        "$ diskbench meta -n 16",
        "Create",
    ] {
        assert!(text.contains(part), "{part}: {text}");
    }
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[test]
fn the_gobonniego_profile_gets_size_in_gib_and_runtime_as_its_iops_duration() {
    let dir = real_dir();
    let out = diskbench()
        .arg("run")
        .arg(dir.path())
        .args([
            "--no-save",
            "--profile",
            "gobonniego",
            "--size",
            "32m",
            "--runtime",
            "1",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    assert!(text.contains("-size 0.03125 -iops-duration 1"), "{text}");
    assert!(text.contains("Sequential Write MB/s:"), "{text}");
}

#[test]
fn bad_profiles_are_usage_errors() {
    let dir = real_dir();
    let out = run(dir.path(), &["--profile", "ssd"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("crystal"), "{}", stderr_of(&out));
    let out = run(dir.path(), &["--profile", "vps-4k", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("ping"), "{}", stderr_of(&out));
}
