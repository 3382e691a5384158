//! fio's file-handling options (`filesize`, `fallocate`, `unlink`,
//! `unlink_each_loop`, `create_on_open`, `allow_file_create`, `create_only`,
//! `openfiles`, `sync_file_range`) parse to what fio 3.33 means by them, the
//! combinations that cannot work are refused with the option and the fix,
//! and they survive `--parse-only`'s command line.

mod common;
use common::{assert_round_trip, parse, parse_error};
use model::fileopts::{Fallocate, SizeRange, SyncFileRange};
use model::JobSpec;

const BASE: &str = "--name=j --directory=/tmp";

fn job(opts: &str) -> JobSpec {
    parse(&format!("{BASE} {opts}")).jobs[0].clone()
}

fn error(opts: &str) -> String {
    parse_error(&format!("{BASE} {opts}")).to_string()
}

fn kib(n: u64) -> u64 {
    n << 10
}

#[test]
fn filesize_is_a_size_or_a_range_and_stands_in_for_size() {
    let j = job("--rw=write --nrfiles=4 --filesize=64k-256k");
    let range = SizeRange {
        min_bytes: kib(64),
        max_bytes: kib(256),
    };
    assert_eq!(j.file_options.filesize, Some(range));
    // fio runs it without size= (each file its own length).
    assert_eq!(j.size_bytes, None);
    let j = job("--rw=write --filesize=1m:2m --size=1m");
    assert_eq!(j.file_options.filesize.unwrap().max_bytes, 2 << 20);
    assert_eq!(j.size_bytes, Some(1 << 20));
    let j = job("--rw=write --filesize=100k");
    assert_eq!(j.file_options.filesize.unwrap().min_bytes, kib(100));
    // The free-space check counts every file at the top of its range.
    let j = job("--rw=write --nrfiles=4 --numjobs=2 --filesize=64k-256k");
    assert_eq!(j.footprint_bytes(), 8 * kib(256));
}

#[test]
fn filesize_that_cannot_hold_a_block_is_refused() {
    let e = error("--rw=write --bs=4k --filesize=1k-8k");
    assert!(
        e.contains("filesize=1k-8k") && e.contains("give every file at least 4k"),
        "{e}"
    );
    let e = error("--rw=write --bs=4k --filesize=64k --offset=64k");
    assert!(
        e.contains("after offset=64k") && e.contains("at least 68k"),
        "{e}"
    );
    let e = error("--rw=write --filesize=8k-1k");
    assert!(
        e.contains("give the smaller size first, e.g. filesize=1k-8k"),
        "{e}"
    );
    // Without size= nor filesize=, a job of new files still needs a size.
    let e = error("--rw=write");
    assert!(e.contains("needs size="), "{e}");
}

#[test]
fn fallocate_takes_fio_values_and_aliases() {
    assert_eq!(
        job("--size=1m").file_options.fallocate,
        Fallocate::Native,
        "fio's default"
    );
    for (text, want) in [
        ("none", Fallocate::None),
        ("native", Fallocate::Native),
        ("posix", Fallocate::Posix),
        ("keep", Fallocate::Keep),
        ("truncate", Fallocate::Truncate),
        ("0", Fallocate::None),
        ("1", Fallocate::Posix),
    ] {
        let j = job(&format!("--size=1m --fallocate={text}"));
        assert_eq!(j.file_options.fallocate, want, "{text}");
    }
    let e = error("--size=1m --fallocate=yes");
    assert!(
        e.contains("fallocate=yes") && e.contains("none, native, posix"),
        "{e}"
    );
}

#[test]
fn booleans_and_openfiles() {
    let j = job(
        "--rw=write --size=1m --unlink=1 --unlink_each_loop=1 --create_on_open=1 --create_only=1",
    );
    let f = &j.file_options;
    assert!(f.unlink && f.unlink_each_loop && f.create_on_open && f.create_only);
    assert!(f.allow_file_create, "fio's default");
    let j = job("--filename=/tmp/x --size=1m --allow_file_create=0");
    assert!(!j.file_options.allow_file_create);
    assert_eq!(
        job("--size=1m --nrfiles=4 --openfiles=2")
            .file_options
            .openfiles,
        Some(2)
    );
    // As many or more than the files, or 0: every file open (fio's default).
    for n in ["4", "8", "0"] {
        let j = job(&format!("--size=1m --nrfiles=4 --openfiles={n}"));
        assert_eq!(j.file_options.openfiles, None, "openfiles={n}");
    }
    let e = error("--size=1m --unlink=maybe");
    assert!(e.contains("unlink"), "{e}");
}

#[test]
fn sync_file_range_flags_and_count() {
    let j = job("--rw=write --size=1m --sync_file_range=wait_before,write:8");
    let want = SyncFileRange {
        wait_before: true,
        write: true,
        wait_after: false,
        every: 8,
    };
    assert_eq!(j.file_options.sync_file_range, Some(want));
    // fio: without a count, every write; with 0, never.
    let every = job("--rw=write --size=1m --sync_file_range=write").file_options;
    assert_eq!(every.sync_file_range.unwrap().every, 1);
    let never = job("--rw=write --size=1m --sync_file_range=write:0").file_options;
    assert_eq!(never.sync_file_range, None);
    for bad in ["flush:2", ":4", "WRITE:2", "write:abc"] {
        let e = error(&format!("--rw=write --size=1m --sync_file_range={bad}"));
        assert!(e.contains("sync_file_range"), "{bad}: {e}");
    }
}

#[test]
fn combinations_that_cannot_work_are_refused_with_the_fix() {
    let e = error("--rw=write --size=1m --nrfiles=4 --openfiles=2 --ioengine=io_uring");
    assert!(
        e.contains("openfiles=2 with ioengine=io_uring")
            && e.contains("use ioengine=libaio or psync, or openfiles=4"),
        "{e}"
    );
    // With every file open, io_uring is fine.
    job("--rw=write --size=1m --nrfiles=4 --openfiles=4 --ioengine=io_uring");
    let e = error("--rw=write --size=1m --unlink_each_loop=1 --loops=2 --ioengine=io_uring");
    assert!(
        e.contains("unlink_each_loop=1 with ioengine=io_uring") && e.contains("loops=1"),
        "{e}"
    );
    // One loop (or a time-based job) never removes anything between loops.
    job("--rw=write --size=1m --unlink_each_loop=1 --ioengine=io_uring");
    let e = error("--rw=randrw --size=1m --create_on_open=1");
    assert!(
        e.contains("create_on_open") && e.contains("write-only rw"),
        "{e}"
    );
    let e = error("--rw=read --size=1m --unlink_each_loop=1 --loops=2");
    assert!(
        e.contains("unlink_each_loop") && e.contains("fio fails with ENOENT"),
        "{e}"
    );
    let e = error("--rw=write --size=1m --allow_file_create=0");
    assert!(
        e.contains("allow_file_create=0") && e.contains("filename="),
        "{e}"
    );
    let e =
        error("--rw=write --filename=/tmp/f --size=1m --numjobs=2 --unlink_each_loop=1 --loops=2");
    assert!(
        e.contains("numjobs=2") && e.contains("use numjobs=1, or directory="),
        "{e}"
    );
}

#[test]
fn options_given_are_echoed_for_json() {
    let j = job("--rw=write --size=1m --fallocate=none --unlink=1 --sync_file_range=write:4");
    let echoed: Vec<(&str, &str)> = j
        .options
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert!(
        echoed.ends_with(&[
            ("fallocate", "none"),
            ("unlink", "1"),
            ("sync_file_range", "write:4")
        ]),
        "{echoed:?}"
    );
}

#[test]
fn parse_only_lines_give_the_same_jobs_again() {
    for opts in [
        "--rw=write --nrfiles=4 --filesize=64k-256k --size=512k --fallocate=none --unlink=1",
        "--rw=write --nrfiles=6 --openfiles=2 --filesize=1m --fallocate=keep --create_only=1",
        "--rw=write --size=1m --unlink_each_loop=1 --loops=3 --create_on_open=1 --fallocate=truncate",
        "--rw=randwrite --size=1m --sync_file_range=wait_before,write,wait_after:16 --fallocate=posix",
        "--rw=read --filename=/tmp/f --allow_file_create=0 --filesize=2m --offset=1m",
    ] {
        assert_round_trip(&job(opts), opts);
    }
}
