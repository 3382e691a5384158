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
//! Found from the environment: `KUBECONFIG`; kubectl as
//! `$DISKBENCH_KUBECTL`, else `kubectl` on the PATH, else the one
//! k8s-local keeps in `~/.cache/k8s-local/*/bin`; the node's containerd
//! socket as `$DISKBENCH_CONTAINERD`, else k8s-local's
//! `/tmp/k8s-local/run/containerd.sock`.

use crate::error::TestbedError;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The label every object diskbench makes carries.
pub const MANAGED: &str = "app.kubernetes.io/managed-by=diskbench";

#[derive(Clone, Debug)]
pub struct Kube {
    kubectl: PathBuf,
    containerd: PathBuf,
    pub node: String,
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
            || PathBuf::from("/tmp/k8s-local/run/containerd.sock"),
            PathBuf::from,
        );
        let mut kube = Kube {
            kubectl,
            containerd,
            node: String::new(),
        };
        kube.kubectl(&["get", "--raw", "/readyz"]).map_err(|e| {
            TestbedError::unavailable(format!("the cluster of KUBECONFIG does not answer: {e}"))
        })?;
        kube.node = kube.kubectl(&["get", "nodes", "-o", "jsonpath={.items[0].metadata.name}"])?;
        if !kube.containerd.exists() {
            return Err(TestbedError::unavailable(format!(
                "no containerd socket at {} to import diskbench's image into (set DISKBENCH_CONTAINERD)",
                kube.containerd.display()
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

    /// Loads an OCI image archive into the node's containerd, where
    /// `imagePullPolicy: Never` pods find it.
    pub fn import_image(&self, archive: &Path) -> Result<(), TestbedError> {
        let out = Command::new("ctr")
            .arg("--address")
            .arg(&self.containerd)
            .args(["-n", "k8s.io", "images", "import"])
            .arg(archive)
            .output()
            .map_err(TestbedError::io("ctr"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(TestbedError::refused(
                "ctr import",
                String::from_utf8_lossy(&out.stderr),
            ))
        }
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
        let _ = Command::new("umount").arg(&root).output();
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).map_err(TestbedError::io(root.display().to_string()))?;
        let mut class = LocalClass {
            kube: self.clone(),
            name: name.into(),
            pvs: Vec::new(),
            root: root.clone(),
            mounted: false,
        };
        if let Some(t) = tmpfs_size {
            let out = Command::new("mount")
                .args(["-t", "tmpfs", "-o", &format!("size={t}"), "tmpfs"])
                .arg(&root)
                .output()?;
            if !out.status.success() {
                return Err(TestbedError::refused(
                    "mount tmpfs",
                    String::from_utf8_lossy(&out.stderr),
                ));
            }
            class.mounted = true;
        }
        let mut yaml = format!(
            "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {{name: {name}}}\n\
             provisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: WaitForFirstConsumer\n"
        );
        for i in 0..volumes {
            let dir = root.join(format!("pv{i}"));
            std::fs::create_dir_all(&dir)?;
            let pv = format!("{name}-pv{i}");
            yaml.push_str(&format!(
                "---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: {pv}}}\nspec:\n  \
                 capacity: {{storage: {size}}}\n  accessModes: [ReadWriteOnce]\n  \
                 storageClassName: {name}\n  local: {{path: {}}}\n  nodeAffinity: {{required: \
                 {{nodeSelectorTerms: [{{matchExpressions: [{{key: kubernetes.io/hostname, \
                 operator: In, values: [{}]}}]}}]}}}}\n",
                dir.display(),
                self.node
            ));
            class.pvs.push(pv);
        }
        self.apply(&yaml)?;
        Ok(class)
    }
}

/// A StorageClass and its volumes, removed when dropped.
pub struct LocalClass {
    kube: Kube,
    pub name: String,
    pvs: Vec<String>,
    root: PathBuf,
    mounted: bool,
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
        if self.mounted {
            let _ = Command::new("umount").arg("-l").arg(&self.root).output();
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
