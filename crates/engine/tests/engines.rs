//! Every engine runs the same tests, on tmpfs (/dev/shm, buffered: tmpfs
//! refuses O_DIRECT) and on a real directory (`DISKBENCH_TEST_DIR`, else the
//! system temp dir; O_DIRECT there). An engine the machine refuses (io_uring
//! disabled, seccomp) is skipped with a printed reason, never failed.

use diskbench_engine::{open, AnyEngine, Completion, Direction, Engine, EngineConfig, IoRequest};
use model::EngineKind;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tempfile::TempDir;

mod common;
use common::within;

const BLOCK: u32 = 4096;
const FILE_BYTES: u64 = 4 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Tmpfs,
    Disk,
}

/// An engine on one fresh file; the directory goes when this is dropped.
struct Fixture {
    engine: AnyEngine,
    _dir: TempDir,
}

fn test_dir(place: Place) -> Option<TempDir> {
    let base = match place {
        Place::Tmpfs => PathBuf::from("/dev/shm"),
        Place::Disk => std::env::var_os("DISKBENCH_TEST_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(std::env::temp_dir),
    };
    if !base.is_dir() {
        testbed::skip(format!("{} is not a directory", base.display()));
        return None;
    }
    Some(tempfile::tempdir_in(&base).expect("create a test directory"))
}

/// Opens `path` with O_DIRECT on disk, buffered on tmpfs (or where the file
/// system refuses O_DIRECT, with a note).
fn open_file(path: &Path, place: Place, read_only: bool) -> File {
    let mut opts = OpenOptions::new();
    opts.read(true).write(!read_only);
    if place == Place::Disk {
        match opts.clone().custom_flags(libc::O_DIRECT).open(path) {
            Ok(f) => return f,
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                eprintln!(
                    "note: {} refuses O_DIRECT; testing buffered",
                    path.display()
                )
            }
            Err(e) => panic!("open {}: {e}", path.display()),
        }
    }
    opts.open(path).expect("open the test file")
}

fn setup(kind: EngineKind, place: Place, depth: u32, read_only: bool) -> Option<Fixture> {
    let dir = test_dir(place)?;
    let path = dir.path().join("data");
    File::create(&path)
        .and_then(|f| f.set_len(FILE_BYTES))
        .expect("create the test file");
    let cfg = EngineConfig {
        files: Arc::from(vec![open_file(&path, place, read_only)]),
        paths: Arc::from(vec![path]),
        depth,
        block_bytes: BLOCK as usize,
        align: 4096,
        iomem: Default::default(),
        uring: Default::default(),
        advice: None,
    };
    match open(kind, &cfg) {
        Ok(engine) => Some(Fixture { engine, _dir: dir }),
        Err(e) if e.is_refusal() => {
            testbed::skip(format!("{kind:?}: this machine refuses it: {e}"));
            None
        }
        Err(e) => panic!("{kind:?} failed to start: {e}"),
    }
}

fn req(slot: u32, dir: Direction, offset: u64) -> IoRequest {
    IoRequest {
        slot,
        file: 0,
        dir,
        offset,
        len: BLOCK,
        prio: 0,
    }
}

/// Distinct bytes for every offset, so a block read from the wrong place shows.
fn pattern(offset: u64) -> Vec<u8> {
    (0..BLOCK as u64)
        .map(|i| {
            let x = (offset + i).wrapping_mul(model::rng::GOLDEN_GAMMA);
            (x >> 56) as u8 ^ (offset >> 12) as u8
        })
        .collect()
}

/// Queues `reqs`, submits once, reaps (with `min`) until all are back, and
/// checks that every slot completes exactly once.
fn run_batch(engine: &mut AnyEngine, reqs: &[IoRequest], min: usize) -> Vec<Completion> {
    for r in reqs {
        engine.queue(*r).expect("queue");
    }
    engine.submit().expect("submit");
    let mut out = Vec::new();
    while out.len() < reqs.len() {
        let n = engine.reap(min, &mut out).expect("reap");
        assert!(n > 0, "reap({min}) returned nothing with I/O outstanding");
    }
    assert_eq!(out.len(), reqs.len(), "more completions than I/Os");
    let mut slots: Vec<u32> = out.iter().map(|c| c.slot).collect();
    slots.sort_unstable();
    let mut want: Vec<u32> = reqs.iter().map(|r| r.slot).collect();
    want.sort_unstable();
    assert_eq!(slots, want, "every slot completes exactly once");
    out
}

fn round_trip(kind: EngineKind, place: Place) {
    let Some(mut fx) = setup(kind, place, 8, false) else {
        return;
    };
    let e = &mut fx.engine;
    let caps = e.capabilities();
    assert!(caps.does_io);
    eprintln!("{} on {place:?}: {caps:?}", e.name());
    let offsets: [u64; 8] = [
        0,
        4096,
        12288,
        28672,
        65536,
        1 << 20,
        3 << 20,
        FILE_BYTES - 4096,
    ];
    let writes: Vec<IoRequest> = (0..8)
        .map(|i| {
            e.buffer(i).unwrap()[..BLOCK as usize].copy_from_slice(&pattern(offsets[i as usize]));
            req(i, Direction::Write, offsets[i as usize])
        })
        .collect();
    for c in run_batch(e, &writes, 1) {
        assert_eq!(c.result, BLOCK as i64, "write of slot {}", c.slot);
    }
    // Read back into other slots, after wiping them, so nothing stale passes.
    let reads: Vec<IoRequest> = (0..8)
        .map(|i| {
            let slot = (i + 3) % 8;
            e.buffer(slot).unwrap().fill(0);
            req(slot, Direction::Read, offsets[i as usize])
        })
        .collect();
    for c in run_batch(e, &reads, 8) {
        assert_eq!(c.result, BLOCK as i64, "read of slot {}", c.slot);
    }
    for r in &reads {
        let got = &e.buffer(r.slot).unwrap()[..BLOCK as usize];
        assert!(
            got == pattern(r.offset),
            "data at offset {} differs",
            r.offset
        );
    }
}

fn read_past_eof(kind: EngineKind, place: Place) {
    let Some(mut fx) = setup(kind, place, 8, false) else {
        return;
    };
    let out = run_batch(
        &mut fx.engine,
        &[req(2, Direction::Read, FILE_BYTES + 8192)],
        1,
    );
    assert_eq!(out[0], Completion { slot: 2, result: 0 });
}

fn io_error_is_negative(kind: EngineKind, place: Place) {
    let Some(mut fx) = setup(kind, place, 8, true) else {
        return;
    };
    let out = run_batch(&mut fx.engine, &[req(1, Direction::Write, 0)], 1);
    let ebadf = -(libc::EBADF as i64);
    assert_eq!(
        out[0],
        Completion {
            slot: 1,
            result: ebadf
        }
    );
    // The engine keeps working after an error.
    let out = run_batch(&mut fx.engine, &[req(1, Direction::Read, 0)], 1);
    assert_eq!(out[0].result, BLOCK as i64);
}

fn reap_min_above_in_flight(kind: EngineKind, place: Place) {
    within(60, move || {
        let Some(mut fx) = setup(kind, place, 8, false) else {
            return;
        };
        let e = &mut fx.engine;
        let mut out = Vec::new();
        assert_eq!(e.reap(4, &mut out).expect("reap"), 0, "nothing in flight");
        e.queue(req(0, Direction::Read, 0)).expect("queue");
        e.queue(req(5, Direction::Read, 8192)).expect("queue");
        e.submit().expect("submit");
        assert_eq!(e.reap(8, &mut out).expect("reap"), 2);
        assert_eq!(e.reap(8, &mut out).expect("reap"), 0);
        assert_eq!(out.len(), 2);
    });
}

fn many_rounds(kind: EngineKind, place: Place) {
    let Some(mut fx) = setup(kind, place, 32, false) else {
        return;
    };
    for round in 0..64u64 {
        let dir = if round % 2 == 0 {
            Direction::Write
        } else {
            Direction::Read
        };
        // 7 is prime to the file's 1024 blocks: 32 distinct blocks per round.
        let reqs: Vec<IoRequest> = (0..32u32)
            .map(|slot| {
                let block = (round * 32 + slot as u64) * 7 % (FILE_BYTES / 4096);
                req(slot, dir, block * 4096)
            })
            .collect();
        let min = (round % 4) as usize * 8 + 1;
        for c in run_batch(&mut fx.engine, &reqs, min) {
            assert_eq!(c.result, BLOCK as i64, "round {round}, slot {}", c.slot);
        }
    }
}

fn drop_with_io_in_flight(kind: EngineKind, place: Place) {
    let Some(mut fx) = setup(kind, place, 8, false) else {
        return;
    };
    for slot in 0..8 {
        let r = req(slot, Direction::Read, slot as u64 * 65536);
        fx.engine.queue(r).expect("queue");
    }
    fx.engine.submit().expect("submit");
    drop(fx); // must wait for the kernel before freeing the buffers
}

/// Safe code gets no reference to a buffer the kernel holds: from queue to
/// reap, `buffer` refuses the slot, and so does queueing it again.
fn slot_in_flight_is_out_of_reach(kind: EngineKind, place: Place) {
    let Some(mut fx) = setup(kind, place, 4, false) else {
        return;
    };
    fx.engine.queue(req(3, Direction::Read, 0)).expect("queue");
    fx.engine.submit().expect("submit");
    let err = fx.engine.buffer(3).expect_err("slot 3 is in flight");
    assert!(err.to_string().contains("in flight"), "{err}");
    assert!(
        fx.engine.buffer(2).is_ok(),
        "the other slots stay reachable"
    );
    let again = fx.engine.queue(req(3, Direction::Read, 8192));
    assert!(again.is_err(), "a slot in flight was queued twice");
    let mut done = Vec::new();
    while done.is_empty() {
        fx.engine.reap(1, &mut done).expect("reap");
    }
    assert_eq!(done[0].slot, 3);
    assert!(fx.engine.buffer(3).is_ok(), "a reaped slot is back");
}

/// A request longer than the slot's buffer is an error, never a panic or
/// an overrun, on every engine.
fn oversized_request_is_refused(kind: EngineKind, place: Place) {
    let Some(mut fx) = setup(kind, place, 2, false) else {
        return;
    };
    let mut r = req(0, Direction::Write, 0);
    r.len = 64 << 20;
    let err = fx.engine.queue(r).expect_err("longer than the buffer");
    assert!(err.to_string().contains("longer than"), "{err}");
    assert!(fx.engine.buffer(9).is_err(), "slot 9 of 2");
}

macro_rules! engine_tests {
    ($engine:ident: $kind:expr => [$($test:ident),* $(,)?]) => {
        mod $engine {
            mod tmpfs {
                $(#[test]
                fn $test() {
                    crate::$test($kind, crate::Place::Tmpfs)
                })*
            }
            mod disk {
                $(#[test]
                fn $test() {
                    crate::$test($kind, crate::Place::Disk)
                })*
            }
        }
    };
}

engine_tests!(sync: model::EngineKind::Sync => [
    round_trip, read_past_eof, io_error_is_negative, reap_min_above_in_flight, many_rounds,
    drop_with_io_in_flight, oversized_request_is_refused,
]);
engine_tests!(io_uring: model::EngineKind::IoUring => [
    round_trip, read_past_eof, io_error_is_negative, reap_min_above_in_flight, many_rounds,
    drop_with_io_in_flight, slot_in_flight_is_out_of_reach, oversized_request_is_refused,
]);
engine_tests!(libaio: model::EngineKind::Libaio => [
    round_trip, read_past_eof, io_error_is_negative, reap_min_above_in_flight, many_rounds,
    drop_with_io_in_flight, slot_in_flight_is_out_of_reach, oversized_request_is_refused,
]);
engine_tests!(pvsync: model::EngineKind::Pvsync => [
    round_trip, read_past_eof, io_error_is_negative, reap_min_above_in_flight, many_rounds,
    drop_with_io_in_flight, oversized_request_is_refused,
]);
engine_tests!(pvsync2: model::EngineKind::Pvsync2 => [
    round_trip, read_past_eof, io_error_is_negative, reap_min_above_in_flight, many_rounds,
    drop_with_io_in_flight, oversized_request_is_refused,
]);
engine_tests!(mmap: model::EngineKind::Mmap => [
    round_trip, read_past_eof, io_error_is_negative, reap_min_above_in_flight, many_rounds,
    drop_with_io_in_flight, oversized_request_is_refused,
]);
engine_tests!(posixaio: model::EngineKind::Posixaio => [
    round_trip, read_past_eof, io_error_is_negative, reap_min_above_in_flight, many_rounds,
    drop_with_io_in_flight, slot_in_flight_is_out_of_reach, oversized_request_is_refused,
]);
// No data reaches a file, so only the queue/submit/reap contract applies.
engine_tests!(null: model::EngineKind::Null => [
    reap_min_above_in_flight, many_rounds, drop_with_io_in_flight,
]);

/// The runner starts each engine on its worker thread or moves it there.
#[test]
fn engines_can_move_to_worker_threads() {
    fn assert_send<T: Send>() {}
    assert_send::<AnyEngine>();
}
