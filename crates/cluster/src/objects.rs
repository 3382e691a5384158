//! The objects of a run, as the JSON the API server takes: one Job and
//! one PersistentVolumeClaim per pod, and a ConfigMap holding the fio job
//! file when there is one. `kube run` creates them and `kube manifests`
//! prints the very same objects as YAML.
//!
//! Every object carries the run's labels ([`labels`]), so that the run can
//! find, collect and delete what it made, and nothing else. A pod runs
//! without privileges: a non-root user, every capability dropped, a
//! read-only root filesystem, and `fsGroup` so the volume is writable by
//! that user. Its diskbench runs inside `diskbench kube pod`, which prints
//! the results in the log between markers for the collector
//! (`crate::results`).

use serde_json::{json, Map, Value};

/// Marks every object diskbench made, with the common Kubernetes label.
pub const MANAGED_BY: &str = "app.kubernetes.io/managed-by";
pub const MANAGED_BY_VALUE: &str = "diskbench";
/// The run an object belongs to (its id, e.g. `20261126-071500-3f9a`).
pub const RUN_LABEL: &str = "diskbench.io/run";
/// Which class of the run (0, 1, ...) and which pod of the class.
pub const CLASS_LABEL: &str = "diskbench.io/class-index";
pub const POD_LABEL: &str = "diskbench.io/pod-index";
/// The StorageClass by its full name (a label value cannot hold every name).
pub const CLASS_ANNOTATION: &str = "diskbench.io/storage-class";

/// The user and group a pod runs as: not root, and the group that owns
/// the volume (`fsGroup`). 65532 is the "nonroot" user of distroless images.
pub const POD_USER: u32 = 65532;
/// Where the volume is mounted in the pod; the pod's working directory,
/// so `run` and fio's relative file names land on it.
pub const DATA_DIR: &str = "/data";
/// Where the fio job file is mounted from its ConfigMap.
pub const JOB_DIR: &str = "/etc/diskbench";
pub const JOB_FILE: &str = "job.fio";

/// What every pod of a run does and where its image comes from.
#[derive(Clone, Debug)]
pub struct RunPlan {
    /// The run's id: in every object's name and labels.
    pub run_id: String,
    pub image: String,
    /// `IfNotPresent`, `Always` or `Never` (an image imported on the nodes).
    pub pull_policy: String,
    /// The size of each PVC, as Kubernetes writes it (`2Gi`).
    pub pvc_size: String,
    /// For clusters without a pod network (a bare kubelet, k8s-local).
    pub host_network: bool,
    /// How long a finished Job (and with it its PVC) stays for collection.
    pub ttl_seconds: u32,
    /// A fio job file's text, sent as a ConfigMap.
    pub job_file: Option<String>,
    /// Options of `diskbench kube pod` itself (e.g. `--db URL`, without
    /// its password).
    pub agent_args: Vec<String>,
    /// The shared history's password: in a Secret, given to the pods as
    /// `PGPASSWORD`, never in the Jobs' arguments (which anyone who may
    /// read Jobs can read).
    pub db_password: Option<String>,
    /// The diskbench command each pod runs, e.g. `["run", "--quick"]`.
    pub command: Vec<String>,
    /// A directory of each node the pods measure instead of a PVC (a
    /// hostPath volume; only ever the one the user named).
    pub host_path: Option<String>,
}

/// One pod of a run: which class, which of its pods, and the node it
/// must run on when the run measures node by node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Slot {
    pub class: String,
    pub provisioner: String,
    pub class_index: usize,
    pub index: usize,
    pub node: Option<String>,
}

impl RunPlan {
    /// The Job's and its PVC's name.
    pub fn name(&self, slot: &Slot) -> String {
        format!(
            "diskbench-{}-{}-{}",
            self.run_id, slot.class_index, slot.index
        )
    }

    /// The ConfigMap of one class's pods (one per class, so that it goes
    /// with that class's Jobs when they are deleted).
    pub fn config_map_name(&self, class_index: usize) -> String {
        format!("diskbench-{}-{class_index}-job", self.run_id)
    }

    /// The Secret of one class's pods holding the history's password.
    pub fn secret_name(&self, class_index: usize) -> String {
        format!("diskbench-{}-{class_index}-db", self.run_id)
    }

    /// The labels of every object of this run.
    pub fn run_labels(&self) -> Map<String, Value> {
        let mut labels = Map::new();
        labels.insert(MANAGED_BY.into(), MANAGED_BY_VALUE.into());
        labels.insert(RUN_LABEL.into(), self.run_id.clone().into());
        labels
    }

    fn slot_labels(&self, slot: &Slot) -> Value {
        let mut labels = self.run_labels();
        labels.insert(CLASS_LABEL.into(), slot.class_index.to_string().into());
        labels.insert(POD_LABEL.into(), slot.index.to_string().into());
        Value::Object(labels)
    }

    fn metadata(&self, name: &str, labels: Value, slot: Option<&Slot>) -> Value {
        let mut meta = json!({ "name": name, "labels": labels });
        if let Some(slot) = slot {
            meta["annotations"] = json!({ CLASS_ANNOTATION: slot.class });
        }
        meta
    }

    /// The arguments of the pod's container: `kube pod [agent args] --`
    /// and the command, with the labels every saved run gets. The node and
    /// the pod's own name come from the downward API (`$(NODE_NAME)`, which
    /// Kubernetes expands in `args`).
    pub fn pod_args(&self, slot: &Slot) -> Vec<String> {
        let mut args: Vec<String> = vec!["kube".into(), "pod".into()];
        args.extend(self.agent_args.iter().cloned());
        // A node's own directory is shared with whatever else is there:
        // the pod works in a directory of its own and removes it.
        if self.host_path.is_some() {
            args.push(format!("--work-dir={}", self.name(slot)));
        }
        args.push("--".into());
        args.extend(self.command.iter().cloned());
        for (key, value) in [
            ("storage_class", slot.class.as_str()),
            ("provisioner", slot.provisioner.as_str()),
            ("pvc_size", self.pvc_size.as_str()),
            ("node", "$(NODE_NAME)"),
            ("pod", "$(POD_NAME)"),
            ("kube_run", self.run_id.as_str()),
        ] {
            // The provisioner is unknown to `kube manifests`, which needs no cluster.
            if value.is_empty() {
                continue;
            }
            args.push(format!("--label={key}={value}"));
        }
        args
    }

    /// The Job of one pod. `suspended`: created suspended, so its pod only
    /// starts once its PVC (owned by the Job, so made after it) exists.
    pub fn job(&self, slot: &Slot, suspended: bool) -> Value {
        let name = self.name(slot);
        let labels = self.slot_labels(slot);
        let mut mounts = vec![
            json!({ "name": "data", "mountPath": DATA_DIR }),
            json!({ "name": "tmp", "mountPath": "/tmp" }),
        ];
        let data = match &self.host_path {
            Some(dir) => {
                json!({ "name": "data", "hostPath": { "path": dir, "type": "Directory" } })
            }
            None => json!({ "name": "data", "persistentVolumeClaim": { "claimName": name } }),
        };
        let mut volumes = vec![data, json!({ "name": "tmp", "emptyDir": {} })];
        if self.job_file.is_some() {
            mounts.push(json!({ "name": "job", "mountPath": JOB_DIR, "readOnly": true }));
            volumes.push(json!({ "name": "job", "configMap": { "name": self.config_map_name(slot.class_index) } }));
        }
        let env_from = |var: &str, path: &str| json!({ "name": var, "valueFrom": { "fieldRef": { "fieldPath": path } } });
        let mut env = vec![
            env_from("NODE_NAME", "spec.nodeName"),
            env_from("POD_NAME", "metadata.name"),
            json!({ "name": "HOME", "value": "/tmp" }),
        ];
        if self.db_password.is_some() {
            env.push(
                json!({ "name": "PGPASSWORD", "valueFrom": { "secretKeyRef": {
                "name": self.secret_name(slot.class_index), "key": "PGPASSWORD" } } }),
            );
        }
        let mut pod_spec = json!({
            "restartPolicy": "Never",
            "securityContext": {
                "runAsNonRoot": true,
                "runAsUser": POD_USER,
                "runAsGroup": POD_USER,
                "fsGroup": POD_USER,
                "seccompProfile": { "type": "RuntimeDefault" },
            },
            // Pods of a run on different nodes where there are several: a
            // class's pods then measure the storage, not one node's NIC.
            "affinity": { "podAntiAffinity": { "preferredDuringSchedulingIgnoredDuringExecution": [{
                "weight": 100,
                "podAffinityTerm": {
                    "labelSelector": { "matchLabels": { RUN_LABEL: self.run_id } },
                    "topologyKey": "kubernetes.io/hostname",
                },
            }]}},
            "containers": [{
                "name": "diskbench",
                "image": self.image,
                "imagePullPolicy": self.pull_policy,
                "command": ["/diskbench"],
                "args": self.pod_args(slot),
                "workingDir": DATA_DIR,
                "env": env,
                "securityContext": {
                    "allowPrivilegeEscalation": false,
                    "readOnlyRootFilesystem": true,
                    "capabilities": { "drop": ["ALL"] },
                },
                "volumeMounts": mounts,
            }],
            "volumes": volumes,
        });
        if self.host_network {
            pod_spec["hostNetwork"] = true.into();
        }
        if let Some(node) = &slot.node {
            pod_spec["affinity"]["nodeAffinity"] = json!({ "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{ "matchExpressions": [{
                    "key": "kubernetes.io/hostname", "operator": "In", "values": [node],
                }]}],
            }});
        }
        if self.host_path.is_some() {
            // A node's directory is the node's root's: fsGroup does not
            // reach a hostPath volume, so the pod writes as root, still
            // without a single capability or a way to gain one.
            pod_spec["securityContext"] = json!({
                "runAsUser": 0, "runAsGroup": 0,
                "seccompProfile": { "type": "RuntimeDefault" },
            });
        }
        json!({
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": self.metadata(&name, labels.clone(), Some(slot)),
            "spec": {
                "suspend": suspended,
                // One try: a failed measurement is reported, not retried on a fresh pod.
                "backoffLimit": 0,
                "ttlSecondsAfterFinished": self.ttl_seconds,
                "template": { "metadata": { "labels": labels }, "spec": pod_spec },
            },
        })
    }

    /// The PVC of one pod, owned by its Job when the Job's uid is known
    /// (deleting the Job, or its TTL running out, then deletes the PVC).
    pub fn pvc(&self, slot: &Slot, owner_uid: Option<&str>) -> Value {
        let name = self.name(slot);
        let mut meta = self.metadata(&name, self.slot_labels(slot), Some(slot));
        if let Some(uid) = owner_uid {
            meta["ownerReferences"] = json!([{
                "apiVersion": "batch/v1", "kind": "Job", "name": name, "uid": uid,
            }]);
        }
        json!({
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": meta,
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": slot.class,
                "resources": { "requests": { "storage": self.pvc_size } },
            },
        })
    }

    /// The Secret of one class's pods with the history's password, owned
    /// like the ConfigMap.
    pub fn secret(&self, class_index: usize, owners: &[(String, String)]) -> Option<Value> {
        let password = self.db_password.as_ref()?;
        let body = json!({ "type": "Opaque", "stringData": { "PGPASSWORD": password } });
        Some(self.class_object("Secret", &self.secret_name(class_index), owners, body))
    }

    /// The job file's ConfigMap of one class, owned by the class's Jobs
    /// (`owners`: name and uid), so it goes with the last of them.
    pub fn config_map(&self, class_index: usize, owners: &[(String, String)]) -> Option<Value> {
        let text = self.job_file.as_ref()?;
        let body = json!({ "data": { JOB_FILE: text } });
        Some(self.class_object(
            "ConfigMap",
            &self.config_map_name(class_index),
            owners,
            body,
        ))
    }

    /// A core/v1 object of one class with the run's labels, owned by the
    /// class's Jobs when their uids are known; `body` is the rest of it.
    fn class_object(
        &self,
        kind: &str,
        name: &str,
        owners: &[(String, String)],
        body: Value,
    ) -> Value {
        let mut meta = self.metadata(name, Value::Object(self.run_labels()), None);
        if !owners.is_empty() {
            meta["ownerReferences"] = owner_references(owners);
        }
        let mut object = json!({ "apiVersion": "v1", "kind": kind, "metadata": meta });
        if let (Some(o), Value::Object(rest)) = (object.as_object_mut(), body) {
            o.extend(rest);
        }
        object
    }
}

/// Jobs (name, uid) as the owners of an object: it goes with the last.
fn owner_references(owners: &[(String, String)]) -> Value {
    owners
        .iter()
        .map(|(name, uid)| json!({ "apiVersion": "batch/v1", "kind": "Job", "name": name, "uid": uid }))
        .collect()
}

/// Whether an object is the Job `job` or one of its own (its PVC, of the
/// same name, or its pod, `JOB-xxxxx`), and not the Job `JOB0`'s.
pub fn belongs_to(name: &str, job: &str) -> bool {
    name.strip_prefix(job)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('-'))
}

/// The label selector of one run's objects, or of every run's.
pub fn selector(run_id: Option<&str>) -> String {
    match run_id {
        Some(id) => format!("{MANAGED_BY}={MANAGED_BY_VALUE},{RUN_LABEL}={id}"),
        None => format!("{MANAGED_BY}={MANAGED_BY_VALUE}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> RunPlan {
        RunPlan {
            run_id: "20261126-071500-3f9a".into(),
            image: "diskbench:0.1.0".into(),
            pull_policy: "Never".into(),
            pvc_size: "2Gi".into(),
            host_network: false,
            ttl_seconds: 3600,
            job_file: Some("[r]\nrw=read\n".into()),
            agent_args: vec![],
            db_password: Some("s3cret".into()),
            command: vec!["run".into(), "--quick".into()],
            host_path: None,
        }
    }

    fn slot() -> Slot {
        Slot {
            class: "fast-ssd".into(),
            provisioner: "ebs.csi.aws.com".into(),
            class_index: 1,
            index: 0,
            node: None,
        }
    }

    #[test]
    fn every_object_carries_the_run_labels_and_the_pvc_is_owned_by_its_job() {
        let plan = plan();
        let job = plan.job(&slot(), true);
        let pvc = plan.pvc(&slot(), Some("uid-1"));
        let cm = plan.config_map(1, &[("j".into(), "uid-1".into())]).unwrap();
        for obj in [&job, &pvc, &cm, &job["spec"]["template"]] {
            assert_eq!(obj["metadata"]["labels"][MANAGED_BY], "diskbench", "{obj}");
            assert_eq!(obj["metadata"]["labels"][RUN_LABEL], plan.run_id, "{obj}");
        }
        assert_eq!(pvc["metadata"]["ownerReferences"][0]["uid"], "uid-1");
        assert_eq!(pvc["metadata"]["ownerReferences"][0]["kind"], "Job");
        assert_eq!(pvc["spec"]["storageClassName"], "fast-ssd");
        assert_eq!(job["spec"]["ttlSecondsAfterFinished"], 3600);
        assert_eq!(job["spec"]["suspend"], true);
        assert_eq!(pvc["metadata"]["name"], job["metadata"]["name"]);
    }

    #[test]
    fn pods_run_without_privileges_and_label_their_runs() {
        let job = plan().job(&slot(), false);
        let pod = &job["spec"]["template"]["spec"];
        assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
        assert_eq!(pod["securityContext"]["fsGroup"], POD_USER);
        let c = &pod["containers"][0];
        assert_eq!(c["securityContext"]["allowPrivilegeEscalation"], false);
        assert!(c["securityContext"].get("privileged").is_none());
        assert!(pod.get("hostNetwork").is_none());
        let args: Vec<&str> = c["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        assert_eq!(&args[..5], ["kube", "pod", "--", "run", "--quick"]);
        assert!(args.contains(&"--label=node=$(NODE_NAME)"), "{args:?}");
        assert!(args.contains(&"--label=storage_class=fast-ssd"), "{args:?}");
        assert!(
            args.contains(&"--label=provisioner=ebs.csi.aws.com"),
            "{args:?}"
        );
        // The job file is mounted where the command reads it.
        assert_eq!(c["volumeMounts"][2]["mountPath"], JOB_DIR);
    }

    #[test]
    fn the_history_password_is_in_a_secret_not_in_the_arguments() {
        let plan = plan();
        let job = plan.job(&slot(), false).to_string();
        assert!(!job.contains("s3cret"), "{job}");
        assert!(job.contains("secretKeyRef"), "{job}");
        let secret = plan.secret(1, &[]).unwrap();
        assert_eq!(secret["stringData"]["PGPASSWORD"], "s3cret");
        assert_eq!(secret["metadata"]["labels"][MANAGED_BY], "diskbench");
    }

    #[test]
    fn a_pod_per_node_is_held_to_its_node_and_a_host_path_is_the_named_directory() {
        let mut plan = plan();
        let mut slot = slot();
        slot.node = Some("node-b".into());
        let job = plan.job(&slot, false);
        let pod = &job["spec"]["template"]["spec"];
        let term = &pod["affinity"]["nodeAffinity"]
            ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]
            ["matchExpressions"][0];
        assert_eq!(term["key"], "kubernetes.io/hostname", "{pod}");
        assert_eq!(term["values"][0], "node-b", "{pod}");
        assert!(pod["volumes"][0]["persistentVolumeClaim"].is_object());
        plan.host_path = Some("/srv/bench".into());
        let job = plan.job(&slot, false);
        let pod = &job["spec"]["template"]["spec"];
        assert_eq!(pod["volumes"][0]["hostPath"]["path"], "/srv/bench", "{pod}");
        assert_eq!(pod["volumes"][0]["hostPath"]["type"], "Directory");
        let c = &pod["containers"][0];
        assert_eq!(c["securityContext"]["capabilities"]["drop"][0], "ALL");
        assert_eq!(c["securityContext"]["allowPrivilegeEscalation"], false);
        let work_dir = format!("--work-dir={}", plan.name(&slot));
        assert!(
            c["args"].as_array().unwrap().iter().any(|a| a == &work_dir),
            "{c}"
        );
    }

    #[test]
    fn a_jobs_own_objects_are_told_from_the_next_jobs() {
        assert!(belongs_to("diskbench-r-0-1", "diskbench-r-0-1"));
        assert!(belongs_to("diskbench-r-0-1-x7k2p", "diskbench-r-0-1"));
        assert!(!belongs_to("diskbench-r-0-10", "diskbench-r-0-1"));
        assert!(!belongs_to("diskbench-r-0-10-x7k2p", "diskbench-r-0-1"));
    }

    #[test]
    fn selectors_never_reach_beyond_diskbench_objects() {
        assert_eq!(selector(None), "app.kubernetes.io/managed-by=diskbench");
        assert_eq!(
            selector(Some("x")),
            "app.kubernetes.io/managed-by=diskbench,diskbench.io/run=x"
        );
    }
}
