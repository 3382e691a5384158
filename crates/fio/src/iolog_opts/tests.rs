use super::*;
use crate::iolog_text::parse;
use model::iolog::{IoLogSpec, ReplayOp};

const V3: &str = "fio version 3 iolog\n\
    24 /d/f add\n\
    100 /d/f open\n\
    130 /d/f read 12288 4096\n\
    1130 /d/f write 8192 8192\n\
    1500 /d/f sync 0 0\n\
    2130 /d/f trim 0 4096\n\
    2200 /d/f close\n";

fn skip(list: &[&str]) -> IoLogSpec {
    IoLogSpec {
        skip: list.iter().map(|s| s.to_string()).collect(),
        ..IoLogSpec::default()
    }
}

/// An I/O to the log's first file.
fn io(at_us: u64, dir: Direction, offset: u64, len: u64) -> ReplayOp {
    io_to(0, at_us, dir, offset, len)
}

fn io_to(file: u32, at_us: u64, dir: Direction, offset: u64, len: u64) -> ReplayOp {
    ReplayOp {
        at_us,
        action: ReplayAction::Io {
            file,
            dir,
            offset,
            len,
        },
    }
}

fn sync(file: u32, at_us: u64) -> ReplayOp {
    ReplayOp {
        at_us,
        action: ReplayAction::Sync { file },
    }
}

#[test]
fn version_3_keeps_times_from_the_first_action() {
    let p = parse(V3, &skip(&["trim"])).unwrap();
    assert_eq!(p.files, ["/d/f"]);
    assert_eq!(
        p.ops,
        [
            io(0, Direction::Read, 12288, 4096),
            io(1000, Direction::Write, 8192, 8192),
            sync(0, 1370),
        ]
    );
}

#[test]
fn version_2_adds_up_its_waits() {
    let v2 = "fio version 2 iolog\nf add\nf open\nf read 0 4096\nf wait 250 0\n\
              f wait 50 0\nf write 4096 4096\nf wait 1000 0\nf read 8192 512\nf close\n";
    let p = parse(v2, &IoLogSpec::default()).unwrap();
    let times: Vec<u64> = p.ops.iter().map(|o| o.at_us).collect();
    // A wait under 100 us is ignored, as fio does.
    assert_eq!(times, [0, 250, 1250]);
}

#[test]
fn skip_scale_align_and_time_scale() {
    let how = IoLogSpec {
        skip: vec!["write".into(), "sync".into(), "trim".into()],
        scale: 2,
        align: 4096,
        time_scale_pct: 200,
        ..IoLogSpec::default()
    };
    let p = parse(V3, &how).unwrap();
    // 12288 / 2 = 6144, aligned down to 4096; twice the pace: half the time.
    assert_eq!(p.ops, [io(0, Direction::Read, 4096, 4096)]);
    let slow = IoLogSpec {
        time_scale_pct: 50,
        ..skip(&["trim"])
    };
    assert_eq!(parse(V3, &slow).unwrap().ops[1].at_us, 2000);
}

#[test]
fn trims_are_replayed_as_trims() {
    let p = parse(V3, &IoLogSpec::default()).unwrap();
    let trim = ReplayAction::Trim {
        file: 0,
        offset: 0,
        len: 4096,
    };
    assert_eq!(
        p.ops.last(),
        Some(&ReplayOp {
            at_us: 2000,
            action: trim
        })
    );
}

#[test]
fn what_cannot_be_replayed_is_named() {
    let e = parse("0, 4096, 4096\n", &IoLogSpec::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("version 1"), "{e}");
    let e = parse(
        "fio version 3 iolog\nx read 0 4096\n",
        &IoLogSpec::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("line 2") && e.contains("timestamp"), "{e}");
    let e = parse(
        "fio version 2 iolog\nf read zero 4096\n",
        &IoLogSpec::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("offset is not a number"), "{e}");
}

#[test]
fn a_job_takes_its_shape_from_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("a.iolog");
    std::fs::write(
        &log,
        "fio version 3 iolog\n5 /d/f read 0 4096\n9 /d/f write 65536 16384\n",
    )
    .unwrap();
    let args = [
        "--name=r".to_string(),
        format!("--read_iolog={}", log.display()),
    ];
    let parsed = crate::parse_args(args).unwrap();
    let job = &parsed.jobs[0];
    assert_eq!(job.target, model::FileTarget::Named("/d/f".into()));
    assert_eq!(job.rw, RwMode::RandRw);
    assert_eq!(job.bs_bytes, 16384);
    assert_eq!(job.size_bytes, Some(81920));
    assert_eq!(job.iolog.bytes(), 20480);
}

/// A log of three files, as fio writes one for `nrfiles=3` (v2, with a
/// sync of one file before that file's first I/O and one of a file the log
/// does no I/O on).
const THREE: &str = "fio version 2 iolog\n\
    d/x.0.0 add\nd/x.0.1 add\nd/x.0.2 add\nd/x.0.3 add\n\
    d/x.0.0 open\nd/x.0.1 open\nd/x.0.2 open\n\
    d/x.0.0 write 8192 4096\n\
    d/x.0.2 sync 0 0\n\
    d/x.0.1 write 65536 8192\n\
    d/x.0.2 read 0 4096\n\
    d/x.0.3 sync 0 0\n\
    d/x.0.1 sync 0 0\n\
    d/x.0.0 read 0 4096\n\
    d/x.0.0 close\nd/x.0.1 close\nd/x.0.2 close\n";

#[test]
fn each_action_keeps_its_file() {
    let p = parse(THREE, &IoLogSpec::default()).unwrap();
    assert_eq!(p.files, ["d/x.0.0", "d/x.0.1", "d/x.0.2"]);
    assert_eq!(
        p.ops,
        [
            io_to(0, 0, Direction::Write, 8192, 4096),
            sync(2, 0),
            io_to(1, 0, Direction::Write, 65536, 8192),
            io_to(2, 0, Direction::Read, 0, 4096),
            sync(1, 0),
            io_to(0, 0, Direction::Read, 0, 4096),
        ],
        "d/x.0.3 has no I/O: its sync is left out"
    );
    // replay_redirect: one file, every action to it, every sync kept.
    let redirected = IoLogSpec {
        redirect: Some("/r/one".into()),
        ..IoLogSpec::default()
    };
    let p = parse(THREE, &redirected).unwrap();
    assert_eq!(p.files, ["/r/one"]);
    assert_eq!(p.ops.len(), 7);
    assert!(p.ops.iter().all(|op| match op.action {
        ReplayAction::Io { file, .. }
        | ReplayAction::Sync { file }
        | ReplayAction::Trim { file, .. } => file == 0,
    }));
}

fn parse_job(log: &std::path::Path, extra: &[&str]) -> Result<JobSpec, FioError> {
    let mut args = vec![
        "--name=r".to_string(),
        format!("--read_iolog={}", log.display()),
    ];
    args.extend(extra.iter().map(|a| a.to_string()));
    crate::parse_args(args).map(|mut p| p.jobs.remove(0))
}

#[test]
fn a_log_of_several_files_gives_the_job_each_sized_to_its_io() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("three.iolog");
    std::fs::write(&log, THREE).unwrap();
    let job = parse_job(&log, &["--directory=/top"]).unwrap();
    let files = ["/top/d/x.0.0", "/top/d/x.0.1", "/top/d/x.0.2"];
    let paths: Vec<std::path::PathBuf> = files.iter().map(Into::into).collect();
    assert_eq!(
        job.iolog.files, paths,
        "directory= before each, as filename="
    );
    assert_eq!(job.target, model::FileTarget::Named(paths[0].clone()));
    assert_eq!(job.bs_bytes, 8192);
    // Each file's furthest I/O in whole blocks: 16k, 72k, 8k.
    assert_eq!(job.iolog.file_sizes(job.bs_bytes), [16384, 73728, 8192]);
    assert_eq!(job.size_bytes, Some(98304));
    let redirected = parse_job(&log, &["--replay_redirect=/r/one"]).unwrap();
    assert_eq!(redirected.iolog.files, [std::path::PathBuf::from("/r/one")]);
    assert_eq!(redirected.size_bytes, Some(73728));
    let e = parse_job(&log, &["--openfiles=2"]).unwrap_err().to_string();
    assert!(e.contains("3 files") && e.contains("openfiles"), "{e}");
}
