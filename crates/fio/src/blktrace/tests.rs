use super::*;

/// One event in the kernel's layout, little-endian.
fn event(time_ns: u64, sector: u64, bytes: u32, action: u32, device: u32, pdu: &[u8]) -> Vec<u8> {
    let mut e = Vec::with_capacity(HEADER + pdu.len());
    e.extend((MAGIC | 7).to_le_bytes());
    e.extend(0u32.to_le_bytes()); // sequence
    e.extend(time_ns.to_le_bytes());
    e.extend(sector.to_le_bytes());
    e.extend(bytes.to_le_bytes());
    e.extend(action.to_le_bytes());
    e.extend(42u32.to_le_bytes()); // pid
    e.extend(device.to_le_bytes());
    e.extend(0u32.to_le_bytes()); // cpu
    e.extend(0u16.to_le_bytes()); // error
    e.extend((pdu.len() as u16).to_le_bytes());
    e.extend(pdu);
    e
}

const QUEUE: u32 = TA_QUEUE | (1 << 4) << TC_SHIFT;
const COMPLETE: u32 = TA_COMPLETE | (1 << 7) << TC_SHIFT;
const DEV: u32 = (7 << 20) | 3;

#[test]
fn queue_events_make_the_ios_and_the_depth() {
    let mut t = Vec::new();
    t.extend(event(1_000_000, 8, 4096, QUEUE, DEV, &[]));
    t.extend(event(1_500_000, 16, 8192, QUEUE | TC_WRITE, DEV, b"pdu"));
    t.extend(event(1_600_000, 32, 4096, QUEUE | TC_WRITE, DEV, &[]));
    t.extend(event(1_700_000, 0, 0, COMPLETE | TC_WRITE, DEV, &[]));
    // Notifications and zero-byte events are not I/O.
    t.extend(event(1_800_000, 0, 4096, QUEUE | TC_NOTIFY, DEV, b"note"));
    t.extend(event(1_900_000, 64, 0, QUEUE, DEV, &[]));
    t.extend(event(
        2_000_000,
        0,
        0,
        QUEUE | TC_FLUSH | TC_WRITE,
        DEV,
        &[],
    ));
    let (p, depth) = parse(&t, &IoLogSpec::default()).unwrap();
    assert_eq!(p.files, ["7:3"]);
    let io = |at_us, dir, offset, len| ReplayOp {
        at_us,
        action: ReplayAction::Io { dir, offset, len },
    };
    assert_eq!(
        p.ops,
        [
            io(0, Direction::Read, 4096, 4096),
            io(500, Direction::Write, 8192, 8192),
            io(600, Direction::Write, 16384, 4096),
            ReplayOp {
                at_us: 1000,
                action: ReplayAction::Sync
            },
        ]
    );
    assert_eq!(depth, 2, "two writes queued before a completion");
    let skip = IoLogSpec {
        skip: vec!["read".into(), "sync".into()],
        time_scale_pct: 200,
        ..IoLogSpec::default()
    };
    let (p, _) = parse(&t, &skip).unwrap();
    assert_eq!(p.ops.len(), 2);
    // Times count from the first queue event, skipped or not; twice the pace.
    assert_eq!(p.ops[1].at_us, 300);
}

#[test]
fn bad_traces_are_named() {
    let mut t = event(0, 0, 4096, QUEUE, DEV, &[]);
    assert!(is_blktrace(&t));
    assert!(!is_blktrace(b"fio version 2 iolog\n"));
    t.truncate(40);
    assert!(parse(&t, &IoLogSpec::default())
        .unwrap_err()
        .contains("cut short"));
    let discard = event(0, 0, 4096, QUEUE | (1 << 13) << TC_SHIFT, DEV, &[]);
    let e = parse(&discard, &IoLogSpec::default()).unwrap_err();
    assert!(e.contains("replay_skip=trim"), "{e}");
}
