//! fio's file-operation engines and `cpuio`: what parses (fio's example
//! options), what they make of the job (no size needed by the creating
//! engines, cpuio's thinktime and time bound), and what is refused by name
//! because diskbench would count it differently from fio.

use super::{ok, parse};
use model::cpuio::CpuMode;
use model::EngineKind;
use std::time::Duration;

fn refusal(args: &[&str]) -> String {
    match parse(args) {
        Ok(a) => panic!("{args:?} should be refused, parsed to {a:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_six_file_operation_engines_parse_with_the_options_of_fios_examples() {
    let engines = [
        ("filecreate", EngineKind::Filecreate),
        ("filestat", EngineKind::Filestat),
        ("filedelete", EngineKind::Filedelete),
        ("dircreate", EngineKind::Dircreate),
        ("dirstat", EngineKind::Dirstat),
        ("dirdelete", EngineKind::Dirdelete),
    ];
    for (name, kind) in engines {
        let creates = name.ends_with("create");
        let mut args = vec!["--name=t0", "--nrfiles=30", "--filesize=4k"];
        let engine = format!("--ioengine={name}");
        args.push(&engine);
        if creates {
            args.extend(["--create_on_open=1", "--fallocate=none", "--openfiles=1"]);
        }
        let spec = ok(&args).jobs.remove(0);
        assert_eq!(spec.engine, kind, "{name}");
        assert!(spec.engine.is_file_op());
        assert_eq!(spec.engine.fio_name(), name);
        assert_eq!(spec.engine.on_directories(), name.starts_with("dir"));
    }
    // The creating engines need no size: fio gives each file one block.
    let spec = ok(&["--name=c", "--ioengine=filecreate", "--nrfiles=5"])
        .jobs
        .remove(0);
    assert_eq!(spec.size_bytes, None);
}

#[test]
fn what_fio_would_count_differently_is_refused_by_name() {
    let cases: [(&[&str], &str); 7] = [
        (&["--ioengine=filestat", "--filesize=8k"], "filesize=8k"),
        (&["--ioengine=filedelete", "--size=64k"], "size=32k"),
        (&["--ioengine=filecreate", "--loops=2"], "loops=2"),
        (
            &["--ioengine=dircreate", "--time_based", "--runtime=1"],
            "time_based",
        ),
        (
            &["--ioengine=dirstat", "--rw=randrw", "--filesize=4k"],
            "rw=randrw",
        ),
        (
            &["--ioengine=filestat", "--create_on_open=1", "--filesize=4k"],
            "create_on_open",
        ),
        (
            &["--ioengine=filecreate", "--filename=/tmp/x", "--unlink=1"],
            "unlink",
        ),
    ];
    for (extra, says) in cases {
        let mut args = vec!["--name=j", "--nrfiles=2"];
        args.extend_from_slice(extra);
        let e = refusal(&args);
        assert!(e.contains(says), "{extra:?}: {e}");
    }
}

#[test]
fn cpuio_takes_fios_options_and_becomes_a_timed_job_with_a_thinktime() {
    let spec = ok(&[
        "--name=b",
        "--ioengine=cpuio",
        "--cpuload=25",
        "--cpuchunks=20000",
        "--cpumode=qsort",
        "--runtime=2",
    ])
    .jobs
    .remove(0);
    let cpu = spec.cpuio.expect("the load");
    assert_eq!(cpu.load_pct, 25);
    assert_eq!(cpu.chunk, Duration::from_millis(20));
    assert_eq!(cpu.mode, CpuMode::Qsort);
    assert!(!cpu.exit_on_io_done);
    assert!(spec.time_based);
    // 20 ms busy, then 60 ms idle: 25%.
    assert_eq!(spec.thinktime.think, Duration::from_millis(60));
    assert_eq!(spec.thinktime.spin, Duration::ZERO);
    // fio caps the load at 100 (no idle time).
    let spec = ok(&[
        "--name=b",
        "--ioengine=cpuio",
        "--cpuload=150",
        "--exit_on_io_done=1",
    ])
    .jobs
    .remove(0);
    assert_eq!(spec.cpuio.unwrap().load_pct, 100);
    assert!(spec.thinktime.think.is_zero());
}

#[test]
fn cpuio_is_refused_without_a_load_an_end_or_with_an_unknown_mode() {
    let cases: [(&[&str], &str); 5] = [
        (&["--ioengine=cpuio", "--runtime=1"], "add cpuload"),
        (
            &["--ioengine=cpuio", "--cpuload=0", "--runtime=1"],
            "above 0",
        ),
        (&["--ioengine=cpuio", "--cpuload=50"], "exit_on_io_done=1"),
        (
            &[
                "--ioengine=cpuio",
                "--cpuload=50",
                "--runtime=1",
                "--cpumode=spin",
            ],
            "noop",
        ),
        (
            &["--ioengine=psync", "--cpuload=50", "--size=1m"],
            "option of the cpuio engine",
        ),
    ];
    for (extra, says) in cases {
        let mut args = vec!["--name=j"];
        args.extend_from_slice(extra);
        let e = refusal(&args);
        assert!(e.contains(says), "{extra:?}: {e}");
    }
}

#[test]
fn stat_type_belongs_to_the_stat_engines() {
    use model::engine_kind::StatCall;
    for (text, call) in [
        ("stat", StatCall::Stat),
        ("lstat", StatCall::Lstat),
        ("statx", StatCall::Statx),
    ] {
        for engine in ["filestat", "dirstat"] {
            let spec = ok(&[
                "--name=s",
                &format!("--ioengine={engine}"),
                &format!("--stat_type={text}"),
                "--filesize=4k",
            ])
            .jobs
            .remove(0);
            assert_eq!(spec.stat_type, call);
        }
    }
    let e = refusal(&[
        "--name=s",
        "--ioengine=filestat",
        "--stat_type=fstat",
        "--filesize=4k",
    ]);
    assert!(e.contains("stat, lstat or statx"), "{e}");
    let e = refusal(&[
        "--name=s",
        "--ioengine=filedelete",
        "--stat_type=lstat",
        "--filesize=4k",
    ]);
    assert!(
        e.contains("option of the filestat and dirstat engines"),
        "{e}"
    );
}
