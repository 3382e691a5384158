//! Helpers shared by the engine's integration tests.
#![allow(dead_code)] // each test file uses some of them

use std::sync::mpsc;
use std::time::Duration;

/// Runs `f` on its own thread and fails if it takes longer than `secs`
/// (a reap that waits for a completion that never comes would hang forever).
pub fn within(secs: u64, f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(()) => handle.join().expect("test thread"),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            std::panic::resume_unwind(handle.join().expect_err("the test thread panicked"))
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("hung for more than {secs} s"),
    }
}

/// An engine config on a fresh 1 MiB file `data` in `dir`: depth 4, buffers
/// of `block_bytes`, diskbench's default memory and io_uring options.
pub fn config(dir: &tempfile::TempDir, block_bytes: usize) -> diskbench_engine::EngineConfig {
    let path = dir.path().join("data");
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)
        .expect("create the test file");
    file.set_len(1 << 20).expect("size the test file");
    diskbench_engine::EngineConfig {
        files: std::sync::Arc::from(vec![file]),
        paths: std::sync::Arc::from(vec![path]),
        depth: 4,
        block_bytes,
        align: 4096,
        iomem: Default::default(),
        uring: Default::default(),
        advice: None,
    }
}
