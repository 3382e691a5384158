//! Named profiles for `diskbench run --profile NAME`, listed by
//! `diskbench profiles`; each is data (tests in fio's form, then steps that
//! are other diskbench commands) and takes --size and --runtime.

mod common;
mod history_util;
use common::*;
use history_util::{history_json, run_ok};

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
        text.contains("Adventures in Storageland") && text.contains("CrystalDiskMark"),
        "{text}"
    );
}

#[test]
fn crystal_runs_its_eight_tests_and_shrinks_with_size_and_runtime() {
    let dir = real_dir();
    let out = run(
        dir.path(),
        &[
            "--profile",
            "crystal",
            "--runtime",
            "300ms",
            "--passes",
            "1",
            "--json",
        ],
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

/// The profiles as data, read from the source they are built from.
const PROFILE_FILES: [(&str, &str); 7] = [
    (
        "default",
        include_str!("../../profiles/src/profiles/default.profile"),
    ),
    (
        "gobonniego",
        include_str!("../../profiles/src/profiles/gobonniego.profile"),
    ),
    (
        "mysql-16k",
        include_str!("../../profiles/src/profiles/mysql-16k.profile"),
    ),
    (
        "ebs-4k",
        include_str!("../../profiles/src/profiles/ebs-4k.profile"),
    ),
    (
        "vps-4k",
        include_str!("../../profiles/src/profiles/vps-4k.profile"),
    ),
    (
        "bonnie",
        include_str!("../../profiles/src/profiles/bonnie.profile"),
    ),
    (
        "crystal",
        include_str!("../../profiles/src/profiles/crystal.profile"),
    ),
];

/// Bug 14: `--runtime` shrinks every step of every profile, not only its
/// fio tests (vps-4k's `ping -c 10` took 9 s whatever it was told). Read
/// from what each profile saved, not from how long it took: every fio test
/// was given the runtime, and every step (another diskbench command, saved
/// as a run of its own) was run with it (`-w 200ms`, `--runtime 200ms`,
/// `-iops-duration 0.2`), so a step whose line in the profile takes no
/// runtime fails here. That each tool keeps to the time it is given is its
/// own tests' matter.
#[test]
fn every_profile_with_a_short_runtime_gives_it_to_every_test_and_step() {
    let dir = real_dir();
    let history = tempfile::tempdir().unwrap();
    for (name, text) in PROFILE_FILES {
        let db = history.path().join(format!("{name}.sqlite3"));
        let target = dir.path().display().to_string();
        let mut args = vec![
            "run", &target, "--quick", "--engine", "null", "--size", "16m",
        ];
        args.extend(["--profile", name, "--runtime", "200ms"]);
        if name == "crystal" {
            args.extend(["--passes", "2"]);
        }
        run_ok(&args, &db);
        assert!(
            entries(dir.path()).is_empty(),
            "{name}: {:?}",
            entries(dir.path())
        );
        let runs = history_json(&db, &[]);
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect();
        let steps: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| !l.starts_with("--"))
            .collect();
        let saved: Vec<&serde_json::Value> =
            runs.iter().filter(|r| r["command"] != "run").collect();
        assert_eq!(saved.len(), steps.len(), "{name}: {runs:?}");
        for (step, run) in steps.iter().zip(saved) {
            assert_eq!(run["status"], "ok", "{name}: {run}");
            let argv: Vec<&str> = run["command_line"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap())
                .collect();
            assert_eq!(argv.get(1), step.split_whitespace().next().as_ref());
            assert!(
                argv.iter().any(|a| *a == "200ms" || *a == "0.2"),
                "{name}: `{step}` was not given the runtime: {argv:?}"
            );
        }
        if lines.len() > steps.len() {
            let tests = runs
                .iter()
                .find(|r| r["command"] == "run")
                .unwrap_or_else(|| panic!("{name}: its tests were not saved: {runs:?}"));
            let id = tests["id"].to_string();
            let doc = json_of(&run_ok(&["export", &id, "--format", "json"], &db));
            let jobs = doc["result"]["jobs"].as_array().unwrap();
            assert!(!jobs.is_empty(), "{name}: {doc}");
            for job in jobs {
                let runtime = &job["spec"]["runtime"];
                assert_eq!(
                    (runtime["secs"].as_u64(), runtime["nanos"].as_u64()),
                    (Some(0), Some(200_000_000)),
                    "{name}: {} was given {runtime}",
                    job["name"]
                );
            }
        }
    }
}

/// Bug 14: bonnie's `meta -n 16` was all `+++++` (every phase too fast to
/// time); measured for the runtime, every phase has a figure.
#[test]
fn the_bonnie_profiles_metadata_phases_have_figures() {
    let dir = real_dir();
    let out = run(dir.path(), &["--profile", "bonnie", "--runtime", "200ms"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.contains("/sec %CP  /sec %CP"))
        .unwrap_or_else(|| panic!("no bonnie++ block: {text}"));
    let figures: Vec<&str> = lines[header + 1].split_whitespace().collect();
    assert_eq!(
        figures.len(),
        13,
        "NUM and six (files/s, %CP): {}",
        lines[header + 1]
    );
    for f in &figures[1..] {
        assert!(
            f.parse::<u64>().is_ok(),
            "{f} is not a figure: {}",
            lines[header + 1]
        );
    }
    for (i, f) in figures[1..].iter().enumerate().step_by(2) {
        assert!(
            f.parse::<u64>().unwrap() > 0,
            "phase {}: {}",
            i / 2,
            lines[header + 1]
        );
    }
}

/// The crystal profile is CrystalDiskMark's grid, best of N passes, and
/// its JSON keeps every pass and says which was kept.
#[test]
fn crystal_is_a_read_write_grid_of_the_best_pass_with_every_pass_in_json() {
    let dir = real_dir();
    let args = [
        "--profile",
        "crystal",
        "--runtime",
        "200ms",
        "--passes",
        "2",
    ];
    let out = run(dir.path(), &args);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    assert!(text.contains("best of 2 passes"), "{text}");
    let head = text.lines().find(|l| l.contains("Read")).expect("a header");
    assert!(head.find("Read") < head.find("Write"), "{head}");
    assert!(text.contains("MB/s") && text.contains("IOPS"), "{text}");
    for row in ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"] {
        let line = text
            .lines()
            .find(|l| l.starts_with(row))
            .unwrap_or_else(|| panic!("{row}: {text}"));
        let numbers = line
            .split(['|', ' '])
            .filter(|w| w.parse::<f64>().is_ok())
            .count();
        assert_eq!(numbers, 6, "read and write MB/s, IOPS, us: {line}");
    }

    let json_args: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
    let out = run(dir.path(), &json_args);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let names = job_names(&doc);
    assert_eq!(names.len(), 16, "{names:?}");
    assert_eq!(
        names[..2],
        ["SEQ1M-Q8T1-read-pass1", "SEQ1M-Q8T1-read-pass2"]
    );
    let p = &doc["profile"];
    assert_eq!(
        (p["name"].as_str(), p["passes"].as_u64()),
        (Some("crystal"), Some(2))
    );
    let tests = p["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 4);
    for t in tests {
        for dir in ["read", "write"] {
            let cell = &t[dir];
            let passes = cell["passes"].as_array().unwrap();
            assert_eq!(passes.len(), 2, "{cell}");
            let best = passes
                .iter()
                .map(|x| x["mb_per_sec"].as_f64().unwrap())
                .fold(f64::MIN, f64::max);
            let kept = cell["kept_pass"].as_u64().unwrap();
            assert_eq!(
                passes[kept as usize - 1]["mb_per_sec"].as_f64().unwrap(),
                best
            );
            assert_eq!(cell["kept"]["mb_per_sec"].as_f64().unwrap(), best);
        }
    }
}

#[test]
fn passes_on_a_profile_that_runs_each_test_once_is_a_usage_error() {
    let dir = real_dir();
    let out = run(dir.path(), &["--profile", "ebs-4k", "--passes", "3"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(err.contains("--passes") && err.contains("crystal"), "{err}");
}
