//! `ioengine=mmap` and `posixaio`: accepted, and mmap's combinations that
//! diskbench (or fio) does not carry out refused by the option's name.

use super::parse;
use model::EngineKind;

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    ["--name=j", "--size=1m"]
        .iter()
        .chain(extra)
        .copied()
        .collect()
}

fn refusal(extra: &[&str]) -> String {
    parse(&args(extra)).expect_err("refused").to_string()
}

#[test]
fn mmap_and_posixaio_are_engines() {
    for (name, kind) in [
        ("mmap", EngineKind::Mmap),
        ("posixaio", EngineKind::Posixaio),
    ] {
        let engine = format!("--ioengine={name}");
        let job = parse(&args(&[&engine, "--iodepth=8"]))
            .expect("parses")
            .jobs
            .remove(0);
        assert_eq!(job.engine, kind);
        assert_eq!(kind.fio_name(), name);
        assert!(EngineKind::NAMES.contains(name));
    }
    assert!(EngineKind::Posixaio.is_asynchronous());
    assert!(!EngineKind::Mmap.is_asynchronous());
    assert!(
        !EngineKind::Mmap.extends_files(),
        "a mapping cannot grow its file"
    );
}

#[test]
fn mmap_syncs_need_whole_pages_as_in_fio() {
    for sync in ["--direct=1", "--fsync=4", "--fdatasync=2"] {
        let e = refusal(&["--ioengine=mmap", "--bs=1k", sync]);
        let option = &sync[2..sync.find('=').unwrap()];
        assert!(e.contains(&format!("{option}=")), "{e}");
        assert!(e.contains("whole pages of 4096 bytes"), "{e}");
    }
    assert!(parse(&args(&["--ioengine=mmap", "--bs=8k", "--direct=1"])).is_ok());
    assert!(
        parse(&args(&["--ioengine=mmap", "--bs=1k"])).is_ok(),
        "no sync, any size"
    );
    assert!(parse(&args(&["--ioengine=psync", "--bs=1k", "--fsync=1"])).is_ok());
}

#[test]
fn mmap_refuses_what_swaps_or_empties_its_mapped_files() {
    let e = refusal(&["--ioengine=mmap", "--nrfiles=4", "--openfiles=2"]);
    assert!(e.contains("openfiles=2 with ioengine=mmap"), "{e}");
    let e = refusal(&[
        "--ioengine=mmap",
        "--rw=write",
        "--loops=2",
        "--unlink_each_loop=1",
    ]);
    assert!(e.contains("unlink_each_loop"), "{e}");
    let e = refusal(&["--ioengine=mmap", "--rw=write", "--create_on_open=1"]);
    assert!(e.contains("create_on_open=1"), "{e}");
    assert!(e.contains("cannot make a file longer"), "{e}");
    let e = refusal(&["--ioengine=mmap", "--thp=1"]);
    assert!(e.contains("'thp'"), "{e}");
}
