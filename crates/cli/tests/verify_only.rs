//! `verify_only` and the saved verify state: a job that checks what an
//! earlier run wrote without writing, the writes it stands for counted as
//! fio counts them, and the state file (`verify_state_save`/`_load`) that
//! limits the check to the writes the earlier run completed, named and
//! numbered as fio names them.

mod common;
use common::*;
use std::path::Path;

const BS: u64 = 4096;

#[test]
fn a_saved_verify_state_limits_verify_only_to_the_writes_done() {
    let dir = real_dir();
    let file = dir.path().join("s");
    let aux = dir.path().join("aux");
    std::fs::create_dir(&aux).unwrap();
    let aux_arg = format!("--aux-path={}", aux.display());
    // A write phase that stops after 40 of its 256 writes (number_ios).
    let base = ["--rw=randwrite", "--size=1m", "--verify=crc32c"];
    let out = fio_on(
        &file,
        &[&base[..], &["--number_ios=40", "--do_verify=0", &aux_arg]].concat(),
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    let state = aux.join("local-v-0-verify.state");
    assert!(state.exists(), "no {}", state.display());
    // Without the state, verify_only replays all 256 writes and finds the
    // blocks never written; with it, it checks the 40 written and passes.
    let only = [&base[..], &["--verify_only"]].concat();
    let out = fio_on(&file, &only);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let out = fio_on(
        &file,
        &[&only[..], &["--verify_state_load=1", &aux_arg]].concat(),
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(verify_of(&out)["checked"], 40);
    assert_eq!(verify_of(&out)["bad"], 0);
    // No state where it is looked for: refused with the fix.
    let elsewhere = format!("--aux-path={}", dir.path().display());
    let out = fio_on(
        &file,
        &[&only[..], &["--verify_state_load=1", &elsewhere]].concat(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("no saved state"),
        "{}",
        stderr_of(&out)
    );
}

/// A verify_only job does none of its writes, but fio counts them all as
/// issued (also those past a saved state's, which are not checked): in the
/// write direction's `total_ios` and `io_bytes`, with no runtime and no
/// latency samples. fio's own suite (t/verify_state_save.py) holds a
/// verify_only write job with no write I/Os as wrong.
#[test]
fn verify_only_counts_the_writes_it_stands_for_as_issued_as_fio_does() {
    let dir = real_dir();
    let file = dir.path().join("c");
    let (size, done) = (1u64 << 20, 40u64);
    let base = ["--rw=randwrite", "--size=1m", "--verify=crc32c"];
    let number_ios = format!("--number_ios={done}");
    let out = fio_on(
        &file,
        &[&base[..], &[&number_ios, "--do_verify=0"]].concat(),
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    let only = [&base[..], &["--verify_only", "--verify_state_load=1"]].concat();
    let out = fio_on(&file, &only);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let job = &json_of(&out)["jobs"][0];
    let w = &job["write"];
    assert_eq!(w["total_ios"], size / BS, "{w}");
    assert_eq!(w["io_bytes"], size, "{w}");
    assert_eq!(w["io_kbytes"], size >> 10, "{w}");
    // Nothing was written, so nothing was timed.
    assert_eq!(w["runtime"], 0, "{w}");
    assert_eq!(w["bw_bytes"], 0, "{w}");
    assert_eq!(w["clat_ns"]["N"], 0, "{w}");
    assert_eq!(job["read"]["total_ios"], done, "{}", job["read"]);
    assert_eq!(verify_of(&out)["checked"], done);
    // fio's normal output counts them the same way.
    let normal = [&only[..], &["--output-format=normal"]].concat();
    let out = fio_on(&file, &normal);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let issued = format!("issued rwts: total={done},{},0,0", size / BS);
    assert!(text.contains(&issued), "{text}");
}

/// fio takes `verify_only` on a job that writes nothing and runs the job as
/// it is: a read job with `verify=` reads and checks every block, one
/// without reads it plainly. Its counts are the plain job's.
#[test]
fn verify_only_on_a_read_job_runs_the_read_job_as_fio_does() {
    let dir = real_dir();
    let file = dir.path().join("r");
    let out = fio_on(&file, &["--rw=write", "--size=256k", "--verify=crc32c"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    for rw in ["--rw=read", "--rw=randread"] {
        let plain = [rw, "--size=256k", "--verify=crc32c"];
        let only = [&plain[..], &["--verify_only=1"]].concat();
        let (plain_out, only_out) = (fio_on(&file, &plain), fio_on(&file, &only));
        assert!(only_out.status.success(), "{}", stderr_of(&only_out));
        let (a, b) = (json_of(&plain_out), json_of(&only_out));
        for dir in ["read", "write"] {
            assert_eq!(
                a["jobs"][0][dir]["total_ios"], b["jobs"][0][dir]["total_ios"],
                "{rw} {dir}"
            );
        }
        assert_eq!(b["jobs"][0]["read"]["io_bytes"], 256 << 10);
        assert_eq!(verify_of(&only_out)["checked"], 64);
        // A chunk damaged behind its back is still found.
        flip(&file, 70_000);
        let out = fio_on(&file, &only);
        assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
        flip(&file, 70_000);
        if let Some(real) = real_fio_json_in(
            dir_of(&file),
            &format!(
                "--name=v --bs=4k --filename={} {rw} --size=256k --verify_only=1",
                file.display()
            ),
        ) {
            assert_eq!(real["jobs"][0]["read"]["total_ios"], 64);
            assert_eq!(real["jobs"][0]["error"], 0);
        }
    }
}

fn dir_of(file: &Path) -> &Path {
    file.parent().unwrap()
}

/// fio numbers a state file by the job's thread across the whole run
/// (`local-JOB-N-verify.state`, N from 0 over every clone of every job),
/// not by the clone's number in its job; a later verify_only run finds
/// its state under the same name.
#[test]
fn state_files_are_numbered_across_the_run_as_fio_numbers_them() {
    let jobs = "--rw=write --size=64k --verify=crc32c";
    let args = format!(
        "--name=a {jobs} --numjobs=2 --name=b {jobs} --name=c --stonewall {jobs} --numjobs=2"
    );
    let states = |dir: &Path| {
        let mut names: Vec<String> = entries(dir)
            .iter()
            .filter_map(|p| p.file_name()?.to_str().map(str::to_string))
            .filter(|n| n.ends_with("-verify.state"))
            .collect();
        names.sort();
        names
    };
    let dir = real_dir();
    fio_ok_in(dir.path(), &args);
    let want = ["a-0", "a-1", "b-2", "c-3", "c-4"].map(|n| format!("local-{n}-verify.state"));
    assert_eq!(states(dir.path()), want);
    let theirs = real_dir();
    if real_fio_json_in(theirs.path(), &args).is_some() {
        assert_eq!(states(theirs.path()), want);
    }
}

/// fio's state file is a binary image of its own structures; diskbench's
/// is text. Neither misreads the other's: diskbench refuses fio's by name,
/// with the fix, and exits 1 as fio does on a state it cannot load.
#[test]
fn a_state_file_fio_wrote_is_refused_with_the_fix() {
    let dir = real_dir();
    let file = dir.path().join("s");
    let job = [
        "--name=s",
        "--rw=write",
        "--size=64k",
        "--bs=4k",
        "--verify=crc32c",
    ];
    let target = format!("--filename={}", file.display());
    let Some(out) = real_fio_in(dir.path(), &[&job[..], &[target.as_str()]].concat()) else {
        return;
    };
    assert!(out.status.success());
    assert!(dir.path().join("local-s-0-verify.state").exists());
    let out = diskbench()
        .current_dir(dir.path())
        .args(["fio", "--no-save", "--allow-overwrite"])
        .args(job)
        .arg(&target)
        .args(["--verify_only=1", "--verify_state_load=1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert!(
        err.contains("local-s-0-verify.state is not a state diskbench wrote"),
        "{err}"
    );
    assert!(err.contains("write it again with diskbench fio"), "{err}");
}
