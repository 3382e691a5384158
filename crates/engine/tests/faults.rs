//! `FaultyEngine` over every real engine: after each fault, the file is read
//! back with plain `std::fs` to show exactly what the device received (the
//! flipped byte, the untouched block, the block at the other offset), and the
//! completions say what the caller was told. `verify=` builds its end-to-end
//! tests on these behaviours, so they are pinned here byte for byte.
//!
//! Files are on a real directory (`DISKBENCH_TEST_DIR`, else the temp dir)
//! with O_DIRECT where the file system allows it; an engine the machine
//! refuses is skipped with a printed reason.

use diskbench_engine::{open, AnyEngine, Completion, Direction, Engine, EngineConfig, IoRequest};
use model::{EngineKind, FaultRule};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::Arc;
use tempfile::TempDir;

mod common;
use common::within;

const BLOCK: u32 = 4096;
const BLOCKS: u64 = 16;

struct Fixture {
    engine: AnyEngine,
    path: PathBuf,
    _dir: TempDir,
}

impl Fixture {
    /// The file as the device holds it now.
    fn contents(&self) -> Vec<u8> {
        std::fs::read(&self.path).expect("read the test file back")
    }

    fn block(&self, n: u64) -> Vec<u8> {
        let all = self.contents();
        all[(n * BLOCK as u64) as usize..((n + 1) * BLOCK as u64) as usize].to_vec()
    }
}

/// Distinct bytes for every block and `tag`, so a block from the wrong
/// place or the wrong write shows.
fn pattern(block: u64, tag: u8) -> Vec<u8> {
    (0..BLOCK as u64)
        .map(|i| {
            let x = (block * 4096 + i).wrapping_mul(model::rng::GOLDEN_GAMMA);
            (x >> 56) as u8 ^ tag.wrapping_mul(37)
        })
        .collect()
}

/// A file of `BLOCKS` blocks, each `pattern(block, 0)`, and `kind` over it
/// with `faults`; `None` (with a printed reason) when the engine is refused.
fn setup(kind: EngineKind, faults: &[&str]) -> Option<Fixture> {
    let base = std::env::var_os("DISKBENCH_TEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let dir = tempfile::tempdir_in(base).expect("a test directory");
    let path = dir.path().join("data");
    let old: Vec<u8> = (0..BLOCKS).flat_map(|b| pattern(b, 0)).collect();
    std::fs::write(&path, old).expect("lay out the test file");
    let mut opts = OpenOptions::new();
    opts.read(true).write(true);
    let file = match opts.clone().custom_flags(libc::O_DIRECT).open(&path) {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
            eprintln!(
                "note: {} refuses O_DIRECT; testing buffered",
                path.display()
            );
            opts.open(&path).expect("open the test file")
        }
        Err(e) => panic!("open {}: {e}", path.display()),
    };
    let cfg = EngineConfig {
        files: Arc::from(vec![file]),
        paths: Arc::from(vec![path.clone()]),
        depth: 8,
        block_bytes: BLOCK as usize,
        align: 4096,
        iomem: Default::default(),
        uring: Default::default(),
        advice: None,
    };
    let rules: Vec<FaultRule> = faults
        .iter()
        .map(|f| FaultRule::parse(f).expect("a valid fault"))
        .collect();
    match open(kind, &cfg) {
        Ok(engine) => Some(Fixture {
            engine: engine.with_faults(&rules),
            path,
            _dir: dir,
        }),
        Err(e) if e.is_refusal() => {
            testbed::skip(format!("{kind:?}: this machine refuses it: {e}"));
            None
        }
        Err(e) => panic!("{kind:?} failed to start: {e}"),
    }
}

fn io(slot: u32, dir: Direction, block: u64) -> IoRequest {
    IoRequest {
        slot,
        file: 0,
        dir,
        offset: block * BLOCK as u64,
        len: BLOCK,
        prio: 0,
    }
}

/// Queues each I/O, submits, and reaps it before the next one (so the N-th
/// I/O is the N-th of the list); returns each one's completion.
fn one_by_one(e: &mut AnyEngine, ios: &[IoRequest]) -> Vec<Completion> {
    ios.iter()
        .map(|&r| {
            e.queue(r).expect("queue");
            e.submit().expect("submit");
            let mut out = Vec::new();
            e.reap(1, &mut out).expect("reap");
            assert_eq!(out.len(), 1, "one completion for {r:?}: {out:?}");
            assert_eq!(out[0].slot, r.slot);
            out[0]
        })
        .collect()
}

/// Writes `pattern(block, tag)` to each block in turn, from slot `i % 8`.
fn write_blocks(e: &mut AnyEngine, blocks: &[u64], tag: u8) -> Vec<Completion> {
    let ios: Vec<IoRequest> = blocks
        .iter()
        .enumerate()
        .map(|(i, &b)| io(i as u32 % 8, Direction::Write, b))
        .collect();
    ios.iter()
        .map(|r| {
            let b = r.offset / BLOCK as u64;
            e.buffer(r.slot).unwrap()[..BLOCK as usize].copy_from_slice(&pattern(b, tag));
            one_by_one(e, &[*r])[0]
        })
        .collect()
}

fn full(c: &[Completion]) -> bool {
    c.iter().all(|c| c.result == BLOCK as i64)
}

fn bitflip_write(kind: EngineKind) {
    let Some(mut fx) = setup(kind, &["bitflip@write:2"]) else {
        return;
    };
    let done = write_blocks(&mut fx.engine, &[3, 5, 7], 1);
    assert!(full(&done), "{done:?}");
    assert_eq!(fx.block(3), pattern(3, 1));
    assert_eq!(fx.block(7), pattern(7, 1));
    let mut want = pattern(5, 1);
    want[BLOCK as usize - 1] ^= 1;
    assert_eq!(fx.block(5), want, "the device stores the flipped last byte");
    // The caller's buffer is given back as it was filled.
    assert_eq!(
        fx.engine.buffer(1).unwrap()[..BLOCK as usize],
        pattern(5, 1)[..]
    );
}

fn bitflip_read(kind: EngineKind) {
    let Some(mut fx) = setup(kind, &["bitflip@read:2"]) else {
        return;
    };
    let ios = [2, 4, 6].map(|b| io(b as u32, Direction::Read, b));
    let done = one_by_one(&mut fx.engine, &ios);
    assert!(full(&done), "{done:?}");
    assert_eq!(
        fx.engine.buffer(2).unwrap()[..BLOCK as usize],
        pattern(2, 0)[..]
    );
    assert_eq!(
        fx.engine.buffer(6).unwrap()[..BLOCK as usize],
        pattern(6, 0)[..]
    );
    let mut want = pattern(4, 0);
    want[BLOCK as usize - 1] ^= 1;
    assert_eq!(fx.engine.buffer(4).unwrap()[..BLOCK as usize], want[..]);
    assert_eq!(fx.block(4), pattern(4, 0), "the device is untouched");
}

fn drop_write(kind: EngineKind) {
    let Some(mut fx) = setup(kind, &["drop@write:2/2"]) else {
        return;
    };
    let done = write_blocks(&mut fx.engine, &[1, 2, 3, 4], 1);
    assert!(full(&done), "lost writes are reported done: {done:?}");
    assert_eq!(fx.block(1), pattern(1, 1));
    assert_eq!(fx.block(2), pattern(2, 0), "the 2nd write never arrived");
    assert_eq!(fx.block(3), pattern(3, 1));
    assert_eq!(fx.block(4), pattern(4, 0), "nor the 4th");
}

fn misdirect_write(kind: EngineKind) {
    let Some(mut fx) = setup(kind, &["misdirect@write:1/2"]) else {
        return;
    };
    // The 1st write, at block 0 (offset < len), lands at block 1; the 2nd
    // (block 6) lands where asked; the 3rd (block 9) lands at block 8.
    let done = write_blocks(&mut fx.engine, &[0, 6, 9], 1);
    assert!(full(&done), "{done:?}");
    assert_eq!(fx.block(0), pattern(0, 0), "block 0 untouched");
    assert_eq!(fx.block(1), pattern(0, 1), "block 0's data at block 1");
    assert_eq!(fx.block(6), pattern(6, 1));
    assert_eq!(fx.block(9), pattern(9, 0), "block 9 untouched");
    assert_eq!(fx.block(8), pattern(9, 1), "block 9's data at block 8");
}

fn short_read(kind: EngineKind) {
    let Some(mut fx) = setup(kind, &["short@read:1"]) else {
        return;
    };
    let done = one_by_one(
        &mut fx.engine,
        &[io(3, Direction::Read, 5), io(4, Direction::Read, 6)],
    );
    assert_eq!(done[0].result, BLOCK as i64 / 2);
    assert_eq!(done[1].result, BLOCK as i64);
    assert_eq!(
        fx.engine.buffer(3).unwrap()[..BLOCK as usize],
        pattern(5, 0)[..]
    );
}

fn errors_never_reach_the_device(kind: EngineKind) {
    let Some(mut fx) = setup(
        kind,
        &[
            "eio@read:2",
            "eio@write:1",
            "enospc@write:2",
            "erofs@write:3",
        ],
    ) else {
        return;
    };
    let done = write_blocks(&mut fx.engine, &[1, 2, 3, 4], 1);
    let results: Vec<i64> = done.iter().map(|c| c.result).collect();
    let errno = |e: i32| -(e as i64);
    assert_eq!(
        results,
        [
            errno(libc::EIO),
            errno(libc::ENOSPC),
            errno(libc::EROFS),
            BLOCK as i64
        ]
    );
    for b in 1..=3 {
        assert_eq!(fx.block(b), pattern(b, 0), "block {b} untouched");
    }
    assert_eq!(fx.block(4), pattern(4, 1));
    let reads = one_by_one(
        &mut fx.engine,
        &[io(0, Direction::Read, 1), io(1, Direction::Read, 2)],
    );
    assert_eq!(reads[0].result, BLOCK as i64);
    assert_eq!(reads[1].result, errno(libc::EIO));
}

/// Made-up completions come back at once, beside real ones, and a reap
/// asking for more than is in flight does not wait for the made-up ones.
fn reap_does_not_wait_for_made_up_completions(kind: EngineKind) {
    within(60, move || {
        let Some(mut fx) = setup(kind, &["eio@write:1/1", "drop@write:2"]) else {
            return;
        };
        let e = &mut fx.engine;
        // Only made-up completions in flight.
        e.queue(io(0, Direction::Write, 1)).expect("queue");
        e.queue(io(1, Direction::Write, 2)).expect("queue");
        assert_eq!(e.submit().expect("submit"), 2);
        let mut out = Vec::new();
        assert_eq!(e.reap(8, &mut out).expect("reap"), 2);
        assert!(
            out.iter().all(|c| c.result == -(libc::EIO as i64)),
            "the first rule given wins over drop@write:2: {out:?}"
        );
        assert_eq!(e.reap(8, &mut out).expect("reap"), 0, "nothing left");
        // One real read and one made-up write.
        out.clear();
        e.queue(io(2, Direction::Read, 3)).expect("queue");
        e.queue(io(3, Direction::Write, 4)).expect("queue");
        e.submit().expect("submit");
        while out.len() < 2 {
            assert!(e.reap(8, &mut out).expect("reap") > 0);
        }
        out.sort_by_key(|c| c.slot);
        assert_eq!(
            out,
            [
                Completion {
                    slot: 2,
                    result: BLOCK as i64
                },
                Completion {
                    slot: 3,
                    result: -(libc::EIO as i64)
                }
            ]
        );
    });
}

macro_rules! fault_tests {
    ($engine:ident: $kind:expr => [$($test:ident),* $(,)?]) => {
        mod $engine {
            $(#[test]
            fn $test() {
                crate::$test($kind)
            })*
        }
    };
}

fault_tests!(sync: model::EngineKind::Sync => [
    bitflip_write, bitflip_read, drop_write, misdirect_write, short_read,
    errors_never_reach_the_device, reap_does_not_wait_for_made_up_completions,
]);
fault_tests!(io_uring: model::EngineKind::IoUring => [
    bitflip_write, bitflip_read, drop_write, misdirect_write, short_read,
    errors_never_reach_the_device, reap_does_not_wait_for_made_up_completions,
]);
fault_tests!(libaio: model::EngineKind::Libaio => [
    bitflip_write, bitflip_read, drop_write, misdirect_write, short_read,
    errors_never_reach_the_device, reap_does_not_wait_for_made_up_completions,
]);

/// The null engine's buffers may be shorter than an I/O: a bitflip there
/// must not panic, and the schedule still counts per direction.
#[test]
fn null_engine_takes_faults_without_panicking() {
    let cfg = EngineConfig {
        files: Arc::from(Vec::<File>::new()),
        paths: Arc::from(Vec::<PathBuf>::new()),
        depth: 4,
        block_bytes: 1 << 20,
        align: 4096,
        iomem: Default::default(),
        uring: Default::default(),
        advice: None,
    };
    let rules = ["short@read:2", "bitflip@write:1/1", "bitflip@read:1/1"]
        .map(|r| FaultRule::parse(r).unwrap());
    let mut e = open(EngineKind::Null, &cfg).unwrap().with_faults(&rules);
    let big = |slot, dir| IoRequest {
        slot,
        file: 0,
        dir,
        offset: 0,
        len: 1 << 20,
        prio: 0,
    };
    let done = one_by_one(
        &mut e,
        &[
            big(0, Direction::Write),
            big(1, Direction::Read),
            big(2, Direction::Read),
        ],
    );
    let results: Vec<i64> = done.iter().map(|c| c.result).collect();
    assert_eq!(results, [1 << 20, 1 << 20, 1 << 19]);
    assert_eq!(
        e.kind(),
        EngineKind::Null,
        "the wrapper reports the engine inside"
    );
}
