//! `open_with_fallback`: io_uring falls back to libaio, then sync, when the
//! system refuses it. The refusal is made real with a seccomp filter that
//! answers EPERM, as Docker's default profile does for io_uring.

use diskbench_engine::{open_with_fallback, Direction, Engine, EngineConfig, IoRequest};
use model::EngineKind;
mod common;

fn config(dir: &tempfile::TempDir) -> EngineConfig {
    common::config(dir, 4096)
}

/// Opens `wanted` with fallback, checks it does I/O, returns what ran.
fn open_and_read(wanted: EngineKind) -> (EngineKind, Option<String>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let cfg = config(&dir);
    let (mut engine, fallback) = open_with_fallback(wanted, &cfg).expect("some engine");
    if fallback.is_none() {
        assert_eq!(engine.kind(), wanted);
    }
    let req = IoRequest {
        slot: 0,
        file: 0,
        dir: Direction::Read,
        offset: 0,
        len: 4096,
        prio: 0,
    };
    engine.queue(req).expect("queue");
    engine.submit().expect("submit");
    let mut out = Vec::new();
    while out.is_empty() {
        engine.reap(1, &mut out).expect("reap");
    }
    assert_eq!(out[0].result, 4096);
    (engine.kind(), fallback.map(|f| f.reason))
}

#[test]
fn io_uring_with_fallback_returns_an_engine() {
    for wanted in [EngineKind::IoUring, EngineKind::Libaio] {
        let (used, reason) = open_and_read(wanted);
        if let Some(reason) = reason {
            eprintln!("{wanted:?} fell back to {used:?}: {reason}");
        }
    }
}

/// Installs, on the calling thread only, a seccomp filter that makes the
/// given syscalls fail with EPERM. Returns false when the kernel refuses.
#[cfg(target_arch = "x86_64")]
fn deny_on_this_thread(syscalls: &[libc::c_long]) -> bool {
    const LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const RET_K: u16 = 0x06; // BPF_RET | BPF_K
    let stmt = |code, k| libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    };
    // Load seccomp_data.nr; for each denied number jump to the EPERM return.
    let mut prog = vec![stmt(LD_W_ABS, 0)];
    for (i, &nr) in syscalls.iter().enumerate() {
        let to_deny = (syscalls.len() - i) as u8; // skip the rest and ALLOW
        prog.push(libc::sock_filter {
            code: JEQ_K,
            jt: to_deny,
            jf: 0,
            k: nr as u32,
        });
    }
    prog.push(stmt(RET_K, libc::SECCOMP_RET_ALLOW));
    prog.push(stmt(RET_K, libc::SECCOMP_RET_ERRNO | libc::EPERM as u32));
    let fprog = libc::sock_fprog {
        len: prog.len() as u16,
        filter: prog.as_mut_ptr(),
    };
    // SAFETY: PR_SET_NO_NEW_PRIVS takes plain integers and only restricts
    // this thread (needed to install a filter without CAP_SYS_ADMIN).
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return false;
    }
    let mode = libc::SECCOMP_MODE_FILTER as libc::c_ulong;
    // SAFETY: `fprog` points to a valid filter program that lives across the
    // call (the kernel copies it); without TSYNC it binds this thread only.
    unsafe { libc::prctl(libc::PR_SET_SECCOMP, mode, &fprog as *const _, 0, 0) == 0 }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn refused_io_uring_falls_back_to_libaio_then_sync() {
    let run = |deny: Vec<libc::c_long>| {
        std::thread::spawn(move || {
            if !deny_on_this_thread(&deny) {
                testbed::skip("cannot install a seccomp filter here");
                return None;
            }
            Some(open_and_read(EngineKind::IoUring))
        })
        .join()
        .expect("test thread")
    };
    let Some((used, reason)) = run(vec![libc::SYS_io_uring_setup]) else {
        return;
    };
    assert_eq!(used, EngineKind::Libaio);
    let reason = reason.expect("a fallback reason");
    assert!(reason.contains("io_uring"), "{reason}");
    let both = vec![libc::SYS_io_uring_setup, libc::SYS_io_setup];
    let (used, reason) = run(both).expect("the filter installed the first time");
    assert_eq!(used, EngineKind::Sync);
    eprintln!("fell back to sync: {}", reason.expect("a fallback reason"));
}
