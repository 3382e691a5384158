//! A real Kubernetes cluster for the `kube` tests, reached as a user
//! reaches it: `$KUBECONFIG` and kubectl. `.ci/run` brings one up (a
//! single node on this machine, pods on the host network, images imported
//! into its containerd) and names its parts in the environment below;
//! without a cluster the tests skip with [`Kube::find`]'s reason.
//!
//! Storage is static local PersistentVolumes, as on a bare cluster: each
//! test makes StorageClasses of its own ([`LocalClass`], on a directory of
//! the disk or on a tmpfs mounted for it) with fresh volumes, so a volume
//! a previous test released (local volumes are never recycled) is never in
//! the way, and dropping the class removes its volumes, its class and its
//! mount.
//!
//! On a cluster of several nodes (k8s-local-2node) a class can have one
//! volume per node ([`Kube::node_local_class`]: node-a's on a tmpfs,
//! node-b's on the disk), and a test can kill a node's kubelet and start
//! it again ([`Kube::kill_kubelet`]), as a node that goes away does.
//!
//! Found from the environment: `KUBECONFIG`; kubectl as
//! `$DISKBENCH_KUBECTL`, else `kubectl` on the PATH, else the one
//! k8s-local keeps in `~/.cache/k8s-local/*/bin`; the nodes' containerd
//! sockets as `$DISKBENCH_CONTAINERD` (several separated by `:`, one per
//! node: the image is imported into each), else k8s-local's
//! `/tmp/k8s-local/run/containerd.sock`; the cluster's working directory
//! (its `pids/kubelet-NODE` files) as `$DISKBENCH_K8S_DIR`.

use crate::error::TestbedError;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The label every object diskbench makes carries.
pub const MANAGED: &str = "app.kubernetes.io/managed-by=diskbench";

#[derive(Clone, Debug)]
pub struct Kube {
    kubectl: PathBuf,
    containerd: Vec<PathBuf>,
    /// The first node (where [`Kube::local_class`] puts its volumes).
    pub node: String,
    /// Every node, by name.
    pub nodes: Vec<String>,
}

fn k8s_local_kubectl() -> Option<PathBuf> {
    let cache = PathBuf::from(std::env::var_os("HOME")?).join(".cache/k8s-local");
    std::fs::read_dir(cache)
        .ok()?
        .flatten()
        .map(|e| e.path().join("bin/kubectl"))
        .find(|p| p.exists())
}

impl Kube {
    /// The cluster of `$KUBECONFIG`, if it answers; else why not.
    pub fn find() -> Result<Kube, TestbedError> {
        if std::env::var_os("KUBECONFIG").is_none() {
            return Err(TestbedError::unavailable(
                "no Kubernetes cluster: KUBECONFIG is not set (point it at a cluster whose \
                 node's containerd this machine reaches: DISKBENCH_CONTAINERD; .ci/run starts one)",
            ));
        }
        let kubectl = std::env::var_os("DISKBENCH_KUBECTL")
            .map(PathBuf::from)
            .or_else(|| {
                Command::new("kubectl")
                    .arg("version")
                    .arg("--client")
                    .output()
                    .ok()
                    .filter(|o| o.status.success())
                    .map(|_| PathBuf::from("kubectl"))
            })
            .or_else(k8s_local_kubectl)
            .ok_or_else(|| {
                TestbedError::unavailable(
                    "no kubectl: set DISKBENCH_KUBECTL or put kubectl on the PATH",
                )
            })?;
        let containerd = std::env::var_os("DISKBENCH_CONTAINERD").map_or_else(
            || vec![PathBuf::from("/tmp/k8s-local/run/containerd.sock")],
            |v| std::env::split_paths(&v).collect(),
        );
        let mut kube = Kube {
            kubectl,
            containerd,
            node: String::new(),
            nodes: Vec::new(),
        };
        kube.kubectl(&["get", "--raw", "/readyz"]).map_err(|e| {
            TestbedError::unavailable(format!("the cluster of KUBECONFIG does not answer: {e}"))
        })?;
        kube.nodes = kube
            .kubectl(&["get", "nodes", "-o", "jsonpath={.items[*].metadata.name}"])?
            .split_whitespace()
            .map(String::from)
            .collect();
        kube.node = kube.nodes.first().cloned().unwrap_or_default();
        if let Some(missing) = kube.containerd.iter().find(|c| !c.exists()) {
            return Err(TestbedError::unavailable(format!(
                "no containerd socket at {} to import diskbench's image into (set DISKBENCH_CONTAINERD)",
                missing.display()
            )));
        }
        Ok(kube)
    }

    /// kubectl's stdout, or its stderr as the error.
    pub fn kubectl(&self, args: &[&str]) -> Result<String, TestbedError> {
        let out = Command::new(&self.kubectl)
            .args(args)
            .output()
            .map_err(TestbedError::io(self.kubectl.display().to_string()))?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
        } else {
            Err(TestbedError::refused(
                format!("kubectl {}", args.join(" ")),
                String::from_utf8_lossy(&out.stderr).trim(),
            ))
        }
    }

    /// `kubectl apply -f -` of these documents.
    pub fn apply(&self, yaml: &str) -> Result<String, TestbedError> {
        let mut child = Command::new(&self.kubectl)
            .args(["apply", "-f", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        child
            .stdin
            .take()
            .expect("piped stdin")
            .write_all(yaml.as_bytes())?;
        let out = child.wait_with_output()?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(TestbedError::Said(
                String::from_utf8_lossy(&out.stderr).into_owned(),
            ))
        }
    }

    /// Loads an OCI image archive into each node's containerd, where
    /// `imagePullPolicy: Never` pods find it.
    pub fn import_image(&self, archive: &Path) -> Result<(), TestbedError> {
        for socket in &self.containerd {
            let out = Command::new("ctr")
                .arg("--address")
                .arg(socket)
                .args(["-n", "k8s.io", "images", "import"])
                .arg(archive)
                .output()
                .map_err(TestbedError::io("ctr"))?;
            if !out.status.success() {
                return Err(TestbedError::refused(
                    format!("ctr import into {}", socket.display()),
                    String::from_utf8_lossy(&out.stderr),
                ));
            }
        }
        Ok(())
    }

    /// A StorageClass of one local PersistentVolume of `size` on each of
    /// `nodes` (name, and the size of a tmpfs mounted for its volume, or
    /// `None` for a directory of the disk).
    pub fn node_local_class(
        &self,
        name: &str,
        size: &str,
        nodes: &[(&str, Option<&str>)],
    ) -> Result<LocalClass, TestbedError> {
        let mut class = self.local_class(name, 0, size, None)?;
        let mut yaml = String::new();
        for (i, (node, tmpfs)) in nodes.iter().enumerate() {
            let dir = class.root.join(node);
            std::fs::create_dir_all(&dir)?;
            if let Some(t) = tmpfs {
                mount_tmpfs(&dir, t)?;
                class.mounts.push(dir.clone());
            }
            let pv = format!("{name}-pv{i}");
            yaml.push_str(&pv_yaml(&pv, name, size, &dir, node));
            class.pvs.push(pv);
        }
        self.apply(&yaml)?;
        Ok(class)
    }

    /// Kills a node's kubelet (its PID in `$DISKBENCH_K8S_DIR/pids/kubelet-NODE`,
    /// as k8s-local-2node writes it): the node goes silent, as a lost one
    /// does, while its containers go on. [`Kubelet::restart`] brings it back.
    pub fn kill_kubelet(&self, node: &str) -> Result<Kubelet, TestbedError> {
        let dir = std::env::var_os("DISKBENCH_K8S_DIR").ok_or_else(|| {
            TestbedError::unavailable(
                "DISKBENCH_K8S_DIR is not set: the cluster's working directory, whose pids/kubelet-NODE \
                 names the kubelet to kill (.ci/run sets it)",
            )
        })?;
        let dir = PathBuf::from(dir);
        let pid_file = dir.join("pids").join(format!("kubelet-{node}"));
        let pid = std::fs::read_to_string(&pid_file)
            .map_err(TestbedError::io(pid_file.display().to_string()))?
            .trim()
            .to_string();
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline"))
            .map_err(TestbedError::io(format!("/proc/{pid}/cmdline")))?;
        let command: Vec<String> = cmdline
            .split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let out = Command::new("kill").args(["-9", &pid]).output()?;
        if !out.status.success() {
            return Err(TestbedError::refused(
                format!("kill -9 {pid}"),
                String::from_utf8_lossy(&out.stderr),
            ));
        }
        Ok(Kubelet {
            command,
            pid_file,
            log: dir.join("logs").join(format!("kubelet-{node}.log")),
            restarted: false,
        })
    }

    /// Every object in the cluster with diskbench's label (`job/x`, `pvc/y`, ...).
    pub fn diskbench_objects(&self) -> Vec<String> {
        self.kubectl(&[
            "get",
            "jobs,pods,pvc,configmaps,secrets",
            "-A",
            "-l",
            MANAGED,
            "-o",
            "name",
        ])
        .map(|s| s.lines().map(String::from).collect())
        .unwrap_or_else(|e| vec![format!("(could not list: {e})")])
    }

    /// A StorageClass of `volumes` local PersistentVolumes of `size` each,
    /// in directories of the disk, or of a tmpfs of `tmpfs_size` mounted
    /// for it (needs root).
    pub fn local_class(
        &self,
        name: &str,
        volumes: usize,
        size: &str,
        tmpfs_size: Option<&str>,
    ) -> Result<LocalClass, TestbedError> {
        let root = PathBuf::from("/var/tmp/diskbench-kube-tests").join(name);
        // What a killed test left mounted: the root, or a node's directory.
        for entry in std::fs::read_dir(&root).into_iter().flatten().flatten() {
            let _ = Command::new("umount").arg(entry.path()).output();
        }
        let _ = Command::new("umount").arg(&root).output();
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).map_err(TestbedError::io(root.display().to_string()))?;
        let mut class = LocalClass {
            kube: self.clone(),
            name: name.into(),
            pvs: Vec::new(),
            root: root.clone(),
            mounts: Vec::new(),
        };
        if let Some(t) = tmpfs_size {
            mount_tmpfs(&root, t)?;
            class.mounts.push(root.clone());
        }
        let mut yaml = format!(
            "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {{name: {name}}}\n\
             provisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: WaitForFirstConsumer\n"
        );
        for i in 0..volumes {
            let dir = root.join(format!("pv{i}"));
            std::fs::create_dir_all(&dir)?;
            let pv = format!("{name}-pv{i}");
            yaml.push_str(&pv_yaml(&pv, name, size, &dir, &self.node));
            class.pvs.push(pv);
        }
        self.apply(&yaml)?;
        Ok(class)
    }
}

/// A local PersistentVolume of class `class` in `dir` of `node`.
fn pv_yaml(pv: &str, class: &str, size: &str, dir: &Path, node: &str) -> String {
    format!(
        "---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: {pv}}}\nspec:\n  \
         capacity: {{storage: {size}}}\n  accessModes: [ReadWriteOnce]\n  \
         storageClassName: {class}\n  local: {{path: {}}}\n  nodeAffinity: {{required: \
         {{nodeSelectorTerms: [{{matchExpressions: [{{key: kubernetes.io/hostname, \
         operator: In, values: [{node}]}}]}}]}}}}\n",
        dir.display(),
    )
}

fn mount_tmpfs(dir: &Path, size: &str) -> Result<(), TestbedError> {
    let out = Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(dir)
        .output()?;
    match out.status.success() {
        true => Ok(()),
        false => Err(TestbedError::refused(
            "mount tmpfs",
            String::from_utf8_lossy(&out.stderr),
        )),
    }
}

/// A kubelet a test killed; started again by [`Kubelet::restart`], or
/// when dropped, so a failed test never leaves a node down.
pub struct Kubelet {
    command: Vec<String>,
    pid_file: PathBuf,
    log: PathBuf,
    restarted: bool,
}

impl Kubelet {
    /// Starts it again with the same command line, its output appended to
    /// its log and its PID where k8s-local-2node's `down` finds it.
    pub fn restart(&mut self) -> Result<(), TestbedError> {
        if self.restarted {
            return Ok(());
        }
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .map_err(TestbedError::io(self.log.display().to_string()))?;
        let child = Command::new(&self.command[0])
            .args(&self.command[1..])
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .map_err(TestbedError::io(self.command[0].clone()))?;
        std::fs::write(&self.pid_file, format!("{}\n", child.id()))?;
        self.restarted = true;
        Ok(())
    }
}

impl Drop for Kubelet {
    fn drop(&mut self) {
        let _ = self.restart();
    }
}

/// A StorageClass and its volumes, removed when dropped.
pub struct LocalClass {
    kube: Kube,
    pub name: String,
    pvs: Vec<String>,
    root: PathBuf,
    /// The tmpfs mounted for it (its root, or one node's directory).
    mounts: Vec<PathBuf>,
}

impl Drop for LocalClass {
    fn drop(&mut self) {
        for pv in &self.pvs {
            let _ = self
                .kube
                .kubectl(&["delete", "pv", pv, "--wait=false", "--ignore-not-found"]);
        }
        let _ = self
            .kube
            .kubectl(&["delete", "storageclass", &self.name, "--ignore-not-found"]);
        for m in self.mounts.iter().rev() {
            let _ = Command::new("umount").arg("-l").arg(m).output();
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
