//! `diskbench compare`: the table of Brian Cunnie's 2018 benchmark of cloud disks built from the history. Runs are
//! grouped by labels (provider, disk, size, ...) and each group gets the
//! mean, spread and confidence of its per-run figures, so "gp2 does 3634
//! IOPS" comes with "± 12 over 10 runs" instead of one lucky run.
//!
//! # Which figure comes from where (the one rule)
//!
//! Each run gives at most one value per metric:
//!
//! - **IOPS**, **Read MB/s**, **Write MB/s**: [`headline_figures`] of the
//!   run's result, the same rule the `diskbench run` headline uses (the
//!   default suite's named jobs, else the best job); MB/s are 10^6 bytes/s.
//! - **p99 latency (us)**: the 99th percentile of the *total* latency
//!   (`lat`; `clat` when an engine recorded no total) of the job that feeds
//!   IOPS, over its read and write histograms merged. A run imported
//!   from a file without its histograms has only histograms rebuilt from
//!   the file's figures, so its p99 is approximate: the group names such
//!   runs (`p99_latency_us_approximate_runs`) and the table marks the cell `~`.
//!
//! A metric's statistics are over the runs of the group that have that
//! figure (a run that never wrote has no Write MB/s); `runs` counts all.
//!
//! Like is compared with like: when a group's figures for a metric came
//! from jobs of different shapes (rw, bs, iodepth, numjobs, direct,
//! engine; see [`shape`]), that metric is not averaged: the cell reads
//! `mixed` and a note names the shapes.
//!
//! # Statistics
//!
//! Mean, sample standard deviation (n - 1) and the 95% confidence interval
//! of the mean, `mean ± t(0.975, n - 1) · sd / √n` with Student's t (see
//! [`student_t_975`]). One run has no spread: [`Summary::has_spread`] is
//! false and every rendering shows the figure alone (no `± 0`, empty CSV
//! cells, `null` in JSON), since a deviation of 0 would claim a certainty
//! one run cannot give.
//! `p99_latency_us_merged` is the p99 of the histograms of all the group's
//! runs merged, never an average of percentiles.
//!
//! # Grouping
//!
//! `by` names labels; runs with the same values of those labels form a
//! group (a run without a label groups with the others lacking it, and the
//! group's `labels` leave it out). With `by` empty, runs group when their
//! whole label sets are equal. Groups are sorted by their label values.
//!
//! Costs follow the rules in [`cost`].

pub mod cost;
pub mod noise;
mod render;
pub mod shape;
mod tstat;

#[cfg(test)]
pub(crate) mod tests;

pub use cost::{Cost, CostFigures};
pub use render::{
    aligned, mean_sd, money, render_csv, render_json, render_markdown, render_table, shows_spread,
    PLUS_MINUS_NOTE, WARNED_MARK,
};
pub use tstat::student_t_975;

use crate::table::headline_figures;
use model::{Histogram, JobResult, RunRecord, RunResult};
use std::collections::BTreeMap;

/// The groups of a comparison, in label order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// The labels the runs were grouped by (empty: whole label sets).
    pub by: Vec<String>,
    pub groups: Vec<Group>,
}

impl Comparison {
    /// The label columns of every rendering: the `by` labels, or every label
    /// any group has, sorted.
    pub fn label_columns(&self) -> Vec<String> {
        if !self.by.is_empty() {
            return self.by.clone();
        }
        let mut keys: Vec<String> = self
            .groups
            .iter()
            .flat_map(|g| g.labels.keys().cloned())
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }
}

/// One row of the table: the runs that share the grouping labels.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// The grouping labels' values (labels a run lacks are left out).
    pub labels: BTreeMap<String, String>,
    /// History ids of the runs, oldest first.
    pub run_ids: Vec<i64>,
    pub runs: usize,
    pub iops: Option<Summary>,
    pub read_mb_per_s: Option<Summary>,
    pub write_mb_per_s: Option<Summary>,
    pub p99_latency_us: Option<Summary>,
    /// p99 of all runs' latency histograms merged (see the module docs).
    pub p99_latency_us_merged: Option<f64>,
    pub cost: Cost,
    /// Runs whose p99 came from latency histograms rebuilt on import:
    /// approximate, not the imported file's own figure.
    pub p99_approximate_runs: Vec<i64>,
    /// Metrics left out because the runs' figures came from unlike jobs,
    /// with the shapes found (see [`shape`]).
    pub mixed: Vec<(Metric, Vec<String>)>,
    /// The runs that warned when they ran (a page cache that can hold the
    /// data, a test too short to trust, ...), each with how many warnings
    /// it kept and of how many kinds (a check of all seven tests is seven
    /// warnings of one kind, said on one line when it ran): their figures
    /// may mislead, and the table marks the group.
    pub warned_runs: Vec<(i64, usize, usize)>,
}

/// Statistics of one metric over a group's runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// How many runs had the figure.
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (n - 1); 0 for one run, where it is
    /// undefined ([`Summary::has_spread`]).
    pub stddev: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
}

impl Summary {
    /// True when the figure came from two runs or more, so the deviation
    /// and the interval mean something; with one run they are placeholders.
    pub fn has_spread(&self) -> bool {
        self.n >= 2
    }

    /// `None` for no values; non-finite values are left out.
    pub fn of(values: &[f64]) -> Option<Summary> {
        let v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        let n = v.len();
        let mean = v.iter().sum::<f64>() / n as f64;
        let stddev = if n < 2 {
            0.0
        } else {
            (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        };
        let half = if n < 2 {
            0.0
        } else {
            student_t_975(n - 1) * stddev / (n as f64).sqrt()
        };
        Some(Summary {
            n,
            mean,
            stddev,
            ci95_low: mean - half,
            ci95_high: mean + half,
        })
    }
}

/// The four metrics of the table, in column order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    Iops,
    ReadMbPerS,
    WriteMbPerS,
    P99LatencyUs,
}

impl Metric {
    pub const ALL: [Metric; 4] = [
        Metric::Iops,
        Metric::ReadMbPerS,
        Metric::WriteMbPerS,
        Metric::P99LatencyUs,
    ];
    /// The JSON key and CSV column stem.
    pub fn key(self) -> &'static str {
        match self {
            Metric::Iops => "iops",
            Metric::ReadMbPerS => "read_mb_per_s",
            Metric::WriteMbPerS => "write_mb_per_s",
            Metric::P99LatencyUs => "p99_latency_us",
        }
    }
    /// The column title, as Brian Cunnie's 2018 benchmark of cloud disks wrote it.
    pub fn title(self) -> &'static str {
        match self {
            Metric::Iops => "IOPS",
            Metric::ReadMbPerS => "Read MB/s",
            Metric::WriteMbPerS => "Write MB/s",
            Metric::P99LatencyUs => "p99 latency",
        }
    }
    /// The unit for an axis: "IOPS", "MB/s", "us".
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Iops => "IOPS",
            Metric::ReadMbPerS | Metric::WriteMbPerS => "MB/s",
            Metric::P99LatencyUs => "us",
        }
    }
    /// True when a smaller value is better (latency).
    pub fn lower_is_better(self) -> bool {
        self == Metric::P99LatencyUs
    }
}

impl Group {
    /// True when the metric was left out for mixing unlike jobs.
    pub fn is_mixed(&self, metric: Metric) -> bool {
        self.mixed.iter().any(|(m, _)| *m == metric)
    }
    pub fn summary(&self, metric: Metric) -> Option<&Summary> {
        match metric {
            Metric::Iops => self.iops.as_ref(),
            Metric::ReadMbPerS => self.read_mb_per_s.as_ref(),
            Metric::WriteMbPerS => self.write_mb_per_s.as_ref(),
            Metric::P99LatencyUs => self.p99_latency_us.as_ref(),
        }
    }
    /// `provider=aws disk=gp2`, or `(no labels)`.
    pub fn name(&self) -> String {
        if self.labels.is_empty() {
            return "(no labels)".to_string();
        }
        let parts: Vec<String> = self
            .labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        parts.join(" ")
    }
}

/// One run's figures by the rule in the module docs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunFigures {
    pub iops: Option<f64>,
    pub read_mb_per_s: Option<f64>,
    pub write_mb_per_s: Option<f64>,
    pub p99_latency_us: Option<f64>,
}

impl RunFigures {
    pub fn of(result: &RunResult) -> RunFigures {
        let h = headline_figures(result);
        let latency = iops_latency(result);
        RunFigures {
            iops: h.iops.map(|f| f.value),
            read_mb_per_s: h.read_mb_per_sec.map(|f| f.value),
            write_mb_per_s: h.write_mb_per_sec.map(|f| f.value),
            p99_latency_us: (!latency.is_empty()).then(|| latency.percentile(99.0) as f64 / 1e3),
        }
    }
    pub fn get(&self, metric: Metric) -> Option<f64> {
        match metric {
            Metric::Iops => self.iops,
            Metric::ReadMbPerS => self.read_mb_per_s,
            Metric::WriteMbPerS => self.write_mb_per_s,
            Metric::P99LatencyUs => self.p99_latency_us,
        }
    }
}

/// The job that feeds IOPS, as [`headline_figures`] chose it (by name; among
/// jobs sharing the name, the one whose IOPS is the figure).
pub fn iops_job(result: &RunResult) -> Option<&JobResult> {
    let figure = headline_figures(result).iops?;
    let named = || result.jobs.iter().filter(|j| j.name == figure.job);
    named()
        .find(|j| j.read.iops() + j.write.iops() == figure.value)
        .or_else(|| named().next())
}

/// Total latency of the IOPS job, both directions merged (`clat` for a
/// direction without `lat`); empty when the run has no such job.
pub fn iops_latency(result: &RunResult) -> Histogram {
    let mut h = Histogram::new();
    if let Some(job) = iops_job(result) {
        for d in [&job.read, &job.write] {
            h.merge(if d.lat.is_empty() { &d.clat } else { &d.lat });
        }
    }
    h
}

/// The grouping key of a run: the `by` labels' values, or all labels.
/// `host` is the machine the run measured on ([`host_of`]) unless the run
/// has a label of that name.
fn group_key(record: &RunRecord, by: &[String]) -> BTreeMap<String, String> {
    if by.is_empty() {
        return record.labels.clone();
    }
    by.iter()
        .filter_map(|k| match (k.as_str(), record.labels.get(k)) {
            (_, Some(v)) => Some((k.clone(), v.clone())),
            (HOST, None) => Some((k.clone(), host_of(record))),
            _ => None,
        })
        .collect()
}

/// The `--by` key that every run has: the host it ran on.
pub const HOST: &str = "host";

/// The machine a run measured on: its hostname, with the start of its
/// machine id when known, so two hosts that share a name (every cloud
/// image's default) stay two rows.
pub fn host_of(record: &RunRecord) -> String {
    let h = &record.result.host;
    match &h.machine_id {
        Some(id) => format!("{} ({})", h.hostname, id.get(..8).unwrap_or(id)),
        None => h.hostname.clone(),
    }
}

/// The sort key of a group: `by` order first (missing sorts first), then the rest.
fn sort_key(labels: &BTreeMap<String, String>, by: &[String]) -> Vec<(Option<String>, String)> {
    if by.is_empty() {
        return labels
            .iter()
            .map(|(k, v)| (Some(k.clone()), v.clone()))
            .collect();
    }
    by.iter()
        .map(|k| (labels.get(k).cloned(), String::new()))
        .collect()
}

/// The runs of each group, oldest first, groups in label order.
pub fn group_runs<'a>(
    records: &'a [RunRecord],
    by: &[String],
) -> Vec<(BTreeMap<String, String>, Vec<&'a RunRecord>)> {
    let mut groups: Vec<(BTreeMap<String, String>, Vec<&RunRecord>)> = Vec::new();
    for r in records {
        let key = group_key(r, by);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, runs)) => runs.push(r),
            None => groups.push((key, vec![r])),
        }
    }
    for (_, runs) in &mut groups {
        runs.sort_by_key(|r| (r.result.started_unix_ms, r.id));
    }
    groups.sort_by_key(|g| sort_key(&g.0, by));
    groups
}

/// Groups `records` by the `by` labels and summarises each group (module docs).
pub fn compare(records: &[RunRecord], by: &[String]) -> Comparison {
    let groups = group_runs(records, by)
        .into_iter()
        .map(|(labels, runs)| summarise(labels, &runs))
        .collect();
    Comparison {
        by: by.to_vec(),
        groups,
    }
}

fn summarise(labels: BTreeMap<String, String>, runs: &[&RunRecord]) -> Group {
    let figures: Vec<RunFigures> = runs.iter().map(|r| RunFigures::of(&r.result)).collect();
    let mixed: Vec<(Metric, Vec<String>)> = Metric::ALL
        .into_iter()
        .filter_map(|m| {
            let shapes = runs.iter().map(|r| shape::of_metric(&r.result, m));
            shape::mixed(shapes).map(|s| (m, s))
        })
        .collect();
    let is_mixed = |m: Metric| mixed.iter().any(|(x, _)| *x == m);
    let stat = |m: Metric| {
        let values: Vec<f64> = figures.iter().filter_map(|f| f.get(m)).collect();
        Summary::of(&values).filter(|_| !is_mixed(m))
    };
    let merged = match is_mixed(Metric::P99LatencyUs) {
        true => Histogram::new(),
        false => merged_latency(runs.iter().copied()),
    };
    let iops = stat(Metric::Iops);
    let read = stat(Metric::ReadMbPerS);
    let cost = cost::group_cost(runs, iops.map(|s| s.mean), read.map(|s| s.mean));
    Group {
        labels,
        run_ids: runs.iter().map(|r| r.id).collect(),
        runs: runs.len(),
        iops,
        read_mb_per_s: read,
        write_mb_per_s: stat(Metric::WriteMbPerS),
        p99_latency_us: stat(Metric::P99LatencyUs),
        p99_latency_us_merged: (!merged.is_empty()).then(|| merged.percentile(99.0) as f64 / 1e3),
        p99_approximate_runs: runs
            .iter()
            .filter(|r| iops_job(&r.result).is_some_and(crate::source::rebuilt))
            .map(|r| r.id)
            .collect(),
        cost,
        mixed,
        warned_runs: runs
            .iter()
            .filter(|r| !r.result.warnings.is_empty())
            .map(|r| {
                let mut kinds: Vec<String> =
                    r.result.warnings.iter().map(|w| w.kind_name()).collect();
                kinds.sort();
                kinds.dedup();
                (r.id, r.result.warnings.len(), kinds.len())
            })
            .collect(),
    }
}

/// [`iops_latency`] of every run, merged: the group's latency distribution.
pub fn merged_latency<'a>(runs: impl IntoIterator<Item = &'a RunRecord>) -> Histogram {
    let mut h = Histogram::new();
    for r in runs {
        h.merge(&iops_latency(&r.result));
    }
    h
}
