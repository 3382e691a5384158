//! Following the pods of one class until each is done or failed, with a
//! progress line on stderr whenever a pod changes state. What a pod's
//! phase, container and claim mean (`pending`, `binding`, `starting`,
//! `running`, `done`, `failed`, and an image the node cannot get failing
//! it at once) is `cluster::pod_state`'s; this loop asks the cluster every
//! half second, fails a pod at once when a warning event says waiting will
//! not start it (no pod network, no volume, no StorageClass:
//! `cluster::events`), and fails a pod still not running after
//! `--pending-timeout` with the cluster's own reasons.
//!
//! Every 2 s it also reads the nodes its pods are on (or are held to): a
//! node gone NotReady, or whose kubelet stopped renewing its lease
//! (`cluster::nodes`), makes its pod *lost* at once, with the reason and
//! the time; the other pods go on, and nothing waits for a node that is
//! gone (its pod would stay `Running` in the API for as long as it is).

use cluster::objects::{RunPlan, Slot};
use cluster::pod_state;
pub use cluster::pod_state::State;
use cluster::{Cluster, ClusterError, PodInfo};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What became of one pod.
#[derive(Clone, Debug)]
pub struct PodEnd {
    pub slot: Slot,
    /// Its Job's name (also its PVC's, and the start of its pod's).
    pub job: String,
    pub state: State,
    /// The pod, if one was ever made.
    pub pod: Option<PodInfo>,
    /// Whether its container ran, so its log is worth reading.
    pub started: bool,
    /// Its node went away: no log to read, and only the node can let the
    /// pod and its claim go.
    pub lost: bool,
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
            job: plan.name(s),
            state: State::Pending,
            pod: None,
            started: false,
            lost: false,
        })
        .collect();
    let total = slots.len();
    for end in &ends {
        progress(end, total, start);
    }
    let mut poll = 0u64;
    loop {
        poll = poll.wrapping_add(1);
        if stop.load(Ordering::Relaxed) {
            return Ok(Watched {
                pods: ends,
                interrupted: true,
            });
        }
        let pods = cluster.pods(&plan.run_id)?;
        let pvcs = cluster.pvc_phases(&plan.run_id)?;
        let lost_nodes = match poll % EVENT_POLLS == 1 {
            true => lost_nodes(cluster),
            false => Vec::new(),
        };
        for end in ends.iter_mut().filter(|e| !e.state.finished()) {
            let name = plan.name(&end.slot);
            let pod = pods
                .iter()
                .find(|p| p.class_index == end.slot.class_index && p.index == end.slot.index)
                .cloned();
            let bound = plan.host_path.is_some()
                || pvcs.iter().any(|(n, phase)| *n == name && phase == "Bound");
            let mut state = pod_state::state_of(pod.as_ref(), bound);
            let node = pod
                .as_ref()
                .and_then(|p| p.node.clone())
                .or_else(|| end.slot.node.clone());
            if let Some((_, why)) = lost_nodes.iter().find(|(n, _)| Some(n) == node.as_ref()) {
                if !state.finished() {
                    state = State::Failed(format!(
                        "lost: {why}; noticed {:.1} s into the run",
                        start.elapsed().as_secs_f64()
                    ));
                    end.lost = true;
                }
            }
            let waiting = !state.started() && !state.finished();
            if waiting && poll % EVENT_POLLS == 1 {
                if let Some(why) = blocked(cluster, &name, pod.as_ref()) {
                    state = State::Failed(why);
                }
            }
            if !state.finished() && !state.started() && start.elapsed() >= pending_timeout {
                state = State::Failed(not_started(
                    cluster,
                    &name,
                    pod.as_ref(),
                    &state,
                    pending_timeout,
                ));
            }
            end.started |= pod.as_ref().is_some_and(pod_state::container_ran);
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

/// A waiting pod's events are read every this many polls (2 s).
const EVENT_POLLS: u64 = 4;

/// The nodes gone away, each with why; none when the nodes cannot be read
/// (a user without the right to list them keeps the pods' own signs).
fn lost_nodes(cluster: &Cluster) -> Vec<(String, String)> {
    cluster
        .nodes(None)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|n| Some((n.name.clone(), n.lost()?)))
        .collect()
}

/// Why a waiting pod will never start, when a warning event about it or
/// its claim says so (see `cluster::events`).
fn blocked(cluster: &Cluster, name: &str, pod: Option<&PodInfo>) -> Option<String> {
    let mut events = Vec::new();
    if let Some(p) = pod {
        events.extend(cluster.warning_events(&p.name).unwrap_or_default());
    }
    events.extend(cluster.warning_events(name).unwrap_or_default());
    events.iter().find_map(cluster::events::EventInfo::blocking)
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
        reasons = pod_state::pod_reasons(p);
        reasons.extend(cluster.warnings(&p.name).unwrap_or_default());
    }
    // The PVC's events (a provisioner that failed, a size it cannot give).
    reasons.extend(cluster.warnings(name).unwrap_or_default());
    pod_state::still_waiting(state, timeout, reasons)
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
    // A node's pod is named by its node (one at a time, it is 1 of 1).
    let which = match &end.slot.node {
        Some(n) => format!("{n}'s pod"),
        None => format!("pod {}/{total}", end.slot.index + 1),
    };
    eprintln!(
        "  [{:>5.1} s] {} {which}: {}{node}{detail}",
        start.elapsed().as_secs_f64(),
        end.slot.class,
        end.state.word()
    );
}
