//! From a finished run to verdicts: each requirement's figure held against
//! its limit ("fit", "not fit" with the margin), how sure that is (the
//! figure's 95% interval on one side of the limit or across it), and for a
//! workload that picks a setting (PostgreSQL's `wal_sync_method`) the
//! fastest check. A requirement without a limit gets its figure and no
//! verdict.

use crate::catalogue::{Choose, Figure, Requirement, Source, Workload};
use crate::figures::{measure, Measured};
use model::RunResult;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Fit,
    NotFit,
    /// No source gives a number: the figure alone.
    NoLimit,
    /// The check measured nothing this requirement could read.
    NotMeasured,
}

/// One requirement, judged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Judged {
    pub check: String,
    pub label: String,
    pub figure: Figure,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<Measured>,
    /// The limit in the figure's unit (ns for latencies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<f64>,
    pub verdict: Verdict,
    /// The figure over the limit: under 1 is inside a latency limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
    /// Whether the figure's 95% interval lies wholly on the verdict's side
    /// of the limit (a rate, with no interval, is taken as measured).
    pub sure: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub source: Source,
    /// With `--volume`: what the declared volume promises about this figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume: Option<crate::promise::Promise>,
}

/// The fastest check of a workload that picks a setting.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    pub setting: String,
    /// The checks by their figure, fastest first: (check, value).
    pub ranking: Vec<(String, f64)>,
}

/// A workload's checks, judged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub workload: String,
    pub about: String,
    pub requirements: Vec<Judged>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<Choice>,
    /// `Some(true)` when every requirement with a limit is kept, `Some(false)`
    /// when one is broken, `None` when none has a limit or one was not measured.
    pub fit: Option<bool>,
}

fn judge_one(check: &str, r: &Requirement, result: &RunResult) -> Judged {
    let measured = measure(result, check, r.figure);
    let limit = r.limit();
    let (verdict, ratio, sure) = match (&measured, limit) {
        (None, _) => (Verdict::NotMeasured, None, false),
        (Some(_), None) => (Verdict::NoLimit, None, true),
        (Some(m), Some(limit)) => {
            let kept = match r.figure.larger_is_better() {
                true => m.value >= limit,
                false => m.value < limit,
            };
            // Sure when the whole interval is on the same side as the figure.
            let sure = match (m.interval, kept) {
                (None, _) => true,
                (Some(i), true) => i.high.is_some_and(|h| h < limit),
                (Some(i), false) => i.low >= limit,
            };
            let verdict = match kept {
                true => Verdict::Fit,
                false => Verdict::NotFit,
            };
            (verdict, Some(m.value / limit), sure)
        }
    };
    Judged {
        check: check.to_string(),
        label: r.label.clone(),
        figure: r.figure,
        measured,
        limit,
        verdict,
        ratio,
        sure,
        note: r.note.clone(),
        source: r.source.clone(),
        volume: None,
    }
}

fn choose(w: &Workload, how: &Choose, result: &RunResult) -> Option<Choice> {
    let mut ranking: Vec<(String, f64)> = w
        .checks
        .iter()
        .filter_map(|c| Some((c.name.clone(), measure(result, &c.name, how.figure)?.value)))
        .collect();
    if ranking.is_empty() {
        return None;
    }
    let sign = if how.figure.larger_is_better() {
        -1.0
    } else {
        1.0
    };
    ranking.sort_by(|a, b| (sign * a.1).total_cmp(&(sign * b.1)));
    Some(Choice {
        setting: how.setting.clone(),
        ranking,
    })
}

/// Judges every requirement of `workload` on `result`, a run of its checks.
pub fn judge(workload: &Workload, result: &RunResult) -> Report {
    let requirements: Vec<Judged> = workload
        .checks
        .iter()
        .flat_map(|c| c.requirements.iter().map(|r| judge_one(&c.name, r, result)))
        .collect();
    let with_limit: Vec<&Judged> = requirements.iter().filter(|j| j.limit.is_some()).collect();
    let fit = match () {
        _ if with_limit.iter().any(|j| j.verdict == Verdict::NotFit) => Some(false),
        _ if with_limit.is_empty() => None,
        _ if with_limit.iter().all(|j| j.verdict == Verdict::Fit) => Some(true),
        _ => None,
    };
    Report {
        workload: workload.name.clone(),
        about: workload.about.clone(),
        choice: workload
            .choose
            .as_ref()
            .and_then(|c| choose(workload, c, result)),
        requirements,
        fit,
    }
}
