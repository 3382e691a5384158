//! `diskbench kube` against a real cluster (`testbed::kube`: the one
//! `.ci/run` starts, with pods that really run diskbench's own image):
//! two StorageClasses of two pods each, saved with their labels and the
//! tmpfs class faster than the disk; a pod that fails (its log shown, the
//! other class kept); a claim that never binds and a pod without a pod
//! network (each fails at once, with the cluster's reason and the fix);
//! Ctrl-C in the middle; manifests applied with kubectl, then collected
//! and cleaned up; pods saving straight into a shared PostgreSQL history,
//! the password in a Secret; an unknown class, a claim over the
//! namespace's quota, an unreachable cluster and a user without rights.
//! After every test no object with diskbench's label is left in the
//! cluster.
//!
//! The tests share the one cluster, so they take turns (`kube_common`);
//! each makes StorageClasses of its own with fresh local volumes.

mod common;
mod kube_common;
use common::*;
use kube_common::*;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;
use testbed::kube::Kube;

fn compare_json(db: &Path) -> serde_json::Value {
    let out = diskbench()
        .args([
            "compare",
            "--by",
            "storage_class",
            "--format",
            "json",
            "--db",
        ])
        .arg(db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    json_of(&out)
}

#[test]
fn two_classes_of_two_pods_are_measured_saved_with_their_labels_and_compared() {
    let Some((_turn, kube, image)) = cluster() else {
        return;
    };
    let disk = kube.local_class("dbtest-disk", 2, "1Gi", None).unwrap();
    let tmpfs = kube
        .local_class("dbtest-tmpfs", 2, "1Gi", Some("1200m"))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite3");
    let classes = format!("{},{}", disk.name, tmpfs.name);
    let started = Instant::now();
    let out = kube_run(
        &image,
        &db,
        &[
            "--storage-class",
            &classes,
            "--pods",
            "2",
            "--size",
            "1Gi",
            "--quick",
        ],
    );
    let took = started.elapsed();
    let (stdout, stderr) = (stdout_of(&out), stderr_of(&out));
    eprintln!("kube run took {took:?}\n{stderr}\n{stdout}");
    assert!(out.status.success(), "{stderr}");
    assert_nothing_left(&kube);
    // Each pod's progress (a state shorter than the half-second poll, such
    // as binding, may pass unseen), then each pod's row and each class's
    // aggregate.
    for word in ["pending", "running", "done"] {
        assert!(
            stderr.contains(&format!("pod 2/2: {word}")),
            "{word}: {stderr}"
        );
    }
    assert_eq!(stdout.matches("all 2 pods").count(), 2, "{stdout}");
    // Every run saved with its labels.
    let out = diskbench()
        .args(["history", "--format", "json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let runs = json_of(&out);
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 4, "{runs:?}");
    for r in runs {
        let labels = &r["labels"];
        assert_eq!(
            labels["provisioner"], "kubernetes.io/no-provisioner",
            "{labels}"
        );
        assert_eq!(labels["node"], kube.node.as_str(), "{labels}");
        assert_eq!(labels["pvc_size"], "1Gi", "{labels}");
        assert!(
            labels["pod"].as_str().unwrap().starts_with("diskbench-"),
            "{labels}"
        );
        assert!(labels["kube_run"].is_string(), "{labels}");
    }
    // The tmpfs class is faster: compare's groups, 2 runs each.
    let c = compare_json(&db);
    let iops = |class: &str| {
        let g = c["groups"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["labels"]["storage_class"] == class)
            .unwrap_or_else(|| panic!("no group {class}: {c}"));
        assert_eq!(g["runs"], 2, "{g}");
        g["iops"]["mean"].as_f64().unwrap()
    };
    let (on_disk, on_tmpfs) = (iops(&disk.name), iops(&tmpfs.name));
    assert!(on_tmpfs > on_disk, "tmpfs {on_tmpfs} IOPS, disk {on_disk}");
}

#[test]
fn a_failing_pod_shows_its_log_and_the_other_class_is_kept() {
    let Some((_turn, kube, image)) = cluster() else {
        return;
    };
    let ok = kube.local_class("dbtest-ok", 1, "1Gi", None).unwrap();
    // It claims 1Gi but holds 8 MiB: the 64 MiB job cannot lay out its file.
    let tiny = kube
        .local_class("dbtest-tiny", 1, "1Gi", Some("8m"))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite3");
    let job = job_file(dir.path(), 1, "64m");
    let classes = format!("{},{}", ok.name, tiny.name);
    let out = kube_run(
        &image,
        &db,
        &[
            "--storage-class",
            &classes,
            "--job",
            job.to_str().unwrap(),
            "--size",
            "1Gi",
        ],
    );
    let (stdout, stderr) = (stdout_of(&out), stderr_of(&out));
    assert_eq!(out.status.code(), Some(1), "{stderr}{stdout}");
    assert_nothing_left(&kube);
    assert!(
        stderr.contains("failed: its command exited with"),
        "{stderr}"
    );
    // The pod's own words about the volume, from its log.
    assert!(stderr.contains("its log ends:"), "{stderr}");
    assert!(stderr.to_lowercase().contains("space"), "{stderr}");
    // The class that ran is saved and printed.
    let c = compare_json(&db);
    let groups = c["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{c}");
    assert_eq!(groups[0]["labels"]["storage_class"], ok.name.as_str());
    assert!(stdout.contains(&ok.name), "{stdout}");
}

#[test]
fn a_claim_that_never_binds_fails_at_once_with_the_clusters_reason_and_the_fix() {
    let Some((_turn, kube, image)) = cluster() else {
        return;
    };
    let empty = kube.local_class("dbtest-empty", 0, "1Gi", None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite3");
    let job = job_file(dir.path(), 1, "16m");
    let out = kube_run(
        &image,
        &db,
        &[
            "--storage-class",
            &empty.name,
            "--job",
            job.to_str().unwrap(),
            "--pending-timeout",
            "10m",
        ],
    );
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_nothing_left(&kube);
    // The scheduler's event ended the wait, not the 10-minute timeout.
    assert!(!stderr.contains("(--pending-timeout)"), "{stderr}");
    assert!(
        stderr.contains("didn't find available persistent volumes to bind"),
        "{stderr}"
    );
    assert!(stderr.contains("create PersistentVolumes"), "{stderr}");
}

#[test]
fn pods_without_a_pod_network_fail_at_once_with_the_fix() {
    // k8s-local has no pod network: a pod off the host network never gets
    // its sandbox, and the cluster says so in an event.
    let Some((_turn, kube, image)) = cluster() else {
        return;
    };
    let class = kube.local_class("dbtest-nonet", 1, "1Gi", None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let job = job_file(dir.path(), 1, "16m");
    let out = diskbench()
        .args(["kube", "run", "--image", &image, "--pull-policy", "Never"])
        .arg("--db")
        .arg(dir.path().join("h.sqlite3"))
        .args(["--storage-class", &class.name, "--size", "1Gi"])
        .args(["--job", job.to_str().unwrap(), "--pending-timeout", "10m"])
        .output()
        .expect("diskbench runs");
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_nothing_left(&kube);
    assert!(!stderr.contains("(--pending-timeout)"), "{stderr}");
    assert!(stderr.contains("FailedCreatePodSandBox"), "{stderr}");
    assert!(stderr.contains("--host-network"), "{stderr}");
    // The last line counts what really happened: no pod gave results.
    assert!(stderr.contains("0 of 1 pods gave results"), "{stderr}");
}

#[test]
fn ctrl_c_during_a_run_deletes_what_it_made() {
    let Some((_turn, kube, image)) = cluster() else {
        return;
    };
    let class = kube.local_class("dbtest-intr", 2, "1Gi", None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let job = job_file(dir.path(), 120, "16m");
    let db = dir.path().join("h.sqlite3");
    let args = [
        "--storage-class",
        &class.name,
        "--pods",
        "2",
        "--size",
        "1Gi",
        "--job",
        job.to_str().unwrap(),
    ];
    let mut child = kube_run_command(&image, &db, &args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt once both pods run.
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = String::new();
    let mut running = 0;
    while running < 2 {
        let line = lines
            .next()
            .expect("diskbench ended before its pods ran")
            .unwrap();
        running += usize::from(line.contains(": running"));
        seen.push_str(&line);
        seen.push('\n');
    }
    assert!(
        !kube.diskbench_objects().is_empty(),
        "the run's objects exist while it runs"
    );
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    let stderr = format!("{seen}{}", rest.join("\n"));
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    // The signal ended the run while its pods ran their 120 s job: no pod
    // got to its end (a run that waited for them would say "done").
    assert!(!stderr.contains(": done"), "{stderr}");
    assert_nothing_left(&kube);
}

/// `kube manifests` of one pod on `class` running `job`, applied with
/// kubectl and waited for; returns the run's id.
fn apply_manifests(kube: &Kube, image: &str, class: &str, job: &Path, more: &[&str]) -> String {
    let out = diskbench()
        .args([
            "kube",
            "manifests",
            "--image",
            image,
            "--pull-policy",
            "Never",
            "--host-network",
        ])
        .args(["--storage-class", class, "--size", "1Gi", "--job"])
        .arg(job)
        .args(more)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let yaml = stdout_of(&out);
    let run_id = yaml
        .split("collect ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap_or_else(|| panic!("no run id: {yaml}"))
        .to_string();
    kube.apply(&yaml)
        .unwrap_or_else(|e| panic!("kubectl apply: {e}\n{yaml}"));
    let selector = format!("diskbench.io/run={run_id}");
    kube.kubectl(&[
        "wait",
        "--for=condition=complete",
        "job",
        "-l",
        &selector,
        "--timeout=120s",
    ])
    .unwrap();
    run_id
}

/// Removes a run's objects with `kube cleanup`, which finds them by label.
fn cleanup(kube: &Kube, run_id: &str) {
    let out = diskbench()
        .args(["kube", "cleanup", "--run", run_id])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(
        stdout_of(&out).contains("removing pvc/"),
        "{}",
        stdout_of(&out)
    );
    assert_nothing_left(kube);
}

#[test]
fn manifests_applied_with_kubectl_are_collected_then_cleaned_up() {
    let Some((_turn, kube, image)) = cluster() else {
        return;
    };
    let class = kube.local_class("dbtest-gitops", 1, "1Gi", None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite3");
    let job = job_file(dir.path(), 1, "16m");
    let run_id = apply_manifests(&kube, &image, &class.name, &job, &[]);
    let collect = || {
        diskbench()
            .args(["kube", "collect", &run_id, "--db"])
            .arg(&db)
            .output()
            .unwrap()
    };
    let out = collect();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("saved 1 runs"),
        "{}",
        stderr_of(&out)
    );
    // Collecting again saves nothing twice.
    let again = collect();
    assert!(
        stderr_of(&again).contains("saved 0 runs"),
        "{}",
        stderr_of(&again)
    );
    // Nothing owns a manifest's PVC: cleanup finds everything by its labels.
    cleanup(&kube, &run_id);
}

/// With a shared history, pods save their runs themselves: applied
/// manifests nobody collects still end in PostgreSQL, labelled, and the
/// password is in a Secret, never in the Jobs.
#[test]
fn pods_save_straight_into_a_shared_history_with_the_password_in_a_secret() {
    let Some((_turn, kube, image)) = cluster() else {
        return;
    };
    let server = match testbed::postgres::PgServer::shared() {
        Ok(s) => s,
        Err(reason) => {
            testbed::skip(reason);
            return;
        }
    };
    let url = server.fresh_db().unwrap();
    let class = kube.local_class("dbtest-shared", 2, "1Gi", None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let job = job_file(dir.path(), 1, "16m");
    let run_id = apply_manifests(&kube, &image, &class.name, &job, &["--db", &url]);
    let selector = format!("diskbench.io/run={run_id}");
    let jobs = kube
        .kubectl(&["get", "jobs", "-l", &selector, "-o", "yaml"])
        .unwrap();
    assert!(!jobs.contains(testbed::postgres::PASSWORD), "{jobs}");
    assert!(jobs.contains("secretKeyRef"), "{jobs}");
    let out = diskbench()
        .args(["history", "--format", "json", "--db", &url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let runs = json_of(&out);
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["labels"]["storage_class"], class.name.as_str());
    assert_eq!(runs[0]["labels"]["kube_run"], run_id.as_str());
    assert_eq!(runs[0]["labels"]["node"], kube.node.as_str());
    cleanup(&kube, &run_id);
    // `kube run --db URL` makes the same Secret, and removes it with the rest.
    let out = kube_run(
        &image,
        Path::new(&url),
        &[
            "--storage-class",
            &class.name,
            "--size",
            "1Gi",
            "--job",
            job.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_nothing_left(&kube);
    let out = diskbench()
        .args(["history", "--format", "json", "--db", &url])
        .output()
        .unwrap();
    assert_eq!(json_of(&out).as_array().map(Vec::len), Some(2));
}

#[test]
fn an_unknown_class_is_refused_with_the_classes_there_are() {
    let Some((_turn, kube, image)) = cluster() else {
        return;
    };
    let class = kube.local_class("dbtest-known", 0, "1Gi", None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = kube_run(
        &image,
        &dir.path().join("h.sqlite3"),
        &["--storage-class", "no-such-class"],
    );
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no StorageClass no-such-class"), "{stderr}");
    assert!(stderr.contains(&class.name), "{stderr}");
    assert_nothing_left(&kube);
}

/// A user the cluster knows but has granted nothing: the refusal names
/// the verb, the resource and the Role to grant. The user's certificate
/// is signed with k8s-local's CA (its `pki` directory).
#[test]
fn a_user_without_rights_is_told_the_role_to_ask_for() {
    let Some((_turn, _kube, _image)) = cluster() else {
        return;
    };
    let pki = std::env::var_os("DISKBENCH_K8S_PKI")
        .map_or_else(|| Path::new("/tmp/k8s-local/pki").to_path_buf(), Into::into);
    if !pki.join("ca.key").exists() {
        testbed::skip(format!(
            "no cluster CA key at {} to make a user (set DISKBENCH_K8S_PKI)",
            pki.display()
        ));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let openssl = |args: &[&str]| {
        let ok = Command::new("openssl")
            .current_dir(d)
            .args(args)
            .output()
            .unwrap();
        assert!(
            ok.status.success(),
            "{}",
            String::from_utf8_lossy(&ok.stderr)
        );
    };
    openssl(&["genrsa", "-out", "u.key", "2048"]);
    openssl(&[
        "req",
        "-new",
        "-key",
        "u.key",
        "-subj",
        "/CN=diskbench-nobody",
        "-out",
        "u.csr",
    ]);
    let (ca_crt, ca_key) = (pki.join("ca.crt"), pki.join("ca.key"));
    openssl(&[
        "x509",
        "-req",
        "-in",
        "u.csr",
        "-CA",
        ca_crt.to_str().unwrap(),
        "-CAkey",
        ca_key.to_str().unwrap(),
        "-CAcreateserial",
        "-days",
        "1",
        "-out",
        "u.crt",
    ]);
    let kubeconfig = d.join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters: [{{name: c, cluster: {{certificate-authority: {}, \
             server: \"https://127.0.0.1:6443\"}}}}]\nusers: [{{name: u, user: {{client-certificate: {}, \
             client-key: {}}}}}]\ncontexts: [{{name: c, context: {{cluster: c, user: u}}}}]\ncurrent-context: c\n",
            ca_crt.display(),
            d.join("u.crt").display(),
            d.join("u.key").display()
        ),
    )
    .unwrap();
    let out = diskbench()
        .env("KUBECONFIG", &kubeconfig)
        .args(["kube", "run", "--storage-class", "x"])
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("not allowed to"), "{stderr}");
    assert!(stderr.contains("kind: Role"), "{stderr}");
}

/// No cluster needed: a server that does not answer is named, with what
/// to check.
#[test]
fn an_unreachable_cluster_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \"https://127.0.0.1:9\", \
         insecure-skip-tls-verify: true}}]\nusers: [{name: u, user: {token: t}}]\n\
         contexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n",
    )
    .unwrap();
    let out = diskbench()
        .env("KUBECONFIG", &kubeconfig)
        .args(["kube", "run", "--storage-class", "x"])
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot reach the cluster at https://127.0.0.1:9"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    // A context that is not there is named with the ones that are.
    let out = diskbench()
        .env("KUBECONFIG", &kubeconfig)
        .args(["kube", "cleanup", "--context", "nope"])
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("the kubeconfig's contexts are: c"),
        "{stderr}"
    );
}

/// A PVC the cluster refuses (a quota on storage in the namespace): the
/// cluster's answer is said, and the Job made before it is gone too.
#[test]
fn a_claim_over_the_namespace_quota_is_refused_in_the_clusters_words() {
    let Some((_turn, kube, image)) = cluster() else {
        return;
    };
    let class = kube.local_class("dbtest-quota", 1, "4Gi", None).unwrap();
    let ns = "dbtest-quota";
    let _ = kube.kubectl(&[
        "delete",
        "namespace",
        ns,
        "--ignore-not-found",
        "--wait=true",
    ]);
    kube.apply(&format!(
        "apiVersion: v1\nkind: Namespace\nmetadata: {{name: {ns}}}\n---\napiVersion: v1\n\
         kind: ResourceQuota\nmetadata: {{name: storage, namespace: {ns}}}\n\
         spec: {{hard: {{requests.storage: 1Gi}}}}\n"
    ))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let job = job_file(dir.path(), 1, "16m");
    let out = kube_run(
        &image,
        &dir.path().join("h.sqlite3"),
        &[
            "-n",
            ns,
            "--storage-class",
            &class.name,
            "--size",
            "2Gi",
            "--job",
            job.to_str().unwrap(),
        ],
    );
    let stderr = stderr_of(&out);
    let _ = kube.kubectl(&["delete", "namespace", ns, "--wait=false"]);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("the cluster refused to create persistentvolumeclaims"),
        "{stderr}"
    );
    assert!(stderr.contains("exceeded quota"), "{stderr}");
    assert!(stderr.contains("no object left in the cluster"), "{stderr}");
    assert_nothing_left(&kube);
}
