//! I/O errors in the middle of a run, injected (`--inject-fault`) and real
//! (an ext4 file system shut down under a running job).
//!
//! What must hold, as in fio: the job whose I/O failed ends (all its
//! clones), with an error that names the operation, the file, the offset,
//! the length and the errno's text; the other jobs of its group run their
//! full time; later groups still run; the run exits 1; the JSON stays valid
//! with every job and what it did up to the error; the test files go.
//!
//! The faults are run-wide, so the job that must not fail is one whose
//! direction the fault does not target (a read job beside a write job hit
//! by `enospc@write:N`). Every test uses a real directory with O_DIRECT and
//! asserts no timing closer than "ran its whole runtime".

mod common;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Output, Stdio};
use std::time::{Duration, Instant};

/// Each job's queue depth in the two-job runs (1 with the sync engine).
const DEPTH: u64 = 4;

fn job<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["jobs"]
        .as_array()
        .expect("a jobs array")
        .iter()
        .find(|j| j["jobname"] == name)
        .unwrap_or_else(|| panic!("no job '{name}' in {doc}"))
}

fn num(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

fn has_fault_warning(doc: &Value) -> bool {
    doc["diskbench"]["warnings"]
        .as_array()
        .is_some_and(|w| w.iter().any(|w| w["kind"] == "faults_injected"))
}

/// One injected error in the middle of a run.
struct Case {
    engine: &'static str,
    fault: &'static str,
    /// The fault's N: the failing I/O of the `bad` job.
    n: u64,
    /// What the message says after the I/O's description.
    says: &'static str,
}

/// Runs `bad`, whose direction the fault hits, beside `good`, whose
/// direction it does not, for 2 s, and checks everything the module
/// comment promises.
fn mid_run_error(case: Case) {
    let read = case.fault.contains("@read");
    let (bad_rw, good_rw, op, other) = match read {
        true => ("randread", "randwrite", "read", "write"),
        false => ("randwrite", "randread", "write", "read"),
    };
    let dir = real_dir();
    let out = diskbench()
        .args(["fio", "--no-save", "--output-format=json"])
        .arg(format!("--directory={}", dir.path().display()))
        .args(["--size=8m", "--bs=4k", "--direct=1"])
        .args(["--runtime=2", "--time_based"])
        .arg(format!("--ioengine={}", case.engine))
        .arg(format!("--iodepth={DEPTH}"))
        .arg(format!("--inject-fault={}", case.fault))
        // The checks on stderr too: diskbench fio keeps them off it unless asked.
        .arg("--diskbench-checks")
        .args(["--name=bad", &format!("--rw={bad_rw}")])
        .args(["--name=good", &format!("--rw={good_rw}")])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    // The message: job, operation, length, offset, file, and why.
    let what = format!("job 'bad': {op} of 4096 bytes at offset ");
    let line = err
        .lines()
        .find(|l| l.contains(&what))
        .unwrap_or_else(|| panic!("no '{what}' in: {err}"));
    assert!(line.starts_with("diskbench: "), "{line}");
    assert!(
        line.contains(&format!(" in {}/", dir.path().display())),
        "{line}"
    );
    assert!(line.contains(case.says), "{line}");
    assert!(err.contains("faults were injected on purpose"), "{err}");

    let doc = json_of(&out);
    assert!(has_fault_warning(&doc), "{doc}");
    let run_error = doc["error"].as_str().expect("the run's error");
    assert!(run_error.contains(&what) && run_error.contains(case.says));
    let bad = job(&doc, "bad");
    assert_eq!(bad["error"], 1);
    let message = bad["diskbench"]["error"].as_str().expect("the job's error");
    assert!(
        message.contains(&what) && message.contains(case.says),
        "{message}"
    );
    // Its I/Os up to the failed one, and those reaped with it (fio counts
    // them too): exactly n - 1 with one in flight. With more, up to DEPTH - 1
    // I/Os beside the failed one may have completed in its batch or been
    // left in flight, which is not counted.
    let ios = num(&bad[op]["total_ios"]);
    let (n, beside) = match case.engine {
        "sync" => (case.n, 0),
        _ => (case.n, DEPTH - 1),
    };
    assert!(
        ios + 1 + beside >= n && ios < n + beside,
        "{ios} I/Os counted when the {n}-th failed"
    );
    assert_eq!(num(&bad[other]["total_ios"]), 0);

    let good = job(&doc, "good");
    assert_eq!(good["error"], 0, "{good}");
    assert!(good["diskbench"].get("error").is_none(), "{good}");
    assert!(num(&good[other]["total_ios"]) > 0, "{good}");
    let ran_ns = num(&good["diskbench"]["runtime_ns"]);
    assert!(
        ran_ns >= 1_900_000_000,
        "the good job ran its 2 s: {ran_ns} ns"
    );
    // diskbench fio leaves the jobs' files as fio does, and nothing else.
    assert_eq!(
        file_names(dir.path()),
        ["bad.0.0", "good.0.0"],
        "{:?}",
        entries(dir.path())
    );
}

/// The names in `dir`, sorted.
fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = (entries(dir).iter())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn eio_on_a_read_ends_that_job_only_sync() {
    mid_run_error(Case {
        engine: "sync",
        fault: "eio@read:200",
        n: 200,
        says: "Input/output error (os error 5)",
    });
}

#[test]
fn eio_on_a_write_ends_that_job_only_io_uring() {
    mid_run_error(Case {
        engine: "io_uring",
        fault: "eio@write:150",
        n: 150,
        says: "Input/output error (os error 5)",
    });
}

#[test]
fn enospc_ends_that_job_only_libaio() {
    mid_run_error(Case {
        engine: "libaio",
        fault: "enospc@write:100",
        n: 100,
        says: "No space left on device (os error 28)",
    });
}

#[test]
fn erofs_ends_that_job_only_sync() {
    mid_run_error(Case {
        engine: "sync",
        fault: "erofs@write:50",
        n: 50,
        says: "Read-only file system (os error 30)",
    });
}

#[test]
fn a_short_read_ends_that_job_only_io_uring() {
    mid_run_error(Case {
        engine: "io_uring",
        fault: "short@read:120/1000",
        n: 120,
        says: "short read: 2048 of 4096 bytes",
    });
}

#[test]
fn a_short_read_ends_that_job_only_libaio() {
    mid_run_error(Case {
        engine: "libaio",
        fault: "short@read:80",
        n: 80,
        says: "short read: 2048 of 4096 bytes",
    });
}

/// fio runs the groups after a failed one; the run still exits 1.
#[test]
fn later_groups_still_run_after_a_job_failed() {
    let dir = real_dir();
    let out = diskbench()
        .args([
            "fio",
            "--no-save",
            "--output-format=json",
            "--ioengine=sync",
        ])
        .arg(format!("--directory={}", dir.path().display()))
        .args(["--size=1m", "--bs=4k", "--direct=1", "--numjobs=2"])
        .args(["--inject-fault", "eio@write:10"])
        .args(["--name=w", "--rw=write", "--group_reporting"])
        .args(["--name=r", "--rw=read", "--stonewall"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let doc = json_of(&out);
    let w = job(&doc, "w");
    assert_eq!(
        (w["groupid"].as_u64(), w["error"].as_u64()),
        (Some(0), Some(1))
    );
    // Each clone has its own engine, so it fails at its own 10th write;
    // the first to fail ends its sister clone too, maybe before that.
    let writes = num(&w["write"]["total_ios"]);
    assert!((9..=18).contains(&writes), "{w}");
    let reads: Vec<&Value> = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["jobname"] == "r")
        .collect();
    assert_eq!(
        reads.len(),
        2,
        "one entry per clone without group_reporting"
    );
    for r in reads {
        assert_eq!(
            (r["groupid"].as_u64(), r["error"].as_u64()),
            (Some(1), Some(0))
        );
        assert_eq!(num(&r["read"]["total_ios"]), 256, "the whole 1 MiB: {r}");
    }
    let err = stderr_of(&out);
    assert_eq!(
        err.matches("diskbench: job 'w': write of 4096 bytes")
            .count(),
        1,
        "one line for the run's error: {err}"
    );
    // diskbench fio leaves the jobs' files as fio does, and nothing else.
    assert_eq!(file_names(dir.path()), ["r.0.0", "r.1.0", "w.0.0", "w.1.0"]);
}

/// `diskbench run` takes the flag too: the suite's write tests fail, its
/// read tests run, and the JSON says faults were injected.
#[test]
fn the_suite_takes_inject_fault() {
    let dir = real_dir();
    let out = diskbench()
        .arg("run")
        .arg(dir.path())
        .args(["--quick", "--json", "--no-save", "--size=16m"])
        .args(["--runtime=300ms", "--engine=sync"])
        .args(["--inject-fault", "eio@write:20"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let doc = json_of(&out);
    assert!(has_fault_warning(&doc), "{doc}");
    let jobs = doc["jobs"].as_array().unwrap();
    assert!(jobs.len() >= 3, "{doc}");
    for j in jobs {
        let name = j["jobname"].as_str().unwrap();
        let writes = name.contains("write") || name.contains("mixed");
        assert_eq!(j["error"].as_u64(), Some(u64::from(writes)), "{j}");
    }
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn a_bad_fault_is_a_usage_error_that_shows_the_grammar() {
    let dir = real_dir();
    for (cmd, fault, says) in [
        ("fio", "eio@read:0", "N '0'"),
        ("fio", "short@write:3", "short applies to reads only"),
        ("run", "flip@read:3", "unknown kind 'flip'"),
    ] {
        let mut c = diskbench();
        c.arg(cmd).args(["--inject-fault", fault, "--no-save"]);
        match cmd {
            "fio" => c
                .arg(format!("--directory={}", dir.path().display()))
                .args(["--name=x", "--size=1m", "--rw=read"]),
            _ => c.arg(dir.path()),
        };
        let out = c.output().unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), refused_code(cmd), "{cmd} {fault}: {err}");
        assert!(err.contains(&format!("'{fault}' is not a fault")), "{err}");
        assert!(
            err.contains(says) && err.contains("KIND@DIR:N[/M]"),
            "{err}"
        );
    }
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn the_help_says_what_faults_are_for() {
    for cmd in ["fio", "run"] {
        let out = diskbench().args([cmd, "--help"]).output().unwrap();
        let help = stdout_of(&out);
        assert!(help.contains("--inject-fault"), "{cmd}: {help}");
        assert!(
            help.contains("testing verification and error handling"),
            "{help}"
        );
    }
}

// ---- A real EIO: ext4 shut down under a running job ----

/// Loop devices are attached one test at a time (see block_device.rs).
static LOOP_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A small ext4 on a loop device, mounted; unmounted and detached on drop,
/// also when the test fails.
struct Ext4 {
    device: String,
    mount: tempfile::TempDir,
    mounted: bool,
    _image: tempfile::TempDir,
    _turn: std::sync::MutexGuard<'static, ()>,
}

fn ok(cmd: &mut StdCommand) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    match out.status.success() {
        true => Ok(()),
        false => Err(format!(
            "{cmd:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
}

impl Ext4 {
    /// `Err` says why the machine cannot (not root, no loop device, no mkfs).
    fn up() -> Result<Ext4, String> {
        if !is_root() {
            return Err("needs root".into());
        }
        let turn = LOOP_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let image = real_dir();
        let file = image.path().join("ext4.img");
        std::fs::File::create(&file)
            .and_then(|f| f.set_len(96 << 20))
            .map_err(|e| format!("image: {e}"))?;
        let out = StdCommand::new("losetup")
            .args(["-f", "--show"])
            .arg(&file)
            .output()
            .map_err(|e| format!("losetup: {e}"))?;
        if !out.status.success() {
            let why = String::from_utf8_lossy(&out.stderr);
            return Err(format!("no loop device: {}", why.trim()));
        }
        let mut fs = Ext4 {
            device: String::from_utf8_lossy(&out.stdout).trim().to_string(),
            mount: tempfile::tempdir().map_err(|e| e.to_string())?,
            mounted: false,
            _image: image,
            _turn: turn,
        };
        ok(StdCommand::new("mkfs.ext4").args(["-q", "-F", &fs.device]))?;
        ok(StdCommand::new("mount")
            .arg(&fs.device)
            .arg(fs.mount.path()))?;
        fs.mounted = true;
        Ok(fs)
    }

    fn path(&self) -> &Path {
        self.mount.path()
    }

    /// EXT4_IOC_SHUTDOWN with EXT4_GOING_FLAGS_NOLOGFLUSH: every later
    /// I/O on the file system fails with EIO.
    fn shut_down(&self) -> Result<(), String> {
        let script = "import fcntl,os,struct,sys\n\
                      fd=os.open(sys.argv[1],os.O_RDONLY)\n\
                      fcntl.ioctl(fd,0x8004587d,struct.pack('I',2))";
        let by_python = ok(StdCommand::new("python3")
            .args(["-c", script])
            .arg(self.path()));
        by_python.or_else(|e| {
            ok(StdCommand::new("xfs_io")
                .args(["-x", "-c", "shutdown"])
                .arg(self.path()))
            .map_err(|e2| format!("{e}; {e2}"))
        })
    }
}

impl Drop for Ext4 {
    fn drop(&mut self) {
        if self.mounted && ok(StdCommand::new("umount").arg(self.mount.path())).is_err() {
            // Something still holds it (a diskbench killed mid-run): detach lazily.
            let _ = ok(StdCommand::new("umount").arg("-l").arg(self.mount.path()));
        }
        let _ = ok(StdCommand::new("losetup").args(["-d", &self.device]));
    }
}

/// Waits for `child` at most `limit`; kills it (and fails) after that.
fn wait_at_most(child: std::process::Child, limit: Duration) -> Output {
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.expect("diskbench ends"),
        Err(_) => {
            let _ = StdCommand::new("kill")
                .args(["-9", &pid.to_string()])
                .status();
            panic!(
                "diskbench still ran {} s after the file system shut down",
                limit.as_secs()
            );
        }
    }
}

/// Job `w`'s test file (`w.0.0` under `dir`, where diskbench fio makes
/// it as fio does), once it exists.
fn test_file_under(dir: &Path) -> Option<PathBuf> {
    Some(dir.join("w.0.0")).filter(|f| f.exists())
}

#[test]
fn a_real_eio_mid_run_ends_the_job_with_a_clear_message() {
    let fs = match Ext4::up() {
        Ok(fs) => fs,
        Err(why) => return testbed::skip(why),
    };
    // 30 s planned: the shutdown must end it long before.
    let child = StdCommand::new(assert_cmd::cargo::cargo_bin("diskbench"))
        .env("DISKBENCH_DB", TEST_DB)
        .args([
            "fio",
            "--no-save",
            "--output-format=json",
            "--ioengine=sync",
        ])
        .arg(format!("--directory={}", fs.path().display()))
        .args([
            "--name=w",
            "--rw=randwrite",
            "--bs=4k",
            "--size=16m",
            "--direct=1",
        ])
        .args(["--runtime=30", "--time_based"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("diskbench starts");
    let started = Instant::now();
    while test_file_under(fs.path()).is_none() && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let file = test_file_under(fs.path());
    // About a second of writes first.
    std::thread::sleep(Duration::from_secs(1));
    let shut = fs.shut_down();
    let out = wait_at_most(child, Duration::from_secs(60));
    if let Err(why) = shut {
        return testbed::skip(format!("cannot shut the file system down: {why}"));
    }
    let file = file.expect("diskbench made its test file");
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let what = "job 'w': write of 4096 bytes at offset ";
    let line = err
        .lines()
        .find(|l| l.contains(what))
        .unwrap_or_else(|| panic!("no '{what}' in: {err}"));
    assert!(
        line.contains(&format!(" in {}: ", file.display())),
        "{line} (the test file: {})",
        file.display()
    );
    assert!(line.contains("Input/output error (os error 5)"), "{line}");
    let doc = json_of(&out);
    let w = job(&doc, "w");
    assert_eq!(w["error"], 1);
    assert!(
        num(&w["write"]["total_ios"]) > 0,
        "writes before the shutdown: {w}"
    );
    assert!(!has_fault_warning(&doc), "nothing was injected");
    // diskbench fio leaves its file as fio does: nothing to remove, and
    // nothing said about removing it.
    assert!(!err.contains("could not remove"), "{err}");
}
