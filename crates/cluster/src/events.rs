//! The cluster's warning events about a run's pods and claims, and which of
//! them waiting never ends. A pod on a cluster without a pod network is
//! told `FailedCreatePodSandBox ... failed to setup network` every few
//! seconds and stays Pending for ever; before, `kube run` waited out its
//! whole `--pending-timeout` (5 minutes) and then said nothing useful.
//! Such an event now fails the pod at once, with the event's own words and
//! the fix:
//!
//! - no pod network (`FailedCreatePodSandBox` naming the network or CNI):
//!   `--host-network` runs the pods on the nodes' own network;
//! - an image the node cannot get (`ErrImageNeverPull`, a `Failed` pull):
//!   load this diskbench on the nodes (`kube image`), or give one they can
//!   pull;
//! - a StorageClass that does not exist (`ProvisioningFailed ... not
//!   found`): `kubectl get storageclass` lists those there are;
//! - no PersistentVolume for a class without a provisioner (`FailedBinding
//!   ... no persistent volumes available`, `FailedScheduling ... didn't find
//!   available persistent volumes to bind`): create the volumes, or use a
//!   class with a provisioner.
//!
//! Other warnings (a scheduler waiting for room, a provisioner retrying)
//! can end by waiting, and are only said if the pod times out.

use k8s_openapi::api::core::v1::Event;

/// The fix for an image the nodes cannot get, shared with `pod_state`.
pub const IMAGE_FIX: &str = "give an image the nodes can get (--image, --pull-policy), or load \
     this diskbench on each node: diskbench kube image -o diskbench.tar, then ctr -n k8s.io \
     images import diskbench.tar";

/// One event, as far as a run needs it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventInfo {
    /// `Warning` or `Normal`.
    pub kind: String,
    pub reason: String,
    pub message: String,
    /// The name of the object it is about (a pod, a claim).
    pub object: String,
}

impl EventInfo {
    /// What the API returned (or `kubectl get events -o json` prints, each
    /// of its `items`).
    pub fn of(e: Event) -> EventInfo {
        EventInfo {
            kind: e.type_.unwrap_or_default(),
            reason: e.reason.unwrap_or_default(),
            message: e.message.unwrap_or_default().trim().to_string(),
            object: e.involved_object.name.unwrap_or_default(),
        }
    }

    /// `Reason: message`, as the cluster says it.
    pub fn text(&self) -> String {
        format!("{}: {}", self.reason, self.message)
    }

    /// Why the pod can never start, with the fix, when this event says
    /// something waiting does not end (see the module comment).
    pub fn blocking(&self) -> Option<String> {
        let m = self.message.to_lowercase();
        let fix = match self.reason.as_str() {
            "FailedCreatePodSandBox" if m.contains("network") || m.contains("cni") => {
                "the cluster has no working pod network: --host-network runs the pods on the \
                 nodes' own network (or install a network plugin)"
            }
            "ErrImageNeverPull" => IMAGE_FIX,
            "Failed" if m.contains("pull") && m.contains("image") => IMAGE_FIX,
            "ProvisioningFailed" if m.contains("storageclass") && m.contains("not found") => {
                "the StorageClass does not exist: `kubectl get storageclass` lists those there are"
            }
            "FailedBinding" if m.contains("no persistent volumes available") => {
                "no PersistentVolume matches the claim and nothing provisions one: create \
                 PersistentVolumes of the class (one per pod, at least --size), or use a class \
                 with a provisioner"
            }
            "FailedScheduling" if m.contains("didn't find available persistent volumes") => {
                "no PersistentVolume of the class is free on any node: create PersistentVolumes \
                 of the class (one per pod, at least --size), or use a class with a provisioner"
            }
            _ => return None,
        };
        Some(format!("{}; {fix}", self.text()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An event as the API gives it (the shape of `kubectl get events -o
    /// json`'s items), with the message the issue quotes from a cluster
    /// whose pods had no network.
    const SANDBOX: &str = r#"{
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "diskbench-r1-c0-p0-x7k2q.17a", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "diskbench-r1-c0-p0-x7k2q", "namespace": "default"},
        "reason": "FailedCreatePodSandBox",
        "message": "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox \"0c1f\": plugin type=\"bridge\" failed (add): failed to set bridge addr: could not add IP address to \"cni0\": permission denied",
        "type": "Warning",
        "count": 12,
        "source": {"component": "kubelet", "host": "node-1"}
    }"#;

    fn event(json: &str) -> EventInfo {
        EventInfo::of(serde_json::from_str::<Event>(json).unwrap())
    }

    #[test]
    fn a_pod_without_a_network_is_blocked_with_the_fix() {
        let e = event(SANDBOX);
        assert_eq!(e.kind, "Warning");
        assert_eq!(e.object, "diskbench-r1-c0-p0-x7k2q");
        let why = e.blocking().expect("blocking");
        assert!(
            why.starts_with("FailedCreatePodSandBox: Failed to create pod sandbox"),
            "{why}"
        );
        assert!(why.contains("--host-network"), "{why}");
    }

    #[test]
    fn what_waiting_can_end_is_not_blocking() {
        let waiting = SANDBOX
            .replace("FailedCreatePodSandBox", "FailedScheduling")
            .replace(
                "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox \\\"0c1f\\\": plugin type=\\\"bridge\\\" failed (add): failed to set bridge addr: could not add IP address to \\\"cni0\\\": permission denied",
                "0/1 nodes are available: 1 Insufficient memory.",
            );
        let e = event(&waiting);
        assert_eq!(e.reason, "FailedScheduling");
        assert_eq!(e.blocking(), None, "{e:?}");
        let missing = EventInfo {
            kind: "Warning".into(),
            reason: "ProvisioningFailed".into(),
            message: "storageclass.storage.k8s.io \"fast\" not found".into(),
            object: "diskbench-r1-c0-p0".into(),
        };
        assert!(missing
            .blocking()
            .unwrap()
            .contains("kubectl get storageclass"));
        let no_pv = EventInfo {
            reason: "FailedBinding".into(),
            message: "no persistent volumes available for this claim and no storage class is set"
                .into(),
            ..missing
        };
        assert!(no_pv
            .blocking()
            .unwrap()
            .contains("create PersistentVolumes"));
    }
}
