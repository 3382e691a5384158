//! fio's engines beyond read and write: `falloc` and `ftruncate` (each I/O
//! changes the file's allocation or length as fio's engines of those names
//! do, and completes with its length) and `pvsync2`'s `uncached` flag.

use diskbench_engine::{open, Completion, Direction, Engine, IoRequest};
use model::EngineKind;
use std::os::unix::fs::MetadataExt;

mod common;

fn run(engine: &mut impl Engine, dir: Direction, offset: u64, len: u32) -> i64 {
    let req = IoRequest {
        slot: 0,
        file: 0,
        dir,
        offset,
        len,
    };
    engine.queue(req).expect("queued");
    engine.submit().expect("submitted");
    let mut done: Vec<Completion> = Vec::new();
    engine.reap(1, &mut done).expect("reaped");
    assert_eq!(done.len(), 1);
    done[0].result
}

#[test]
fn ftruncate_sets_the_length_to_each_writes_offset() {
    let dir = tempfile::tempdir_in(std::env::temp_dir()).expect("a temp dir");
    let cfg = common::config(&dir, 4096);
    let path = dir.path().join("data");
    let mut engine = open(EngineKind::Ftruncate, &cfg).expect("ftruncate opens");
    assert_eq!(run(&mut engine, Direction::Write, 12288, 4096), 4096);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 12288);
    assert_eq!(run(&mut engine, Direction::Write, 3 << 20, 4096), 4096);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 3 << 20);
    assert_eq!(
        run(&mut engine, Direction::Read, 0, 4096),
        -i64::from(libc::EINVAL)
    );
}

#[test]
fn falloc_allocates_and_a_read_keeps_the_size() {
    let dir = tempfile::tempdir_in(std::env::temp_dir()).expect("a temp dir");
    let cfg = common::config(&dir, 65536);
    let path = dir.path().join("data");
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(0).unwrap();
    let mut engine = open(EngineKind::Falloc, &cfg).expect("falloc opens");
    let result = run(&mut engine, Direction::Read, 0, 65536);
    if result == -i64::from(libc::EOPNOTSUPP) {
        testbed::skip("the temp dir's filesystem has no fallocate");
        return;
    }
    assert_eq!(result, 65536);
    let m = std::fs::metadata(&path).unwrap();
    assert_eq!(m.len(), 0, "FALLOC_FL_KEEP_SIZE");
    assert!(
        m.blocks() * 512 >= 65536,
        "allocated: {} blocks",
        m.blocks()
    );
    assert_eq!(run(&mut engine, Direction::Write, 65536, 65536), 65536);
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        131072,
        "a write grows the file"
    );
}

/// pvsync2's `uncached`: RWF_DONTCACHE where the filesystem has it, and a
/// refusal naming it where not (tmpfs never has it).
#[test]
fn pvsync2_uncached_is_refused_by_name_where_the_filesystem_lacks_it() {
    let shm = std::path::Path::new("/dev/shm");
    if !shm.is_dir() {
        testbed::skip("/dev/shm is not a directory");
        return;
    }
    let dir = tempfile::tempdir_in(shm).expect("a tmpfs dir");
    let mut cfg = common::config(&dir, 4096);
    cfg.uring.uncached = Some(true);
    let err = match open(EngineKind::Pvsync2, &cfg) {
        Ok(_) => panic!("tmpfs took RWF_DONTCACHE"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("uncached=1 needs RWF_DONTCACHE"), "{err}");
    cfg.uring.uncached = None;
    let mut plain = open(EngineKind::Pvsync2, &cfg).expect("pvsync2 without flags");
    assert_eq!(run(&mut plain, Direction::Read, 0, 4096), 4096);
}
