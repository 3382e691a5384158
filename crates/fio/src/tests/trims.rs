//! The trim modes: parsed to their `RwMode`, counted as changing data (so
//! the runner's guards see them), sized by the write side, and refused
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
fn trims_take_the_write_block_size() {
    let spec = job(&["--rw=trim", "--bs=4k,16k"]);
    assert_eq!(spec.bs_bytes, 16 << 10);
    // A third part equal to the write part is what diskbench does anyway.
    assert_eq!(job(&["--rw=trim", "--bs=4k,16k,16k"]).bs_bytes, 16 << 10);
    let msg = refusal(&["--rw=trim", "--bs=4k,8k,16k"]);
    assert!(msg.contains("a trim size of its own"), "{msg}");
    assert!(msg.contains("bs=4k,8k"), "{msg}");
    // Not a trim mode: the third part is not used, as before.
    assert_eq!(job(&["--rw=write", "--bs=4k,8k,16k"]).bs_bytes, 8 << 10);
}

#[test]
fn what_trims_do_not_carry_out_yet_is_refused() {
    for (extra, option) in [
        ("--rate=1m", "rate"),
        ("--verify=crc32c", "verify"),
        ("--write_bw_log=x", "write_bw_log"),
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
}
