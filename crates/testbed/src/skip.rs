//! How a test that cannot run here says so. A skipped test passes, so a
//! machine that lacks a tool or a privilege would pass the suite while
//! testing less; every skip therefore goes through [`skip`], which prints
//! the reason and, when `DISKBENCH_SKIP_LOG` names a file, appends the test
//! and the reason to it. `.ci/run` sets it and fails when anything was
//! skipped: CI installs every tool and runs as root, so nothing should be.

use std::io::Write;

/// Reports that the calling test is skipped, and why (the reason says what
/// is missing and how to get it).
pub fn skip(reason: impl std::fmt::Display) {
    let test = std::thread::current()
        .name()
        .unwrap_or("a test outside the harness")
        .to_string();
    eprintln!("skipped: {reason}");
    let Some(path) = std::env::var_os("DISKBENCH_SKIP_LOG") else {
        return;
    };
    let logged = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| writeln!(f, "{test}: {reason}"));
    if let Err(e) = logged {
        eprintln!("could not log the skip in {}: {e}", path.to_string_lossy());
    }
}
