//! `read_iolog` and `write_iolog`: logs fio 3.33 wrote (fixtures) replayed
//! by diskbench with fio's counts, diskbench's logs replayed by fio, logs
//! of several files replayed onto each, and the replay options.

mod common;
use common::*;
use std::path::Path;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures");

/// Reads, read bytes, writes, written bytes of a log, counted from its text.
fn log_counts(text: &str) -> (u64, u64, u64, u64) {
    let mut c = (0, 0, 0, 0);
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let Some(i) = w.iter().position(|a| *a == "read" || *a == "write") else {
            continue;
        };
        let len: u64 = w[i + 2].parse().unwrap();
        match w[i] {
            "read" => (c.0, c.1) = (c.0 + 1, c.1 + len),
            _ => (c.2, c.3) = (c.2 + 1, c.3 + len),
        }
    }
    c
}

fn job_counts(doc: &serde_json::Value) -> (u64, u64, u64, u64) {
    let j = &doc["jobs"][0];
    let n = |v: &serde_json::Value| v.as_u64().unwrap();
    (
        n(&j["read"]["total_ios"]),
        n(&j["read"]["io_bytes"]),
        n(&j["write"]["total_ios"]),
        n(&j["write"]["io_bytes"]),
    )
}

fn real_fio(dir: &Path, args: &[String]) -> Option<serde_json::Value> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    real_fio_json(dir, &args)
}

fn replay(dir: &Path, log: &str, extra: &str) -> serde_json::Value {
    let args = format!(
        "--name=replay --read_iolog={FIXTURES}/{log} --replay_redirect={} {extra}",
        dir.join("data").display()
    );
    fio_ok_in(dir, &args)
}

#[test]
fn fios_logs_replay_with_fios_counts() {
    for log in ["fio-3.33-randrw.iolog", "fio-3.33-randrw-v2.iolog"] {
        let text = std::fs::read_to_string(format!("{FIXTURES}/{log}")).unwrap();
        let want = log_counts(&text);
        assert!(want.0 > 0 && want.2 > 0, "{log}: reads and writes");
        let dir = real_dir();
        assert_eq!(job_counts(&replay(dir.path(), log, "")), want, "{log}");
        let args = [
            "--name=replay".to_string(),
            format!("--read_iolog={FIXTURES}/{log}"),
            format!("--replay_redirect={}", dir.path().join("data").display()),
        ];
        let Some(fio) = real_fio(dir.path(), &args) else {
            return;
        };
        assert_eq!(job_counts(&fio), want, "{log}: fio's own replay");
    }
}

#[test]
fn replay_options_shape_the_replay() {
    let log = "fio-3.33-randrw.iolog";
    let text = std::fs::read_to_string(format!("{FIXTURES}/{log}")).unwrap();
    let (reads, read_bytes, _, _) = log_counts(&text);
    let dir = real_dir();
    let doc = replay(dir.path(), log, "--replay_skip=write,sync");
    assert_eq!(job_counts(&doc), (reads, read_bytes, 0, 0));
    // The log spans its last action's time; at a tenth of its pace the
    // replay takes ten times that, and without stalls far less.
    let last_us: u64 = text
        .lines()
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .max()
        .unwrap();
    let runtime_ms = |doc: &serde_json::Value| doc["jobs"][0]["job_runtime"].as_u64().unwrap();
    let slow = replay(dir.path(), log, "--replay_time_scale=10");
    assert!(
        runtime_ms(&slow) * 1000 >= last_us * 10 * 9 / 10,
        "{} ms for a log of {last_us} us at 10%",
        runtime_ms(&slow)
    );
    let fast = replay(
        dir.path(),
        log,
        "--replay_time_scale=10 --replay_no_stall=1",
    );
    assert!(runtime_ms(&fast) < runtime_ms(&slow), "no stall is faster");
}

#[test]
fn diskbenchs_log_replays_in_fio() {
    let dir = real_dir();
    let log = dir.path().join("captured.iolog");
    let data = dir.path().join("data");
    let doc = fio_ok_in(
        dir.path(),
        &format!(
            "--name=cap --filename={} --size=256k --rw=randrw --bs=8k --write_iolog={}",
            data.display(),
            log.display()
        ),
    );
    let ours = job_counts(&doc);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.starts_with("fio version 3 iolog\n"), "{text}");
    assert_eq!(log_counts(&text), ours, "every I/O is in the log");
    assert!(text.trim_end().ends_with("close"), "{text}");
    let Some(fio) = real_fio(dir.path(), &args_for(&log)) else {
        return;
    };
    assert_eq!(job_counts(&fio), ours, "fio replays diskbench's log");
}

#[test]
fn logs_that_cannot_be_replayed_are_refused_by_name() {
    let dir = real_dir();
    let log = dir.path().join("binary.log");
    std::fs::write(&log, [0u8, 159, 146, 150]).unwrap();
    let out = fio_in(
        dir.path(),
        &format!("--name=r --read_iolog={}", log.display()),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("nor a blktrace trace"),
        "{}",
        stderr_of(&out)
    );
    // A trace of a device this machine does not have needs a redirect
    // (majors 240 to 254 are for local, experimental use).
    let trace = dir.path().join("trace.bin");
    std::fs::write(&trace, blktrace_trace((240 << 20) | 999)).unwrap();
    if !Path::new("/sys/dev/block/240:999").exists() {
        let out = fio_in(
            dir.path(),
            &format!("--name=r --read_iolog={}", trace.display()),
        );
        assert_eq!(out.status.code(), Some(1));
        let err = stderr_of(&out);
        assert!(
            err.contains("240:999") && err.contains("replay_redirect=FILE"),
            "{err}"
        );
    }
    let missing = fio_in(dir.path(), "--name=r --read_iolog=nowhere.iolog");
    assert_eq!(missing.status.code(), Some(1));
    assert!(stderr_of(&missing).contains("cannot read it"));
}

/// A blktrace trace in the kernel's event layout (linux/blktrace_api.h):
/// 40 queue events of 4 or 8 KiB, one in three a write (the others reads), each followed by
/// its completion, and a notification with a payload, on device `device`
/// (`MAJOR << 20 | MINOR`).
fn blktrace_trace(device: u32) -> Vec<u8> {
    let event = |time: u64, sector: u64, bytes: u32, action: u32, pdu: &[u8]| {
        let mut e = Vec::new();
        e.extend(0x6561_7407u32.to_le_bytes());
        e.extend(0u32.to_le_bytes());
        e.extend(time.to_le_bytes());
        e.extend(sector.to_le_bytes());
        e.extend(bytes.to_le_bytes());
        e.extend(action.to_le_bytes());
        e.extend(42u32.to_le_bytes());
        e.extend(device.to_le_bytes());
        e.extend(0u32.to_le_bytes());
        e.extend(0u16.to_le_bytes());
        e.extend((pdu.len() as u16).to_le_bytes());
        e.extend(pdu);
        e
    };
    let (queue, complete, write, notify) = (1 | (1 << 20), 8 | (1 << 23), 1 << 17, 1 << 26);
    let mut trace = Vec::new();
    let mut time = 1_000_000;
    for i in 0..40u64 {
        // The kernel marks reads too (BLK_TC_READ).
        let w = if i % 3 == 0 { write } else { 1 << 16 };
        let bytes = 4096 * (1 + (i % 2) as u32);
        trace.extend(event(time, (i * 37 % 200) * 8, bytes, queue | w, &[]));
        trace.extend(event(time + 20_000, 0, 0, complete | w, &[]));
        time += 60_000;
    }
    trace.extend(event(time, 0, 4096, queue | notify, b"hello"));
    trace
}

#[test]
fn blktrace_traces_replay_as_fio_replays_them() {
    let dir = real_dir();
    let trace = dir.path().join("trace.bin");
    std::fs::write(&trace, blktrace_trace((7 << 20) | 3)).unwrap();
    let data = dir.path().join("data");
    let args = format!(
        "--name=bt --read_iolog={} --replay_redirect={}",
        trace.display(),
        data.display()
    );
    let ours = job_counts(&fio_ok_in(dir.path(), &args));
    // 40 I/Os, one in three (i = 0, 3, ..., 39: 14) a write.
    assert_eq!((ours.0 + ours.2, ours.2), (40, 14), "{ours:?}");
    let fio_args: Vec<String> = args.split_whitespace().map(str::to_string).collect();
    let Some(fio) = real_fio(dir.path(), &fio_args) else {
        return;
    };
    assert_eq!(job_counts(&fio), ours, "fio's replay of the same trace");
}

#[test]
fn merged_blktrace_traces_replay_in_fio_as_in_diskbench() {
    let dir = real_dir();
    let (a, b) = (dir.path().join("a.bin"), dir.path().join("b.bin"));
    std::fs::write(&a, blktrace_trace((7 << 20) | 3)).unwrap();
    std::fs::write(&b, blktrace_trace((7 << 20) | 3)).unwrap();
    let merged = dir.path().join("merged.bin");
    let out = diskbench()
        .current_dir(dir.path())
        .args(["fio", "--no-save", "--merge-blktrace-only", "--name=m"])
        .arg(format!("--read_iolog={}:{}", a.display(), b.display()))
        .arg(format!("--merge_blktrace_file={}", merged.display()))
        .args([
            "--merge_blktrace_scalars=50:100",
            "--merge_blktrace_iters=2:1",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    // 40 queued I/Os a trace: a twice, b once; 48 bytes an event.
    assert_eq!(std::fs::metadata(&merged).unwrap().len(), 3 * 40 * 48);
    let args = format!(
        "--name=r --read_iolog={} --replay_redirect={}",
        merged.display(),
        dir.path().join("data").display()
    );
    let ours = job_counts(&fio_ok_in(dir.path(), &args));
    assert_eq!(ours.0 + ours.2, 120);
    let fio_args: Vec<String> = args.split_whitespace().map(str::to_string).collect();
    let Some(fio) = real_fio(dir.path(), &fio_args) else {
        return;
    };
    assert_eq!(job_counts(&fio), ours, "fio replays the merged trace alike");
}

/// The I/Os of a log, in order: (file, action, offset, length).
fn log_ios(text: &str) -> Vec<(String, String, u64, u64)> {
    text.lines()
        .filter_map(|line| {
            let w: Vec<&str> = line.split_whitespace().collect();
            let i = w.iter().position(|a| *a == "read" || *a == "write")?;
            Some((
                w[i - 1].to_string(),
                w[i].to_string(),
                w[i + 1].parse().unwrap(),
                w[i + 2].parse().unwrap(),
            ))
        })
        .collect()
}

/// Replays `log` (whose files are relative to `cwd`, their directories
/// made here) with diskbench, recording the replay; checks that each file
/// got exactly its I/Os of the log, in order, and holds the furthest of
/// them; returns the replay's counts.
fn replay_onto_its_files(cwd: &Path, log: &Path) -> (u64, u64, u64, u64) {
    let text = std::fs::read_to_string(log).unwrap();
    let logged = log_ios(&text);
    let mut files: Vec<&str> = logged.iter().map(|io| io.0.as_str()).collect();
    files.sort();
    files.dedup();
    assert_eq!(files.len(), 3, "a log of three files: {files:?}");
    for file in &files {
        std::fs::create_dir_all(cwd.join(file).parent().unwrap()).unwrap();
    }
    let again = cwd.join("replayed.iolog");
    let doc = fio_ok_in(
        cwd,
        &format!(
            "--name=r --read_iolog={} --write_iolog={}",
            log.display(),
            again.display()
        ),
    );
    let replayed = log_ios(&std::fs::read_to_string(&again).unwrap());
    for file in &files {
        let of = |ios: &[(String, String, u64, u64)]| {
            ios.iter()
                .filter(|io| io.0 == *file)
                .cloned()
                .collect::<Vec<_>>()
        };
        let want = of(&logged);
        assert!(!want.is_empty(), "{file} has I/O in the log");
        assert_eq!(of(&replayed), want, "{file}: its I/Os, in order");
        let furthest = want.iter().map(|io| io.2 + io.3).max().unwrap();
        let len = std::fs::metadata(cwd.join(file)).unwrap().len();
        assert!(len >= furthest, "{file}: {len} bytes, I/O up to {furthest}");
    }
    let counts = job_counts(&doc);
    assert_eq!(counts, log_counts(&text), "every I/O of the log, once");
    counts
}

#[test]
fn fios_log_of_three_files_replays_onto_each() {
    let log = Path::new(FIXTURES).join("fio-3.33-three-files.iolog");
    let dir = real_dir();
    let ours = replay_onto_its_files(dir.path(), &log);
    // fio's replay of the log, on the files diskbench laid out (fio 3.33
    // reads a file it creates for a log only as far as the log writes it).
    let Some(fio) = real_fio(dir.path(), &args_for(&log)) else {
        return;
    };
    assert_eq!(job_counts(&fio), ours, "fio's replay of the same log");
    assert_eq!(ours, (29, 118784, 19, 77824), "as the fixture says");
}

#[test]
fn a_log_of_three_files_recorded_now_replays_onto_each() {
    let dir = real_dir();
    // diskbench's log: its files were in a directory of the run, gone now.
    let recorded = dir.path().join("diskbench");
    std::fs::create_dir_all(recorded.join("rec")).unwrap();
    let log = dir.path().join("diskbench.iolog");
    fio_ok_in(
        &recorded,
        &format!(
            "--name=x --rw=randwrite --nrfiles=3 --size=3m --directory=rec --write_iolog={}",
            log.display()
        ),
    );
    let replay = dir.path().join("diskbench-replay");
    let counts = replay_onto_its_files(&replay, &log);
    assert_eq!(counts, (0, 0, 768, 3 << 20), "3 MiB in 4 KiB writes");
    let fio_replay = dir.path().join("fio-replay");
    for file in log_ios(&std::fs::read_to_string(&log).unwrap()) {
        std::fs::create_dir_all(fio_replay.join(file.0).parent().unwrap()).unwrap();
    }
    let Some(fio) = real_fio(&fio_replay, &args_for(&log)) else {
        return;
    };
    assert_eq!(job_counts(&fio), counts, "fio's replay of diskbench's log");
    // fio's own log of a job of three files, reads and writes, replayed.
    let theirs = dir.path().join("fio");
    std::fs::create_dir_all(theirs.join("rec")).unwrap();
    let log = dir.path().join("fio.iolog");
    let record = [
        "--name=x".to_string(),
        "--rw=randrw".to_string(),
        "--nrfiles=3".to_string(),
        "--size=3m".to_string(),
        "--directory=rec".to_string(),
        format!("--write_iolog={}", log.display()),
    ];
    real_fio(&theirs, &record).expect("fio ran above");
    // fio replays it on the files it recorded it on, laid out whole.
    let fio = real_fio(&theirs, &args_for(&log)).expect("fio ran above");
    let counts = replay_onto_its_files(&dir.path().join("fio-log-replay"), &log);
    assert_eq!(job_counts(&fio), counts, "fio's replay of its own log");
}

/// fio's arguments to replay `log`.
fn args_for(log: &Path) -> [String; 2] {
    [
        "--name=r".to_string(),
        format!("--read_iolog={}", log.display()),
    ]
}

/// A logged `trim` is replayed as a trim: counted with the trims, its
/// range discarded (a hole punched in a file), and a trim far longer than
/// any read or write (as fio's own test logs trim 2 GiB at a time) takes
/// no buffer of its size: the block size stays the writes'.
#[test]
fn logged_trims_are_replayed_as_trims() {
    let dir = real_dir();
    let data = dir.path().join("data");
    let log = dir.path().join("trims.iolog");
    let text = format!(
        "fio version 3 iolog\n0 {f} add\n1 {f} open\n\
         2 {f} write 0 65536\n3 {f} trim 0 8192\n4 {f} trim 16384 2147483648\n\
         5 {f} write 65536 4096\n6 {f} close\n",
        f = data.display()
    );
    std::fs::write(&log, text).unwrap();
    let doc = fio_ok_in(
        dir.path(),
        &format!("--name=r --read_iolog={}", log.display()),
    );
    let job = &doc["jobs"][0];
    let n = |dir: &str, key: &str| job[dir][key].as_u64().unwrap();
    assert_eq!(n("trim", "total_ios"), 2, "{job}");
    assert_eq!(n("trim", "io_bytes"), 8192 + 2147483648u64);
    assert_eq!(
        (n("write", "total_ios"), n("write", "io_bytes")),
        (2, 69632)
    );
    // The first 8 KiB, then everything from 16 KiB on, were discarded; the
    // last write came after.
    let content = std::fs::read(&data).unwrap();
    assert!(content[..8192].iter().all(|&b| b == 0), "the first trim");
    assert!(content[8192..16384].iter().any(|&b| b != 0), "kept");
    assert!(
        content[16384..65536].iter().all(|&b| b == 0),
        "the second trim"
    );
    assert!(content[65536..].iter().any(|&b| b != 0), "the last write");
    // replay_skip=trim leaves them out, as before.
    let skipped = fio_ok_in(
        dir.path(),
        &format!("--name=r --read_iolog={} --replay_skip=trim", log.display()),
    );
    assert_eq!(skipped["jobs"][0]["trim"]["total_ios"].as_u64(), Some(0));
}

/// `write_iolog` of a trimwrite job: each block's trim, then its write,
/// as fio 3.33 logs them.
#[test]
fn trimwrite_is_logged_as_fio_logs_it() {
    let args = |log: &str| {
        format!("--name=t --ioengine=null --size=64k --bs=8k --rw=trimwrite --write_iolog={log}")
    };
    let ios = |path: &Path| -> Vec<(String, u64, u64)> {
        let text = std::fs::read_to_string(path).unwrap();
        text.lines()
            .filter_map(|line| {
                let w: Vec<&str> = line.split_whitespace().collect();
                let i = w
                    .iter()
                    .position(|a| ["read", "write", "trim"].contains(a))?;
                Some((
                    w[i].to_string(),
                    w[i + 1].parse().unwrap(),
                    w[i + 2].parse().unwrap(),
                ))
            })
            .collect()
    };
    let fio_dir = real_dir();
    let Some(_) = real_fio_json_in(fio_dir.path(), &args("w.log")) else {
        return;
    };
    let dir = real_dir();
    fio_ok_in(dir.path(), &args("w.log"));
    let fio = ios(&fio_dir.path().join("w.log"));
    assert!(fio.iter().any(|io| io.0 == "trim"), "{fio:?}");
    assert_eq!(ios(&dir.path().join("w.log")), fio);
}

/// The null engine has no files, and fio's `write_iolog` names them as the
/// job does: by `filename=` when one is given (each of `a:b`), else
/// `JOB.CLONE.FILE`.
#[test]
fn the_null_engines_logged_files_are_named_as_the_job_names_them() {
    let names = |path: &Path| -> Vec<String> {
        let text = std::fs::read_to_string(path).unwrap();
        let mut names: Vec<String> = (text.lines())
            .filter(|l| l.ends_with(" add"))
            .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
            .collect();
        names.sort();
        names
    };
    for (files, want) in [
        ("--filename=foo", vec!["foo"]),
        ("--filename=foo:bar", vec!["bar", "foo"]),
        ("--nrfiles=2", vec!["j.0.0", "j.0.1"]),
    ] {
        // A log that exists is appended to, by fio too: each case its own.
        let (dir, theirs) = (real_dir(), real_dir());
        let args =
            format!("--name=j --ioengine=null --rw=read --size=16k {files} --write_iolog=w.log");
        fio_ok_in(dir.path(), &args);
        assert_eq!(names(&dir.path().join("w.log")), want, "{files}");
        if real_fio_json_in(theirs.path(), &args).is_some() {
            assert_eq!(names(&theirs.path().join("w.log")), want, "fio, {files}");
        }
    }
}
