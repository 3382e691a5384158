//! Helpers shared by the CLI tests.
#![allow(dead_code)]

use assert_cmd::Command;
use std::path::PathBuf;
use std::process::Output;

/// Where the tests' runs are saved unless a test names a database: never
/// the user's own history.
pub const TEST_DB: &str = concat!(
    env!("CARGO_TARGET_TMPDIR"),
    "/diskbench-tests-history.sqlite3"
);

/// The tests' `$XDG_DATA_HOME`: where a run meant for an unreachable
/// PostgreSQL history is kept (`store::local_default`), never the user's.
pub const TEST_DATA_HOME: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/diskbench-tests-xdg");

pub fn diskbench() -> Command {
    let mut cmd = Command::cargo_bin("diskbench").expect("the diskbench binary");
    cmd.env("DISKBENCH_DB", TEST_DB)
        .env("XDG_DATA_HOME", TEST_DATA_HOME);
    cmd
}

/// A directory on a real filesystem (ext4 here, O_DIRECT works): $DISKBENCH_TEST_DIR or the temp dir.
pub fn real_dir() -> tempfile::TempDir {
    let base =
        std::env::var_os("DISKBENCH_TEST_DIR").map_or_else(std::env::temp_dir, PathBuf::from);
    tempfile::tempdir_in(base).expect("a temp dir")
}

pub fn json_of(out: &Output) -> serde_json::Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {text}"))
}

/// Starts `diskbench ARGS`, waits `after`, sends each of `signals` (`INT`,
/// `TERM`, ...) and returns its output and how long it took to end after
/// the first signal.
pub fn interrupt<S: AsRef<std::ffi::OsStr>>(
    args: impl IntoIterator<Item = S>,
    after: std::time::Duration,
    signals: &[&str],
) -> (Output, std::time::Duration) {
    use std::process::{Command, Stdio};
    let child = Command::new(assert_cmd::cargo::cargo_bin("diskbench"))
        .env("DISKBENCH_DB", TEST_DB)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("diskbench starts");
    std::thread::sleep(after);
    let sent = std::time::Instant::now();
    for signal in signals {
        Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .expect("kill runs");
    }
    let out = child.wait_with_output().expect("diskbench ends");
    (out, sent.elapsed())
}

pub fn stdout_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .map(|s| {
            s.lines()
                .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

pub fn entries(dir: &std::path::Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect()
}

/// `diskbench fio --no-save --output-format=json ARGS` run in `dir`.
pub fn fio_in(dir: &std::path::Path, args: &str) -> Output {
    fio_text_in(dir, &format!("--output-format=json {args}"))
}

/// `diskbench fio --no-save ARGS` run in `dir`: fio's normal output.
pub fn fio_text_in(dir: &std::path::Path, args: &str) -> Output {
    diskbench()
        .current_dir(dir)
        .args(["fio", "--no-save"])
        .args(args.split_whitespace())
        .output()
        .unwrap()
}

/// A newer fio than the one installed, for what fio 3.33 lacks (its
/// directory engines, `sprandom`): `DISKBENCH_FIO` names it (e.g. one
/// built from a checkout); `fio` on the PATH otherwise.
pub fn fio_binary() -> String {
    std::env::var("DISKBENCH_FIO").unwrap_or_else(|_| "fio".to_string())
}

/// The real fio (3.33 in CI) with `args`, run in `dir`; `None`, after
/// saying so, when fio is not installed.
pub fn real_fio_in(dir: &std::path::Path, args: &[&str]) -> Option<Output> {
    match std::process::Command::new("fio")
        .current_dir(dir)
        .args(args)
        .output()
    {
        Ok(out) => Some(out),
        Err(_) => {
            testbed::skip("fio is not installed (apt-get install fio)");
            None
        }
    }
}

/// [`real_fio_json`] with `args` split at spaces.
pub fn real_fio_json_in(dir: &std::path::Path, args: &str) -> Option<serde_json::Value> {
    real_fio_json(dir, &args.split_whitespace().collect::<Vec<_>>())
}

/// [`fio_in`], which must succeed; its JSON.
pub fn fio_ok_in(dir: &std::path::Path, args: &str) -> serde_json::Value {
    let out = fio_in(dir, args);
    assert!(out.status.success(), "{args}: {}", stderr_of(&out));
    json_of(&out)
}

/// A filesystem mounted on a fresh directory, unmounted when dropped.
pub struct Mount {
    dir: tempfile::TempDir,
}

impl Mount {
    /// `mount -t FSTYPE -o OPTIONS`; `None` (after printing why) when this
    /// machine or user cannot.
    pub fn new(fstype: &str, options: &str) -> Option<Mount> {
        if !is_root() {
            testbed::skip(format!("needs root to mount a {fstype}"));
            return None;
        }
        let dir = real_dir();
        let ok = std::process::Command::new("mount")
            .args(["-t", fstype, "-o", options, fstype])
            .arg(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            testbed::skip(format!("could not mount a {fstype} here"));
            return None;
        }
        Some(Mount { dir })
    }

    pub fn path(&self) -> &std::path::Path {
        self.dir.path()
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.dir.path())
            .status();
    }
}

/// Per job: name, group, and read and write KiB and I/Os.
pub type IoCounts = Vec<(String, u64, u64, u64, u64, u64)>;

pub fn io_counts(doc: &serde_json::Value) -> IoCounts {
    let n = |v: &serde_json::Value| v.as_u64().unwrap_or_else(|| panic!("{v} is not a count"));
    doc["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap().to_string(),
                n(&j["groupid"]),
                n(&j["read"]["io_kbytes"]),
                n(&j["read"]["total_ios"]),
                n(&j["write"]["io_kbytes"]),
                n(&j["write"]["total_ios"]),
            )
        })
        .collect()
}

/// fio's own run of `args` in `dir`, `--output-format=json`: its exit
/// status and document (the lines fio prints before the JSON left out);
/// `None` (with a skip) when fio is absent.
pub fn real_fio_json_status(
    dir: &std::path::Path,
    args: &[&str],
) -> Option<(std::process::ExitStatus, serde_json::Value)> {
    let out = real_fio_in(dir, &[&["--output-format=json"], args].concat())?;
    let text = String::from_utf8_lossy(&out.stdout);
    let json = &text[text.find('{').unwrap_or(0)..];
    let doc = serde_json::from_str(json)
        .unwrap_or_else(|e| panic!("fio {args:?}: not JSON ({e}): {text}"));
    Some((out.status, doc))
}

/// Loop devices are attached one test at a time: `losetup -f` picks "the
/// first free device", and two tests racing for it could share one and write
/// into each other's image.
static LOOP_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub struct Loop {
    pub device: String,
    _turn: std::sync::MutexGuard<'static, ()>,
}

impl Loop {
    /// A loop device over `image`, or `None` without root or a free device.
    pub fn attach(image: &std::path::Path) -> Option<Loop> {
        Loop::attach_with(image, &[])
    }

    /// [`Loop::attach`] with more `losetup` options (`-b 4096`: 4 KiB sectors).
    pub fn attach_with(image: &std::path::Path, options: &[&str]) -> Option<Loop> {
        if !is_root() {
            return None;
        }
        let turn = LOOP_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let out = std::process::Command::new("losetup")
            .args(["-f", "--show"])
            .args(options)
            .arg(image)
            .output()
            .ok()?;
        out.status.success().then(|| Loop {
            device: String::from_utf8_lossy(&out.stdout).trim().to_string(),
            _turn: turn,
        })
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = std::process::Command::new("losetup")
            .args(["-d", &self.device])
            .status();
    }
}

/// The times (ms, the first field) of the entries of a fio-style log such
/// as `NAME_iops.1.log`: one entry per I/O when `log_avg_msec` is 0, so the
/// gaps between entries show where a job stalled, however busy the machine.
pub fn log_times(path: &std::path::Path) -> Vec<u64> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|l| {
            l.split(", ")
                .next()
                .and_then(|t| t.parse().ok())
                .unwrap_or_else(|| panic!("{}: bad line {l:?}", path.display()))
        })
        .collect()
}

/// The `jobname` of each job of a JSON document, in order.
pub fn job_names(doc: &serde_json::Value) -> Vec<&str> {
    doc["jobs"]
        .as_array()
        .expect("a jobs array")
        .iter()
        .map(|j| j["jobname"].as_str().expect("a jobname"))
        .collect()
}

/// fio 3.33's (`/usr/bin/fio`, or `fio` on the PATH) JSON for `args` run in
/// `dir`, which must succeed, or `None` with a skip when fio is not
/// installed (`.ci/run` installs it, so CI never skips).
pub fn real_fio_json(dir: &std::path::Path, args: &[&str]) -> Option<serde_json::Value> {
    let (status, doc) = real_fio_json_status(dir, args)?;
    assert!(status.success(), "fio {args:?}: {doc}");
    Some(doc)
}

/// Each job's name, `groupid`, and reads and writes done, from fio's JSON.
pub fn groups_and_ios(doc: &serde_json::Value) -> Vec<(String, u64, u64, u64)> {
    let jobs = doc["jobs"].as_array().expect("jobs");
    jobs.iter()
        .map(|j| {
            let n = |v: &serde_json::Value| v.as_u64().expect("a count");
            (
                j["jobname"].as_str().expect("jobname").to_string(),
                n(&j["groupid"]),
                n(&j["read"]["total_ios"]),
                n(&j["write"]["total_ios"]),
            )
        })
        .collect()
}

/// The exit code of a command line or job the command refuses: 1 for
/// `fio`, as fio exits for every failure; 2 for diskbench's own commands.
pub fn refused_code(command: &str) -> Option<i32> {
    Some(if command == "fio" { 1 } else { 2 })
}

/// The names listed under a help text's `Commands:` heading.
pub fn commands_in(help: &str) -> Vec<String> {
    let Some(at) = help.find("Commands:") else {
        return Vec::new();
    };
    let list = &help[at..];
    let list = &list[..list.find("\n\n").unwrap_or(list.len())];
    list.lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// Runs `diskbench fio` as job `v` with 4 KiB blocks on `file`, in the
/// file's directory (where a write job with `verify=` leaves its state
/// file, as fio does), with JSON output.
pub fn fio_on(file: &std::path::Path, args: &[&str]) -> Output {
    diskbench()
        .current_dir(file.parent().unwrap())
        .args([
            "fio",
            "--name=v",
            "--bs=4k",
            "--no-save",
            "--output-format=json",
        ])
        .arg(format!("--filename={}", file.display()))
        .args(args)
        .output()
        .unwrap()
}

/// The first job's `verify` block of a `diskbench fio` JSON output.
pub fn verify_of(out: &Output) -> serde_json::Value {
    json_of(out)["jobs"][0]["verify"].clone()
}

/// Flips one bit of the byte at `at` in `file`, behind diskbench's back.
pub fn flip(file: &std::path::Path, at: u64) {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(file)
        .unwrap();
    let mut b = [0u8];
    f.read_exact_at(&mut b, at).unwrap();
    b[0] ^= 0x40;
    f.write_all_at(&b, at).unwrap();
}
