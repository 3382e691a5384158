//! fio's engines beyond read and write: `falloc` and `ftruncate` (each I/O
//! changes the file's allocation or length as fio's engines of those names
//! do, and completes with its length), `pvsync2`'s `uncached` flag, and the
//! file-operation engines (one create, stat or removal per file).

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
        prio: 0,
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

/// The file-operation engines on a path of their own: the first I/O does
/// the operation, a second one on the same file only counts; an operation
/// that fails comes back as the I/O's errno.
#[test]
fn the_file_operation_engines_create_stat_and_remove_once_per_file() {
    let dir = tempfile::tempdir_in(std::env::temp_dir()).expect("a temp dir");
    let mut cfg = common::config(&dir, 4096);
    let target = dir.path().join("target");
    cfg.files = std::sync::Arc::from(Vec::new());
    cfg.paths = std::sync::Arc::from(vec![target.clone()]);
    let steps = [
        (EngineKind::Filecreate, Some(false)),
        (EngineKind::Filestat, Some(false)),
        (EngineKind::Filedelete, None),
        (EngineKind::Dircreate, Some(true)),
        (EngineKind::Dirstat, Some(true)),
        (EngineKind::Dirdelete, None),
    ];
    for (kind, after) in steps {
        let mut engine = open(kind, &cfg).expect("opens");
        assert!(!engine.capabilities().does_io);
        assert_eq!(run(&mut engine, Direction::Read, 0, 4096), 4096, "{kind:?}");
        assert_eq!(
            std::fs::symlink_metadata(&target).ok().map(|m| m.is_dir()),
            after,
            "{kind:?}"
        );
        // The file's second block: counted, not done again (a second
        // unlink would fail).
        assert_eq!(run(&mut engine, Direction::Read, 4096, 4096), 4096);
    }
    // Nothing to stat: ENOENT, as the I/O's result.
    let mut engine = open(EngineKind::Filestat, &cfg).expect("opens");
    assert_eq!(
        run(&mut engine, Direction::Read, 0, 4096),
        -i64::from(libc::ENOENT)
    );
}

/// `stat_type`: on a dangling symbolic link, stat and statx (which follow
/// it) fail and lstat (the link itself) succeeds.
#[test]
fn stat_type_chooses_the_call_of_the_stat_engines() {
    use diskbench_engine::{FileOp, FileOpEngine};
    use model::engine_kind::StatCall;
    let dir = tempfile::tempdir_in(std::env::temp_dir()).expect("a temp dir");
    let mut cfg = common::config(&dir, 4096);
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).unwrap();
    cfg.paths = std::sync::Arc::from(vec![link]);
    for (how, result) in [
        (StatCall::Stat, -i64::from(libc::ENOENT)),
        (StatCall::Lstat, 4096),
        (StatCall::Statx, -i64::from(libc::ENOENT)),
    ] {
        let engine = FileOpEngine::new(&cfg, FileOp::StatFile).expect("opens");
        let mut engine = engine.with_stat(how);
        assert_eq!(
            run(&mut engine, Direction::Read, 0, 4096),
            result,
            "{how:?}"
        );
    }
}

/// `atomic`: pvsync2, libaio and io_uring give each write RWF_ATOMIC, and
/// no read. Where statx says the file takes atomic writes of 4 KiB, the
/// write is done; where not (this machine's virtio disk), the kernel
/// refuses it, which a write without the flag never is.
#[test]
fn atomic_writes_carry_rwf_atomic_and_reads_do_not() {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = tempfile::tempdir_in(std::env::temp_dir()).expect("a temp dir");
    let mut cfg = common::config(&dir, 4096);
    let path = dir.path().join("data");
    let direct = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_DIRECT)
        .open(&path)
        .expect("O_DIRECT on the temp dir's filesystem");
    cfg.files = std::sync::Arc::from(vec![direct]);
    cfg.uring.atomic = Some(true);
    let units = diskbench_engine::sys::atomic_write(&path).expect("statx");
    let takes_4k = units.unit_min <= 4096 && 4096 <= units.unit_max;
    for kind in [EngineKind::Pvsync2, EngineKind::Libaio, EngineKind::IoUring] {
        let mut engine = open(kind, &cfg).expect("the engine opens");
        let wrote = run(&mut engine, Direction::Write, 0, 4096);
        match takes_4k {
            true => assert_eq!(wrote, 4096, "{kind:?}"),
            false => assert!(
                [-i64::from(libc::EOPNOTSUPP), -i64::from(libc::EINVAL)].contains(&wrote),
                "{kind:?}: a write with RWF_ATOMIC where statx says {units:?} gave {wrote}"
            ),
        }
        assert_eq!(run(&mut engine, Direction::Read, 0, 4096), 4096, "{kind:?}");
    }
}
