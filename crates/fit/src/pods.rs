//! A workload's verdicts across a cluster (`kube run --fit etcd`): one line
//! per pod, then one per StorageClass. A class is fit only when every one
//! of its pods is: the program lands on whichever node the scheduler picks,
//! so a class with one slow node is not fit for it, and the class's line
//! names that pod and its node. The verdicts are [`judge`]'s on each pod's
//! own run, the same as `diskbench fit` on that node would print.

use crate::judge::{judge, Judged, Report, Verdict};
use crate::text::figure;
use crate::Workload;
use model::RunResult;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One pod's run and where it ran.
pub struct PodRun<'a> {
    pub class: &'a str,
    pub pod: &'a str,
    pub node: &'a str,
    pub result: &'a RunResult,
}

/// A pod whose node was lost during the run (NotReady, or its kubelet
/// silent): it gave no run, and its class no verdict it did not earn.
pub struct LostPod<'a> {
    pub class: &'a str,
    pub node: &'a str,
    pub why: &'a str,
}

/// A requirement in a few words: "WAL fdatasync p99 2.43 ms: fit".
fn short(j: &Judged) -> String {
    let value = match &j.measured {
        Some(m) => figure(j.figure, m.value),
        None => "not measured".to_string(),
    };
    let verdict = match (j.verdict, j.ratio) {
        (Verdict::Fit, _) => "fit".to_string(),
        (Verdict::NotFit, Some(r)) if !j.figure.larger_is_better() => {
            format!("not fit, {r:.1}x the limit")
        }
        (Verdict::NotFit, Some(r)) => format!("not fit, {:.0}% of the minimum", r * 100.0),
        (Verdict::NotFit, None) => "not fit".to_string(),
        (Verdict::NoLimit, _) => "no limit published".to_string(),
        (Verdict::NotMeasured, _) => "no verdict".to_string(),
    };
    format!("{} {value}: {verdict}", j.label)
}

fn answer(r: &Report) -> &'static str {
    match r.fit {
        Some(true) => "fit",
        Some(false) => "not fit",
        None => "no verdict",
    }
}

/// Every pod's verdicts and each class's, in words; a lost pod has its
/// line, and keeps its class from a verdict of fit.
pub fn render(workload: &Workload, pods: &[PodRun], lost: &[LostPod]) -> String {
    let mut by_class: BTreeMap<&str, Vec<(&PodRun, Report)>> = BTreeMap::new();
    for p in pods {
        by_class
            .entry(p.class)
            .or_default()
            .push((p, judge(workload, p.result)));
    }
    for l in lost {
        by_class.entry(l.class).or_default();
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} on each pod (a storage class is fit only when every pod of it is):",
        workload.name
    );
    for (class, judged) in &mut by_class {
        judged.sort_by(|a, b| a.0.pod.cmp(b.0.pod));
        for (p, r) in judged.iter() {
            let lines: Vec<String> = r.requirements.iter().map(short).collect();
            let _ = writeln!(
                out,
                "  {class}, pod {} on {}: {}: {}",
                p.pod,
                p.node,
                answer(r),
                lines.join("; ")
            );
        }
        let lost: Vec<&LostPod> = lost.iter().filter(|l| l.class == *class).collect();
        for l in &lost {
            let _ = writeln!(
                out,
                "  {class}, pod on {}: lost ({}): no verdict",
                l.node, l.why
            );
        }
        let _ = writeln!(out, "  {class}: {}", class_answer(judged, &lost));
    }
    out
}

/// A class's verdict from its pods' and those lost with their node.
fn class_answer(judged: &[(&PodRun, Report)], lost: &[&LostPod]) -> String {
    let total = judged.len() + lost.len();
    let not_fit: Vec<String> = judged
        .iter()
        .filter(|(_, r)| r.fit == Some(false))
        .map(|(p, _)| format!("pod {} on {}", p.pod, p.node))
        .collect();
    let fit = judged.iter().filter(|(_, r)| r.fit == Some(true)).count();
    let nodes: Vec<&str> = lost.iter().map(|l| l.node).collect();
    match (not_fit.is_empty(), fit == total, lost.is_empty()) {
        (false, _, _) => format!(
            "not fit: {} of {total} pods broke a requirement ({})",
            not_fit.len(),
            not_fit.join(", ")
        ),
        (true, true, _) => format!("fit: every requirement kept on all {total} pods"),
        (true, false, false) => format!(
            "no verdict: {fit} of {total} pods fit, {} lost with {} ({})",
            lost.len(),
            match lost.len() {
                1 => "its node",
                _ => "their nodes",
            },
            nodes.join(", ")
        ),
        (true, false, true) => format!(
            "no verdict: {fit} of {total} pods fit, the others gave no verdict (no published \
             limit, or a check measured nothing)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{JobResult, JobSpec};

    /// A run of etcd's WAL check whose every sync took `sync_ms`.
    fn wal_run(sync_ms: f64) -> RunResult {
        let mut job = JobResult::empty(&JobSpec::new("etcd-wal"), 0, 1);
        for _ in 0..1000 {
            job.sync.record((sync_ms * 1e6) as u64);
            job.write.clat.record(1_000);
        }
        job.write.ios = 1000;
        job.runtime_ns = 1_000_000_000;
        RunResult {
            jobs: vec![job],
            ..Default::default()
        }
    }

    /// A class with one slow pod is not fit, and the slow pod and its
    /// node are named; a class whose pods all keep the rule is fit.
    #[test]
    fn a_class_is_fit_only_when_every_pod_is_and_the_slow_pod_is_named() {
        let etcd = crate::catalogue::find("etcd").unwrap();
        let fast = wal_run(2.0);
        let slow = wal_run(31.0);
        let pods = [
            PodRun {
                class: "disk",
                pod: "1",
                node: "node-a",
                result: &fast,
            },
            PodRun {
                class: "disk",
                pod: "2",
                node: "node-b",
                result: &slow,
            },
            PodRun {
                class: "tmpfs",
                pod: "1",
                node: "node-a",
                result: &fast,
            },
        ];
        let text = render(etcd, &pods, &[]);
        assert!(
            text.contains("disk: not fit: 1 of 2 pods broke a requirement (pod 2 on node-b)"),
            "{text}"
        );
        assert!(
            text.contains("disk, pod 2 on node-b: not fit: WAL fdatasync p99 31.0 ms: not fit, 3.1x the limit"),
            "{text}"
        );
        assert!(
            text.contains("disk, pod 1 on node-a: ")
                && text.contains("WAL fdatasync p99 2.00 ms: fit"),
            "{text}"
        );
        // The tmpfs class's one pod has no backend check in its run: no
        // verdict for the class, not a fit it did not show.
        assert!(text.contains("tmpfs: no verdict"), "{text}");
    }

    /// A pod lost with its node has its line, and its class gets no
    /// verdict of fit from the pods that were left: the program may land
    /// on that node too.
    #[test]
    fn a_lost_node_keeps_its_class_from_fit_and_is_named() {
        let etcd = crate::catalogue::find("etcd").unwrap();
        // Both of etcd's checks, each sync 2 ms: fit.
        let mut fit = wal_run(2.0);
        let mut backend = fit.jobs[0].clone();
        backend.name = "etcd-backend".to_string();
        fit.jobs.push(backend);
        let pods = [PodRun {
            class: "local",
            pod: "1",
            node: "node-a",
            result: &fit,
        }];
        let lost = [LostPod {
            class: "local",
            node: "node-b",
            why: "NotReady at 12:00:03",
        }];
        let text = render(etcd, &pods, &lost);
        assert!(
            text.contains("local, pod on node-b: lost (NotReady at 12:00:03): no verdict"),
            "{text}"
        );
        assert!(
            text.contains("local: no verdict: 1 of 2 pods fit, 1 lost with its node (node-b)"),
            "{text}"
        );
        // Only lost pods: the class still has its lines.
        let text = render(etcd, &[], &lost);
        assert!(
            text.contains("local: no verdict: 0 of 1 pods fit, 1 lost"),
            "{text}"
        );
    }
}
