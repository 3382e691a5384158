//! What the kube tests share (`tests/kube.rs`, `tests/kube_fleet.rs`):
//! the one cluster, taken in turns since the tests share it; diskbench's
//! image loaded on every node once; `kube run` as the tests call it; and
//! the check that nothing of diskbench's is left in the cluster.

#![allow(dead_code)]

use super::common::*;
use std::path::Path;
use std::sync::{Mutex, MutexGuard, OnceLock};
use testbed::kube::Kube;

static CLUSTER: Mutex<()> = Mutex::new(());

/// The cluster, this test's turn on it and diskbench's image loaded on
/// its node; `None` (the test skipped with the reason) without one.
pub fn cluster() -> Option<(MutexGuard<'static, ()>, Kube, String)> {
    let kube = match Kube::find() {
        Ok(k) => k,
        Err(reason) => {
            testbed::skip(reason);
            return None;
        }
    };
    if !is_root() {
        testbed::skip("the kube tests mount a tmpfs for a StorageClass: run as root");
        return None;
    }
    let turn = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    static IMAGE: OnceLock<Result<String, String>> = OnceLock::new();
    let image = IMAGE.get_or_init(|| {
        let archive = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diskbench-kube-image.tar");
        let out = diskbench()
            .args(["kube", "image", "-o"])
            .arg(&archive)
            .output()
            .map_err(|e| e.to_string())?;
        let text = stdout_of(&out);
        let name = text
            .split("image ")
            .nth(1)
            .and_then(|s| s.split(',').next())
            .ok_or(format!(
                "kube image printed no name: {text}{}",
                stderr_of(&out)
            ))?
            .to_string();
        kube.import_image(&archive)?;
        let _ = std::fs::remove_file(&archive);
        Ok(name)
    });
    match image {
        Ok(name) => Some((turn, kube, name.clone())),
        Err(e) => panic!("diskbench's image could not be loaded on the node: {e}"),
    }
}

/// `diskbench kube run` with the image on the node, on the host network
/// (k8s-local has no pod network), saving into `db`, as a process to
/// start (a test that acts while it runs).
pub fn kube_run_command(image: &str, db: &Path, args: &[&str]) -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("diskbench"));
    cmd.args([
        "kube",
        "run",
        "--image",
        image,
        "--pull-policy",
        "Never",
        "--host-network",
    ])
    .arg("--db")
    .arg(db)
    .args(args);
    cmd
}

/// The same, run to its end.
pub fn kube_run(image: &str, db: &Path, args: &[&str]) -> std::process::Output {
    kube_run_command(image, db, args)
        .output()
        .expect("diskbench runs")
}

pub fn assert_nothing_left(kube: &Kube) {
    // Deletion is asynchronous in Kubernetes, but diskbench waits for it:
    // what is listed right after it exits is what it left.
    let left = kube.diskbench_objects();
    assert!(left.is_empty(), "left in the cluster: {left:?}");
}

/// A small fio job: `seconds` of 4k random reads and writes on a 16 MiB file.
pub fn job_file(dir: &Path, seconds: u32, size: &str) -> std::path::PathBuf {
    let path = dir.join("small.fio");
    std::fs::write(
        &path,
        format!(
            "[small]\nrw=randrw\nbs=4k\nsize={size}\nruntime={seconds}s\ntime_based\ndirect=0\nioengine=psync\n"
        ),
    )
    .unwrap();
    path
}
