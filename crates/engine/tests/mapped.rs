//! What only the `mmap` and `posixaio` engines have: writes through a
//! mapping reach the file (read back with plain pread), a mapping cannot
//! make the file longer, a sync is the mapping's msync, and POSIX AIO keeps
//! every I/O of a full queue in flight at once.

use diskbench_engine::{open, Direction, Engine, IoRequest};
use model::EngineKind;
use std::os::unix::fs::FileExt;

mod common;

fn write_req(slot: u32, offset: u64, len: u32) -> IoRequest {
    IoRequest {
        slot,
        file: 0,
        dir: Direction::Write,
        offset,
        len,
        prio: 0,
    }
}

#[test]
fn mmap_writes_reach_the_file_and_cannot_extend_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cfg = common::config(&dir, 8192);
    let mut e = open(EngineKind::Mmap, &cfg).expect("mmap engine");
    e.buffer(1).unwrap().fill(0xa5);
    e.queue(write_req(1, 12288, 8192)).expect("queue");
    // One page past the end of the 1 MiB file: a mapping cannot grow it.
    e.queue(write_req(2, (1 << 20) - 4096, 8192))
        .expect("queue");
    let mut out = Vec::new();
    e.reap(2, &mut out).expect("reap");
    out.sort_by_key(|c| c.slot);
    assert_eq!(out[0].result, 8192);
    assert_eq!(out[1].result, -(libc::EINVAL as i64), "{out:?}");
    e.sync_file(0, false).expect("msync");
    let mut back = vec![0u8; 8192];
    cfg.files[0].read_exact_at(&mut back, 12288).expect("pread");
    assert!(
        back.iter().all(|&b| b == 0xa5),
        "pread sees the mapped write"
    );
    assert_eq!(
        cfg.files[0].metadata().unwrap().len(),
        1 << 20,
        "not extended"
    );
    // A read straddling the end gets the bytes there are, as pread does.
    let mut read = write_req(3, (1 << 20) - 4096, 8192);
    read.dir = Direction::Read;
    e.queue(read).expect("queue");
    out.clear();
    e.reap(1, &mut out).expect("reap");
    assert_eq!(out[0].result, 4096);
}

#[test]
fn posixaio_keeps_the_whole_queue_in_flight() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cfg = common::config(&dir, 4096);
    let mut e = open(EngineKind::Posixaio, &cfg).expect("posixaio engine");
    for slot in 0..4 {
        let mut r = write_req(slot, slot as u64 * 4096, 4096);
        r.dir = Direction::Read;
        e.queue(r).expect("queue");
        assert!(
            e.pool().is_lent(slot),
            "slot {slot} is in flight after queue"
        );
    }
    assert_eq!(
        e.submit().expect("submit"),
        4,
        "started in queue, counted once"
    );
    let mut out = Vec::new();
    while out.len() < 4 {
        e.reap(1, &mut out).expect("reap");
    }
    assert!(out.iter().all(|c| c.result == 4096), "{out:?}");
    assert!((0..4).all(|s| !e.pool().is_lent(s)), "every slot is back");
    // An error carries its errno: a negative offset is EINVAL.
    let mut bad = write_req(0, u64::MAX - 4095, 4096);
    bad.dir = Direction::Read;
    e.queue(bad).expect("queue");
    out.clear();
    e.reap(1, &mut out).expect("reap");
    assert_eq!(out[0].result, -(libc::EINVAL as i64), "{out:?}");
}
