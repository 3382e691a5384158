//! The trim modes: parsed to their `RwMode`, counted as changing data (so
//! the runner's guards see them), sized by the trims' part of the sizes, and refused
//! where their trim side is not carried out yet.

use super::{ok, parse};
use model::{EngineKind, RwMode};

fn job(extra: &[&str]) -> model::JobSpec {
    let mut args = vec!["--name=j", "--filename=/tmp/x", "--size=1m"];
    args.extend_from_slice(extra);
    ok(&args).jobs.remove(0)
}

fn refusal(extra: &[&str]) -> String {
    let mut args = vec!["--name=j", "--filename=/tmp/x", "--size=1m"];
    args.extend_from_slice(extra);
    match parse(&args) {
        Ok(a) => panic!("{args:?} should be refused, parsed to {a:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_four_trim_modes_parse_and_change_data() {
    let modes = [
        ("trim", RwMode::Trim, false, false),
        ("randtrim", RwMode::RandTrim, true, false),
        ("trimwrite", RwMode::TrimWrite, false, true),
        ("randtrimwrite", RwMode::RandTrimWrite, true, true),
    ];
    for (name, mode, random, writes) in modes {
        let spec = job(&[&format!("--rw={name}"), "--bs=64k"]);
        assert_eq!(spec.rw, mode, "{name}");
        assert_eq!(mode.fio_name(), name);
        assert_eq!(
            (mode.is_random(), mode.writes()),
            (random, writes),
            "{name}"
        );
        assert!(mode.trims() && !mode.reads(), "{name}");
        // A trim destroys data: --readonly and the overwrite guard see it.
        assert!(spec.writes_data(), "{name}");
        assert_eq!(spec.bs_bytes, 64 << 10);
    }
    assert!(!RwMode::Write.trims() && !job(&["--rw=read"]).writes_data());
}

#[test]
fn trims_take_the_third_part_of_the_sizes_as_fio() {
    // Two parts: trims take the write part.
    let spec = job(&["--rw=trim", "--bs=4k,16k"]);
    assert_eq!(spec.bs_bytes, 16 << 10);
    // Three: the third, in every trim mode (trimwrite's writes follow their
    // trims), and for each option of the sizes; empty is fio's 4 KiB.
    for mode in ["trim", "randtrim", "trimwrite", "randtrimwrite"] {
        let rw = format!("--rw={mode}");
        assert_eq!(job(&[&rw, "--bs=4k,8k,16k"]).bs_bytes, 16 << 10, "{mode}");
    }
    assert_eq!(job(&["--rw=trim", "--bs=32k,32k,"]).bs_bytes, 4 << 10);
    let range = job(&["--rw=trim", "--bsrange=1k-1k,2k-2k,8k-16k"]);
    assert_eq!(
        range.block_sizes_of(model::Direction::Write).max_bytes(),
        16 << 10
    );
    assert_eq!(
        range.block_sizes_of(model::Direction::Write).min_bytes(),
        8 << 10
    );
    let split = job(&["--rw=trim", "--bssplit=1k,2k,8k"]);
    assert_eq!(split.bs_bytes, 8 << 10);
    let align = job(&["--rw=trim", "--blockalign=1k,2k,8k"]);
    assert_eq!(align.blockalign_bytes.write, 8 << 10);
    // The last option given counts, as in fio.
    assert_eq!(
        job(&["--rw=trim", "--bs=4k,4k,64k", "--bs=8k,16k"]).bs_bytes,
        16 << 10
    );
    // Not a trim mode: the third part is not used.
    assert_eq!(job(&["--rw=write", "--bs=4k,8k,16k"]).bs_bytes, 8 << 10);
}

#[test]
fn what_trims_do_not_carry_out_yet_is_refused() {
    for (extra, option) in [
        ("--rate=1m", "rate"),
        ("--verify=crc32c", "verify"),
        ("--ioengine=ftruncate", "ftruncate"),
    ] {
        let msg = refusal(&["--rw=randtrim", extra]);
        assert!(msg.contains("rw=randtrim"), "{msg}");
        assert!(msg.contains(option), "{msg}");
    }
    assert_eq!(
        job(&["--rw=trim", "--ioengine=falloc"]).engine,
        EngineKind::Falloc
    );
    // fio's logs take trims (direction 2): carried out, not refused.
    assert!(job(&["--rw=randtrimwrite", "--write_bw_log=x"]).logs.any());
}
