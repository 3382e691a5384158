//! Helpers shared by the engine's integration tests.

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
