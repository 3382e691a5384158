//! The cluster's nodes, as a run that measures node by node needs them:
//! which ones can take a pod, and which one has gone away in the middle.
//!
//! A node whose kubelet stops does not tell anyone. Its pods stay
//! `Running` in the API for as long as it is gone, and the node itself is
//! only marked `NotReady` (Ready `Unknown`) once the controller manager's
//! grace period has passed (50 s by default). The kubelet's heartbeat is
//! its Lease in `kube-node-lease`, renewed every 10 s: a lease not renewed
//! for [`LEASE_SILENCE`] (two renewals missed and then some) says the node
//! is gone well before that, and a run can report it as lost and go on
//! instead of waiting. Either sign is enough; a cluster that does not let
//! the user read leases still has the Ready condition.

use std::time::Duration;

/// How long a node's lease may go unrenewed before the node counts as
/// lost: the kubelet renews it every 10 s (a quarter of its 40 s term).
pub const LEASE_SILENCE: Duration = Duration::from_secs(25);

/// One node, as the cluster sees it now.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeInfo {
    pub name: String,
    /// The Ready condition: `True`, `False` or `Unknown` (no condition: "").
    pub ready: String,
    /// The Ready condition's reason and message (`NodeStatusUnknown`,
    /// "Kubelet stopped posting node status.").
    pub ready_reason: String,
    /// When the Ready condition last changed (RFC 3339, UTC).
    pub ready_since: String,
    /// `spec.unschedulable` (cordoned) or a NoSchedule/NoExecute taint.
    pub cordoned: bool,
    /// Seconds since the kubelet last renewed its lease, when readable.
    pub lease_age: Option<u64>,
    /// When the lease was last renewed (RFC 3339, UTC).
    pub lease_renewed: String,
}

impl NodeInfo {
    /// Whether a pod of a run may be placed there: Ready and not cordoned.
    pub fn schedulable(&self) -> bool {
        self.ready == "True" && !self.cordoned
    }

    /// Why the node counts as gone, with the time it went, or `None`.
    pub fn lost(&self) -> Option<String> {
        if self.ready == "False" || self.ready == "Unknown" {
            let reason = match self.ready_reason.is_empty() {
                true => String::new(),
                false => format!(": {}", self.ready_reason),
            };
            return Some(format!(
                "node {} NotReady since {}{reason}",
                self.name, self.ready_since
            ));
        }
        match self.lease_age {
            Some(age) if age >= LEASE_SILENCE.as_secs() => Some(format!(
                "node {}'s kubelet stopped renewing its lease: last renewed at {} ({age} s ago; it renews every 10 s)",
                self.name, self.lease_renewed
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(ready: &str, lease_age: Option<u64>) -> NodeInfo {
        NodeInfo {
            name: "node-b".into(),
            ready: ready.into(),
            ready_reason: "NodeStatusUnknown: Kubelet stopped posting node status.".into(),
            ready_since: "2026-11-27T20:00:50Z".into(),
            lease_age,
            lease_renewed: "2026-11-27T20:00:00Z".into(),
            ..NodeInfo::default()
        }
    }

    #[test]
    fn a_silent_lease_or_a_node_not_ready_is_lost_with_the_reason_and_the_time() {
        assert_eq!(node("True", Some(3)).lost(), None);
        assert_eq!(node("True", None).lost(), None);
        let silent = node("True", Some(LEASE_SILENCE.as_secs() + 1))
            .lost()
            .unwrap();
        assert!(
            silent.contains("node-b's kubelet stopped renewing"),
            "{silent}"
        );
        assert!(silent.contains("2026-11-27T20:00:00Z"), "{silent}");
        let unknown = node("Unknown", Some(1)).lost().unwrap();
        assert!(
            unknown.contains("NotReady since 2026-11-27T20:00:50Z: NodeStatusUnknown"),
            "{unknown}"
        );
    }

    #[test]
    fn only_ready_uncordoned_nodes_take_pods() {
        assert!(node("True", None).schedulable());
        assert!(!node("Unknown", None).schedulable());
        let mut cordoned = node("True", None);
        cordoned.cordoned = true;
        assert!(!cordoned.schedulable());
    }
}
