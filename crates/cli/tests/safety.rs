//! diskbench never writes what it did not create unless told to.
//! A user's file named by a write job is refused and left byte for byte;
//! `--allow-overwrite` is the way to say "I mean it"; a file diskbench
//! created itself carries a `user.diskbench` mark and may be written again;
//! `--readonly` refuses every job that writes.

mod common;
use common::*;

fn job(file: &std::path::Path, rw: &str, extra: &[&str]) -> std::process::Output {
    diskbench()
        .args(["fio", "--name=s", "--bs=4k", "--size=1m", "--no-save"])
        .arg(format!("--rw={rw}"))
        .arg(format!("--filename={}", file.display()))
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_users_file_is_unchanged_after_a_write_job_names_it() {
    let dir = real_dir();
    let file = dir.path().join("precious.db");
    let content: Vec<u8> = (0..(2u32 << 20)).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(&file, &content).unwrap();
    for rw in ["write", "randwrite", "randrw"] {
        let out = job(&file, rw, &[]);
        assert_eq!(out.status.code(), Some(1), "{rw}: {}", stderr_of(&out));
        let err = stderr_of(&out);
        assert!(err.contains("did not create"), "{err}");
        assert!(err.contains("--allow-overwrite"), "{err}");
        assert!(
            std::fs::read(&file).unwrap() == content,
            "{rw} changed the file"
        );
    }
    // Reading it is fine and changes nothing.
    let out = job(&file, "randread", &[]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(std::fs::read(&file).unwrap() == content);
    // A read job that would have to extend it is a change too.
    let small = dir.path().join("small.txt");
    std::fs::write(&small, b"notes").unwrap();
    let out = job(&small, "read", &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert_eq!(std::fs::read(&small).unwrap(), b"notes");
    // Told to, it writes.
    let out = job(&file, "write", &["--allow-overwrite"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(std::fs::read(&file).unwrap() != content);
}

#[test]
fn a_file_diskbench_created_may_be_written_again() {
    let dir = real_dir();
    let file = dir.path().join("made-by-diskbench.dat");
    let out = job(&file, "write", &[]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let marked = std::process::Command::new("getfattr")
        .args(["-n", "user.diskbench", "--only-values"])
        .arg(&file)
        .output();
    match marked {
        Ok(o) if o.status.success() => {
            assert!(String::from_utf8_lossy(&o.stdout).starts_with("diskbench-"));
        }
        _ => eprintln!("(getfattr is missing or the filesystem has no user xattrs)"),
    }
    let again = job(&file, "randwrite", &[]);
    if xattrs_work(dir.path()) {
        assert!(again.status.success(), "{}", stderr_of(&again));
    } else {
        testbed::skip(format!("{} has no user xattrs", dir.path().display()));
    }
}

fn xattrs_work(dir: &std::path::Path) -> bool {
    let probe = dir.join(".xattr-probe");
    std::fs::write(&probe, b"").unwrap();
    let ok = std::process::Command::new("setfattr")
        .args(["-n", "user.probe", "-v", "1"])
        .arg(&probe)
        .status()
        .is_ok_and(|s| s.success());
    let _ = std::fs::remove_file(&probe);
    // Without setfattr, trust that the test directory (ext4) has them.
    ok || which_missing("setfattr")
}

fn which_missing(tool: &str) -> bool {
    std::process::Command::new(tool)
        .arg("--version")
        .output()
        .is_err()
}

#[test]
fn readonly_refuses_every_write_job_and_runs_reads() {
    let dir = real_dir();
    let file = dir.path().join("r.dat");
    let out = job(&file, "randwrite", &["--readonly"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(err.contains("--readonly"), "{err}");
    assert!(!file.exists(), "nothing was created");
    let out = diskbench()
        .args([
            "fio",
            "--readonly",
            "--name=r",
            "--rw=randread",
            "--ioengine=null",
            "--size=1m",
            "--no-save",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
}

#[test]
fn tmpfs_is_named_as_memory_before_any_figure_is_trusted() {
    if !std::path::Path::new("/dev/shm").is_dir() {
        testbed::skip("no /dev/shm");
        return;
    }
    let dir = tempfile::tempdir_in("/dev/shm").unwrap();
    let out = diskbench()
        .args([
            "fio",
            "--name=m",
            "--rw=randread",
            "--size=1m",
            "--no-save",
            "--output-format=json",
            // Said on stderr when asked; kept in the JSON in any case.
            "--diskbench-checks",
        ])
        .arg(format!("--directory={}", dir.path().display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("this measures memory, not a disk"));
    let doc = json_of(&out);
    let kinds: Vec<&str> = doc["diskbench"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"not_a_local_disk"), "{kinds:?}");
}
