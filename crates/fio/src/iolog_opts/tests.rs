use super::*;
use model::iolog::IoLogSpec;

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

fn io(at_us: u64, dir: Direction, offset: u64, len: u64) -> ReplayOp {
    ReplayOp {
        at_us,
        action: ReplayAction::Io { dir, offset, len },
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
            ReplayOp {
                at_us: 1370,
                action: ReplayAction::Sync
            },
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
fn what_cannot_be_replayed_is_named() {
    let e = parse(V3, &IoLogSpec::default()).unwrap_err();
    assert!(e.contains("replay_skip=trim"), "{e}");
    let e = parse("0, 4096, 4096\n", &IoLogSpec::default()).unwrap_err();
    assert!(e.contains("version 1"), "{e}");
    let e = parse(
        "fio version 3 iolog\nx read 0 4096\n",
        &IoLogSpec::default(),
    )
    .unwrap_err();
    assert!(e.contains("line 2") && e.contains("timestamp"), "{e}");
    let e = parse(
        "fio version 2 iolog\nf read zero 4096\n",
        &IoLogSpec::default(),
    )
    .unwrap_err();
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
    std::fs::write(
        &log,
        "fio version 2 iolog\n/a read 0 4096\n/b read 0 4096\n",
    )
    .unwrap();
    let args = [
        "--name=r".to_string(),
        format!("--read_iolog={}", log.display()),
    ];
    let e = crate::parse_args(args).unwrap_err().to_string();
    assert!(e.contains("replay_redirect=FILE"), "{e}");
}
