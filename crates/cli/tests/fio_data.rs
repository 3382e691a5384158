//! fio's buffer options end to end: what lands in the file, and what the
//! JSON says the data was (`diskbench.data`).

mod common;
use common::*;
use std::collections::HashSet;

/// Writes 64 blocks of 4 KiB with `extra`; returns the JSON's `data` and
/// the file's blocks.
fn write_with(extra: &[&str]) -> (serde_json::Value, Vec<Vec<u8>>) {
    let dir = real_dir();
    let file = dir.path().join("f");
    let out = diskbench()
        .args(["fio", "--name=w", "--rw=write", "--bs=4k", "--size=256k"])
        .arg(format!("--filename={}", file.display()))
        .args(["--output-format=json", "--unlink=0"])
        .args(extra)
        .output()
        .expect("diskbench runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{extra:?}: {stderr}");
    let data = json_of(&out)["jobs"][0]["diskbench"]["data"].clone();
    let bytes = std::fs::read(&file).expect("the file is kept");
    (data, bytes.chunks(4096).map(<[u8]>::to_vec).collect())
}

fn distinct(blocks: &[Vec<u8>]) -> usize {
    blocks.iter().collect::<HashSet<_>>().len()
}

#[test]
fn the_default_writes_unique_random_blocks_and_says_so() {
    let (data, blocks) = write_with(&[]);
    assert_eq!(distinct(&blocks), 64);
    assert_eq!(data["kind"], "random");
    assert_eq!(data["unique"], true);
    assert_eq!(data["scramble"], true);
}

#[test]
fn zeros_and_patterns_are_written_as_they_are() {
    let (data, blocks) = write_with(&["--zero_buffers"]);
    assert!(blocks.iter().all(|b| b.iter().all(|x| *x == 0)));
    assert_eq!(
        (data["kind"].as_str(), data["unique"].as_bool()),
        (Some("zeros"), Some(false))
    );
    let (data, blocks) = write_with(&["--buffer_pattern=0xdeadbeef"]);
    assert!(blocks
        .iter()
        .all(|b| b.chunks(4).all(|w| w == [0xde, 0xad, 0xbe, 0xef])));
    assert_eq!(data["pattern_hex"], "deadbeef");
}

#[test]
fn compress_percentage_leaves_that_share_of_each_chunk_fixed() {
    let (data, blocks) = write_with(&[
        "--buffer_compress_percentage=75",
        "--buffer_compress_chunk=1k",
    ]);
    for block in &blocks {
        for chunk in block.chunks(1024) {
            assert!(
                chunk[256..].iter().all(|x| *x == 0),
                "the last 75% is zeros"
            );
            assert!(
                chunk[..256].iter().filter(|x| **x == 0).count() < 16,
                "the rest random"
            );
        }
    }
    assert_eq!(data["kind"], "compressible");
    assert_eq!(data["compress_percentage"], 75);
    assert_eq!(data["compress_chunk"], 1024);
}

#[test]
fn dedupe_percentage_repeats_blocks() {
    let (data, blocks) = write_with(&["--dedupe_percentage=50"]);
    let repeated = 64 - distinct(&blocks);
    assert!(
        (16..=48).contains(&repeated),
        "about half of 64 repeated: {repeated}"
    );
    assert_eq!(data["dedupe_percentage"], 50);
    assert_eq!(data["unique"], false);
}

#[test]
fn buffer_options_beside_verify_are_refused() {
    let out = diskbench()
        .args([
            "fio",
            "--parse-only",
            "--name=v",
            "--filename=/tmp/x",
            "--size=1m",
        ])
        .args(["--verify=crc32c", "--zero_buffers"])
        .output()
        .expect("diskbench runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("verify= writes its own blocks"), "{stderr}");
}
