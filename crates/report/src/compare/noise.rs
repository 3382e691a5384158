//! Whether two groups differ by more than their noise. The table's mean ±
//! sd leaves the reader to guess; here each pair of groups gets the
//! Mann-Whitney rank test on its per-run figures (no assumption of
//! normality: one slow run cannot make or hide a difference alone), at the
//! 5% level, and each group its median with a distribution-free 95%
//! interval and relative range ([`analysis::stats`]). Groups of one run
//! have no noise to judge and are left out. Groups too small for the test
//! to reach 5% at all (2 runs against 2 never go below p = 0.333) are
//! "too few runs to tell", never "within the noise": a tenfold difference
//! between two pairs of runs is not noise, it is untested. Every pair's
//! line keeps the ratio of the medians and each group's range, so the
//! size of the difference is on the page whatever the test can say. With more than
//! [`ALL_PAIRS_UP_TO`] groups, each is tested against the first only, so
//! the list stays readable.

use super::{group_runs, shape, Metric, RunFigures};
use crate::charts::bar::group_label;
use analysis::stats::{
    min_runs_per_group, other_group_needs, rank_test, RankTest, RankVerdict, Summary,
};
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
    /// Each group's lowest and highest figure.
    pub range_a: (f64, f64),
    pub range_b: (f64, f64),
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
                range_a: (sa.min, sa.max),
                range_b: (sb.min, sb.max),
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
        let p = format!(
            "p = {:.3}{}",
            d.test.p_value,
            if d.test.exact { ", exact" } else { "" }
        );
        let verdict = match d.test.verdict() {
            RankVerdict::Differ => format!("differ ({p})"),
            RankVerdict::WithinNoise => format!("within the noise ({p})"),
            RankVerdict::TooFew { n_a, n_b } => too_few(n_a, n_b),
        };
        let range =
            |(lo, hi): (f64, f64)| format!("{}-{}", value(d.metric, lo), value(d.metric, hi));
        text.push_str(&format!(
            "  {}: {} vs {}: {} vs {} ({}; ranges {} vs {}): {verdict}\n",
            d.metric.title(),
            d.a,
            d.b,
            value(d.metric, d.median_a),
            value(d.metric, d.median_b),
            ratio_text(&d),
            range(d.range_a),
            range(d.range_b),
        ));
    }
    text
}

/// `too few runs to tell: 2 vs 2; a rank test needs at least 4 vs 4 at
/// 5%`, with what the larger group would need when the smaller one stays.
pub fn too_few(n_a: usize, n_b: usize) -> String {
    let each = min_runs_per_group();
    let small = n_a.min(n_b);
    let or = match other_group_needs(small) {
        Some(m) if small < each && m > n_a.max(n_b) => format!(", or {small} vs {m}"),
        _ => String::new(),
    };
    format!("too few runs to tell: {n_a} vs {n_b}; a rank test needs at least {each} vs {each}{or} at 5%")
}

/// `b is 11.6x a`: the larger median over the smaller, named.
fn ratio_text(d: &Difference) -> String {
    let (hi, lo, hi_name, lo_name) = match d.median_b >= d.median_a {
        true => (d.median_b, d.median_a, &d.b, &d.a),
        false => (d.median_a, d.median_b, &d.a, &d.b),
    };
    match lo > 0.0 {
        true => format!("{hi_name} is {:.2}x {lo_name}", hi / lo),
        false => format!("{lo_name} is 0"),
    }
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
        assert!(
            text.contains(
                "a vs b: 1004 vs 1204 (b is 1.20x a; ranges 1000-1007 vs 1200-1207): differ (p = "
            ),
            "{text}"
        );
        assert!(text.contains("a vs c: 1004 vs 1004"), "{text}");
        assert!(text.contains("within the noise (p = "), "{text}");
        assert!(text.contains("median 1004 (95% CI"), "{text}");
    }

    /// Two runs against two, ten times apart: the rank test cannot reach
    /// 5% with so few, so the line says "too few runs to tell" and still
    /// shows the ratio and each group's range, never "within the noise".
    #[test]
    fn two_runs_against_two_are_too_few_to_tell_not_noise() {
        let by = vec!["disk".to_string()];
        let runs = vec![
            run(1, "disk", 27_000),
            run(2, "disk", 27_500),
            run(3, "tmpfs", 310_000),
            run(4, "tmpfs", 320_000),
        ];
        let text = noise_text(&runs, &by);
        let line = text
            .lines()
            .find(|l| l.contains("IOPS: disk vs tmpfs"))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(!text.contains("within the noise"), "{text}");
        assert!(
            line.ends_with(
                "too few runs to tell: 2 vs 2; a rank test needs at least 4 vs 4, or 2 vs 8 at 5%"
            ),
            "{line}"
        );
        let ratio = 315_000.0 / 27_250.0;
        assert!(
            line.contains(&format!("tmpfs is {ratio:.2}x disk")),
            "{line}"
        );
        assert!(
            line.contains("ranges 27000-27500 vs 310000-320000"),
            "{line}"
        );
    }

    #[test]
    fn groups_of_one_run_have_no_noise_to_judge() {
        let by = vec!["disk".to_string()];
        let runs = vec![run(1, "a", 1000), run(2, "b", 2000)];
        assert!(differences(&runs, &by).is_empty());
        assert_eq!(noise_text(&runs, &by), "");
    }
}
