//! `diskbench kube run --per-node` on a real cluster of two nodes
//! (k8s-local-2node, which `.ci/run` starts): one pod on each node, each
//! on that node's own local volume; node-a's volume on a tmpfs and
//! node-b's on the disk names node-b as the slow node with both figures;
//! both on the disk with 3 runs each names none (3 runs against 3 cannot
//! reach 5%); node-b's kubelet killed while its pod measures ends the run
//! within a minute, node-b reported lost, node-a's runs saved, exit 1, and
//! once the kubelet is back nothing of the run is left.
//!
//! The workload writes 4 KiB blocks with an fdatasync after each: on a
//! tmpfs the sync costs nothing, on the disk it waits for the device, so
//! the two volumes differ several times over while the page cache (which
//! would make any read of the disk look like memory) plays no part.

mod common;
mod kube_common;
use common::*;
use kube_common::*;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use testbed::kube::Kube;

/// `seconds` of synced 4 KiB random writes on a 16 MiB file.
fn synced_writes(dir: &Path, seconds: u32) -> std::path::PathBuf {
    let path = dir.join("synced.fio");
    std::fs::write(
        &path,
        format!(
            "[synced]\nrw=randwrite\nbs=4k\nsize=16m\nfsync=1\nruntime={seconds}s\ntime_based\nioengine=psync\n"
        ),
    )
    .unwrap();
    path
}

/// The cluster when it has node-a and node-b (k8s-local-2node), else skip.
fn two_nodes() -> Option<(std::sync::MutexGuard<'static, ()>, Kube, String)> {
    let (turn, kube, image) = cluster()?;
    if !(kube.nodes.contains(&"node-a".to_string()) && kube.nodes.contains(&"node-b".to_string())) {
        testbed::skip(format!(
            "the fleet tests need k8s-local-2node's nodes node-a and node-b; this cluster has {:?}",
            kube.nodes
        ));
        return None;
    }
    Some((turn, kube, image))
}

fn history(db: &Path) -> Vec<serde_json::Value> {
    let out = diskbench()
        .args(["history", "--format", "json", "--db"])
        .arg(db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    json_of(&out).as_array().unwrap().clone()
}

fn nodes_of(runs: &[serde_json::Value]) -> Vec<String> {
    let mut nodes: Vec<String> = runs
        .iter()
        .map(|r| r["labels"]["node"].as_str().unwrap_or("").to_string())
        .collect();
    nodes.sort();
    nodes
}

/// One pod per node, each on its node's volume; node-b's disk against
/// node-a's tmpfs, 4 runs each: node-b named slow, with both figures, and
/// each node a host of its own in the history.
#[test]
fn one_pod_per_node_and_the_node_on_the_disk_is_named_slow() {
    let Some((_turn, kube, image)) = two_nodes() else {
        return;
    };
    let class = kube
        .node_local_class(
            "dbtest-fleet",
            "1Gi",
            &[("node-a", Some("100m")), ("node-b", None)],
        )
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite3");
    let job = synced_writes(dir.path(), 2);
    let started = Instant::now();
    let out = kube_run(
        &image,
        &db,
        &[
            "--storage-class",
            &class.name,
            "--per-node",
            "--runs",
            "4",
            "--size",
            "1Gi",
            "--job",
            job.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = (stdout_of(&out), stderr_of(&out));
    eprintln!("kube run took {:?}\n{stderr}\n{stdout}", started.elapsed());
    assert!(out.status.success(), "{stderr}");
    assert_nothing_left(&kube);
    let runs = history(&db);
    let nodes = nodes_of(&runs);
    assert_eq!(
        nodes,
        ["node-a", "node-a", "node-a", "node-a", "node-b", "node-b", "node-b", "node-b"],
        "{runs:?}"
    );
    // Each pod on its own node, one pod per node.
    let pods = |node: &str| {
        let mut p: Vec<&str> = runs
            .iter()
            .filter(|r| r["labels"]["node"] == node)
            .map(|r| r["labels"]["pod"].as_str().unwrap())
            .collect();
        p.dedup();
        p.len()
    };
    assert_eq!((pods("node-a"), pods("node-b")), (1, 1), "{runs:?}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("node-b is the slow node of dbtest-fleet: "))
        .unwrap_or_else(|| panic!("node-b not named slow:\n{stdout}"));
    // Both figures: node-b's and the rest's (node-a's), node-b's lower.
    let figures: Vec<f64> = line
        .split(": ")
        .nth(1)
        .unwrap()
        .split(' ')
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(figures.len(), 2, "{line}");
    assert!(figures[0] < figures[1], "{line}");
    assert!(!stdout.contains("node-a is the slow node"), "{stdout}");
    // Each node is a host of the history: compare tells them apart.
    let out = diskbench()
        .args(["compare", "--by", "host", "--format", "json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let c = json_of(&out);
    let hosts: Vec<&str> = c["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["labels"]["host"].as_str())
        .collect();
    assert_eq!(hosts.len(), 2, "{c}");
    assert!(hosts.iter().any(|h| h.starts_with("node-b")), "{hosts:?}");
    // And the report shows the nodes side by side, a group each.
    let html = dir.path().join("nodes.html");
    let out = diskbench()
        .args(["report", "--by", "node", "-o"])
        .arg(&html)
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let page = std::fs::read_to_string(&html).unwrap();
    for node in ["node-a", "node-b"] {
        assert!(page.contains(node), "{node} not in the report");
    }
}

/// Both volumes on the disk, 3 runs each: the rank test cannot reach 5%
/// with 3 against 3, so no node is named and each row says why.
#[test]
fn nodes_on_the_same_storage_are_not_named() {
    let Some((_turn, kube, image)) = two_nodes() else {
        return;
    };
    let class = kube
        .node_local_class("dbtest-alike", "1Gi", &[("node-a", None), ("node-b", None)])
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite3");
    let job = synced_writes(dir.path(), 1);
    let out = kube_run(
        &image,
        &db,
        &[
            "--storage-class",
            &class.name,
            "--per-node",
            "--one-at-a-time",
            "--runs",
            "3",
            "--size",
            "1Gi",
            "--job",
            job.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = (stdout_of(&out), stderr_of(&out));
    eprintln!("{stderr}\n{stdout}");
    assert!(out.status.success(), "{stderr}");
    assert_nothing_left(&kube);
    // One node at a time: node-a's pod done before node-b's starts.
    let a_done = stderr
        .find("on node-a:")
        .and_then(|i| stderr[i..].find("done").map(|d| i + d));
    let b_start = stderr.find("on node-b:");
    assert!(
        matches!((a_done, b_start), (Some(a), Some(b)) if a < b),
        "{stderr}"
    );
    assert_eq!(nodes_of(&history(&db)).len(), 6);
    assert!(!stdout.contains("is the slow node"), "{stdout}");
    assert!(!stdout.contains("is the fast node"), "{stdout}");
    assert_eq!(
        stdout
            .matches("cannot tell: too few runs to tell: 3 vs 3")
            .count(),
        2,
        "{stdout}"
    );
}

/// node-b's kubelet killed 5 s into the pods' measurement: the run ends
/// within 60 s of the kill with node-b lost (reason and time), node-a's
/// runs saved, exit 1; once the kubelet is back, nothing of the run is left.
#[test]
fn a_node_lost_mid_run_is_reported_and_the_other_nodes_results_kept() {
    let Some((_turn, kube, image)) = two_nodes() else {
        return;
    };
    let class = kube
        .node_local_class("dbtest-lost", "1Gi", &[("node-a", None), ("node-b", None)])
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite3");
    let job = synced_writes(dir.path(), 20);
    let args = [
        "--storage-class",
        &class.name,
        "--per-node",
        "--size",
        "1Gi",
        "--job",
        job.to_str().unwrap(),
    ];
    let mut child = kube_run_command(&image, &db, &args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        seen.push_str(&line);
        seen.push('\n');
        if line.contains("node-b's pod: running") {
            break;
        }
    }
    assert!(seen.contains("node-b's pod: running"), "{seen}");
    std::thread::sleep(Duration::from_secs(5));
    let mut kubelet = kube.kill_kubelet("node-b").unwrap();
    let killed = Instant::now();
    for line in lines {
        seen.push_str(&line.unwrap());
        seen.push('\n');
    }
    let out = child.wait_with_output().unwrap();
    let took = killed.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("ended {took:?} after the kill\n{seen}\n{stdout}");
    assert!(took < Duration::from_secs(60), "{took:?}");
    assert_eq!(out.status.code(), Some(1), "{seen}");
    let lost = seen
        .lines()
        .find(|l| l.contains("failed: lost: node") && l.contains("node-b"))
        .unwrap_or_else(|| panic!("node-b not said lost:\n{seen}"));
    // The reason with the time (RFC 3339, UTC).
    assert!(lost.contains("T") && lost.contains("Z"), "{lost}");
    assert_eq!(nodes_of(&history(&db)), ["node-a"], "{seen}");
    // The table of nodes has node-b's row: lost, and why.
    assert!(
        stdout
            .lines()
            .any(|l| l.contains(" node-b ") && l.contains("lost: node node-b")),
        "{stdout}"
    );
    assert!(seen.contains("1 of 2 pods gave results"), "{seen}");
    // What the lost node holds is named, and the run does not say it is clean.
    assert!(seen.contains("held by a lost node"), "{seen}");
    assert!(!seen.contains("no object left in the cluster"), "{seen}");
    // Back, and the cluster lets the lost pod and its claim go.
    kubelet.restart().unwrap();
    let back = Instant::now();
    let mut left = kube.diskbench_objects();
    while !left.is_empty() && back.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_secs(2));
        left = kube.diskbench_objects();
    }
    eprintln!(
        "nothing left {:?} after the kubelet came back",
        back.elapsed()
    );
    assert!(left.is_empty(), "left in the cluster: {left:?}");
}

/// `--host-path DIR`: each node's own directory, no PVC; only with
/// `--per-node` and an absolute path; the pods work in directories of
/// their own and leave DIR as it was.
#[test]
fn a_host_path_is_measured_on_each_node_and_left_as_it_was() {
    let Some((_turn, kube, image)) = two_nodes() else {
        return;
    };
    let host_dir = Path::new("/var/tmp/diskbench-kube-tests/hostpath");
    let _ = std::fs::remove_dir_all(host_dir);
    std::fs::create_dir_all(host_dir).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite3");
    let job = synced_writes(dir.path(), 1);
    let job = job.to_str().unwrap();
    let dir_arg = host_dir.to_str().unwrap();
    // Never without --per-node, never a relative path.
    let out = kube_run(&image, &db, &["--host-path", dir_arg, "--job", job]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("--per-node"),
        "{}",
        stderr_of(&out)
    );
    let out = kube_run(
        &image,
        &db,
        &["--per-node", "--host-path", "data", "--job", job],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("absolute path"),
        "{}",
        stderr_of(&out)
    );
    let out = kube_run(
        &image,
        &db,
        &["--per-node", "--host-path", dir_arg, "--job", job],
    );
    let (stdout, stderr) = (stdout_of(&out), stderr_of(&out));
    eprintln!("{stderr}\n{stdout}");
    assert!(out.status.success(), "{stderr}");
    assert_nothing_left(&kube);
    let runs = history(&db);
    assert_eq!(nodes_of(&runs), ["node-a", "node-b"], "{runs:?}");
    assert_eq!(
        runs[0]["labels"]["storage_class"],
        format!("hostPath:{dir_arg}"),
        "{runs:?}"
    );
    let left: Vec<_> = std::fs::read_dir(host_dir).unwrap().collect();
    assert!(left.is_empty(), "left in {dir_arg}: {left:?}");
    // --node-selector picks the nodes: node-b alone.
    let out = kube_run(
        &image,
        &db,
        &[
            "--per-node",
            "--node-selector",
            "kubernetes.io/hostname=node-b",
            "--host-path",
            dir_arg,
            "--job",
            job,
        ],
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(
        nodes_of(&history(&db)),
        ["node-a", "node-b", "node-b"],
        "{}",
        stderr_of(&out)
    );
    let _ = std::fs::remove_dir_all(host_dir);
}
