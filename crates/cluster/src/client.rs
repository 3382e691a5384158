//! The connection to a cluster and every call diskbench makes on it, as
//! plain blocking functions: the CLI is synchronous, so the async client
//! runs on a small runtime of its own here and nowhere else.
//!
//! Configuration is resolved as kubectl resolves it (`$KUBECONFIG`, then
//! `~/.kube/config`, then the pod's service account when run in a
//! cluster; `--context` picks a context). Every call that can be refused
//! says what it was doing, so a refusal names the verb and resource a
//! Role must grant ([`ClusterError`]).

use crate::error::{api_error, ClusterError};
use crate::events::EventInfo;
use crate::nodes::NodeInfo;
use crate::objects::{selector, CLASS_LABEL, POD_LABEL, RUN_LABEL};
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Event, Node, PersistentVolumeClaim, Pod, Secret};
use k8s_openapi::api::storage::v1::StorageClass;
use kube::api::{Api, DeleteParams, ListParams, LogParams, Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use serde_json::Value;
use std::time::Duration;

/// A cluster diskbench talks to, in one namespace.
pub struct Cluster {
    runtime: tokio::runtime::Runtime,
    client: kube::Client,
    pub namespace: String,
    /// The API server's URL, for messages.
    pub server: String,
}

/// A StorageClass as `kube run` needs it.
#[derive(Clone, Debug)]
pub struct ClassInfo {
    pub name: String,
    pub provisioner: String,
    pub default: bool,
}

/// What a pod of a run is doing, read from the cluster.
#[derive(Clone, Debug, Default)]
pub struct PodInfo {
    pub name: String,
    pub class_index: usize,
    pub index: usize,
    /// Pending, Running, Succeeded, Failed.
    pub phase: String,
    pub node: Option<String>,
    /// Why the container waits (`ErrImageNeverPull`, `ImagePullBackOff`, ...) and the runtime's words.
    pub waiting: Option<(String, String)>,
    /// Why the scheduler has not placed it (the PodScheduled condition's message).
    pub unschedulable: Option<String>,
    pub exit_code: Option<i32>,
    /// Why the pod itself ended, when the cluster ended it (`Evicted:
    /// The node was low on resource: ephemeral-storage.`).
    pub ended_by: Option<String>,
}

/// One object of a run, for `cleanup` and the count of what is left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owned {
    /// `job`, `pvc`, `configmap`, `secret` or `pod`.
    pub kind: &'static str,
    pub name: String,
    pub run_id: String,
}

impl std::fmt::Display for Owned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.kind, self.name)
    }
}

fn label_index(labels: Option<&std::collections::BTreeMap<String, String>>, key: &str) -> usize {
    labels
        .and_then(|l| l.get(key))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

impl Cluster {
    /// Connects with the current context of the kubeconfig (or `context`),
    /// or the pod's service account, and checks the server answers and
    /// takes the credential.
    pub fn connect(
        context: Option<&str>,
        namespace: Option<&str>,
    ) -> Result<Cluster, ClusterError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ClusterError::Config(format!("cannot start the client's runtime: {e}")))?;
        let config = runtime.block_on(async {
            match context {
                Some(ctx) => {
                    let options = KubeConfigOptions {
                        context: Some(ctx.to_string()),
                        ..Default::default()
                    };
                    kube::Config::from_kubeconfig(&options)
                        .await
                        .map_err(|e| ClusterError::Config(format!("context {ctx}: {e}")))
                }
                None => kube::Config::infer().await.map_err(|e| {
                    ClusterError::Config(format!(
                        "no cluster configured ({e}): set KUBECONFIG or write ~/.kube/config \
                         (as for kubectl), or run inside a cluster"
                    ))
                }),
            }
        })?;
        let server = config.cluster_url.to_string();
        let namespace = namespace
            .map(String::from)
            .unwrap_or_else(|| config.default_namespace.clone());
        // The client spawns its connection task on the runtime it is made in.
        let _inside = runtime.enter();
        let client = kube::Client::try_from(config)
            .map_err(|e| ClusterError::Config(format!("cannot set up the client: {e}")))?;
        drop(_inside);
        let cluster = Cluster {
            runtime,
            client,
            namespace,
            server,
        };
        cluster
            .runtime
            .block_on(cluster.client.apiserver_version())
            .map_err(|e| api_error(&cluster.server, "read", "the server's version", e))?;
        Ok(cluster)
    }

    /// The contexts of the kubeconfig, for an unknown `--context`.
    pub fn contexts() -> Vec<String> {
        Kubeconfig::read()
            .map(|k| k.contexts.into_iter().map(|c| c.name).collect())
            .unwrap_or_default()
    }

    fn api<K>(&self) -> Api<K>
    where
        K: kube::Resource<Scope = kube::core::NamespaceResourceScope>,
        <K as kube::Resource>::DynamicType: Default,
    {
        Api::namespaced(self.client.clone(), &self.namespace)
    }

    fn fail(&self, verb: &str, what: &str) -> impl Fn(kube::Error) -> ClusterError + '_ {
        let (verb, what) = (verb.to_string(), what.to_string());
        move |e| api_error(&self.server, &verb, &what, e)
    }

    /// Every StorageClass, with its provisioner and whether it is the default.
    pub fn storage_classes(&self) -> Result<Vec<ClassInfo>, ClusterError> {
        let api: Api<StorageClass> = Api::all(self.client.clone());
        let list = self
            .runtime
            .block_on(api.list(&ListParams::default()))
            .map_err(self.fail("list", "storageclasses"))?;
        Ok(list
            .items
            .into_iter()
            .map(|sc| {
                let default = sc
                    .metadata
                    .annotations
                    .as_ref()
                    .and_then(|a| a.get("storageclass.kubernetes.io/is-default-class"))
                    .is_some_and(|v| v == "true");
                ClassInfo {
                    name: sc.metadata.name.unwrap_or_default(),
                    provisioner: sc.provisioner,
                    default,
                }
            })
            .collect())
    }

    /// Creates one object (a Job, a PVC or a ConfigMap, as [`crate::objects`]
    /// writes them) and returns its uid.
    pub fn create(&self, object: &Value) -> Result<String, ClusterError> {
        let kind = object["kind"].as_str().unwrap_or_default();
        let name = object["metadata"]["name"].as_str().unwrap_or_default();
        let what = format!("{} {name}", kind.to_lowercase());
        let bad = |e: serde_json::Error| ClusterError::Config(format!("{what}: {e}"));
        let pp = PostParams::default();
        let meta = self.runtime.block_on(async {
            match kind {
                "Job" => {
                    let job: Job = serde_json::from_value(object.clone()).map_err(bad)?;
                    self.api::<Job>()
                        .create(&pp, &job)
                        .await
                        .map(|o| o.metadata)
                }
                "PersistentVolumeClaim" => {
                    let pvc: PersistentVolumeClaim =
                        serde_json::from_value(object.clone()).map_err(bad)?;
                    self.api::<PersistentVolumeClaim>()
                        .create(&pp, &pvc)
                        .await
                        .map(|o| o.metadata)
                }
                "Secret" => {
                    let secret: Secret = serde_json::from_value(object.clone()).map_err(bad)?;
                    self.api::<Secret>()
                        .create(&pp, &secret)
                        .await
                        .map(|o| o.metadata)
                }
                "ConfigMap" => {
                    let cm: ConfigMap = serde_json::from_value(object.clone()).map_err(bad)?;
                    self.api::<ConfigMap>()
                        .create(&pp, &cm)
                        .await
                        .map(|o| o.metadata)
                }
                other => {
                    return Err(ClusterError::Config(format!(
                        "diskbench does not create {other} objects"
                    )))
                }
            }
            .map_err(|e| api_error(&self.server, "create", &resource_of(kind), e))
        })?;
        Ok(meta.uid.unwrap_or_default())
    }

    /// Lets a suspended Job start its pod.
    pub fn resume_job(&self, name: &str) -> Result<(), ClusterError> {
        let patch = serde_json::json!({ "spec": { "suspend": false } });
        self.runtime
            .block_on(
                self.api::<Job>()
                    .patch(name, &PatchParams::default(), &Patch::Merge(&patch)),
            )
            .map_err(self.fail("patch", "jobs"))?;
        Ok(())
    }

    /// The nodes (those `selector` picks, a label selector as kubectl's
    /// `-l`), each with its Ready condition and, when the user may read
    /// leases, the age of its kubelet's lease.
    pub fn nodes(&self, selector: Option<&str>) -> Result<Vec<NodeInfo>, ClusterError> {
        let mut lp = ListParams::default();
        if let Some(s) = selector {
            lp = lp.labels(s);
        }
        let api: Api<Node> = Api::all(self.client.clone());
        let list = self
            .runtime
            .block_on(api.list(&lp))
            .map_err(self.fail("list", "nodes"))?;
        let leases: Api<Lease> = Api::namespaced(self.client.clone(), "kube-node-lease");
        // Without the right to read leases, the Ready condition alone tells.
        let leases = self
            .runtime
            .block_on(leases.list(&ListParams::default()))
            .map(|l| l.items)
            .unwrap_or_default();
        let now = now_seconds();
        Ok(list
            .items
            .into_iter()
            .map(|n| {
                let name = n.metadata.name.clone().unwrap_or_default();
                let spec = n.spec.unwrap_or_default();
                let cordoned = spec.unschedulable == Some(true)
                    || spec.taints.unwrap_or_default().iter().any(|t| {
                        matches!(t.effect.as_str(), "NoSchedule" | "NoExecute")
                            && !t.key.starts_with("node.kubernetes.io/unreachable")
                            && !t.key.starts_with("node.kubernetes.io/not-ready")
                    });
                let mut info = NodeInfo {
                    name: name.clone(),
                    cordoned,
                    ..NodeInfo::default()
                };
                let conditions = n.status.and_then(|s| s.conditions).unwrap_or_default();
                if let Some(c) = conditions.into_iter().find(|c| c.type_ == "Ready") {
                    info.ready = c.status;
                    info.ready_reason = [c.reason, c.message]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join(": ");
                    info.ready_since = c
                        .last_transition_time
                        .map(|t| t.0.to_string())
                        .unwrap_or_default();
                }
                let renewed = leases
                    .iter()
                    .find(|l| l.metadata.name.as_deref() == Some(name.as_str()))
                    .and_then(|l| l.spec.as_ref()?.renew_time.clone());
                if let Some(t) = renewed {
                    info.lease_age = Some(now.saturating_sub(t.0.as_second()).max(0) as u64);
                    info.lease_renewed = t.0.to_string();
                }
                info
            })
            .collect())
    }

    /// The pods of a run, as the cluster sees them now.
    pub fn pods(&self, run_id: &str) -> Result<Vec<PodInfo>, ClusterError> {
        let lp = ListParams::default().labels(&selector(Some(run_id)));
        let list = self
            .runtime
            .block_on(self.api::<Pod>().list(&lp))
            .map_err(self.fail("list", "pods"))?;
        Ok(list.items.into_iter().map(pod_info).collect())
    }

    /// The phase of each PVC of a run (`Pending`, `Bound`, `Lost`), by name.
    pub fn pvc_phases(&self, run_id: &str) -> Result<Vec<(String, String)>, ClusterError> {
        let lp = ListParams::default().labels(&selector(Some(run_id)));
        let list = self
            .runtime
            .block_on(self.api::<PersistentVolumeClaim>().list(&lp))
            .map_err(self.fail("list", "persistentvolumeclaims"))?;
        Ok(list
            .items
            .into_iter()
            .map(|p| {
                let phase = p.status.and_then(|s| s.phase).unwrap_or_default();
                (p.metadata.name.unwrap_or_default(), phase)
            })
            .collect())
    }

    /// The warnings the cluster recorded about an object (newest last):
    /// why a pod is not scheduled, why a volume is not provisioned.
    pub fn warnings(&self, name: &str) -> Result<Vec<String>, ClusterError> {
        Ok(self
            .warning_events(name)?
            .iter()
            .map(EventInfo::text)
            .collect())
    }

    /// The warning events about an object, newest last.
    pub fn warning_events(&self, name: &str) -> Result<Vec<EventInfo>, ClusterError> {
        let lp = ListParams::default().fields(&format!("involvedObject.name={name},type=Warning"));
        let list = self
            .runtime
            .block_on(self.api::<Event>().list(&lp))
            .map_err(self.fail("list", "events"))?;
        let mut events: Vec<_> = list.items;
        events.sort_by_key(|e| e.last_timestamp.clone().map(|t| t.0));
        Ok(events.into_iter().map(EventInfo::of).collect())
    }

    /// A pod's whole log.
    pub fn log(&self, pod: &str) -> Result<String, ClusterError> {
        self.runtime
            .block_on(self.api::<Pod>().logs(pod, &LogParams::default()))
            .map_err(self.fail("get", "pods/log"))
    }

    /// Every object diskbench made in the namespace (of one run, or of all).
    pub fn owned(&self, run_id: Option<&str>) -> Result<Vec<Owned>, ClusterError> {
        let lp = ListParams::default().labels(&selector(run_id));
        let run_of = |labels: Option<&std::collections::BTreeMap<String, String>>| {
            labels
                .and_then(|l| l.get(RUN_LABEL))
                .cloned()
                .unwrap_or_default()
        };
        let mut out = Vec::new();
        self.runtime.block_on(async {
            macro_rules! list {
                ($kind:ty, $name:expr, $resource:expr) => {
                    for o in self
                        .api::<$kind>()
                        .list(&lp)
                        .await
                        .map_err(|e| api_error(&self.server, "list", $resource, e))?
                        .items
                    {
                        out.push(Owned {
                            kind: $name,
                            run_id: run_of(o.metadata.labels.as_ref()),
                            name: o.metadata.name.unwrap_or_default(),
                        });
                    }
                };
            }
            list!(Job, "job", "jobs");
            list!(Pod, "pod", "pods");
            list!(PersistentVolumeClaim, "pvc", "persistentvolumeclaims");
            list!(ConfigMap, "configmap", "configmaps");
            list!(Secret, "secret", "secrets");
            Ok::<(), ClusterError>(())
        })?;
        Ok(out)
    }

    /// Deletes every object diskbench made for a run (or for every run):
    /// Jobs with their pods, then PVCs and ConfigMaps. Only objects with
    /// diskbench's labels are listed, so nothing else is touched. Returns
    /// what it asked to delete.
    pub fn delete_owned(&self, run_id: Option<&str>) -> Result<Vec<Owned>, ClusterError> {
        let objects = self.owned(run_id)?;
        let dp = DeleteParams::background();
        self.runtime.block_on(async {
            for o in &objects {
                macro_rules! delete {
                    ($kind:ty) => {
                        self.api::<$kind>().delete(&o.name, &dp).await.map(|_| ())
                    };
                }
                let done = match o.kind {
                    "job" => delete!(Job),
                    "pod" => delete!(Pod),
                    "pvc" => delete!(PersistentVolumeClaim),
                    "secret" => delete!(Secret),
                    _ => delete!(ConfigMap),
                };
                match done {
                    Ok(()) => {}
                    // Gone already (a Job's pods go with it): what was wanted.
                    Err(kube::Error::Api(s)) if s.code == 404 => {}
                    Err(e) => {
                        return Err(api_error(&self.server, "delete", &resource_of(o.kind), e))
                    }
                }
            }
            Ok(())
        })?;
        Ok(objects)
    }

    /// Waits until no object of the run is left (pods finish terminating,
    /// PVCs lose their protection finalizer); returns what is still there
    /// after `timeout`. Objects whose names start with one of `spare`
    /// (the pods and claims of a lost node, which only that node can let
    /// go) are not waited for.
    pub fn wait_gone(
        &self,
        run_id: Option<&str>,
        timeout: Duration,
        spare: &[String],
    ) -> Result<Vec<Owned>, ClusterError> {
        let start = std::time::Instant::now();
        loop {
            let mut left = self.owned(run_id)?;
            left.retain(|o| !spare.iter().any(|s| crate::objects::belongs_to(&o.name, s)));
            if left.is_empty() || start.elapsed() >= timeout {
                return Ok(left);
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

/// Now, in seconds since the epoch, as the API's times are compared.
fn now_seconds() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The API's plural resource name of a kind, for messages and RBAC.
fn resource_of(kind: &str) -> String {
    match kind {
        "Job" | "job" => "jobs",
        "PersistentVolumeClaim" | "pvc" => "persistentvolumeclaims",
        "ConfigMap" | "configmap" => "configmaps",
        "Secret" | "secret" => "secrets",
        "Pod" | "pod" => "pods",
        other => other,
    }
    .to_string()
}

fn pod_info(pod: Pod) -> PodInfo {
    let labels = pod.metadata.labels.as_ref();
    let mut info = PodInfo {
        class_index: label_index(labels, CLASS_LABEL),
        index: label_index(labels, POD_LABEL),
        name: pod.metadata.name.clone().unwrap_or_default(),
        node: pod.spec.as_ref().and_then(|s| s.node_name.clone()),
        ..PodInfo::default()
    };
    let Some(status) = pod.status else {
        info.phase = "Pending".into();
        return info;
    };
    info.phase = status.phase.unwrap_or_else(|| "Pending".into());
    if let Some(reason) = status.reason {
        info.ended_by = Some(match status.message {
            Some(m) => format!("{reason}: {m}"),
            None => reason,
        });
    }
    for c in status.conditions.unwrap_or_default() {
        if c.type_ == "PodScheduled" && c.status == "False" {
            info.unschedulable = c.message;
        }
    }
    if let Some(state) = status
        .container_statuses
        .and_then(|cs| cs.into_iter().next())
        .and_then(|c| c.state)
    {
        if let Some(w) = state.waiting {
            info.waiting = Some((w.reason.unwrap_or_default(), w.message.unwrap_or_default()));
        }
        if let Some(t) = state.terminated {
            info.exit_code = Some(t.exit_code);
        }
    }
    info
}
