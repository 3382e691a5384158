//! What is checked before any I/O, on real small filesystems
//! (mounted by the test as root; skipped with a reason elsewhere): a job
//! that does not fit fails before writing and leaves nothing; a filesystem
//! without O_DIRECT is a clear error, not a silent fallback; and a disk that
//! fills up in the middle of a run ends the job with the operation, path,
//! offset and length.

mod common;
use common::*;
use std::path::PathBuf;
use std::process::Command as StdCommand;

#[test]
fn a_write_job_larger_than_a_small_filesystem_fails_before_writing() {
    let Some(m) = Mount::new("tmpfs", "size=16m") else {
        return;
    };
    for (rw, size) in [("write", "32m"), ("randrw", "20m")] {
        let out = diskbench()
            .args(["fio", "--name=big", "--no-save", "--bs=64k"])
            .arg(format!("--rw={rw}"))
            .arg(format!("--size={size}"))
            .arg(format!("--directory={}", m.path().display()))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
        let err = stderr_of(&out);
        assert!(err.contains("free") && err.contains("--size"), "{err}");
        // Sizes as everywhere else: a space between the number and the unit.
        let need = format!("need {}.0 MiB in", size.trim_end_matches('m'));
        assert!(err.contains(&need), "{need:?} in {err}");
        assert!(err.contains(" MiB is free"), "{err}");
        assert!(entries(m.path()).is_empty(), "{:?}", entries(m.path()));
    }
}

/// One file for all clones (fio's `filename=`) with `offset_increment`
/// reaches past the last clone's stripe, and is laid out that far: 4
/// stripes 8 MiB apart of 1 MiB need 25 MiB, more than the 16 MiB there.
/// Counting only `size` let such a job (fio's cross-stripe example: 30
/// stripes 124 GiB apart) fill the disk.
#[test]
fn stripes_of_one_file_count_up_to_the_last_stripe() {
    let Some(m) = Mount::new("tmpfs", "size=16m") else {
        return;
    };
    let file = m.path().join("striped");
    let out = diskbench()
        .args([
            "fio",
            "--name=s",
            "--no-save",
            "--bs=64k",
            "--rw=write",
            "--size=1m",
        ])
        .args(["--numjobs=4", "--offset_increment=8m"])
        .arg(format!("--filename={}", file.display()))
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("need 25.0 MiB in"), "{err}");
    assert!(entries(m.path()).is_empty(), "{:?}", entries(m.path()));
}

#[test]
fn a_filesystem_without_direct_io_is_named_with_the_fix() {
    // ramfs has no O_DIRECT; diskbench stops rather than measure the cache.
    let Some(m) = Mount::new("ramfs", "mode=755") else {
        return;
    };
    let file: PathBuf = m.path().join("f");
    std::fs::write(&file, vec![7u8; 1 << 20]).unwrap();
    let out = diskbench()
        .args([
            "fio",
            "--name=d",
            "--no-save",
            "--rw=randread",
            "--size=1m",
            "--direct=1",
            // The filesystem is named in a check, kept off stderr unless asked.
            "--diskbench-checks",
        ])
        .arg(format!("--filename={}", file.display()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.contains("does not support direct I/O (O_DIRECT): use direct=0"),
        "{err}"
    );
    assert!(err.contains("ramfs"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), vec![7u8; 1 << 20]);
}

#[test]
fn a_disk_that_fills_up_mid_run_ends_the_job_with_the_write_named() {
    let Some(m) = Mount::new("tmpfs", "size=16m") else {
        return;
    };
    // fallocate=none: the job's writes allocate its file as they go, so
    // filling the filesystem behind its back makes a later write fail.
    let child = StdCommand::new(assert_cmd::cargo::cargo_bin("diskbench"))
        .env("DISKBENCH_DB", TEST_DB)
        .args(["fio", "--name=fill", "--no-save", "--output-format=json"])
        .args(["--rw=randwrite", "--bs=64k", "--size=12m", "--rate=2m"])
        .args(["--fallocate=none", "--runtime=8", "--time_based"])
        .arg(format!("--directory={}", m.path().display()))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let filler = m.path().join("filler");
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&filler).unwrap();
        let chunk = vec![1u8; 64 << 10];
        while f.write_all(&chunk).is_ok() {}
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.contains("job 'fill': write of 65536 bytes at offset"),
        "{err}"
    );
    assert!(err.contains("No space left on device"), "{err}");
    let doc = json_of(&out);
    let job = &doc["jobs"][0];
    assert!(job["error"].as_u64().unwrap_or(1) != 0, "{job}");
    assert!(job["write"]["io_bytes"].as_u64().unwrap() > 0, "{job}");
    // The test's own filler and the job's file, which diskbench fio leaves
    // as fio does; nothing else.
    let mut left = entries(m.path());
    left.sort();
    assert_eq!(left, vec![m.path().join("fill.0.0"), filler]);
}

/// A read-only target is a usage problem the user fixes by choosing another
/// place: every command that writes there exits 2 (`fio` 1, as fio exits), names the read-only
/// mount and the fix, and `run` says so before blaming free space.
#[test]
fn a_read_only_mount_is_a_usage_error_for_every_command() {
    let Some(mount) = Mount::new("tmpfs", "ro,size=16m") else {
        return;
    };
    let dir = mount.path().display().to_string();
    let directory = format!("--directory={dir}");
    let cases: [&[&str]; 5] = [
        &["run", "--no-save", &dir],
        &["run", "--no-save", "--size", "1m", &dir],
        &[
            "fio",
            "--no-save",
            "--name=t",
            "--rw=write",
            "--size=64k",
            &directory,
        ],
        &["ping", "-c", "1", &dir],
        &["meta", &dir],
    ];
    for args in cases {
        let out = diskbench().args(args).output().unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), refused_code(args[0]), "{args:?}: {err}");
        assert!(
            err.contains("read-only file system (tmpfs mounted ro at") && err.contains("remount"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("free"), "{args:?}: {err}");
    }
}

/// On a read-only mount the JSON error object says `usage` and names the
/// mount (the path the user has to change), for `fio` and `ping`.
#[test]
fn a_read_only_mount_is_named_in_the_json_failure() {
    let Some(mount) = Mount::new("tmpfs", "ro,size=16m") else {
        return;
    };
    let dir = mount.path().display().to_string();
    let out = diskbench()
        .args(["fio", "--no-save", "--output-format=json", "--name=t"])
        .args(["--rw=write", "--size=64k", &format!("--directory={dir}")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let failure = &doc["diskbench"]["failure"];
    assert_eq!(failure["kind"], "usage", "{failure}");
    assert_eq!(failure["path"], dir.as_str(), "{failure}");
    assert_eq!(failure["message"], doc["error"]);
    let out = diskbench()
        .args(["ping", "--json", "-c", "1", &dir])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    let doc = json_of(&out);
    assert_eq!(doc["failure"]["kind"], "usage", "{doc}");
    assert_eq!(doc["failure"]["message"], doc["error"]);
}

/// An error comes alone: no description of a target that cannot be used.
#[test]
fn an_unusable_target_is_not_described_before_the_error() {
    for target in ["/nonexistent", "/dev/null"] {
        let out = diskbench()
            .args(["run", "--no-save", target])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
        assert_eq!(stdout_of(&out), "", "{target}");
        assert!(!stderr_of(&out).contains("Filesystem"), "{target}");
    }
}

/// The README: a target on tmpfs is named in a warning before any figure.
#[test]
fn the_tmpfs_warning_comes_before_the_figures() {
    let Ok(dir) = tempfile::tempdir_in("/dev/shm") else {
        eprintln!("skipped: no /dev/shm (tmpfs) here");
        return;
    };
    let exe = assert_cmd::cargo::cargo_bin("diskbench");
    let out = StdCommand::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' run --no-save --quick --size 4m --runtime 100ms '{}' 2>&1",
            exe.display(),
            dir.path().display()
        ))
        .output()
        .unwrap();
    let text = stdout_of(&out);
    let warning = text
        .find("this measures memory")
        .expect("the tmpfs warning");
    let table = text.find("seq-read-1m-qd8").expect("the table");
    assert!(warning < table, "{text}");
    assert_eq!(text.matches("this measures memory").count(), 1, "{text}");
}
