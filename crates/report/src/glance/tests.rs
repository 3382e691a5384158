use super::*;
use crate::testutil::dir;
use model::{JobResult, JobSpec, RwMode, TargetInfo};

/// `diskbench run`'s seven tests, each a direct random read of `size` at
/// `ios` I/Os of 4 KiB a second for 1.2 s, on a target with `free` bytes.
fn suite(size: u64, ios: u64, free: u64) -> RunResult {
    let names = [
        "seq-read-1m-qd8",
        "seq-write-1m-qd8",
        "rand-read-4k-qd32",
        "rand-write-4k-qd32",
        "rand-read-4k-qd1",
        "rand-write-4k-qd1",
        "mixed-4k-qd32",
    ];
    let jobs = names
        .iter()
        .map(|name| {
            let mut spec = JobSpec::new(*name);
            spec.rw = RwMode::RandRead;
            spec.direct = true;
            spec.size_bytes = Some(size);
            JobResult {
                read: dir(&[(100_000, ios * 6 / 5)], 4096, 1_200_000_000, None),
                runtime_ns: 1_200_000_000,
                ..JobResult::empty(&spec, 0, 1)
            }
        })
        .collect();
    RunResult {
        jobs,
        targets: vec![TargetInfo {
            free_bytes: Some(free),
            ..TargetInfo::default()
        }],
        ..Default::default()
    }
}

fn shared(job: &str) -> Warning {
    Warning::DeviceShared {
        job: job.into(),
        device: "vda".into(),
        requests: 14652,
        bytes: 56 << 20,
        job_ios: 8748,
        job_bytes: 34 << 20,
    }
}

/// Seven tests that each fire the same check and the same warning make
/// two lines, each naming all seven tests, none over 160 characters; the
/// long form keeps each test's whole text.
#[test]
fn each_kind_is_said_once_for_all_its_tests() {
    // 500k x 4 KiB a second over 256 MiB: a pass every 0.13 s.
    let result = suite(256 << 20, 500_000, 1 << 40);
    let verdicts = sanity::verdicts(&result);
    assert_eq!(verdicts.len(), 7, "{verdicts:?}");
    let warned: Vec<Warning> = result.jobs.iter().map(|j| shared(&j.name)).collect();
    let warned: Vec<&Warning> = warned.iter().collect();
    let found = findings(&result, &warned, &verdicts, &[]);
    let text = render(&found, false);
    assert_eq!(text.lines().count(), 2, "{text}");
    for line in text.lines() {
        assert!(
            line.chars().count() <= LINE_MAX,
            "{} chars: {line}",
            line.len()
        );
        assert!(line.contains("all 7 tests"), "{line}");
    }
    assert!(
        text.starts_with("warning: all 7 tests: vda was shared, up to 40%"),
        "{text}"
    );
    // Five of the seven: named by the first and the last.
    let five: Vec<&Warning> = warned[2..].to_vec();
    let line = &findings(&result, &five, &[], &[])[0].line;
    assert_eq!(
        line,
        "warning: 5 tests (rand-read-4k-qd32 ... mixed-4k-qd32): vda was shared, up to 40% of \
         its work another's: figures may be low; measure on an idle device"
    );
    let check = text.lines().nth(1).unwrap();
    assert!(
        check.starts_with("check: all 7 tests went over the 256.0 MiB data set every 0.1 s"),
        "{check}"
    );
    // 25 s of 1.9 GiB/s fits in the terabyte free: the size to use is said.
    assert!(
        check.ends_with("--size 47.7 GiB makes a pass 25 s"),
        "{check}"
    );
    let long = render(&found, true);
    assert_eq!(long.lines().count(), 2 + 14, "{long}");
    for v in &verdicts {
        assert!(long.contains(&format!("  {}\n", v.text)), "{long}");
    }
}

/// Where the size a check would ask for is more than the target has room
/// for, neither the line nor the long text asks for it: they say what
/// that means for the figures, and the largest data set there is room for.
#[test]
fn no_advice_asks_for_more_room_than_there_is() {
    let free = 20 << 30;
    let result = suite(256 << 20, 500_000, free);
    let verdicts = sanity::verdicts(&result);
    let found = findings(&result, &[], &verdicts, &[]);
    let line = &found[0].line;
    assert!(line.chars().count() <= LINE_MAX, "{line}");
    assert!(!line.contains("--size 47.7 GiB"), "{line}");
    assert!(
        line.ends_with(
            "a cache may answer for the disk (25 s a pass needs 47.7 GiB, but only 20.0 GiB is free)"
        ),
        "{line}"
    );
    for v in &verdicts {
        assert!(!v.text.contains("at least 25 s of it"), "{}", v.text);
        assert!(
            v.text
                .contains("the largest data set here, 20.0 GiB (--size"),
            "{}",
            v.text
        );
    }
}

/// A clean run says nothing.
#[test]
fn a_clean_run_prints_nothing() {
    // 1,000 I/Os a second over 100 GiB: a pass every 7 hours.
    let result = suite(100 << 30, 1000, 1 << 40);
    let verdicts = sanity::verdicts(&result);
    assert!(verdicts.is_empty(), "{verdicts:?}");
    assert_eq!(render(&findings(&result, &[], &verdicts, &[]), true), "");
}

/// Every kind of the runner's warnings gets one line of at most 160
/// characters, whatever the number of tests it fires on or their names.
#[test]
fn every_warning_kind_fits_on_one_line() {
    let long_name = "a-test-with-a-rather-long-name-of-forty-chars";
    let result = suite(100 << 30, 1000, 1 << 40);
    let kinds = |job: &str| {
        vec![
            Warning::CpuBound {
                job: job.into(),
                cpu_pct: 97.0,
            },
            Warning::DataSetFitsInCache {
                job: job.into(),
                data_bytes: 1 << 30,
                ram_bytes: 16 << 30,
            },
            Warning::EngineFallback {
                job: job.into(),
                wanted: "io_uring".into(),
                used: "libaio".into(),
                reason: "io_uring_setup: EPERM".into(),
            },
            Warning::SparseFile {
                path: "/mnt/data/file".into(),
                allocated_bytes: 1 << 20,
                size_bytes: 1 << 30,
            },
            Warning::CacheNotDropped {
                path: "/mnt/data/file".into(),
                reason: "EPERM".into(),
            },
            Warning::ShortRun {
                job: job.into(),
                runtime_ms: 3,
            },
            Warning::FaultsInjected {
                faults: vec!["eio:read:p=0.01".into()],
            },
            Warning::FileKept {
                job: job.into(),
                path: "/mnt/data/mine".into(),
            },
            Warning::DepthNotKept {
                job: job.into(),
                mean_depth: 3.2,
                iodepth: 32,
            },
            Warning::RequestsSplit {
                job: job.into(),
                device: "nvme0n1".into(),
                asked_bytes: 1 << 20,
                received_bytes: 128 << 10,
            },
            shared(job),
            Warning::DepthCapped {
                job: job.into(),
                engine: "psync".into(),
                iodepth: 32,
            },
        ]
    };
    let names: Vec<String> = (0..5).map(|i| format!("{long_name}-{i}")).collect();
    let all: Vec<Warning> = names.iter().flat_map(|n| kinds(n)).collect();
    let all: Vec<&Warning> = all.iter().collect();
    let found = findings(&result, &all, &[], &[]);
    assert_eq!(found.len(), kinds("x").len(), "{found:?}");
    for f in &found {
        assert!(
            f.line.chars().count() <= LINE_MAX,
            "{} chars: {}",
            f.line.len(),
            f.line
        );
        assert!(f.line.starts_with("warning: "), "{}", f.line);
    }
    // A warning about 5 of the 7 tests names them: here only how many fit.
    assert!(
        found[0]
            .line
            .starts_with("warning: 5 tests: a worker was on the CPU up to 97%"),
        "{}",
        found[0].line
    );
}

/// A test too short to trust is said so once: by the command's check, or,
/// when the command leaves that unsaid (a quick run's headline says it),
/// by neither; the runner's short-run warning of the same test is not
/// said beside it.
#[test]
fn a_test_too_short_to_trust_is_said_once() {
    let result = suite(100 << 30, 1000, 1 << 40);
    let short = sanity::too_short(&result, "raise --runtime");
    assert_eq!(short.len(), 7);
    let brief: Vec<Warning> = result
        .jobs
        .iter()
        .map(|j| Warning::ShortRun {
            job: j.name.clone(),
            runtime_ms: 1200,
        })
        .collect();
    let brief: Vec<&Warning> = brief.iter().collect();
    let said = render(&findings(&result, &brief, &short, &[]), false);
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(
        said.starts_with("check: all 7 tests measured 1.2 s, too short"),
        "{said}"
    );
    let quick = findings(&result, &brief, &short, &[sanity::TOO_SHORT]);
    assert_eq!(quick, [], "{quick:?}");
    // Without the check, the runner's warning is said.
    assert_eq!(findings(&result, &brief, &[], &[]).len(), 1);
}

/// A kept run says its warnings and checks again as the run said them:
/// the checks made again from the kept figures for the tests they were
/// kept for, each kind once; an unknown kept check is said whole.
#[test]
fn a_kept_run_says_its_checks_again_as_it_said_them() {
    let mut result = suite(256 << 20, 500_000, 1 << 40);
    let verdicts = sanity::verdicts(&result);
    let said = render(&findings(&result, &[], &verdicts, &[]), false);
    for v in &verdicts {
        result.warnings.push(Warning::Check {
            name: v.kind.to_string(),
            job: Some(v.job.clone()),
            text: v.text.clone(),
        });
    }
    assert_eq!(said_again(&result, &[]), said);
    result.warnings.push(Warning::Check {
        name: "from-elsewhere".into(),
        job: None,
        text: "a check this version does not make".into(),
    });
    let again = said_again(&result, &[]);
    // The runner's warnings (and what is said whole) come first, then the checks.
    assert_eq!(
        again,
        format!("warning: a check this version does not make\n{said}")
    );
}
