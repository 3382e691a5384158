use super::*;
use model::iolog::ReplayOp;

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
        action: ReplayAction::Io {
            file: 0,
            dir,
            offset,
            len,
        },
    };
    assert_eq!(
        p.ops,
        [
            io(0, Direction::Read, 4096, 4096),
            io(500, Direction::Write, 8192, 8192),
            io(600, Direction::Write, 16384, 4096),
            ReplayOp {
                at_us: 1000,
                action: ReplayAction::Sync { file: 0 }
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
fn each_device_of_a_trace_is_a_file() {
    let other = (8 << 20) | 16;
    let mut t = event(1_000_000, 8, 4096, QUEUE | TC_WRITE, other, &[]);
    t.extend(event(1_100_000, 16, 4096, QUEUE, DEV, &[]));
    t.extend(event(
        1_200_000,
        0,
        0,
        QUEUE | TC_FLUSH | TC_WRITE,
        DEV,
        &[],
    ));
    t.extend(event(1_300_000, 24, 8192, QUEUE, other, &[]));
    let (p, _) = parse(&t, &IoLogSpec::default()).unwrap();
    assert_eq!(p.files, ["8:16", "7:3"]);
    let files: Vec<(u32, bool)> = p
        .ops
        .iter()
        .map(|op| match op.action {
            ReplayAction::Io { file, .. } => (file, false),
            ReplayAction::Sync { file } => (file, true),
            ReplayAction::Trim { .. } => panic!("no discard was traced"),
        })
        .collect();
    assert_eq!(files, [(0, false), (1, false), (1, true), (0, false)]);
}

#[test]
fn bad_traces_are_named() {
    let mut t = event(0, 0, 4096, QUEUE, DEV, &[]);
    assert!(is_blktrace(&t));
    assert!(!is_blktrace(b"fio version 2 iolog\n"));
    t.truncate(40);
    assert!(parse(&t, &IoLogSpec::default())
        .unwrap_err()
        .to_string()
        .contains("cut short"));
    let discard = event(0, 0, 4096, QUEUE | (1 << 13) << TC_SHIFT, DEV, &[]);
    let e = parse(&discard, &IoLogSpec::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("replay_skip=trim"), "{e}");
}

#[test]
fn merging_orders_scales_and_repeats_the_traces() {
    let read = QUEUE | TC_READ;
    // Trace a: queued reads at 100 and 300 (its last event, a completion, at 400).
    let mut a = event(100, 1, 4096, read, DEV, b"payload");
    a.extend(event(300, 2, 4096, read, DEV, &[]));
    a.extend(event(400, 0, 0, COMPLETE | TC_READ, DEV, &[]));
    // Trace b: a queued write at 250, a notification left out.
    let mut b = event(250, 3, 8192, QUEUE | TC_WRITE, DEV, &[]);
    b.extend(event(260, 0, 0, QUEUE | TC_NOTIFY, DEV, &[]));
    let merged = merge(&[a, b], &[50, 100], &[2, 1]).unwrap();
    assert_eq!(merged.len() % HEADER, 0);
    let times_and_sectors: Vec<(u64, u64)> = merged
        .chunks(HEADER)
        .map(|e| {
            assert_eq!(&e[46..48], &[0, 0], "payloads are dropped");
            let t = u64::from_le_bytes(e[8..16].try_into().unwrap());
            let s = u64::from_le_bytes(e[16..24].try_into().unwrap());
            (t, s)
        })
        .collect();
    // a at half time: 50, 150, then again shifted by 400: 250, 350; b at 250
    // (a tie goes to the earlier trace).
    assert_eq!(
        times_and_sectors,
        [(50, 1), (150, 2), (250, 1), (250, 3), (350, 2)]
    );
    let (replayed, _) = parse(&merged, &IoLogSpec::default()).unwrap();
    assert_eq!(replayed.ops.len(), 5);
}
