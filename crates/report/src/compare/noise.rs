//! Whether two groups differ by more than their noise. The table's mean ±
//! sd leaves the reader to guess; here each pair of groups gets the
//! Mann-Whitney rank test on its per-run figures (no assumption of
//! normality: one slow run cannot make or hide a difference alone), at the
//! 5% level, and each group its median with a distribution-free 95%
//! interval and relative range ([`analysis::stats`]). Groups of one run
//! have no noise to judge and are left out. With more than
//! [`ALL_PAIRS_UP_TO`] groups, each is tested against the first only, so
//! the list stays readable.

use super::{group_runs, shape, Metric, RunFigures};
use crate::charts::bar::group_label;
use analysis::stats::{rank_test, RankTest, Summary};
use model::RunRecord;

/// Up to this many groups, every pair is tested.
const ALL_PAIRS_UP_TO: usize = 6;

/// The metrics tested: throughput figures follow IOPS, and latency is its own.
const TESTED: [Metric; 2] = [Metric::Iops, Metric::P99LatencyUs];

/// One group's figures of one metric.
struct GroupFigures {
    name: String,
    values: Vec<f64>,
}

/// One pair's verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    pub metric: Metric,
    pub a: String,
    pub b: String,
    pub median_a: f64,
    pub median_b: f64,
    pub test: RankTest,
}

fn figures(records: &[RunRecord], by: &[String], metric: Metric) -> Vec<GroupFigures> {
    group_runs(records, by)
        .into_iter()
        .filter(|(_, runs)| {
            shape::mixed(runs.iter().map(|r| shape::of_metric(&r.result, metric))).is_none()
        })
        .map(|(labels, runs)| GroupFigures {
            name: group_label(by, &labels),
            values: runs
                .iter()
                .filter_map(|r| RunFigures::of(&r.result).get(metric))
                .collect(),
        })
        .filter(|g| g.values.len() >= 2)
        .collect()
}

/// The rank test of every pair (or of each group against the first).
pub fn differences(records: &[RunRecord], by: &[String]) -> Vec<Difference> {
    let mut out = Vec::new();
    for metric in TESTED {
        let groups = figures(records, by, metric);
        let pairs: Vec<(usize, usize)> = match groups.len() <= ALL_PAIRS_UP_TO {
            true => (0..groups.len())
                .flat_map(|i| (i + 1..groups.len()).map(move |j| (i, j)))
                .collect(),
            false => (1..groups.len()).map(|j| (0, j)).collect(),
        };
        for (i, j) in pairs {
            let (a, b) = (&groups[i], &groups[j]);
            let (Some(test), Some(sa), Some(sb)) = (
                rank_test(&a.values, &b.values),
                Summary::of(&a.values),
                Summary::of(&b.values),
            ) else {
                continue;
            };
            out.push(Difference {
                metric,
                a: a.name.clone(),
                b: b.name.clone(),
                median_a: sa.median,
                median_b: sb.median,
                test,
            });
        }
    }
    out
}

fn value(metric: Metric, v: f64) -> String {
    match metric {
        Metric::P99LatencyUs => crate::format::latency(v * 1e3),
        Metric::ReadMbPerS | Metric::WriteMbPerS => format!("{v:.1}"),
        Metric::Iops => format!("{v:.0}"),
    }
}

/// The text under the comparison table; empty when no group has two runs.
pub fn noise_text(records: &[RunRecord], by: &[String]) -> String {
    let mut out = String::new();
    for metric in TESTED {
        for g in figures(records, by, metric) {
            if let Some(s) = Summary::of(&g.values) {
                out.push_str(&format!(
                    "  {} {}: median {}\n",
                    g.name,
                    metric.title(),
                    s.text_with(|v| value(metric, v))
                ));
            }
        }
    }
    if out.is_empty() {
        return out;
    }
    let mut text = String::from(
        "\nMedians with 95% intervals that assume no distribution (order statistics):\n",
    );
    text.push_str(&out);
    let diffs = differences(records, by);
    if !diffs.is_empty() {
        text.push_str("Beyond the noise? (Mann-Whitney rank test on the runs, 5% level)\n");
    }
    for d in diffs {
        let verdict = match d.test.differs() {
            true => "differ",
            false => "within the noise",
        };
        text.push_str(&format!(
            "  {}: {} vs {}: {} vs {}: {verdict} (p = {:.3}{})\n",
            d.metric.title(),
            d.a,
            d.b,
            value(d.metric, d.median_a),
            value(d.metric, d.median_b),
            d.test.p_value,
            if d.test.exact { ", exact" } else { "" }
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: i64, disk: &str, iops: u64) -> RunRecord {
        let mut r = crate::testutil::record_with_job(iops);
        r.id = id;
        r.labels.insert("disk".to_string(), disk.to_string());
        r
    }

    #[test]
    fn groups_apart_differ_and_groups_alike_do_not() {
        let by = vec!["disk".to_string()];
        let mut runs: Vec<RunRecord> = (0..8).map(|i| run(i, "a", 1000 + i as u64)).collect();
        runs.extend((0..8).map(|i| run(10 + i, "b", 1200 + i as u64)));
        // c interleaves with a: one figure apart each.
        runs.extend((0..8).map(|i| {
            run(
                20 + i,
                "c",
                1000 + i as u64 + if i % 2 == 0 { 1 } else { 0 },
            )
        }));
        let d = differences(&runs, &by);
        let iops: Vec<&Difference> = d.iter().filter(|d| d.metric == Metric::Iops).collect();
        let find = |a: &str, b: &str| iops.iter().find(|d| d.a == a && d.b == b).unwrap();
        assert!(find("a", "b").test.differs(), "{d:?}");
        assert!(!find("a", "c").test.differs(), "{d:?}");
        let text = noise_text(&runs, &by);
        assert!(text.contains("a vs b: 1004 vs 1204: differ"), "{text}");
        assert!(text.contains("median 1004 (95% CI"), "{text}");
    }

    #[test]
    fn groups_of_one_run_have_no_noise_to_judge() {
        let by = vec!["disk".to_string()];
        let runs = vec![run(1, "a", 1000), run(2, "b", 2000)];
        assert!(differences(&runs, &by).is_empty());
        assert_eq!(noise_text(&runs, &by), "");
    }
}
