//! Each kind of damage, made by hand on real chunk bytes, is named for what
//! it is: corrupted, stale or misdirected, with the first bad byte.

use diskbench_verify::{Expectations, Format, Mismatch, Stamp};
use model::verify::{MismatchKind, PatternPiece, VerifyAlgo, VerifySpec};

const SEED: u64 = 0x89;
const BS: usize = 4096;

fn format(algo: VerifyAlgo, interval: u64, header_offset: u64) -> Format {
    let spec = VerifySpec {
        algo,
        interval,
        header_offset,
        pattern: algo
            .needs_pattern()
            .then(|| vec![PatternPiece::Bytes(vec![0xde, 0xad])]),
        ..VerifySpec::default()
    };
    Format::new(&spec, BS as u64).unwrap()
}

fn written(f: &Format, offset: u64, generation: u64) -> Vec<u8> {
    let mut buf = vec![0u8; BS];
    let stamp = Stamp {
        file: 0,
        writer: 0,
        generation,
        seed: 0,
    };
    f.fill(&mut buf, offset, SEED, stamp);
    buf
}

/// Checks `buf` read at `offset`, against the job's table when `table`.
fn check(f: &Format, buf: &[u8], offset: u64, table: Option<&Expectations>) -> Vec<Mismatch> {
    let mut copy = buf.to_vec();
    let mut out = Vec::new();
    f.check(
        &mut copy,
        0,
        offset,
        SEED,
        |at| table.and_then(|t| t.expected(0, at)),
        &mut out,
    );
    out
}

fn table(offset: u64, generation: u64) -> Expectations {
    let mut t = Expectations::new(&[(0, 1 << 20)], BS as u64, 0);
    t.wrote(0, offset, BS as u64, generation, None);
    t
}

const ALGOS: [VerifyAlgo; 12] = [
    VerifyAlgo::Md5,
    VerifyAlgo::Crc64,
    VerifyAlgo::Crc32c,
    VerifyAlgo::Crc32,
    VerifyAlgo::Crc16,
    VerifyAlgo::Crc7,
    VerifyAlgo::Xxhash,
    VerifyAlgo::Sha1,
    VerifyAlgo::Sha256,
    VerifyAlgo::Sha512,
    VerifyAlgo::Meta,
    VerifyAlgo::PatternHdr,
];

#[test]
fn what_was_written_checks_clean_with_and_without_the_table() {
    for algo in ALGOS
        .into_iter()
        .chain([VerifyAlgo::Pattern, VerifyAlgo::Null])
    {
        for (interval, ho) in [(0, 0), (1024, 0), (0, 512)] {
            if ho != 0 && !algo.has_header() {
                continue;
            }
            let f = format(algo, interval, ho);
            let buf = written(&f, 8192, 7);
            assert_eq!(
                check(&f, &buf, 8192, None),
                vec![],
                "{algo:?} {interval} {ho}"
            );
            let t = table(8192, 7);
            assert_eq!(check(&f, &buf, 8192, Some(&t)), vec![], "{algo:?}");
        }
    }
}

#[test]
fn a_flipped_data_bit_is_corruption_at_that_byte() {
    for algo in ALGOS.into_iter().filter(|a| *a != VerifyAlgo::Meta) {
        let f = format(algo, 0, 0);
        let mut buf = written(&f, 8192, 3);
        buf[BS - 1] ^= 1;
        for t in [None, Some(table(8192, 3))] {
            let m = check(&f, &buf, 8192, t.as_ref());
            assert_eq!(m.len(), 1, "{algo:?}");
            assert_eq!(m[0].kind, MismatchKind::Corrupted, "{algo:?}");
            assert_eq!(m[0].first_bad_byte, Some(8192 + BS as u64 - 1), "{algo:?}");
            assert!(
                m[0].found.contains("1 of 4096 bytes differ"),
                "{}",
                m[0].found
            );
        }
    }
}

#[test]
fn a_flipped_header_bit_is_corruption_not_a_lost_write() {
    let f = format(VerifyAlgo::Crc32c, 0, 0);
    let mut buf = written(&f, 8192, 3);
    buf[26] ^= 0x10; // inside the generation field
    let m = check(&f, &buf, 8192, Some(&table(8192, 3)));
    assert_eq!(m[0].kind, MismatchKind::Corrupted);
    assert_eq!(m[0].first_bad_byte, Some(8192 + 26));
    // On its own the chunk still says its header is damaged, not stale.
    let m = check(&f, &buf, 8192, None);
    assert_eq!(m[0].kind, MismatchKind::Corrupted, "{:?}", m[0]);
}

/// Every byte a chunk's header spans is checked, the padding after the
/// header's CRC too: fio's t/verify.py writes 4 bytes at a random place and
/// expects the verify to fail, and a crc64 header (60 bytes padded to 64)
/// left 4 bytes no check covered.
#[test]
fn a_changed_byte_anywhere_in_the_header_is_corruption() {
    for algo in ALGOS.into_iter().filter(|a| *a != VerifyAlgo::Meta) {
        let f = format(algo, 0, 0);
        let good = written(&f, 8192, 3);
        // 128 bytes: past the longest header (sha512's, 120).
        for at in 0..128 {
            let mut buf = good.clone();
            buf[at] ^= 0x21;
            for t in [None, Some(table(8192, 3))] {
                let m = check(&f, &buf, 8192, t.as_ref());
                assert_eq!(m.len(), 1, "{algo:?} byte {at}, table {}", t.is_some());
                assert_eq!(m[0].kind, MismatchKind::Corrupted, "{algo:?} byte {at}");
            }
        }
    }
}

#[test]
fn a_moved_header_is_found_where_it_was_put() {
    let f = format(VerifyAlgo::Crc32c, 0, 1024);
    let mut buf = written(&f, 0, 1);
    assert_ne!(&buf[..8], b"dbverify");
    assert_eq!(&buf[1024..1032], b"dbverify");
    buf[100] ^= 4; // data that sat at 0..header before the swap
    let m = check(&f, &buf, 0, Some(&table(0, 1)));
    assert_eq!(m[0].kind, MismatchKind::Corrupted);
    assert_eq!(m[0].first_bad_byte, Some(100));
}

#[test]
fn an_older_generation_zeros_or_old_data_are_a_lost_write() {
    let f = format(VerifyAlgo::Crc32c, 0, 0);
    let older = written(&f, 8192, 2);
    let m = check(&f, &older, 8192, Some(&table(8192, 5)));
    assert_eq!(m[0].kind, MismatchKind::Stale);
    assert_eq!(m[0].expected, "generation 5 (the last write)");
    assert_eq!(m[0].found, "generation 2");

    let zeros = vec![0u8; BS];
    for t in [None, Some(table(8192, 5))] {
        let m = check(&f, &zeros, 8192, t.as_ref());
        assert_eq!(m[0].kind, MismatchKind::Stale);
        assert!(m[0].found.starts_with("zeros"));
    }

    let mut laid_out = vec![0u8; BS];
    for (i, b) in laid_out.iter_mut().enumerate() {
        *b = (i * 7 + 3) as u8;
    }
    for t in [None, Some(table(8192, 5))] {
        let m = check(&f, &laid_out, 8192, t.as_ref());
        assert_eq!(m[0].kind, MismatchKind::Stale, "{:?}", m[0]);
    }
}

#[test]
fn a_chunk_for_another_offset_is_a_misdirected_write() {
    let f = format(VerifyAlgo::Xxhash, 0, 0);
    let meant_for_4096 = written(&f, 4096, 9);
    for t in [None, Some(table(8192, 3))] {
        let m = check(&f, &meant_for_4096, 8192, t.as_ref());
        assert_eq!(m[0].kind, MismatchKind::Misdirected);
        assert_eq!(m[0].expected, "the chunk for offset 8192");
        assert_eq!(m[0].found, "the chunk for offset 4096");
    }
}

#[test]
fn racing_writes_accept_either_generation() {
    let f = format(VerifyAlgo::Crc32c, 0, 0);
    let mut t = Expectations::new(&[(0, 1 << 20)], BS as u64, 0);
    t.wrote(0, 0, BS as u64, 4, None);
    t.wrote(0, 0, BS as u64, 5, Some(4));
    assert_eq!(check(&f, &written(&f, 0, 4), 0, Some(&t)), vec![]);
    assert_eq!(check(&f, &written(&f, 0, 5), 0, Some(&t)), vec![]);
    assert_eq!(
        check(&f, &written(&f, 0, 3), 0, Some(&t))[0].kind,
        MismatchKind::Stale
    );
}

#[test]
fn a_pattern_names_its_first_bad_byte_and_its_offset_piece() {
    let f = format(VerifyAlgo::Pattern, 0, 0);
    let mut buf = written(&f, 0, 1);
    assert_eq!(&buf[..4], &[0xde, 0xad, 0xde, 0xad]);
    buf[77] = 0;
    let m = check(&f, &buf, 0, None);
    assert_eq!(m[0].kind, MismatchKind::Corrupted);
    assert_eq!(m[0].first_bad_byte, Some(77));

    let spec = VerifySpec {
        algo: VerifyAlgo::Pattern,
        pattern: Some(vec![PatternPiece::Offset]),
        ..VerifySpec::default()
    };
    let f = Format::new(&spec, BS as u64).unwrap();
    let at_8k = written(&f, 8192, 1);
    assert_eq!(&at_8k[..8], &8192u64.to_le_bytes());
    assert_eq!(check(&f, &at_8k, 8192, None), vec![]);
    let m = check(&f, &at_8k, 4096, None);
    assert_eq!(m[0].kind, MismatchKind::Misdirected);
    assert_eq!(m[0].found, "the chunk for offset 8192");
}

#[test]
fn bad_formats_say_which_option_to_change() {
    let spec = |interval, header_offset, algo| VerifySpec {
        algo,
        interval,
        header_offset,
        ..VerifySpec::default()
    };
    // An interval that does not divide the block is fio's, unless the
    // chunk it leaves cannot hold the header.
    let e = Format::new(&spec(4090, 0, VerifyAlgo::Crc32c), 4096)
        .unwrap_err()
        .to_string();
    assert!(e.contains("verify_interval=4090"), "{e}");
    let e = Format::new(&spec(64, 0, VerifyAlgo::Sha512), 4096)
        .unwrap_err()
        .to_string();
    assert!(e.contains("header"), "{e}");
    let e = Format::new(&spec(0, 4090, VerifyAlgo::Crc32c), 4096)
        .unwrap_err()
        .to_string();
    assert!(e.contains("verify_offset"), "{e}");
    let e = Format::new(&spec(0, 0, VerifyAlgo::Pattern), 4096)
        .unwrap_err()
        .to_string();
    assert!(e.contains("verify_pattern"), "{e}");
}

#[test]
fn an_interval_that_does_not_divide_the_block_leaves_a_short_chunk() {
    // fio's verify_interval need not divide bs: 4096 = 3791 + 305.
    for algo in [VerifyAlgo::Md5, VerifyAlgo::Pattern, VerifyAlgo::PatternHdr] {
        let f = format(algo, 3791, 0);
        assert_eq!((f.interval, f.grain), (3791, BS as u64), "{algo:?}");
        let mut buf = written(&f, 8192, 5);
        let t = table(8192, 5);
        assert_eq!(check(&f, &buf, 8192, None), vec![], "{algo:?}");
        assert_eq!(check(&f, &buf, 8192, Some(&t)), vec![], "{algo:?}");
        if algo.has_header() {
            assert_eq!(&buf[3791..3799], b"dbverify", "{algo:?}");
        }
        buf[4000] ^= 1;
        let m = check(&f, &buf, 8192, Some(&t));
        assert_eq!(m.len(), 1, "{algo:?}");
        assert_eq!((m[0].offset, m[0].length), (8192 + 3791, 305), "{algo:?}");
        assert_eq!(m[0].first_bad_byte, Some(8192 + 4000), "{algo:?}");
    }
    // A short chunk too small for the header is refused with the sizes.
    let spec = VerifySpec {
        algo: VerifyAlgo::Md5,
        interval: 4090,
        ..VerifySpec::default()
    };
    let e = Format::new(&spec, BS as u64).unwrap_err().to_string();
    assert!(e.contains("chunk of 6 bytes"), "{e}");
}

#[test]
fn verify_offset_without_a_header_moves_nothing() {
    // fio runs verify=pattern with verify_offset (t/verify.py does): there
    // is no header to move, so the chunk is the pattern as without it.
    let spec = |header_offset| VerifySpec {
        algo: VerifyAlgo::Pattern,
        interval: 2048,
        header_offset,
        pattern: Some(vec![PatternPiece::Bytes(vec![0xde, 0xad])]),
        ..VerifySpec::default()
    };
    let moved = Format::new(&spec(1024), BS as u64).unwrap();
    let plain = Format::new(&spec(0), BS as u64).unwrap();
    assert_eq!(moved.header_offset, 0);
    assert_eq!(written(&moved, 8192, 1), written(&plain, 8192, 1));
    assert_eq!(check(&moved, &written(&moved, 8192, 1), 8192, None), vec![]);
}
