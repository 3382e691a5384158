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
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("verify= writes its own blocks"), "{stderr}");
}

/// A name in single quotes in `buffer_pattern` is a file whose bytes are
/// that piece of the pattern: combined with the other pieces, the file
/// written holds what fio 3.33 writes (a pattern under fio 3.33's limit
/// of 512 bytes); a pattern file as long as the block fills it exactly
/// (fio 3.34 and later), and `verify_pattern` reads such a file too.
#[test]
fn a_pattern_file_in_single_quotes_is_read_as_fio_reads_it() {
    let dir = real_dir();
    let pat = dir.path().join("p.bin");
    let short: Vec<u8> = (0..100u32).map(|i| (i * 37 + 11) as u8).collect();
    std::fs::write(&pat, &short).unwrap();
    let pattern = format!("--buffer_pattern=0xdeadface\"abcd\"1000'{}'", pat.display());
    let (_, ours) = write_with(&[&pattern]);
    let fio_file = dir.path().join("fio-written");
    let args = [
        "--name=w",
        "--rw=write",
        "--bs=4k",
        "--size=256k",
        &format!("--filename={}", fio_file.display()),
        &pattern,
    ];
    if real_fio_in(dir.path(), &args).is_some() {
        let fio = std::fs::read(&fio_file).unwrap();
        assert!(fio[..4].iter().any(|b| *b != 0), "fio wrote its pattern");
        let ours = ours.concat();
        let first_difference = ours.iter().zip(&fio).position(|(a, b)| a != b);
        assert_eq!(first_difference, None, "the same bytes as fio");
        assert_eq!(ours.len(), fio.len());
    }
    // A pattern file of a whole block: every block is the file.
    let block: Vec<u8> = (0..4096u32).map(|i| (i * 131 + i / 256) as u8).collect();
    std::fs::write(&pat, &block).unwrap();
    let (_, blocks) = write_with(&[&format!("--buffer_pattern='{}'", pat.display())]);
    assert!(blocks.iter().all(|b| *b == block));
    // Written with it, then verified against the same file: no error.
    let data = dir.path().join("data");
    let job = format!(
        "--name=w --rw=write --bs=4k --size=64k --filename={d} --buffer_pattern='{p}' \
         --name=r --stonewall --rw=read --bs=4k --size=64k --filename={d} --verify=pattern \
         --verify_pattern='{p}'",
        d = data.display(),
        p = pat.display()
    );
    let doc = fio_ok_in(dir.path(), &job);
    assert_eq!(doc["jobs"][1]["error"], 0, "{}", doc["jobs"][1]);
}
