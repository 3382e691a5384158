//! `diskbench kube run --fit etcd` on a real cluster (k8s-local-2node,
//! which `.ci/run` starts): every pod runs etcd's checks on its own volume
//! and the run prints a verdict per pod, naming its node, and one per
//! StorageClass, fit only when every pod of it is. Two classes, each with
//! one local volume per node: one on tmpfs volumes, one on the disk. The
//! disk's verdict depends on the disk and the machine's load, so the test
//! holds the verdicts against each other (the class against its pods, the
//! JSON of each saved run against the line printed), not against a guess
//! of the disk's speed.

mod common;
mod kube_common;
use common::*;
use kube_common::*;

/// The line of `class`'s verdict.
fn class_line<'a>(stdout: &'a str, class: &str) -> &'a str {
    let prefix = format!("  {class}: ");
    stdout
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no verdict for class {class}:\n{stdout}"))
}

/// The lines of `class`'s pods, each with its node.
fn pod_lines<'a>(stdout: &'a str, class: &str) -> Vec<&'a str> {
    let prefix = format!("  {class}, pod ");
    stdout.lines().filter(|l| l.starts_with(&prefix)).collect()
}

#[test]
fn kube_run_fit_gives_a_verdict_per_pod_and_per_storage_class() {
    let Some((_turn, kube, image)) = cluster() else {
        return;
    };
    let nodes: Vec<&str> = kube.nodes.iter().map(String::as_str).collect();
    let tmpfs: Vec<(&str, Option<&str>)> = nodes.iter().map(|n| (*n, Some("200m"))).collect();
    let disk: Vec<(&str, Option<&str>)> = nodes.iter().map(|n| (*n, None)).collect();
    let fast = kube
        .node_local_class("dbtest-fit-tmpfs", "1Gi", &tmpfs)
        .unwrap();
    let slow = kube
        .node_local_class("dbtest-fit-disk", "1Gi", &disk)
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite3");
    let pods = nodes.len().to_string();
    let classes = format!("{},{}", fast.name, slow.name);
    let out = kube_run(
        &image,
        &db,
        &[
            "--storage-class",
            &classes,
            "--pods",
            &pods,
            "--size",
            "1Gi",
            "--fit",
            "etcd",
            "--runtime",
            "2s",
        ],
    );
    let (stdout, stderr) = (stdout_of(&out), stderr_of(&out));
    eprintln!("{stderr}\n{stdout}");
    assert!(out.status.success(), "{stderr}");
    assert_nothing_left(&kube);
    assert!(
        stdout.contains("etcd on each pod (a storage class is fit only when every pod of it is):"),
        "{stdout}"
    );
    for class in [&fast.name, &slow.name] {
        let lines = pod_lines(&stdout, class);
        assert_eq!(lines.len(), nodes.len(), "one line per pod:\n{stdout}");
        // Each pod's line names its node and both of etcd's requirements.
        for l in &lines {
            assert!(
                nodes.iter().any(|n| l.contains(&format!(" on {n}: "))),
                "{l}"
            );
            assert!(
                l.contains("WAL fdatasync p99 ") && l.contains("backend commit p99 (estimate) "),
                "{l}"
            );
        }
        let not_fit: Vec<&&str> = lines.iter().filter(|l| l.contains(": not fit: ")).collect();
        let verdict = class_line(&stdout, class);
        match not_fit.len() {
            0 => assert!(
                verdict.ends_with(&format!(
                    "fit: every requirement kept on all {} pods",
                    nodes.len()
                )),
                "{verdict}\n{stdout}"
            ),
            n => assert!(
                verdict.contains(&format!(
                    "not fit: {n} of {} pods broke a requirement",
                    nodes.len()
                )),
                "{verdict}\n{stdout}"
            ),
        }
    }
    // Syncs on a tmpfs return at once: that class is fit on every node.
    assert!(
        class_line(&stdout, &fast.name).contains(": fit: every requirement kept"),
        "{stdout}"
    );
    // Each pod's run is saved as a fit run, with its class and node.
    let history = diskbench()
        .args(["history", "--format", "json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(history.status.success(), "{}", stderr_of(&history));
    let runs = json_of(&history);
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 2 * nodes.len(), "{runs:?}");
    for r in runs {
        assert_eq!(r["command"], "fit", "{r}");
        assert!(r["labels"]["node"].as_str().is_some(), "{r}");
    }
}
