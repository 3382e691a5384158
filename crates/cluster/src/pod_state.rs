//! What a pod's phase, container and claim say about where it is.
//!
//! A pod goes `pending` (its Job has no pod yet, or the scheduler has not
//! placed it), `binding` (its PVC waits for a volume), `starting` (placed,
//! volume bound, container not yet up), `running`, then `done` or
//! `failed`. An image the node cannot get (`ErrImageNeverPull`,
//! `ImagePullBackOff`, ...) fails a pod at once, since waiting never ends
//! it; a pod still not running after a timeout is failed with the
//! cluster's own reasons (the scheduler's message, the warning events).

use crate::PodInfo;
use std::time::Duration;

#[derive(Clone, Debug, PartialEq)]
pub enum State {
    Pending,
    Binding,
    Starting,
    Running,
    Done,
    Failed(String),
}

impl State {
    pub fn finished(&self) -> bool {
        matches!(self, State::Done | State::Failed(_))
    }

    pub fn started(&self) -> bool {
        matches!(self, State::Running | State::Done | State::Failed(_))
    }

    /// The order a pod goes through its states; a pod is never shown going
    /// back (a claim bound a moment before the pod's node is written).
    pub fn rank(&self) -> u8 {
        match self {
            State::Pending => 0,
            State::Binding => 1,
            State::Starting => 2,
            State::Running => 3,
            State::Done | State::Failed(_) => 4,
        }
    }

    pub fn word(&self) -> &str {
        match self {
            State::Pending => "pending",
            State::Binding => "binding",
            State::Starting => "starting",
            State::Running => "running",
            State::Done => "done",
            State::Failed(_) => "failed",
        }
    }
}

/// Container states that never end by waiting: the image is not there.
const IMAGE_PROBLEMS: [&str; 5] = [
    "ErrImageNeverPull",
    "ErrImagePull",
    "ImagePullBackOff",
    "InvalidImageName",
    "CreateContainerConfigError",
];

/// The state of a Job's pod (`None`: not made yet), given whether its PVC is bound.
pub fn state_of(pod: Option<&PodInfo>, pvc_bound: bool) -> State {
    let Some(pod) = pod else {
        return State::Pending;
    };
    if let Some((reason, message)) = &pod.waiting {
        if IMAGE_PROBLEMS.contains(&reason.as_str()) {
            return State::Failed(format!("{reason}: {message}; {}", crate::events::IMAGE_FIX));
        }
    }
    match pod.phase.as_str() {
        "Succeeded" => State::Done,
        "Failed" => State::Failed(match (&pod.ended_by, pod.exit_code) {
            // Evicted (a node short of disk or memory), preempted: the cluster's words.
            (Some(why), _) => format!("the cluster ended it: {why}"),
            (None, Some(code)) => format!("its command exited with {code}"),
            (None, None) => "the pod failed before its command ran".into(),
        }),
        "Running" => State::Running,
        _ if !pvc_bound => State::Binding,
        _ if pod.node.is_none() => State::Pending,
        _ => State::Starting,
    }
}

/// Whether the pod's container ever ran, so its log is worth reading.
pub fn container_ran(pod: &PodInfo) -> bool {
    matches!(pod.phase.as_str(), "Running" | "Succeeded") || pod.exit_code.is_some()
}

/// What the pod itself says keeps it from running: the scheduler's
/// message and its container's waiting reason.
pub fn pod_reasons(pod: &PodInfo) -> Vec<String> {
    let mut reasons = Vec::new();
    if let Some(m) = &pod.unschedulable {
        reasons.push(format!("scheduler: {m}"));
    }
    if let Some((r, m)) = &pod.waiting {
        reasons.push(format!("{r}: {m}"));
    }
    reasons
}

/// Why a pod is still in `state` after `timeout`, from `reasons` (the
/// pod's, then the warning events of the pod and its PVC).
pub fn still_waiting(state: &State, timeout: Duration, mut reasons: Vec<String>) -> String {
    reasons.dedup();
    let why = match reasons.last() {
        Some(_) => reasons.join("; "),
        None => "the cluster recorded no reason (no warning events)".into(),
    };
    format!(
        "still {} after {} s (--pending-timeout): {why}",
        state.word(),
        timeout.as_secs()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(phase: &str, node: Option<&str>) -> PodInfo {
        PodInfo {
            phase: phase.into(),
            node: node.map(String::from),
            ..PodInfo::default()
        }
    }

    #[test]
    fn states_follow_the_pod_and_its_claim() {
        assert_eq!(state_of(None, false), State::Pending);
        assert_eq!(state_of(Some(&pod("Pending", None)), false), State::Binding);
        assert_eq!(state_of(Some(&pod("Pending", None)), true), State::Pending);
        assert_eq!(
            state_of(Some(&pod("Pending", Some("n"))), true),
            State::Starting
        );
        assert_eq!(
            state_of(Some(&pod("Running", Some("n"))), true),
            State::Running
        );
        assert_eq!(
            state_of(Some(&pod("Succeeded", Some("n"))), true),
            State::Done
        );
        let mut failed = pod("Failed", Some("n"));
        failed.exit_code = Some(2);
        assert_eq!(
            state_of(Some(&failed), true),
            State::Failed("its command exited with 2".into())
        );
    }

    #[test]
    fn an_evicted_pod_fails_with_the_clusters_reason() {
        let mut evicted = pod("Failed", Some("n"));
        evicted.ended_by = Some("Evicted: The node was low on resource: ephemeral-storage.".into());
        assert_eq!(
            state_of(Some(&evicted), true),
            State::Failed(
                "the cluster ended it: Evicted: The node was low on resource: ephemeral-storage."
                    .into()
            )
        );
    }

    #[test]
    fn an_image_the_node_cannot_get_fails_at_once_with_the_fix() {
        let mut p = pod("Pending", Some("n"));
        p.waiting = Some(("ErrImageNeverPull".into(), "image not present".into()));
        match state_of(Some(&p), true) {
            State::Failed(why) => assert!(why.contains("kube image"), "{why}"),
            other => panic!("{other:?}"),
        }
    }
}
