//! Following the pods of one class until each is done or failed, with a
//! progress line on stderr whenever a pod changes state.
//!
//! A pod goes `pending` (its Job has no pod yet, or the scheduler has not
//! placed it), `binding` (its PVC waits for a volume), `starting` (placed,
//! volume bound, container not yet up), `running`, then `done` or
//! `failed`. Two things fail a pod early instead of letting the user
//! wait: an image the node cannot get (`ErrImageNeverPull`,
//! `ImagePullBackOff`, ...), and a pod still not running after the
//! pending timeout, which is reported with the cluster's own reasons (the
//! scheduler's message, the pod's and the PVC's warning events).

use cluster::objects::{RunPlan, Slot};
use cluster::{Cluster, ClusterError, PodInfo};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

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
    fn finished(&self) -> bool {
        matches!(self, State::Done | State::Failed(_))
    }

    fn started(&self) -> bool {
        matches!(self, State::Running | State::Done | State::Failed(_))
    }

    /// The order a pod goes through its states; a pod is never shown going
    /// back (a claim bound a moment before the pod's node is written).
    fn rank(&self) -> u8 {
        match self {
            State::Pending => 0,
            State::Binding => 1,
            State::Starting => 2,
            State::Running => 3,
            State::Done | State::Failed(_) => 4,
        }
    }

    fn word(&self) -> &str {
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

/// What became of one pod.
#[derive(Clone, Debug)]
pub struct PodEnd {
    pub slot: Slot,
    pub state: State,
    /// The pod, if one was ever made.
    pub pod: Option<PodInfo>,
    /// Whether its container ran, so its log is worth reading.
    pub started: bool,
}

/// How a class's wait ended.
pub struct Watched {
    pub pods: Vec<PodEnd>,
    pub interrupted: bool,
}

pub fn follow(
    cluster: &Cluster,
    plan: &RunPlan,
    slots: &[Slot],
    pending_timeout: Duration,
    stop: &AtomicBool,
) -> Result<Watched, ClusterError> {
    let start = Instant::now();
    let mut ends: Vec<PodEnd> = slots
        .iter()
        .map(|s| PodEnd {
            slot: s.clone(),
            state: State::Pending,
            pod: None,
            started: false,
        })
        .collect();
    let total = slots.len();
    for end in &ends {
        progress(end, total, start);
    }
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(Watched {
                pods: ends,
                interrupted: true,
            });
        }
        let pods = cluster.pods(&plan.run_id)?;
        let pvcs = cluster.pvc_phases(&plan.run_id)?;
        for end in ends.iter_mut().filter(|e| !e.state.finished()) {
            let name = plan.name(&end.slot);
            let pod = pods
                .iter()
                .find(|p| p.class_index == end.slot.class_index && p.index == end.slot.index)
                .cloned();
            let bound = pvcs.iter().any(|(n, phase)| *n == name && phase == "Bound");
            let mut state = state_of(pod.as_ref(), bound);
            if !state.started() && !state.finished() && start.elapsed() >= pending_timeout {
                state = State::Failed(not_started(
                    cluster,
                    &name,
                    pod.as_ref(),
                    &state,
                    pending_timeout,
                ));
            }
            end.started |= pod.as_ref().is_some_and(|p| {
                matches!(p.phase.as_str(), "Running" | "Succeeded") || p.exit_code.is_some()
            });
            end.pod = pod;
            if state.rank() > end.state.rank() {
                end.state = state;
                progress(end, total, start);
            }
        }
        if ends.iter().all(|e| e.state.finished()) {
            return Ok(Watched {
                pods: ends,
                interrupted: false,
            });
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn state_of(pod: Option<&PodInfo>, pvc_bound: bool) -> State {
    let Some(pod) = pod else {
        return State::Pending;
    };
    if let Some((reason, message)) = &pod.waiting {
        if IMAGE_PROBLEMS.contains(&reason.as_str()) {
            return State::Failed(format!(
                "{reason}: {message}; give an image the nodes can get (--image, --pull-policy), \
                 or load this diskbench on each node: diskbench kube image -o diskbench.tar, \
                 then ctr -n k8s.io images import diskbench.tar"
            ));
        }
    }
    match pod.phase.as_str() {
        "Succeeded" => State::Done,
        "Failed" => State::Failed(match pod.exit_code {
            Some(code) => format!("its command exited with {code}"),
            None => "the pod failed before its command ran".into(),
        }),
        "Running" => State::Running,
        _ if !pvc_bound => State::Binding,
        _ if pod.node.is_none() => State::Pending,
        _ => State::Starting,
    }
}

/// Why a pod is still not running, in the cluster's words.
fn not_started(
    cluster: &Cluster,
    name: &str,
    pod: Option<&PodInfo>,
    state: &State,
    timeout: Duration,
) -> String {
    let mut reasons: Vec<String> = Vec::new();
    if let Some(p) = pod {
        if let Some(m) = &p.unschedulable {
            reasons.push(format!("scheduler: {m}"));
        }
        if let Some((r, m)) = &p.waiting {
            reasons.push(format!("{r}: {m}"));
        }
        reasons.extend(cluster.warnings(&p.name).unwrap_or_default());
    }
    // The PVC's events (a provisioner that failed, a size it cannot give).
    reasons.extend(cluster.warnings(name).unwrap_or_default());
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

fn progress(end: &PodEnd, total: usize, start: Instant) {
    let node = end
        .pod
        .as_ref()
        .and_then(|p| p.node.as_deref())
        .map(|n| format!(" on {n}"))
        .unwrap_or_default();
    let detail = match &end.state {
        // The whole story (and the fix) comes under the table.
        State::Failed(why) => format!(": {}", why.split(';').next().unwrap_or_default()),
        _ => String::new(),
    };
    eprintln!(
        "  [{:>5.1} s] {} pod {}/{}: {}{node}{detail}",
        start.elapsed().as_secs_f64(),
        end.slot.class,
        end.slot.index + 1,
        total,
        end.state.word()
    );
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
    fn an_image_the_node_cannot_get_fails_at_once_with_the_fix() {
        let mut p = pod("Pending", Some("n"));
        p.waiting = Some(("ErrImageNeverPull".into(), "image not present".into()));
        match state_of(Some(&p), true) {
            State::Failed(why) => assert!(why.contains("kube image"), "{why}"),
            other => panic!("{other:?}"),
        }
    }
}
