//! The buffers as they turn out (huge pages or not, per `iomem`), and the
//! io_uring options that change how I/O reaches the kernel (`sqthread_poll`,
//! `fixedbufs=0`, `registerfiles=0`): data written comes back on read.

use diskbench_engine::{open, BufferPool, Direction, Engine, EngineConfig, IoRequest};
use model::{EngineKind, IoMem, MemoryKind, UringOptions};

mod common;
use common::within;

const MIB: usize = 1 << 20;

/// Whether transparent huge pages can be had with MADV_HUGEPAGE; prints
/// why not when they cannot.
fn thp_available() -> bool {
    let path = "/sys/kernel/mm/transparent_hugepage/enabled";
    match std::fs::read_to_string(path) {
        Ok(s) if s.contains("[never]") => {
            eprintln!("skipping: {path} is `never`");
            false
        }
        Ok(_) => true,
        Err(e) => {
            eprintln!("skipping: cannot read {path}: {e}");
            false
        }
    }
}

#[test]
fn a_qd1_pool_of_one_mib_buffers_gets_huge_pages() {
    if !thp_available() {
        return;
    }
    // QD1 with 1 MiB blocks: before, only pools of 2 MiB got huge pages.
    let pool = BufferPool::new(1, MIB, 4096);
    let mem = pool.memory();
    assert_eq!(mem.kind, MemoryKind::MmapThp, "{mem:?}");
    assert_eq!(mem.bytes, 2 * MIB as u64, "rounded up to one huge page");
    assert!(mem.huge_page_bytes > 0, "{mem:?}");
    assert!(mem.huge_page_bytes <= mem.bytes, "{mem:?}");
    // A large buffer in a small pool, and a deep queue of them.
    assert_eq!(
        BufferPool::new(1, 256 << 10, 4096).memory().kind,
        MemoryKind::MmapThp
    );
    let deep = BufferPool::new(8, MIB, 4096).memory();
    assert!(deep.huge_page_bytes > 0, "{deep:?}");
    // Small buffers in a small pool stay on the heap.
    assert_eq!(
        BufferPool::new(4, 4096, 4096).memory().kind,
        MemoryKind::Heap
    );
}

#[test]
fn pools_side_by_side_never_report_more_than_their_size() {
    if !thp_available() {
        return;
    }
    let pools: Vec<BufferPool> = (0..4).map(|_| BufferPool::new(1, MIB, 4096)).collect();
    for pool in &pools {
        let mem = pool.memory();
        assert!(mem.huge_page_bytes <= mem.bytes, "{mem:?}");
    }
}

#[test]
fn iomem_malloc_mmap_and_shm_get_plain_pages_as_in_fio() {
    for iomem in [IoMem::Malloc, IoMem::Mmap, IoMem::MmapShared, IoMem::Shm] {
        let pool = match BufferPool::with_memory(8, MIB, 4096, iomem) {
            Ok(pool) => pool,
            Err(e) if iomem == IoMem::Shm => {
                eprintln!("skipping shm: {e}");
                continue;
            }
            Err(e) => panic!("{iomem:?}: {e}"),
        };
        let mem = pool.memory();
        assert_eq!(mem.iomem, iomem);
        assert_eq!(mem.bytes, 8 * MIB as u64, "{mem:?}");
        assert_eq!(
            mem.huge_page_bytes, 0,
            "{iomem:?} asked for no huge pages: {mem:?}"
        );
    }
}

#[test]
fn hugetlb_memory_fails_or_is_all_huge_pages() {
    for iomem in [IoMem::MmapHuge, IoMem::ShmHuge] {
        match BufferPool::with_memory(1, MIB, 4096, iomem) {
            Ok(pool) => assert_eq!(pool.memory().huge_page_bytes, pool.memory().bytes),
            Err(e) => eprintln!("{iomem:?} refused (no pages in nr_hugepages?): {e}"),
        }
    }
}

/// A file of 1 MiB in `dir`, and its engine config with 64 KiB buffers.
fn config(dir: &tempfile::TempDir, uring: UringOptions, iomem: IoMem) -> EngineConfig {
    EngineConfig {
        iomem,
        uring,
        ..common::config(dir, 64 << 10)
    }
}

/// Writes slot 1 at two offsets, reads them back into slots 2 and 3.
fn round_trip(uring: UringOptions, iomem: IoMem) -> Option<diskbench_engine::Capabilities> {
    let dir = tempfile::tempdir().expect("temp dir");
    let cfg = config(&dir, uring, iomem);
    let mut e = match open(EngineKind::IoUring, &cfg) {
        Ok(e) => e,
        Err(e) if e.is_refusal() => {
            eprintln!("skipping: io_uring refused here: {e}");
            return None;
        }
        Err(e) => panic!("{uring:?}: {e}"),
    };
    let len = 64 << 10;
    let io = |slot, dir, offset| IoRequest {
        slot,
        file: 0,
        dir,
        offset,
        len,
        prio: 0,
    };
    let written = e.buffer(1).unwrap()[..len as usize].to_vec();
    let mut out = Vec::new();
    e.queue(io(1, Direction::Write, 0)).expect("queue");
    e.submit().expect("submit");
    while out.is_empty() {
        e.reap(1, &mut out).expect("reap");
    }
    if uring.sqpoll() {
        // Past the kernel's idle time (1 s) the polling thread sleeps: the
        // next submit must see NEED_WAKEUP and wake it, or nothing starts.
        std::thread::sleep(std::time::Duration::from_millis(1300));
    }
    e.queue(io(1, Direction::Write, 128 << 10)).expect("queue");
    e.submit().expect("submit");
    while out.len() < 2 {
        e.reap(1, &mut out).expect("reap");
    }
    e.queue(io(2, Direction::Read, 0)).expect("queue");
    e.queue(io(3, Direction::Read, 128 << 10)).expect("queue");
    e.submit().expect("submit");
    while out.len() < 4 {
        e.reap(1, &mut out).expect("reap");
    }
    assert!(out.iter().all(|c| c.result == len as i64), "{out:?}");
    assert_eq!(e.buffer(2).unwrap()[..len as usize], written[..]);
    assert_eq!(e.buffer(3).unwrap()[..len as usize], written[..]);
    assert_eq!(e.memory().iomem, iomem);
    Some(e.capabilities())
}

#[test]
fn sqthread_poll_reads_back_what_it_wrote() {
    within(60, || {
        let uring = UringOptions {
            sqthread_poll: Some(true),
            ..Default::default()
        };
        round_trip(uring, IoMem::Default);
        let uring = UringOptions {
            sqthread_poll: Some(true),
            sqthread_poll_cpu: Some(0),
            ..Default::default()
        };
        round_trip(uring, IoMem::Malloc);
    });
}

#[test]
fn fixedbufs_and_registerfiles_off_register_nothing_and_still_work() {
    within(60, || {
        let uring = UringOptions {
            fixedbufs: Some(false),
            registerfiles: Some(false),
            ..Default::default()
        };
        if let Some(caps) = round_trip(uring, IoMem::Mmap) {
            assert!(
                !caps.registered_buffers && !caps.registered_files,
                "{caps:?}"
            );
        }
        if let Some(caps) = round_trip(UringOptions::default(), IoMem::Default) {
            eprintln!("default: {caps:?}");
        }
    });
}

#[test]
fn hugetlb_iomem_without_reserved_pages_names_nr_hugepages() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cfg = config(&dir, UringOptions::default(), IoMem::MmapHuge);
    match open(EngineKind::Sync, &cfg) {
        Ok(e) => assert_eq!(e.memory().huge_page_bytes, e.memory().bytes),
        Err(e) => {
            let text = e.to_string();
            assert!(text.contains("/proc/sys/vm/nr_hugepages"), "{text}");
            assert!(text.contains("iomem=mmaphuge"), "{text}");
            assert!(!e.is_refusal(), "no fallback to another engine: {text}");
        }
    }
}
