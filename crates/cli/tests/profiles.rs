//! Named profiles for `diskbench run --profile NAME`, listed by
//! `diskbench profiles`; each is data (tests in fio's form, then steps that
//! are other diskbench commands) and takes --size and --runtime.

mod common;
use common::*;
use std::time::{Duration, Instant};

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

/// How long a profile may take with `--runtime runtime` and `passes`: each
/// fio test (each pass of it) and ping their runtime and a second of slack;
/// each of meta's six phases the most it may take by design (its time, at
/// least 500 ms, times [`workloads::meta::WALL_BUDGET`], resets included)
/// and 3 s for the syncs a busy machine holds up; GoBonnieGo's write, read
/// and IOPS tests their runtime and 4 s (they fsync, and as root drop the
/// whole host's page cache: 2 s for the three quiet, 14.2 s with CPU hogs
/// and the other profiles' I/O beside it); and 3 s for the whole (start,
/// probing, layout). Far above what the parts take (3 to 6 times on this
/// machine with a load of 7), and under the 9 s of ioping's ten requests at
/// its 1 s interval, which vps-4k spent whatever it was told, and the 15 s
/// IOPS test GoBonnieGo runs when not told (with its other two tests, over
/// the 15.6 s allowed here even on a quiet machine).
fn bound(profile: &str, runtime: Duration, passes: u32) -> Duration {
    let second = Duration::from_secs(1);
    let meta_phase = runtime.max(second / 2) * workloads::meta::WALL_BUDGET + 3 * second;
    let mut total = 3 * second;
    for line in profile.lines().map(str::trim) {
        total += match line.split_whitespace().next() {
            Some(w) if w.starts_with("--") => (runtime + second) * passes,
            Some("ping") => runtime + second,
            Some("meta") => meta_phase * 6,
            Some("gobonniego") => (runtime + 4 * second) * 3,
            _ => continue,
        };
    }
    total
}

/// Bug 14: `--runtime` shrinks every step of every profile, not only its
/// fio tests (vps-4k's `ping -c 10` took 9 s whatever it was told).
#[test]
fn every_profile_with_a_short_runtime_ends_within_its_steps_runtimes() {
    let dir = real_dir();
    let runtime = Duration::from_millis(200);
    let mut over = Vec::new();
    let mut all = Vec::new();
    for (name, text) in PROFILE_FILES {
        let passes = if name == "crystal" { 2 } else { 1 };
        let mut extra = vec!["--profile", name, "--runtime", "200ms"];
        if name == "crystal" {
            extra.extend(["--passes", "2"]);
        }
        let started = Instant::now();
        let out = run(dir.path(), &extra);
        let took = started.elapsed();
        assert!(out.status.success(), "{name}: {}", stderr_of(&out));
        let limit = bound(text, runtime, passes);
        all.push(format!("{name} {took:.1?} (at most {limit:.1?})"));
        if took > limit {
            over.push(name);
        }
        assert!(
            entries(dir.path()).is_empty(),
            "{name}: {:?}",
            entries(dir.path())
        );
    }
    assert!(
        over.is_empty(),
        "{over:?} took longer with --runtime 200ms than their parts allow: {all:?}"
    );
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
