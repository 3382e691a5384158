//! Which node's storage is not like the others: the table of a `kube run
//! --per-node`, one row per node and StorageClass (or host directory).
//!
//! Each row holds the node's median IOPS over its runs, the median and
//! range of the rest of the nodes' runs, and the node's distance from them
//! (its median over theirs). A node is named slow or fast only when the
//! difference is beyond the run-to-run spread: its runs against all the
//! other nodes' runs, by the same Mann-Whitney rank test and verdict
//! `compare` uses ([`analysis::stats::RankTest::verdict_at`]). The rest
//! pools every other node's runs, so their spread holds both each node's
//! run-to-run noise and the differences between ordinary nodes: a node is
//! named only when its runs sit apart from all of that.
//!
//! Several nodes are several tests: with two nodes there is one question
//! (a against b), at 5%; with more, each node is tested at 5% divided by
//! the number of nodes, so that a fleet where nothing differs has a node
//! named by chance at most 5% of the time. With too few runs for the test
//! to reach its level at all (1 run per node on 2 nodes, 3 against 3) the
//! row says it cannot tell and why, and still shows both figures.

use crate::compare::{aligned, Metric, RunFigures};
use crate::format::three_digits;
use analysis::stats::{rank_test, smallest_p_value, RankVerdict, Summary, CONFIDENCE};
use model::RunRecord;
use std::collections::BTreeMap;

/// The labels a per-node run gives every run.
use crate::pods::{CLASS, NODE};

/// One node's row.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeRow {
    pub class: String,
    pub node: String,
    pub runs: usize,
    pub median: f64,
    pub range: (f64, f64),
    /// The other nodes' runs: median and range; `None` for a lone node.
    pub rest: Option<Summary>,
    pub verdict: String,
    /// `slow`, `fast`, or empty: what the verdict names.
    pub named: &'static str,
}

/// The rows of every class and node, classes and nodes in name order.
pub fn rows(records: &[RunRecord]) -> Vec<NodeRow> {
    let label = |r: &RunRecord, k: &str| r.labels.get(k).cloned().unwrap_or_default();
    let mut by_class: BTreeMap<String, BTreeMap<String, Vec<f64>>> = BTreeMap::new();
    for r in records {
        if let Some(v) = RunFigures::of(&r.result).get(Metric::Iops) {
            by_class
                .entry(label(r, CLASS))
                .or_default()
                .entry(label(r, NODE))
                .or_default()
                .push(v);
        }
    }
    let mut out = Vec::new();
    for (class, nodes) in &by_class {
        // One question with two nodes; one per node with more.
        let tests = if nodes.len() <= 2 { 1 } else { nodes.len() };
        let level = (1.0 - CONFIDENCE) / tests as f64;
        for (node, values) in nodes {
            let rest: Vec<f64> = nodes
                .iter()
                .filter(|(n, _)| *n != node)
                .flat_map(|(_, v)| v.iter().copied())
                .collect();
            let Some(own) = Summary::of(values) else {
                continue;
            };
            let rest_summary = Summary::of(&rest);
            let (verdict, named) = match (rank_test(values, &rest), &rest_summary) {
                (Some(t), Some(r)) => match t.verdict_at(level) {
                    RankVerdict::Differ => {
                        let named = if own.median < r.median {
                            "slow"
                        } else {
                            "fast"
                        };
                        (
                            format!("{named} (p = {:.3}{})", t.p_value, at(level)),
                            named,
                        )
                    }
                    RankVerdict::WithinNoise => (
                        format!("like the rest (p = {:.3}{})", t.p_value, at(level)),
                        "",
                    ),
                    RankVerdict::TooFew { n_a, n_b } => (cannot_tell(n_a, n_b, level), ""),
                },
                _ => ("no other node to compare with".into(), ""),
            };
            out.push(NodeRow {
                class: class.clone(),
                node: node.clone(),
                runs: values.len(),
                median: own.median,
                range: (own.min, own.max),
                rest: rest_summary,
                verdict,
                named,
            });
        }
    }
    out
}

/// The level named when it is not the usual 5%.
fn at(level: f64) -> String {
    match level < 1.0 - CONFIDENCE {
        true => format!(" < {:.4}, 5% shared by the nodes", level),
        false => String::new(),
    }
}

/// Why the rank test cannot say anything with these counts, and what
/// would let it: compare's own wording at 5%.
fn cannot_tell(n_a: usize, n_b: usize, level: f64) -> String {
    if level >= 1.0 - CONFIDENCE {
        return format!("cannot tell: {}", crate::compare::noise::too_few(n_a, n_b));
    }
    let each = (1..=1000)
        .find(|&n| smallest_p_value(n, n * (n_b / n_a.max(1)).max(1)) < level)
        .map_or("more".to_string(), |n| n.to_string());
    format!(
        "cannot tell: too few runs to tell: {n_a} vs {n_b} cannot reach p < {level:.4} \
         (5% shared by the nodes); --runs {each} can"
    )
}

fn range_text((lo, hi): (f64, f64)) -> String {
    format!("{}-{}", three_digits(lo), three_digits(hi))
}

/// A node that went away during the run: no figures, the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LostNode {
    pub class: String,
    pub node: String,
    pub why: String,
}

/// The table: one row per node, its distance from the rest, the verdict;
/// a node lost during the run has its row too, with why.
pub fn table(records: &[RunRecord], lost: &[LostNode]) -> String {
    let rows = rows(records);
    let mut cells = vec![[
        "storage class",
        "node",
        "runs",
        "IOPS (median, range)",
        "the rest (median, range)",
        "distance",
        "verdict",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect::<Vec<String>>()];
    for r in &rows {
        let (rest, distance) = match &r.rest {
            Some(s) => (
                format!(
                    "{} ({})",
                    three_digits(s.median),
                    range_text((s.min, s.max))
                ),
                match s.median > 0.0 {
                    true => format!("{:.2}x", r.median / s.median),
                    false => "-".into(),
                },
            ),
            None => ("-".into(), "-".into()),
        };
        cells.push(vec![
            r.class.clone(),
            r.node.clone(),
            r.runs.to_string(),
            format!("{} ({})", three_digits(r.median), range_text(r.range)),
            rest,
            distance,
            r.verdict.clone(),
        ]);
    }
    for l in lost {
        cells.push(vec![
            l.class.clone(),
            l.node.clone(),
            "-".into(),
            "-".into(),
            "-".into(),
            "-".into(),
            format!("lost: {}", l.why),
        ]);
    }
    let mut out = aligned(&cells, 7);
    out.push_str(
        "(distance: the node's median over the rest's; a node is named slow or fast only when a rank \
         test of its runs against the rest's says so at 5%)\n",
    );
    // Of two nodes apart, the slower is the one to look at.
    let pairs = |class: &str| rows.iter().filter(|r| r.class == class).count() == 2;
    for r in rows.iter().filter(|r| match r.named {
        "" => false,
        "fast" => !pairs(&r.class),
        _ => true,
    }) {
        let rest = r.rest.as_ref().map_or(0.0, |s| s.median);
        out.push_str(&format!(
            "{} is the {} node of {}: {} IOPS against {} for the rest\n",
            r.node,
            r.named,
            r.class,
            three_digits(r.median),
            three_digits(rest)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::record_with_job;

    fn runs(node: &str, iops: &[u64]) -> Vec<RunRecord> {
        iops.iter()
            .map(|&i| {
                let mut r = record_with_job(i);
                r.labels.insert(CLASS.into(), "local".into());
                r.labels.insert(NODE.into(), node.into());
                r
            })
            .collect()
    }

    #[test]
    fn a_node_apart_from_the_rest_beyond_its_spread_is_named_with_both_figures() {
        let mut records = runs("node-a", &[300_000, 310_000, 305_000, 298_000]);
        records.extend(runs("node-b", &[20_000, 21_000, 19_500, 20_500]));
        let found = rows(&records);
        let b = found.iter().find(|r| r.node == "node-b").unwrap();
        assert_eq!(b.named, "slow", "{b:?}");
        assert_eq!(
            found.iter().find(|r| r.node == "node-a").unwrap().named,
            "fast"
        );
        let lost = LostNode {
            class: "local".into(),
            node: "node-c".into(),
            why: "node node-c NotReady since 2026-11-27T20:00:50Z".into(),
        };
        let text = table(&records, &[lost]);
        assert!(
            text.lines().any(|l| l.starts_with("local")
                && l.contains("node-c")
                && l.ends_with("lost: node node-c NotReady since 2026-11-27T20:00:50Z")),
            "{text}"
        );
        assert!(
            text.contains(
                "node-b is the slow node of local: 20250 IOPS against 302500 for the rest"
            ),
            "{text}"
        );
    }

    /// Three runs against three can never reach 5% (p >= 0.1): no node is
    /// named, however far apart, and the row says why.
    #[test]
    fn three_runs_a_node_on_two_nodes_cannot_tell() {
        let mut records = runs("node-a", &[300_000, 310_000, 305_000]);
        records.extend(runs("node-b", &[20_000, 21_000, 19_500]));
        let found = rows(&records);
        assert!(found.iter().all(|r| r.named.is_empty()), "{found:?}");
        assert!(
            found[0]
                .verdict
                .starts_with("cannot tell: too few runs to tell: 3 vs 3"),
            "{found:?}"
        );
    }

    #[test]
    fn nodes_alike_are_like_the_rest() {
        let mut records = runs("node-a", &[1000, 1040, 990, 1010, 1030]);
        records.extend(runs("node-b", &[1020, 1000, 1035, 995, 1015]));
        let found = rows(&records);
        assert!(found.iter().all(|r| r.named.is_empty()), "{found:?}");
        assert!(found[0].verdict.starts_with("like the rest"), "{found:?}");
    }

    /// With four nodes each is one of four tests at 5%/4 = 1.25%: 3 runs
    /// wholly below 9 (p = 2/C(12,3) = 0.009) are named; 2 runs below 6
    /// (p = 2/C(8,2) = 0.071 at best) cannot be, and the row says so.
    #[test]
    fn several_nodes_share_the_five_percent() {
        let mut records = runs("n1", &[100, 101, 102]);
        for (k, n) in ["n2", "n3", "n4"].iter().enumerate() {
            let k = 10 * k as u64;
            records.extend(runs(n, &[1000 + k, 1001 + k, 1002 + k]));
        }
        let found = rows(&records);
        let n1 = found.iter().find(|r| r.node == "n1").unwrap();
        assert_eq!(n1.named, "slow", "{n1:?}");
        let mut records = runs("n1", &[100, 101]);
        for (k, n) in ["n2", "n3", "n4"].iter().enumerate() {
            let k = 10 * k as u64;
            records.extend(runs(n, &[1000 + k, 1001 + k]));
        }
        let found = rows(&records);
        assert!(found.iter().all(|r| r.named.is_empty()), "{found:?}");
        assert!(
            found[0].verdict.contains("5% shared by the nodes"),
            "{found:?}"
        );
    }
}
