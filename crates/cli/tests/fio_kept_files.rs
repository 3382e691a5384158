//! `diskbench fio` leaves its files as fio does: a job's files are made in
//! `directory=` under fio's names (`jobname.clone.file`) and stay after the
//! run, and a later run reads and rewrites them without a flag, whether
//! diskbench or fio laid them out ("fill, then measure" scripts and fio's
//! two-step tests rely on it). `unlink=1` removes them. A user's own file,
//! named with `filename=`, is still refused to a job that writes it.

mod common;
use common::*;
use std::path::Path;

fn dfio(dir: &Path, args: &str) -> std::process::Output {
    let target = format!("--directory={}", dir.display());
    diskbench()
        .args(["fio", "--no-save", "--output-format=json", &target])
        .args(args.split_whitespace())
        .output()
        .unwrap()
}

fn content(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_file_fio_laid_out_is_read_and_rewritten_without_a_flag() {
    let dir = real_dir();
    let file = dir.path().join("t.0.0");
    let target = format!("--directory={}", dir.path().display());
    let job = ["--name=t", "--size=1m", "--rw=write", "--output=/dev/null"];
    let Some(fio) = real_fio_in(dir.path(), &[&[target.as_str()], &job[..]].concat()) else {
        return;
    };
    assert!(fio.status.success(), "{}", stderr_of(&fio));
    let before = content(&file);
    let out = dfio(dir.path(), "--name=t --size=1m --rw=randrw");
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let job = &doc["jobs"][0];
    assert!(job["read"]["io_bytes"].as_u64() > Some(0), "{job}");
    assert!(job["write"]["io_bytes"].as_u64() > Some(0), "{job}");
    // Still there, its length kept, its data rewritten.
    let after = content(&file);
    assert_eq!(after.len(), before.len());
    assert_ne!(after, before, "the writes reached fio's file");
}

#[test]
fn a_file_diskbench_fio_laid_out_stays_and_the_next_run_rewrites_it() {
    let dir = real_dir();
    let file = dir.path().join("w.0.0");
    let first = dfio(dir.path(), "--name=w --size=1m --rw=write");
    assert!(first.status.success(), "{}", stderr_of(&first));
    let before = content(&file);
    assert_eq!(before.len(), 1 << 20);
    let again = dfio(dir.path(), "--name=w --size=1m --rw=randwrite --randseed=7");
    assert!(again.status.success(), "{}", stderr_of(&again));
    assert_ne!(content(&file), before, "the second run rewrote it");
    // A verify pass over what the first run wrote: the file is read as it is.
    let written = dfio(
        dir.path(),
        "--name=v --size=1m --rw=write --verify=crc32c --do_verify=0",
    );
    assert!(written.status.success(), "{}", stderr_of(&written));
    let checked = dfio(
        dir.path(),
        "--name=v --size=1m --rw=write --verify=crc32c --verify_only=1",
    );
    assert!(checked.status.success(), "{}", stderr_of(&checked));
    let read = json_of(&checked)["jobs"][0]["read"]["io_bytes"].as_u64();
    assert_eq!(read, Some(1 << 20));
    // unlink=1: the job's files go when it ends.
    let gone = dfio(dir.path(), "--name=w --size=1m --rw=read --unlink=1");
    assert!(gone.status.success(), "{}", stderr_of(&gone));
    assert!(!file.exists());
}

#[test]
fn a_users_own_file_is_still_refused() {
    let dir = real_dir();
    let mine = dir.path().join("mine");
    std::fs::write(&mine, b"the user's data").unwrap();
    // Named inside directory=, as fio reads a relative filename=.
    let out = dfio(dir.path(), "--name=x --filename=mine --size=1m --rw=write");
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.contains("is a file diskbench did not create") && err.contains("--allow-overwrite"),
        "{err}"
    );
    assert_eq!(content(&mine), b"the user's data");
    // At one of fio's names, something that is not a regular file is
    // refused too (a link could lead anywhere).
    std::os::unix::fs::symlink(&mine, dir.path().join("l.0.0")).unwrap();
    let out = dfio(dir.path(), "--name=l --size=1m --rw=write");
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("is not a regular file"));
    assert_eq!(content(&mine), b"the user's data");
}

#[test]
fn a_refused_job_leaves_no_file_it_made() {
    let dir = real_dir();
    // bs=1000 with direct=1: refused once the file is open, after it was made.
    let out = dfio(
        dir.path(),
        "--name=t --size=1m --rw=read --bs=1000 --direct=1",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}
