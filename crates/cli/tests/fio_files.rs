//! fio's file-handling options run end to end on a real directory, each
//! checked against what fio 3.33 does with the same job (the fio figures
//! in the comments come from running it beside diskbench): what a file
//! looks like before it is written (`fallocate`, `create_on_open`), how
//! long each file is (`filesize`), how many files are open at once
//! (`openfiles`), when files are removed (`unlink`, `unlink_each_loop`),
//! the `sync_file_range` calls, and the names `filename_format` gives.

mod common;
use common::*;
use std::collections::BTreeSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn written(doc: &serde_json::Value) -> u64 {
    doc["jobs"][0]["write"]["io_bytes"].as_u64().unwrap()
}

/// `(length, allocated bytes)` of a file.
fn shape(path: &Path) -> (u64, u64) {
    let m = std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (m.len(), m.blocks() * 512)
}

/// The file is `len` bytes long and every block of it is allocated. ext4
/// may count a little more: when the writes land in more than four extents
/// the inode needs an extent index block, and st_blocks includes it (CI's
/// disk gave 4 MiB + 4 KiB for a 4 MiB file).
fn assert_filled(path: &Path, len: u64) {
    let (l, allocated) = shape(path);
    assert_eq!(l, len, "{}", path.display());
    assert!(
        (len..=len + (64 << 10)).contains(&allocated),
        "{}: {allocated} bytes allocated for a {len}-byte file",
        path.display()
    );
}

/// Runs diskbench in `dir` and calls `look` about every 50 ms with its pid
/// until it ends; returns the output and what `look` returned.
fn watch<T>(dir: &Path, args: &str, mut look: impl FnMut(u32) -> Option<T>) -> (Output, Vec<T>) {
    let child = Command::new(assert_cmd::cargo::cargo_bin("diskbench"))
        .env("DISKBENCH_DB", TEST_DB)
        .current_dir(dir)
        .args(["fio", "--no-save", "--output-format=json"])
        .args(args.split_whitespace())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if !Path::new(&format!("/proc/{pid}")).exists() || is_zombie(pid) {
            break;
        }
        seen.extend(look(pid));
        std::thread::sleep(Duration::from_millis(50));
    }
    (child.wait_with_output().unwrap(), seen)
}

fn is_zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |s| {
        s.rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}

/// The files in `dir`, where diskbench fio makes its test files as fio does.
fn test_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = entries(dir)
        .into_iter()
        .filter(|f| f.is_file())
        .filter(|f| !f.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    files.sort();
    files
}

#[test]
fn fallocate_shapes_a_new_file_as_fio_does() {
    let dir = real_dir();
    // fio 3.33 with create_only=1, rw=write, size=1m: none 0/0 blocks,
    // native and posix 1m/1m, keep 0/1m, truncate 1m/0.
    let mib = 1 << 20;
    for (mode, len, allocated) in [
        ("none", 0, false),
        ("native", mib, true),
        ("posix", mib, true),
        ("keep", 0, true),
        ("truncate", mib, false),
        ("0", 0, false),
        ("1", mib, true),
    ] {
        let file = dir.path().join(format!("f-{mode}"));
        let doc = fio_ok_in(
            dir.path(),
            &format!(
                "--name=j --filename={} --rw=write --size=1m --fallocate={mode} --create_only=1",
                file.display()
            ),
        );
        let (l, a) = shape(&file);
        assert_eq!(l, len, "fallocate={mode}: length");
        assert_eq!(a >= mib, allocated, "fallocate={mode}: {a} bytes allocated");
        if !allocated {
            assert_eq!(a, 0, "fallocate={mode}");
        }
        let job = &doc["jobs"][0];
        assert_eq!(job["job options"]["fallocate"], mode);
        assert_eq!(job["job options"]["create_only"], "1");
        assert_eq!(written(&doc), 0, "create_only does no I/O");
        let warnings = doc["diskbench"]["warnings"].to_string();
        assert!(!warnings.contains("short_run"), "{warnings}");
    }
}

/// Another part of diskbench fills a disk to get a real ENOSPC in the middle
/// of a run: that needs the blocks allocated by the writes, not before.
#[test]
fn fallocate_none_leaves_the_blocks_to_the_writes() {
    let dir = real_dir();
    let file = dir.path().join("sparse");
    let args = format!(
        "--name=j --filename={} --rw=write --bs=64k --size=4m --direct=1 --rate=2m --fallocate=none",
        file.display()
    );
    let (out, seen) = watch(dir.path(), &args, |_| file.exists().then(|| shape(&file)));
    assert!(out.status.success(), "{}", stderr_of(&out));
    let full = 4 << 20;
    assert!(
        seen.iter().any(|&(_, a)| a > 0 && a < full),
        "no partly written moment: {seen:?}"
    );
    assert!(seen.windows(2).all(|w| w[0].1 <= w[1].1), "{seen:?}");
    assert_filled(&file, full);
    // native reserves every block before the first write.
    let file = dir.path().join("reserved");
    let args = args
        .replace("sparse", "reserved")
        .replace("=none", "=native");
    let (out, seen) = watch(dir.path(), &args, |_| file.exists().then(|| shape(&file)));
    assert!(out.status.success(), "{}", stderr_of(&out));
    // (Samples from before the file had its length are the instant between
    // its creation and the fallocate.)
    let sized: Vec<&(u64, u64)> = seen.iter().filter(|s| s.0 > 0).collect();
    assert!(
        !sized.is_empty() && sized.iter().all(|&&(_, a)| a >= full),
        "{seen:?}"
    );
}

#[test]
fn filesize_gives_each_file_its_own_length_in_the_range() {
    let dir = real_dir();
    let args = "--name=j --rw=write --bs=4k --nrfiles=6 --filesize=64k-512k --direct=1 \
                --rate=512k --runtime=1 --time_based";
    let (out, seen) = watch(dir.path(), args, |_| {
        let lens: Vec<u64> = test_files(dir.path()).iter().map(|f| shape(f).0).collect();
        (lens.len() == 6).then_some(lens)
    });
    assert!(out.status.success(), "{}", stderr_of(&out));
    let lens = seen.last().expect("the files were seen").clone();
    for len in &lens {
        assert!(
            (64 << 10..=512 << 10).contains(len) && len.is_multiple_of(4096),
            "{lens:?}"
        );
    }
    let distinct: BTreeSet<&u64> = lens.iter().collect();
    assert!(distinct.len() >= 3, "each file draws its own: {lens:?}");
}

#[test]
fn filesize_total_and_size_bound_the_io_as_in_fio() {
    let dir = real_dir();
    let kib = 1024u64;
    // fio 3.33: W = 524288, 1048576, 262144.
    for (opts, want) in [
        ("--nrfiles=4 --filesize=256k --size=512k", 512 * kib),
        ("--nrfiles=4 --filesize=256k", 1024 * kib),
        ("--nrfiles=4 --filesize=64k --size=1m", 256 * kib),
        ("--nrfiles=2 --filesize=64k-128k --io_size=1m", 1024 * kib),
    ] {
        let doc = fio_ok_in(dir.path(), &format!("--name=j --rw=write --bs=4k {opts}"));
        assert_eq!(written(&doc), want, "{opts}");
    }
    // A range: one pass writes every file once, whatever lengths were drawn.
    let args = "--name=j --rw=write --bs=4k --nrfiles=8 --filesize=16k-64k";
    let total = written(&fio_ok_in(dir.path(), args));
    assert!(
        total > 8 * 16 * kib && total < 8 * 64 * kib && total.is_multiple_of(4096),
        "{total}"
    );
    assert_eq!(written(&fio_ok_in(dir.path(), args)), total, "randrepeat");
    // A named file gets filesize; size= bounds the I/O (fio: 256k file, 128k written).
    let file = dir.path().join("named");
    let doc = fio_ok_in(
        dir.path(),
        &format!(
            "--name=j --filename={} --rw=write --bs=4k --filesize=256k --size=128k",
            file.display()
        ),
    );
    assert_eq!((written(&doc), shape(&file).0), (128 * kib, 256 * kib));
}

/// `openfiles` fds of the job's files in /proc/PID/fd at any moment.
fn open_test_files(pid: u32) -> Option<BTreeSet<String>> {
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
    let open: BTreeSet<String> = fds
        .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| p.contains("/j.0."))
        .collect();
    (!open.is_empty()).then_some(open)
}

#[test]
fn openfiles_keeps_that_many_files_open_and_writes_them_all() {
    let dir = real_dir();
    // fio 3.33, nrfiles=3 openfiles=2: files 0 and 1 in turn, then 2.
    let args = "--name=j --rw=write --bs=4k --nrfiles=6 --openfiles=2 --filesize=128k --direct=1 \
                --rate=384k";
    let (out, seen) = watch(dir.path(), args, open_test_files);
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(
        written(&json_of(&out)),
        (6 * 128) << 10,
        "every file written once"
    );
    assert!(seen.iter().all(|open| open.len() <= 2), "{seen:?}");
    let all: BTreeSet<&String> = seen.iter().flatten().collect();
    assert!(all.len() >= 4, "the window moves on: {all:?}");
    // By default every file is open at once.
    let args = args.replace("--openfiles=2 ", "");
    let (_, seen) = watch(dir.path(), &args, open_test_files);
    assert!(seen.iter().any(|open| open.len() == 6), "{seen:?}");
    // An asynchronous engine with I/Os in flight follows the window too.
    let doc = fio_ok_in(
        dir.path(),
        "--name=j --rw=randwrite --bs=4k --nrfiles=5 --openfiles=2 --filesize=64k-256k \
         --ioengine=libaio --iodepth=8 --direct=1 --fsync_on_close=1 --end_fsync=1",
    );
    let total = written(&doc);
    assert!(
        total >= (5 * 64) << 10 && total.is_multiple_of(4096),
        "{total}"
    );
    assert_eq!(doc["jobs"][0]["error"], 0, "{doc}");
}

#[test]
fn openfiles_below_nrfiles_is_refused_with_io_uring() {
    let dir = real_dir();
    let out = fio_in(
        dir.path(),
        "--name=j --rw=write --size=1m --nrfiles=4 --openfiles=2 --ioengine=io_uring",
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert!(
        err.contains("openfiles=2 with ioengine=io_uring")
            && err.contains("use ioengine=libaio or psync, or openfiles=4"),
        "{err}"
    );
}

#[test]
fn unlink_removes_what_the_run_created_and_keeps_the_users_files() {
    let dir = real_dir();
    let new = dir.path().join("new");
    fio_ok_in(
        dir.path(),
        &format!(
            "--name=j --filename={} --rw=write --size=64k --unlink=1",
            new.display()
        ),
    );
    assert!(!new.exists(), "created by the run: removed");
    // fio would delete a file it did not create; diskbench keeps it and says so.
    let users = dir.path().join("users");
    std::fs::write(&users, vec![7u8; 64 << 10]).unwrap();
    let doc = fio_ok_in(
        dir.path(),
        &format!(
            "--name=j --filename={} --rw=read --unlink=1",
            users.display()
        ),
    );
    assert_eq!(std::fs::read(&users).unwrap(), vec![7u8; 64 << 10]);
    let warnings = doc["diskbench"]["warnings"].to_string();
    assert!(
        warnings.contains("file_kept") && warnings.contains("users"),
        "{warnings}"
    );
    // A job's files go when the job ends, not at the end of the run.
    for (unlink, kept) in [(1, false), (0, true)] {
        // b's file stays after a run (no unlink): gone before the next.
        for name in ["a.0.0", "b.0.0"] {
            let _ = std::fs::remove_file(dir.path().join(name));
        }
        let args = format!(
            "--name=a --rw=write --size=64k --unlink={unlink} --name=b --stonewall --rw=write \
             --size=1m --direct=1 --rate=1m"
        );
        let (out, seen) = watch(dir.path(), &args, |_| {
            let names: Vec<String> = test_files(dir.path())
                .iter()
                .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
                .collect();
            names.contains(&"b.0.0".to_string()).then_some(names)
        });
        assert!(out.status.success(), "{}", stderr_of(&out));
        assert!(!seen.is_empty());
        for names in &seen {
            assert_eq!(
                names.contains(&"a.0.0".to_string()),
                kept,
                "unlink={unlink}: {seen:?}"
            );
        }
    }
}

#[test]
fn unlink_each_loop_makes_the_file_again_for_each_loop() {
    let dir = real_dir();
    let file = dir.path().join("looped");
    let args = format!(
        "--name=j --filename={} --rw=write --bs=4k --size=128k --loops=3 --unlink_each_loop=1 \
         --direct=1 --rate=256k",
        file.display()
    );
    // A file is known by its inode and birth time (an inode number alone
    // may be reused at once).
    let (out, inodes) = watch(dir.path(), &args, |_| {
        let m = std::fs::metadata(&file).ok()?;
        Some((m.ino(), m.created().ok()))
    });
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(written(&json_of(&out)), (3 * 128) << 10);
    let distinct: BTreeSet<_> = inodes.iter().collect();
    assert!(
        distinct.len() >= 2,
        "a new file after each loop: {inodes:?}"
    );
    // fio 3.33 removes it between loops, not after the last one.
    assert_eq!(shape(&file).0, 128 << 10);
    let doc = fio_ok_in(
        dir.path(),
        &format!("{} --unlink=1", args.replace("--rate=256k", "")),
    );
    assert_eq!(written(&doc), (3 * 128) << 10);
    assert!(!file.exists());
}

#[test]
fn create_on_open_makes_an_empty_file_that_the_writes_fill() {
    let dir = real_dir();
    let file = dir.path().join("on-open");
    let args = format!(
        "--name=j --filename={} --rw=write --size=1m --create_on_open=1",
        file.display()
    );
    // Not laid out, not even with fallocate=native (the default): fio's
    // open(O_CREAT) alone.
    fio_ok_in(dir.path(), &format!("{args} --create_only=1"));
    assert_eq!(shape(&file), (0, 0));
    std::fs::remove_file(&file).unwrap();
    fio_ok_in(dir.path(), &args);
    assert_filled(&file, 1 << 20);
}

#[test]
fn allow_file_create_0_uses_existing_files_only() {
    let dir = real_dir();
    let file = dir.path().join("existing");
    let args = format!(
        "--name=j --filename={} --rw=read --size=64k --allow_file_create=0",
        file.display()
    );
    let out = fio_in(dir.path(), &args);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert!(
        err.contains("does not exist, and allow_file_create=0"),
        "{err}"
    );
    assert!(!file.exists());
    fio_ok_in(
        dir.path(),
        &format!(
            "--name=j --filename={} --rw=write --size=64k",
            file.display()
        ),
    );
    fio_ok_in(dir.path(), &args);
    // fio: "file creation disallowed" also when the file would grow.
    let out = fio_in(dir.path(), &args.replace("64k", "128k"));
    assert!(
        stderr_of(&out).contains("is too short for the job"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(shape(&file).0, 64 << 10);
}

#[test]
fn sync_file_range_every_n_writes_over_what_was_written() {
    let dir = real_dir();
    let args = "--name=j --rw=write --bs=4k --size=64k --sync_file_range=write,wait_after:4";
    let doc = fio_ok_in(dir.path(), args);
    assert_eq!(
        doc["jobs"][0]["job options"]["sync_file_range"],
        "write,wait_after:4"
    );
    if Command::new("strace").arg("-V").output().is_err() {
        testbed::skip("the syscall check: strace is not installed");
        return;
    }
    let trace = dir.path().join("trace");
    let out = Command::new("strace")
        .args(["-f", "-e", "trace=sync_file_range", "-o"])
        .arg(&trace)
        .arg(assert_cmd::cargo::cargo_bin("diskbench"))
        .env("DISKBENCH_DB", TEST_DB)
        .current_dir(dir.path())
        .args(["fio", "--no-save"])
        .args(args.split_whitespace())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let calls: Vec<String> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .filter(|l| l.contains("sync_file_range("))
        .map(|l| l.split_once(", ").map_or("", |x| x.1).to_string())
        .collect();
    // fio 3.33, same job: the same three calls (none after the last write).
    let flags = "SYNC_FILE_RANGE_WRITE|SYNC_FILE_RANGE_WAIT_AFTER) = 0";
    let want: Vec<String> = ["0, 16384", "16384, 16384", "32768, 16384"]
        .iter()
        .map(|r| format!("{r}, {flags}"))
        .collect();
    assert_eq!(calls, want);
}

/// The paths a `write_iolog` v3 log added (`TIME PATH add` lines), with the
/// run's own directory stripped.
fn logged_files(log: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_suffix(" add"))
        .filter_map(|l| l.split_once(' ').map(|(_, path)| path))
        .map(|path| match path.split_once("/diskbench-") {
            // ./diskbench-PID-N/sub/f.0 -> sub/f.0
            Some((_, rest)) => rest.split_once('/').unwrap().1.to_string(),
            None => path.trim_start_matches("./").to_string(),
        })
        .collect()
}

#[test]
fn filename_format_names_the_files_as_fio_does() {
    // Two clones of two files each with `sub/dir/f.$filenum`: both clones
    // share sub/dir/f.0 and f.1, in a directory made for them; a second job
    // with $jobname and $jobnum gets its own. fio 3.33 made the same four
    // paths for this job.
    let job = "--rw=write --bs=4k --size=8k --nrfiles=2";
    let args = |log: &str| {
        format!(
            "--name=j {job} --numjobs=2 --filename_format=sub/dir/f.$filenum --write_iolog={log}.j \
             --name=k {job} --filename_format=$jobname-$jobnum-$filenum$clientuid --write_iolog={log}.k"
        )
    };
    let dir = real_dir();
    let ours = fio_ok_in(dir.path(), &args("ours"));
    assert_eq!(ours["jobs"].as_array().unwrap().len(), 3, "{ours}");
    let mut names = logged_files(&dir.path().join("ours.j"));
    names.extend(logged_files(&dir.path().join("ours.k")));
    let expected = ["k-0-0", "k-0-1", "sub/dir/f.0", "sub/dir/f.1"];
    assert_eq!(names, expected.map(String::from).into(), "diskbench");
    // The test files stay after the run, as fio leaves them.
    for name in expected {
        assert!(dir.path().join(name).is_file(), "diskbench left no {name}");
    }
    let theirs = args("theirs");
    let theirs: Vec<&str> = theirs.split_whitespace().collect();
    if let Some(fio) = real_fio_in(dir.path(), &theirs) {
        assert!(fio.status.success(), "{}", stderr_of(&fio));
        for name in expected {
            assert!(dir.path().join(name).is_file(), "fio made no {name}");
        }
    }
    // A format that leaves diskbench's own directory is refused.
    for bad in ["/tmp/x.$filenum", "../x.$filenum"] {
        let out = fio_in(
            dir.path(),
            &format!("--name=j --size=4k --filename_format={bad}"),
        );
        assert_eq!(out.status.code(), Some(1), "{bad}");
        assert!(
            stderr_of(&out).contains("relative name"),
            "{}",
            stderr_of(&out)
        );
    }
}

#[test]
fn invalidate_drops_the_cache_at_each_pass_as_fio_does() {
    // Buffered random reads of a 4 MiB file for a second: fio reopens the
    // file at each pass (every block read once) and drops its cache again,
    // so every pass reads from the disk (fio 3.33 here: 14.5k IOPS, as cold
    // as the first pass; with norandommap, no pass ends: 700k, cached).
    // The device's own read count tells which: one disk read per 4 KiB read
    // when cold, next to none when the cache answers.
    let dir = real_dir();
    let job = "--name=b --rw=randread --bs=4k --size=4m --runtime=1 --time_based --direct=0";
    let run = |extra: &str| {
        let doc = fio_ok_in(dir.path(), &format!("{job} {extra}"));
        let ios = doc["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
        let disk = doc["disk_util"][0]["read_ios"].as_u64();
        (ios, disk)
    };
    let (ios, disk) = run("");
    let Some(disk) = disk else {
        eprintln!("no disk counters for {}: not checked", dir.path().display());
        return;
    };
    assert!(
        ios >= 2 * 1024,
        "{ios} reads: under two passes of 1024 blocks"
    );
    assert!(
        disk * 2 >= ios,
        "{ios} reads but {disk} from the disk: the cache answered"
    );
    let (ios, disk) = run("--invalidate=0");
    let disk = disk.unwrap();
    assert!(
        ios >= 4 * 1024 && disk * 2 < ios,
        "{ios} reads, {disk} from the disk"
    );
}

#[test]
fn an_io_uring_job_leaves_its_space_free_when_it_ends() {
    // io_uring holds the files registered with its ring until the kernel
    // tears the ring down, later and on its own; diskbench gives them back
    // first, so the test file's space is free (and the filesystem not busy)
    // the moment the run ends: two 48 MiB jobs one after the other fit a
    // 64 MiB filesystem, as with fio. (unlink=1: diskbench fio leaves its
    // files as fio does otherwise.)
    let Some(fs) = Mount::new("tmpfs", "size=64m") else {
        return;
    };
    let job = "--name=u --ioengine=io_uring --iodepth=8 --rw=randread --size=48m \
               --runtime=300ms --time_based --unlink=1";
    for round in 0..2 {
        let out = fio_in(fs.path(), job);
        assert!(out.status.success(), "round {round}: {}", stderr_of(&out));
        let df = std::process::Command::new("df")
            .args(["--output=avail", "-B1"])
            .arg(fs.path())
            .output()
            .unwrap();
        let avail: u64 = stdout_of(&df)
            .lines()
            .nth(1)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(
            avail > 60 << 20,
            "round {round}: only {avail} bytes free after the run"
        );
    }
}
