//! The pods of a `diskbench kube run`: a row per pod (its StorageClass,
//! its name and node, and the compare table's four figures, by the same
//! rule, [`RunFigures`]), then per class the aggregate of its pods, which
//! ran at the same time on volumes of their own: IOPS and MB/s summed,
//! the worst pod's p99. A pod whose run has no figure for a column leaves
//! the aggregate's cell empty rather than summing fewer pods.

use crate::compare::{aligned, Metric, RunFigures};
use crate::format::three_digits;
use model::RunRecord;
use std::collections::BTreeMap;

/// The labels a `kube run` gives every run, as the table reads them.
pub const CLASS: &str = "storage_class";
pub const POD: &str = "pod";
pub const NODE: &str = "node";

fn cell(metric: Metric, value: Option<f64>) -> String {
    match (metric, value) {
        (_, None) => "-".into(),
        (Metric::P99LatencyUs, Some(us)) => crate::format::latency(us * 1e3),
        (_, Some(v)) => three_digits(v),
    }
}

/// The per-pod rows and each class's aggregate.
pub fn table(runs: &[RunRecord]) -> String {
    let label = |r: &RunRecord, k: &str| r.labels.get(k).cloned().unwrap_or_default();
    let mut by_class: BTreeMap<String, Vec<(&RunRecord, RunFigures)>> = BTreeMap::new();
    for r in runs {
        by_class
            .entry(label(r, CLASS))
            .or_default()
            .push((r, RunFigures::of(&r.result)));
    }
    let mut rows = vec![["storage class", "pod", "node"]
        .iter()
        .map(|s| s.to_string())
        .chain(Metric::ALL.iter().map(|m| m.title().to_string()))
        .collect::<Vec<String>>()];
    for (class, pods) in &mut by_class {
        pods.sort_by_key(|(r, _)| label(r, POD));
        for (r, f) in pods.iter() {
            let mut row = vec![class.clone(), label(r, POD), label(r, NODE)];
            row.extend(Metric::ALL.iter().map(|m| cell(*m, f.get(*m))));
            rows.push(row);
        }
        if pods.len() > 1 {
            let mut row = vec![
                class.clone(),
                format!("all {} pods", pods.len()),
                String::new(),
            ];
            for m in Metric::ALL {
                let values: Option<Vec<f64>> = pods.iter().map(|(_, f)| f.get(m)).collect();
                let total = values.map(|v| match m {
                    Metric::P99LatencyUs => v.into_iter().fold(0.0, f64::max),
                    _ => v.into_iter().sum(),
                });
                row.push(cell(m, total));
            }
            rows.push(row);
        }
    }
    let mut out = aligned(&rows, 3);
    if by_class.values().any(|p| p.len() > 1) {
        out.push_str(
            "(\"all N pods\": IOPS and MB/s summed over the pods, which ran at once; p99 of the slowest pod)\n",
        );
    }
    out
}

/// A kube run's last line: how long, how many pods of all gave results
/// (the ones counted, not the total less the failures: an interrupted run
/// or a class never reached has no failure for its pods), what is left.
pub fn last_line(
    run_id: &str,
    took: std::time::Duration,
    gave: usize,
    pods: usize,
    clean: bool,
) -> String {
    format!(
        "kube run {run_id}: {:.1} s, {gave} of {pods} pods gave results; {}",
        took.as_secs_f64(),
        match clean {
            true => "no object left in the cluster",
            false => "objects left: run `diskbench kube cleanup`",
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::record_with_job;

    #[test]
    fn pods_are_listed_and_summed_per_class() {
        let mut runs = Vec::new();
        for (class, pod, iops) in [
            ("fast", "p1", 1000),
            ("fast", "p0", 3000),
            ("slow", "q0", 50),
        ] {
            let mut r = record_with_job(iops);
            r.labels.insert(CLASS.into(), class.into());
            r.labels.insert(POD.into(), pod.into());
            r.labels.insert(NODE.into(), "n1".into());
            runs.push(r);
        }
        let text = table(&runs);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("storage class  pod"), "{text}");
        // Sorted by class, then pod; the aggregate sums the class's IOPS.
        assert!(
            lines[1].starts_with("fast") && lines[1].contains("p0"),
            "{text}"
        );
        assert!(
            lines[3].contains("all 2 pods") && lines[3].contains("4000"),
            "{text}"
        );
        assert!(
            lines[4].starts_with("slow") && lines[4].contains("50.0"),
            "{text}"
        );
        assert_eq!(
            text.matches("all ").count(),
            2,
            "one aggregate and its note: {text}"
        );
    }

    /// An interrupted run whose 4 pods never started said "4 of 4 pods
    /// gave results" (the total less the failures, and it had none): the
    /// count is of the pods whose results were gathered.
    #[test]
    fn the_last_line_counts_the_pods_that_gave_results() {
        let line = last_line("r1", std::time::Duration::from_secs(3), 0, 4, true);
        assert!(line.contains(" 0 of 4 pods gave results"), "{line}");
        assert!(line.ends_with("no object left in the cluster"), "{line}");
    }
}
