//! `verify=` checks that the disk returns what was written, and a
//! bad chunk is named for what it is (corrupted, stale, misdirected) with
//! its offset. Damage is made two ways: by hand, behind diskbench's back,
//! on a real file; and by the fault-injection engine, one kind at a time.

mod common;
use common::*;
use serde_json::Value;

const BS: u64 = 4096;

#[test]
fn a_verify_pass_finds_a_corruption_made_behind_its_back_and_names_its_offset() {
    let dir = real_dir();
    let file = dir.path().join("data");
    let out = fio_on(&file, &["--rw=randwrite", "--size=2m", "--verify=crc32c"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let v = verify_of(&out);
    assert_eq!(v["checked"], 512, "{v}");
    assert_eq!(v["bad"], 0, "{v}");
    // fio counts the verify pass as the job's reads.
    let job = &json_of(&out)["jobs"][0];
    assert_eq!(job["read"]["io_bytes"], 2 << 20);
    assert_eq!(job["write"]["io_bytes"], 2 << 20);

    let at = 1_234_567;
    flip(&file, at);
    // A read job checks each block on its own; verify_only replays the
    // write job and checks against what it wrote.
    for args in [
        vec!["--rw=read", "--size=2m", "--verify=crc32c"],
        vec![
            "--rw=randwrite",
            "--size=2m",
            "--verify=crc32c",
            "--verify_only",
        ],
    ] {
        let out = fio_on(&file, &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr_of(&out));
        let err = stderr_of(&out);
        assert!(
            err.contains(&format!("first bad byte at offset {at}")),
            "{err}"
        );
        assert!(err.contains("corrupted data"), "{err}");
        // fio's own line for it, first, as fio words it.
        let block = at / BS * BS;
        let fios = format!(
            "crc32c: verify failed at file {} offset {block}, length {BS} \
             (requested block: offset={block}, length={BS})\n       Expected: ",
            file.display()
        );
        assert!(err.starts_with(&fios), "{args:?}: {err}");
        let v = verify_of(&out);
        assert_eq!(v["bad"], 1, "{v}");
        assert_eq!(v["checked"], 512, "{v}");
        // fio's errno for bad data: EILSEQ.
        assert_eq!(json_of(&out)["jobs"][0]["error"], 84, "{args:?}");
        let f = &v["failures"][0];
        assert_eq!(f["kind"], "corrupted");
        assert_eq!(f["offset"], at / BS * BS);
        assert_eq!(f["first_bad_byte"], at);
        assert_eq!(f["path"], file.display().to_string());
    }
}

/// Runs a sequential write of 64 blocks with `fault` injected, verifies, and
/// returns the verify object.
fn with_fault(engine: &str, fault: &str) -> Value {
    let dir = real_dir();
    let file = dir.path().join("f");
    let out = diskbench()
        .current_dir(dir.path())
        .args(["fio", "--name=v", "--bs=4k", "--size=256k", "--rw=write"])
        .args(["--verify=crc32c", "--no-save", "--output-format=json"])
        .args(["--direct=1", "--iodepth=8"])
        .arg(format!("--ioengine={engine}"))
        .arg(format!("--filename={}", file.display()))
        .arg(format!("--inject-fault={fault}"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{fault}: {}", stderr_of(&out));
    let v = verify_of(&out);
    assert_eq!(v["checked"], 64, "{v}");
    v
}

const ENGINES: [&str; 3] = ["psync", "libaio", "io_uring"];

#[test]
fn a_flipped_bit_is_corrupted_data_at_its_byte() {
    for engine in ENGINES {
        // The 10th write is at block 9; the wrapper flips its last byte.
        let v = with_fault(engine, "bitflip@write:10");
        assert_eq!(
            (v["bad"].as_u64(), v["corrupted"].as_u64()),
            (Some(1), Some(1)),
            "{engine}: {v}"
        );
        let f = &v["failures"][0];
        assert_eq!(f["offset"], 9 * BS, "{engine}");
        assert_eq!(f["first_bad_byte"], 10 * BS - 1, "{engine}");
        // A bit flipped on the way back (the 5th read of the verify pass) is caught too.
        let v = with_fault(engine, "bitflip@read:5");
        assert_eq!(v["corrupted"], 1, "{engine}: {v}");
        assert_eq!(v["failures"][0]["first_bad_byte"], 5 * BS - 1, "{engine}");
    }
}

#[test]
fn a_dropped_write_is_a_stale_block() {
    for engine in ENGINES {
        let v = with_fault(engine, "drop@write:10");
        assert_eq!(
            (v["bad"].as_u64(), v["stale"].as_u64()),
            (Some(1), Some(1)),
            "{engine}: {v}"
        );
        let f = &v["failures"][0];
        assert_eq!(f["offset"], 9 * BS, "{engine}");
        assert_eq!(f["kind"], "stale");
    }
}

#[test]
fn a_misdirected_write_is_named_where_it_landed_and_leaves_a_stale_block() {
    for engine in ENGINES {
        // The 10th write (block 9) lands on block 8, written just before.
        let v = with_fault(engine, "misdirect@write:10");
        assert_eq!(v["bad"], 2, "{engine}: {v}");
        assert_eq!(v["misdirected"], 1, "{engine}: {v}");
        assert_eq!(v["stale"], 1, "{engine}: {v}");
        let f = &v["failures"][0];
        assert_eq!(f["offset"], 8 * BS);
        assert_eq!(f["kind"], "misdirected");
        assert_eq!(f["expected"], format!("the chunk for offset {}", 8 * BS));
        assert_eq!(f["found"], format!("the chunk for offset {}", 9 * BS));
        assert_eq!(v["failures"][1]["offset"], 9 * BS);
        assert_eq!(v["failures"][1]["kind"], "stale");
    }
}

#[test]
fn verify_fatal_stops_at_the_first_bad_chunk() {
    let dir = real_dir();
    let file = dir.path().join("f");
    let out = diskbench()
        .current_dir(dir.path())
        .args(["fio", "--name=v", "--bs=4k", "--size=256k", "--rw=write"])
        .args([
            "--verify=md5",
            "--verify_fatal=1",
            "--no-save",
            "--output-format=json",
        ])
        .arg(format!("--filename={}", file.display()))
        .arg("--inject-fault=bitflip@write:3/1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let v = verify_of(&out);
    assert_eq!(v["bad"], 1, "{v}");
    assert_eq!(v["failures"][0]["offset"], 2 * BS);
    assert!(v["checked"].as_u64().unwrap() < 64, "{v}");
}

#[test]
fn a_busy_random_job_verifies_clean_with_every_method() {
    let dir = real_dir();
    for (i, algo) in ["crc32c", "md5", "sha256", "xxhash", "crc64", "meta"]
        .iter()
        .enumerate()
    {
        let file = dir.path().join(format!("f{i}"));
        // norandommap at QD 32: two writes to one block can be in flight at
        // once; either may win, and neither is a false alarm.
        let out = fio_on(
            &file,
            &[
                "--rw=randrw",
                "--size=1m",
                "--ioengine=io_uring",
                "--iodepth=32",
                "--direct=1",
                "--norandommap",
                "--runtime=1",
                "--time_based",
                &format!("--verify={algo}"),
            ],
        );
        assert!(out.status.success(), "{algo}: {}", stderr_of(&out));
        let v = verify_of(&out);
        assert_eq!(v["bad"], 0, "{algo}: {v}");
        assert!(v["checked"].as_u64().unwrap() > 100, "{algo}: {v}");
    }
}

#[test]
fn verify_backlog_checks_while_writing_and_finds_the_fault_early() {
    let dir = real_dir();
    let file = dir.path().join("f");
    let out = fio_on(
        &file,
        &[
            "--rw=write",
            "--size=1m",
            "--verify=crc32c",
            "--verify_backlog=16",
            "--do_verify=0",
            "--inject-fault=drop@write:20",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let v = verify_of(&out);
    // 256 writes, checked 16 at a time; the end pass is off.
    assert_eq!(v["checked"], 256, "{v}");
    assert_eq!(v["stale"], 1, "{v}");
    assert_eq!(v["failures"][0]["offset"], 19 * BS);
}

#[test]
fn a_pattern_with_offsets_and_a_moved_header_read_back() {
    let dir = real_dir();
    let file = dir.path().join("p");
    let out = fio_on(
        &file,
        &[
            "--rw=randwrite",
            "--size=512k",
            "--verify=pattern",
            "--verify_pattern=0xff%o\"abcd\"-12",
        ],
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(verify_of(&out)["bad"], 0);
    let data = std::fs::read(&file).unwrap();
    assert_eq!(&data[8192..8194], &[0xff, 0x00]);
    assert_eq!(&data[8193..8201], &8192u64.to_le_bytes());
    flip(&file, 70_000);
    let out = fio_on(
        &file,
        &[
            "--rw=read",
            "--size=512k",
            "--verify=pattern",
            "--verify_pattern=0xff%o\"abcd\"-12",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(verify_of(&out)["failures"][0]["first_bad_byte"], 70_000);

    let file = dir.path().join("h");
    let out = fio_on(
        &file,
        &[
            "--rw=write",
            "--size=512k",
            "--verify=sha512",
            "--verify_offset=1024",
            "--verify_interval=2048",
        ],
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(verify_of(&out)["checked"], 256);
    let data = std::fs::read(&file).unwrap();
    assert_eq!(&data[1024..1032], b"dbverify");
    assert_eq!(&data[2048 + 1024..2048 + 1032], b"dbverify");
}

#[test]
fn verify_dump_writes_what_was_read_and_what_was_expected() {
    let dir = real_dir();
    let file = dir.path().join("d");
    let out = fio_on(&file, &["--rw=write", "--size=64k", "--verify=crc32c"]);
    assert!(out.status.success());
    flip(&file, 5000);
    let out = diskbench()
        .current_dir(dir.path())
        .args([
            "fio",
            "--name=v",
            "--bs=4k",
            "--size=64k",
            "--rw=read",
            "--no-save",
        ])
        .args(["--verify=crc32c", "--verify_dump=1"])
        .arg(format!("--filename={}", file.display()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let received = std::fs::read(dir.path().join("d.4096.received")).unwrap();
    let expected = std::fs::read(dir.path().join("d.4096.expected")).unwrap();
    assert_eq!(received.len(), 4096);
    let differ: Vec<usize> = (0..4096).filter(|&i| received[i] != expected[i]).collect();
    assert_eq!(differ, vec![5000 - 4096]);
}

/// A chunk whose header is bad has no rebuild to set beside it: fio dumps
/// what it read as `FILE.OFFSET.hdr_fail` (and nothing `.expected`), in the
/// current directory; diskbench names it the same.
#[test]
fn verify_dump_of_a_chunk_with_a_bad_header_is_named_hdr_fail_as_fio_names_it() {
    let dir = real_dir();
    let file = dir.path().join("h");
    let out = fio_on(&file, &["--rw=write", "--size=64k", "--verify=crc32c"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    // The chunk at 8192: its magic, the header's first byte.
    flip(&file, 8192);
    let args = [
        "--name=v".to_string(),
        "--bs=4k".into(),
        "--size=64k".into(),
        "--verify=crc32c".into(),
        format!("--filename={}", file.display()),
        "--verify_dump=1".into(),
    ];
    let out = diskbench()
        .current_dir(dir.path())
        .args(["fio", "--no-save", "--rw=read"])
        .args(&args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let mut names: Vec<String> = entries(dir.path())
        .iter()
        .filter_map(|p| p.file_name()?.to_str().map(str::to_string))
        .filter(|n| n.starts_with("h."))
        .collect();
    names.sort();
    assert_eq!(names, ["h.8192.hdr_fail"]);
    let dumped = std::fs::read(dir.path().join("h.8192.hdr_fail")).unwrap();
    let data = std::fs::read(&file).unwrap();
    assert_eq!(dumped, data[8192..8192 + 4096]);
    // fio, on a file it wrote itself (its header is its own), dumps the
    // same name.
    std::fs::remove_file(dir.path().join("h.8192.hdr_fail")).unwrap();
    if std::process::Command::new("fio")
        .arg("--version")
        .output()
        .is_ok()
    {
        let fio = |rw: &str, more: &[String]| {
            std::process::Command::new("fio")
                .current_dir(dir.path())
                .arg("--output=/dev/null")
                .arg(format!("--rw={rw}"))
                .args(more)
                .output()
                .unwrap()
        };
        assert!(fio("write", &args[..5]).status.success());
        flip(&file, 8192);
        let out = fio("read", &args);
        assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
        assert!(dir.path().join("h.8192.hdr_fail").exists());
    }
}

#[test]
fn verify_options_that_cannot_work_are_refused_with_the_fix() {
    let dir = real_dir();
    let file = dir.path().join("x");
    let cases: [(&[&str], &str); 6] = [
        (&["--rw=write", "--size=1m", "--verify=sha3-256"], "sha256"),
        (
            &["--rw=write", "--size=1m", "--verify=pattern"],
            "verify_pattern=",
        ),
        (
            &[
                "--rw=write",
                "--size=1m",
                "--verify=crc32c",
                "--verify_interval=4090",
            ],
            "verify_interval",
        ),
        (
            &[
                "--rw=write",
                "--size=1m",
                "--verify=crc32c",
                "--verify_only",
                "--time_based",
                "--runtime=1",
            ],
            "time_based",
        ),
        (
            &[
                "--rw=write",
                "--size=1m",
                "--verify=crc32c",
                "--verify_only",
            ],
            "run the job without verify_only first",
        ),
        (
            &["--rw=write", "--size=1m", "--verify=crc32c", "--numjobs=2"],
            "numjobs=1",
        ),
    ];
    for (args, says) in cases {
        let out = fio_on(&file, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr_of(&out));
        assert!(
            stderr_of(&out).contains(says),
            "{args:?}: {}",
            stderr_of(&out)
        );
        assert!(!file.exists(), "{args:?} left a file");
    }
}

/// The 512-byte blocks `cmd` read from storage, as its parent sees them in
/// getrusage (python3 is the parent, so the other tests' children do not
/// count); `None` without python3.
fn blocks_read_by(cmd: &std::process::Command) -> Option<u64> {
    let script = "import resource, subprocess, sys\n\
        subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n\
        print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_inblock)";
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .envs(cmd.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .output()
        .ok()?;
    assert!(out.status.success(), "{cmd:?}: {}", stderr_of(&out));
    Some(stdout_of(&out).trim().parse().unwrap())
}

/// With buffered I/O the verify pass reads from the device, not from the
/// page cache that still holds what the job wrote: the written data is
/// flushed and dropped first, as fio does (fio 3.33's verify of a 32 MiB
/// buffered write read it from the disk, and nothing with `invalidate=0`).
#[test]
fn a_buffered_verify_reads_the_device_not_the_page_cache() {
    let dir = real_dir();
    let size: u64 = 8 << 20;
    let run = |name: &str, extra: &[&str]| {
        let file = dir.path().join(name);
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("diskbench"));
        cmd.env("DISKBENCH_DB", TEST_DB)
            .args(["fio", "--no-save", "--name=v", "--rw=write", "--bs=64k"])
            .args(["--size=8m", "--verify=crc32c"])
            .arg(format!("--filename={}", file.display()))
            .args(extra);
        blocks_read_by(&cmd)
    };
    let Some(direct) = run("direct", &["--direct=1"]) else {
        testbed::skip("no python3 to read getrusage");
        return;
    };
    if direct < size / 512 {
        testbed::skip(format!(
            "this filesystem does not count a process's reads ({direct} blocks)"
        ));
        return;
    }
    let flushed = run("buffered", &["--direct=0"]).unwrap();
    assert!(flushed >= size / 512, "{flushed} blocks read");
    let cached = run("cached", &["--direct=0", "--invalidate=0"]).unwrap();
    assert!(cached < size / 512 / 2, "{cached} blocks read");
}

#[test]
fn a_write_checked_by_verify_backlog_is_read_back_once() {
    let dir = real_dir();
    for (rw, batch) in [("write", "32"), ("randwrite", "8")] {
        let file = dir.path().join(rw);
        let out = fio_on(
            &file,
            &[
                &format!("--rw={rw}"),
                "--size=1m",
                "--verify=crc32c",
                "--verify_backlog=32",
                &format!("--verify_backlog_batch={batch}"),
            ],
        );
        assert!(out.status.success(), "{rw}: {}", stderr_of(&out));
        // fio reads each write back once: the backlog passes check some,
        // the final pass the rest, and nothing twice.
        let job = &json_of(&out)["jobs"][0];
        assert_eq!(job["write"]["io_bytes"], 1 << 20, "{rw}");
        assert_eq!(job["read"]["io_bytes"], 1 << 20, "{rw}");
        let v = verify_of(&out);
        assert_eq!(v["checked"], 256, "{rw}: {v}");
        assert_eq!(v["bad"], 0, "{rw}: {v}");
    }
}

#[test]
fn the_verify_options_fio_documents_are_carried_out() {
    let dir = real_dir();
    // verify_interval larger than the block: one chunk per write, as fio.
    let file = dir.path().join("i");
    let out = fio_on(
        &file,
        &[
            "--rw=write",
            "--size=64k",
            "--bs=512",
            "--verify=md5",
            "--verify_interval=1m",
        ],
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(verify_of(&out)["checked"], 128);

    // pattern_hdr: a header, then the pattern; fio reads "-120xdeadface"
    // as -12 (4 bytes) then 0xdeadface.
    let file = dir.path().join("h");
    let pattern = "--verify_pattern=\"abcd\"-120xdeadface";
    let args = ["--size=64k", "--verify=pattern_hdr", pattern];
    let out = fio_on(&file, &[&["--rw=randwrite"], &args[..]].concat());
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(verify_of(&out)["checked"], 16);
    let unit = [
        b"abcd".as_slice(),
        &[0xf4, 0xff, 0xff, 0xff],
        &[0xde, 0xad, 0xfa, 0xce],
    ]
    .concat();
    let data = std::fs::read(&file).unwrap();
    assert_eq!(&data[4096..4104], b"dbverify");
    for p in [200usize, 1000, 4095] {
        assert_eq!(data[8192 + p], unit[p % unit.len()], "byte {p}");
    }
    flip(&file, 8192 + 1000);
    let out = fio_on(&file, &[&["--rw=read"], &args[..]].concat());
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let v = verify_of(&out);
    assert_eq!(v["corrupted"], 1, "{v}");
    assert_eq!(v["failures"][0]["first_bad_byte"], 8192 + 1000);

    // verify_pattern_interval: the pattern starts again every 512 bytes,
    // %o the offset of each piece.
    let file = dir.path().join("p");
    let out = fio_on(
        &file,
        &[
            "--rw=write",
            "--size=64k",
            "--verify=pattern",
            "--verify_pattern=%o",
            "--verify_pattern_interval=512",
        ],
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    let data = std::fs::read(&file).unwrap();
    for at in [0usize, 512, 4096 + 1536, 65536 - 512] {
        assert_eq!(&data[at..at + 8], &(at as u64).to_le_bytes(), "at {at}");
    }

    // A verify_interval that does not divide bs: 4096 = 2222 + 1874.
    let file = dir.path().join("u");
    let out = fio_on(
        &file,
        &[
            "--rw=randwrite",
            "--size=64k",
            "--verify=pattern_hdr",
            "--verify_pattern=%o",
            "--verify_pattern_interval=512",
            "--verify_interval=2222",
        ],
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(verify_of(&out)["checked"], 32);
    let data = std::fs::read(&file).unwrap();
    assert_eq!(&data[4096 + 2222..4096 + 2230], b"dbverify");

    // experimental_verify: every write read back once, as fio.
    let file = dir.path().join("e");
    let out = fio_on(
        &file,
        &[
            "--rw=randwrite",
            "--size=128k",
            "--verify=md5",
            "--experimental_verify=1",
        ],
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    let job = &json_of(&out)["jobs"][0];
    assert_eq!(job["read"]["io_bytes"], 128 << 10);
    assert_eq!(verify_of(&out)["checked"], 32);
}

#[test]
fn verify_follows_files_opened_and_closed_by_openfiles() {
    let dir = real_dir();
    let out = diskbench()
        .current_dir(dir.path())
        .args([
            "fio",
            "--name=v",
            "--bs=4k",
            "--no-save",
            "--output-format=json",
        ])
        .arg(format!("--directory={}", dir.path().display()))
        .args([
            "--rw=randwrite",
            "--size=768k",
            "--nrfiles=3",
            "--openfiles=2",
        ])
        .args([
            "--numjobs=2",
            "--ioengine=libaio",
            "--iodepth=8",
            "--direct=1",
        ])
        .args(["--verify=crc32c", "--verify_backlog=16"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let json = json_of(&out);
    for job in json["jobs"].as_array().unwrap() {
        // Each clone's three files, 64 blocks each, read back once.
        assert_eq!(job["verify"]["checked"], 192, "{}", job["verify"]);
        assert_eq!(job["verify"]["bad"], 0, "{}", job["verify"]);
        assert_eq!(job["read"]["io_bytes"], 768 << 10);
    }
}
