//! No job panics, whatever its engine, pattern, verify method and block
//! size: each either runs or is refused with a message, and with
//! `--output-format=json` stdout is always one JSON document. A 64 KiB
//! write with `verify=crc32c` on the null engine once panicked (exit 101,
//! empty stdout): the null engine's buffers were 4 KiB.

mod common;
use common::*;

const ENGINES: [&str; 4] = ["psync", "io_uring", "libaio", "null"];
const PATTERNS: [&str; 6] = ["read", "write", "randread", "randwrite", "rw", "randrw"];
const VERIFY: [&str; 8] = [
    "none", "crc32c", "md5", "xxhash", "sha256", "meta", "pattern", "crc7",
];
/// 4097 is odd on purpose: not a multiple of any sector or page.
const BLOCK_SIZES: [&str; 4] = ["512", "4k", "4097", "64k"];

fn check(dir: &std::path::Path, engine: &str, rw: &str, verify: &str, bs: &str) {
    let job = format!("{engine} rw={rw} verify={verify} bs={bs}");
    let out = diskbench()
        .current_dir(dir)
        .args([
            "fio",
            "--name=p",
            "--size=128k",
            "--no-save",
            "--output-format=json",
        ])
        .args(["--iodepth=4", "--direct=0", "--allow-overwrite"])
        .arg(format!(
            "--filename={}",
            dir.join(format!("{engine}.{rw}")).display()
        ))
        .arg(format!("--ioengine={engine}"))
        .arg(format!("--rw={rw}"))
        .arg(format!("--bs={bs}"))
        .args((verify != "none").then(|| format!("--verify={verify}")))
        .args((verify == "pattern").then_some("--verify_pattern=0xdeadbeef"))
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_ne!(out.status.code(), Some(101), "{job} panicked: {err}");
    assert!(!err.contains("panicked"), "{job}: {err}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{job}: stdout is not JSON ({e}): {}", stdout_of(&out)));
    match out.status.code() {
        Some(0) => assert!(doc["jobs"][0]["jobname"] == "p", "{job}: {doc}"),
        _ => assert!(!err.trim().is_empty(), "{job} failed without a word"),
    }
}

#[test]
fn every_engine_pattern_verify_method_and_block_size_runs_or_is_refused() {
    // tmpfs where there is one: 768 small jobs, each a few milliseconds.
    let base = ["/dev/shm"]
        .iter()
        .map(std::path::PathBuf::from)
        .find(|p| p.is_dir())
        .unwrap_or_else(std::env::temp_dir);
    let dir = tempfile::tempdir_in(base).unwrap();
    std::thread::scope(|s| {
        for (i, engine) in ENGINES.iter().enumerate() {
            let dir = dir.path().join(format!("e{i}"));
            std::fs::create_dir(&dir).unwrap();
            s.spawn(move || {
                for rw in PATTERNS {
                    for verify in VERIFY {
                        for bs in BLOCK_SIZES {
                            check(&dir, engine, rw, verify, bs);
                        }
                    }
                }
            });
        }
    });
}
