//! `diskbench fio` ends as fio ends, so a script written for fio cannot
//! tell them apart: fio exits 1 for every failure, whether the command line
//! or job file is wrong (an unknown option, a bad value, a missing job file,
//! no job at all), a job cannot lay out its files, or a run finds bad data
//! on verify. Where fio is installed, each case is also run in fio and the two
//! exit codes must be the same. diskbench's own commands keep 2 for a
//! command line they refuse.

mod common;
use common::*;

/// Each case: what it is, and its arguments (after `fio`), run in a fresh
/// directory holding a plain file `afile`.
const REFUSED: &[(&str, &[&str])] = &[
    ("an unknown option", &["--name=a", "--no_such_option=1"]),
    ("a bad value", &["--name=a", "--bs=abc", "--size=1m"]),
    (
        "a bad value in a parse-only run",
        &["--parse-only", "--name=a", "--rw=sideways"],
    ),
    ("a missing job file", &["no-such-job.fio"]),
    ("no job at all", &[]),
    (
        "a directory that is a file",
        &["--name=a", "--directory=afile", "--size=1m", "--rw=write"],
    ),
];

fn dir_with_a_file() -> tempfile::TempDir {
    let dir = real_dir();
    std::fs::write(dir.path().join("afile"), b"not a directory").unwrap();
    dir
}

#[test]
fn bad_input_and_a_failed_layout_exit_1_as_in_fio() {
    for (what, args) in REFUSED {
        let dir = dir_with_a_file();
        let out = diskbench()
            .current_dir(dir.path())
            .args(["fio", "--no-save"])
            .args(*args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{what}: {}", stderr_of(&out));
        assert!(!out.stderr.is_empty(), "{what}: the reason is said");
        let Some(fio) = real_fio_in(dir_with_a_file().path(), args) else {
            continue;
        };
        assert_eq!(fio.status.code(), out.status.code(), "{what}: fio's exit");
    }
}

/// A verify that finds other data than was written exits 1 in both.
#[test]
fn a_verify_failure_exits_1_as_in_fio() {
    let dir = real_dir();
    let write = "--name=a --filename=vf --size=1m --rw=write --verify=crc32c";
    let written = fio_text_in(dir.path(), write);
    assert!(written.status.success(), "{}", stderr_of(&written));
    std::fs::write(dir.path().join("vf"), vec![0u8; 1 << 20]).unwrap();
    let checked = fio_text_in(dir.path(), &format!("{write} --verify_only"));
    assert_eq!(checked.status.code(), Some(1), "{}", stderr_of(&checked));
    let args: Vec<&str> = write.split(' ').chain(["--verify_only"]).collect();
    if let Some(fio) = real_fio_in(dir.path(), &args) {
        assert_eq!(fio.status.code(), Some(1), "{}", stderr_of(&fio));
    }
}

/// diskbench's own commands keep their usage code.
#[test]
fn diskbenchs_own_commands_still_exit_2_on_a_bad_value() {
    let out = diskbench()
        .args(["run", "--no-save", "--size", "abc"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
}

/// When several jobs fail, fio exits with how many did: two jobs that
/// each find other data than was written exit 2.
#[test]
fn two_failed_jobs_exit_2_as_in_fio() {
    let dir = real_dir();
    let job = |name: &str| {
        format!("--name={name} --filename={name} --size=1m --rw=write --verify=crc32c")
    };
    let both = format!("{} {}", job("a"), job("b"));
    let written = fio_text_in(dir.path(), &both);
    assert!(written.status.success(), "{}", stderr_of(&written));
    for name in ["a", "b"] {
        std::fs::write(dir.path().join(name), vec![0u8; 1 << 20]).unwrap();
    }
    let checks = format!("{} --verify_only {} --verify_only", job("a"), job("b"));
    let checked = fio_text_in(dir.path(), &checks);
    assert_eq!(checked.status.code(), Some(2), "{}", stderr_of(&checked));
    let args: Vec<&str> = checks.split(' ').collect();
    if let Some(fio) = real_fio_in(dir.path(), &args) {
        assert_eq!(fio.status.code(), Some(2), "{}", stderr_of(&fio));
    }
}
