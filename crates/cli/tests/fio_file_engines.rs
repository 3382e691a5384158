//! fio's file-operation engines end to end: fio's six example job files
//! (`filecreate-ioengine.fio` ... `dirdelete-ioengine.fio`, read where fio
//! installs them or from `DISKBENCH_FIO_EXAMPLES`), shortened to a few
//! files, run in fio and in diskbench, and their counts compared exactly
//! (per job and direction: `total_ios`, `io_bytes`, the latency samples);
//! then each engine on a path of its own (`filename=`), to see that the
//! file or directory really is made, kept or removed.
//!
//! fio 3.33 has no directory engines (fio 3.34 added them): `DISKBENCH_FIO`
//! names another fio binary (e.g. one built from a checkout); an engine the
//! fio at hand lacks is skipped and named.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const ENGINES: [&str; 6] = [
    "filecreate",
    "filestat",
    "filedelete",
    "dircreate",
    "dirstat",
    "dirdelete",
];

/// Whether the fio at hand runs `engine`. When not, only the comparison
/// with fio is left out (and said): what diskbench does on the disk is
/// checked all the same, so this is not a skipped test.
fn fio_has(engine: &str) -> bool {
    let out = Command::new(fio_binary()).arg("--enghelp").output();
    let has = out.is_ok_and(|o| {
        String::from_utf8_lossy(&o.stdout)
            .split_whitespace()
            .any(|e| e == engine)
    });
    if !has {
        eprintln!(
            "{} has no ioengine={engine} (fio 3.34 or later; set DISKBENCH_FIO): not compared with fio",
            fio_binary()
        );
    }
    has
}

fn examples_dir() -> PathBuf {
    std::env::var_os("DISKBENCH_FIO_EXAMPLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| "/usr/share/doc/fio/examples".into())
}

/// The example, shortened: 7 files per job, 2 clones where it asks for more.
fn shortened(example: &Path) -> String {
    let text = std::fs::read_to_string(example).expect("the example");
    text.lines()
        .map(|l| match l.split_once('=') {
            Some(("nrfiles", _)) => "nrfiles=7".to_string(),
            Some(("numjobs", n)) if n.trim() != "1" => "numjobs=2".to_string(),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Per job: (name, per direction (total_ios, io_bytes, clat samples, lat samples)).
type Counts = Vec<(String, Vec<(u64, u64, u64, u64)>)>;

fn counts(doc: &serde_json::Value) -> Counts {
    let mut jobs: Counts = doc["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| {
            let dirs = ["read", "write", "trim"]
                .iter()
                .map(|d| {
                    let n = |k: &str| j[d][k].as_u64().unwrap_or(0);
                    let lat = |k: &str| j[d][k]["N"].as_u64().unwrap_or(0);
                    (n("total_ios"), n("io_bytes"), lat("clat_ns"), lat("lat_ns"))
                })
                .collect();
            (j["jobname"].as_str().unwrap_or("").to_string(), dirs)
        })
        .collect();
    jobs.sort();
    jobs
}

/// fio's JSON (after any line it prints before it).
fn fio_json(dir: &Path, args: &[&str]) -> serde_json::Value {
    let out = Command::new(fio_binary())
        .current_dir(dir)
        .arg("--output-format=json")
        .args(args)
        .output()
        .expect("fio runs");
    assert!(out.status.success(), "fio {args:?}: {}", stderr_of(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let start = text.find('{').expect("fio's JSON");
    serde_json::from_str(&text[start..]).expect("fio's JSON parses")
}

#[test]
fn fios_examples_count_the_same() {
    let dir = examples_dir();
    let mut compared = 0;
    for engine in ENGINES {
        let example = dir.join(format!("{engine}-ioengine.fio"));
        if !example.is_file() {
            eprintln!("{} is not there: skipped", example.display());
            continue;
        }
        if !fio_has(engine) {
            continue;
        }
        let job = shortened(&example);
        let (theirs, ours) = (real_dir(), real_dir());
        for d in [&theirs, &ours] {
            std::fs::write(d.path().join("job.fio"), &job).unwrap();
        }
        let fio = fio_json(theirs.path(), &["job.fio"]);
        let db = fio_ok_in(ours.path(), "job.fio");
        assert_eq!(counts(&db), counts(&fio), "{engine}: diskbench vs fio");
        // What fio leaves in its directory: the files or directories the
        // creating and stat engines made, nothing after the removing ones.
        let left = entries(theirs.path()).len() - 1;
        let jobs = fio["jobs"].as_array().unwrap().len();
        let expected = match engine.ends_with("delete") {
            true => 0,
            false => jobs * 7,
        };
        assert_eq!(left, expected, "{engine}: fio's files");
        // diskbench fio leaves the same, as fio does.
        let ours_left = entries(ours.path()).len() - 1;
        assert_eq!(ours_left, expected, "{engine}: diskbench's files");
        compared += 1;
    }
    eprintln!("file-operation examples compared with fio: {compared}");
}

#[test]
fn each_engine_really_makes_stats_or_removes_its_path() {
    for engine in ENGINES {
        let work = real_dir();
        let path = work.path().join("target");
        let args = format!(
            "--name=one --ioengine={engine} --filename={} --filesize=4k",
            path.display()
        );
        let doc = fio_ok_in(work.path(), &args);
        let read = &doc["jobs"][0]["read"];
        assert_eq!(read["total_ios"], 1, "{engine}: {read}");
        assert_eq!(read["io_bytes"], 4096, "{engine}");
        assert_eq!(read["clat_ns"]["N"], 1, "{engine}");
        assert_eq!(read["lat_ns"]["N"], 0, "{engine}: fio keeps clat only");
        let meta = std::fs::symlink_metadata(&path);
        match engine {
            "filecreate" | "filestat" => assert!(meta.unwrap().is_file(), "{engine}"),
            "dircreate" | "dirstat" => assert!(meta.unwrap().is_dir(), "{engine}"),
            _ => assert!(meta.is_err(), "{engine}: {} is still there", path.display()),
        }
        if engine.ends_with("create") && fio_has(engine) {
            // fio makes the same thing of the same job.
            let theirs = real_dir();
            let p = theirs.path().join("target");
            let fargs = args.replace(&path.display().to_string(), &p.display().to_string());
            let fdoc = fio_json(theirs.path(), &fargs.split_whitespace().collect::<Vec<_>>());
            assert_eq!(counts(&fdoc), counts(&doc), "{engine}");
            assert_eq!(p.is_dir(), path.is_dir(), "{engine}");
        }
    }
}

#[test]
fn size_bounds_the_files_made_as_in_fio() {
    // fio makes a file of one block per I/O: size=16k makes 4 of the 10.
    let args = "--name=t --ioengine=filecreate --nrfiles=10 --size=16k";
    let doc = fio_ok_in(real_dir().path(), args);
    assert_eq!(doc["jobs"][0]["read"]["total_ios"], 4);
    if fio_has("filecreate") {
        let theirs = real_dir();
        let fio = fio_json(theirs.path(), &args.split_whitespace().collect::<Vec<_>>());
        assert_eq!(counts(&doc), counts(&fio));
        assert_eq!(entries(theirs.path()).len(), 4);
    }
}

#[test]
fn a_user_file_is_removed_only_when_allowed_and_what_differs_is_refused() {
    let work = real_dir();
    let mine = work.path().join("mine");
    std::fs::write(&mine, b"keep me").unwrap();
    let args = format!(
        "--name=d --ioengine=filedelete --filename={}",
        mine.display()
    );
    let out = fio_in(work.path(), &format!("{args} --filesize=4k"));
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("--allow-overwrite"));
    assert!(mine.exists());
    let ok = fio_in(
        work.path(),
        &format!("--allow-overwrite {args} --filesize=4k"),
    );
    assert!(ok.status.success(), "{}", stderr_of(&ok));
    assert!(!mine.exists());
    // Several blocks per file: fio times one operation but counts each block.
    let out = fio_in(
        work.path(),
        "--name=s --ioengine=filestat --nrfiles=2 --filesize=8k",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("filesize=8k with ioengine=filestat"));
    // --readonly: the engines that make or remove are writes; stat is not.
    let out = fio_in(
        work.path(),
        "--readonly --name=c --ioengine=dircreate --nrfiles=2",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("--readonly"));
    let ok = fio_in(
        work.path(),
        "--readonly --name=s --ioengine=dirstat --nrfiles=2 --filesize=4k",
    );
    assert!(ok.status.success(), "{}", stderr_of(&ok));
    for (extra, option) in [
        ("--time_based --runtime=1", "time_based"),
        ("--loops=2", "loops"),
    ] {
        let out = fio_in(
            work.path(),
            &format!("--name=c --ioengine=filecreate --nrfiles=2 {extra}"),
        );
        assert_eq!(out.status.code(), Some(1), "{extra}");
        assert!(stderr_of(&out).contains(option), "{}", stderr_of(&out));
    }
}
