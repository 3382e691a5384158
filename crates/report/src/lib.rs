//! Renders a [`model::RunResult`]: one module per output, each a plain
//! function of the result, so every output reads the same data and none
//! can measure, round or label differently from the others.
//!
//! - [`json`]: fio-compatible JSON (tools built for fio's JSON read ours),
//!   plus [`json::error_json`] so stdout is parseable even on error;
//! - [`json_plus`]: fio's `json+` (the JSON plus latency histogram bins);
//! - [`terse`]: fio's semicolon-separated `terse` format, version 3;
//! - [`fio_normal`]: fio's human `normal` text layout;
//! - [`fio_logs`]: a compressed log inflated (`--inflate-log`) and the run's bandwidth logs;
//! - [`table`]: the `diskbench run` terminal summary (target, table, headline);
//! - [`format`](mod@format): the number formatting they share (fio's `num2str`, latency units);
//! - [`stats`]: the figures derived the way fio derives them (rates,
//!   per-interval statistics, latency buckets, group aggregates);
//! - [`source`]: an imported job's figures as its file gave them, which
//!   the renderers print instead of deriving them, and the marks for what
//!   they must derive from histograms rebuilt on import (approximate);
//! - [`compare`]: runs grouped by labels, mean ± sd and 95% CI per metric,
//!   costs (the table of Brian Cunnie's 2018 benchmark of cloud disks,
//!   "Benchmarking the Disk Speed of IaaSes") as text, Markdown, CSV and JSON;
//! - [`charts`]: hand-written SVG charts (bars, run-by-run timelines,
//!   per-second series, latency percentiles) and their PNG export;
//! - [`curve`]: a sweep's saturation curve: its points, table, knee and lines;
//! - [`stability`](mod@stability): how precise a headline is when its test stopped once stable;
//! - [`progress`]: the live view's progress line and its sparkline;
//! - [`status`]: fio's `--status-interval` run so far and its `ndjson` lines;
//! - [`sanity`]: figures a disk cannot give (a cache answering, a data set too small)
//!   and tests too short to trust;
//! - [`glance`]: warnings and checks said once per kind, on a line each, with
//!   the tests they fire on (the long form under `--explain`);
//! - [`html`]: the self-contained, offline HTML report of many runs.
//!
//! Warnings are not part of any of these: the CLI prints [`glance`]'s lines on
//! stderr (and with why a run stopped, [`problems_text`], for `show`), and
//! the JSON carries them under `diskbench.warnings`.

pub mod charts;
pub mod cliff;
pub mod compare;
pub mod curve;
#[doc(hidden)]
pub mod demo;
pub mod fio_debug;
pub mod fio_logs;
pub mod fio_normal;
pub mod fleet;
pub mod format;
pub mod glance;
pub mod html;
pub mod json;
pub mod json_plus;
pub mod pods;
pub mod progress;
pub mod sanity;
pub mod soak;
pub mod source;
pub mod stability;
pub mod stats;
pub mod status;
mod subjects;
pub mod table;
pub mod terse;
pub mod unified;
pub mod volume_cost;

#[cfg(test)]
mod testutil;

pub use table::{
    headline, headline_figures, summary_table, target_header, Headline, HeadlineFigure,
    HEADLINE_IOPS_JOB, HEADLINE_READ_JOB, HEADLINE_WRITE_JOB,
};

use model::RunResult;

/// The run's warnings, one `warning: <text>` line each, for stderr.
pub fn warnings_text(result: &RunResult) -> String {
    result
        .warnings
        .iter()
        .map(|w| format!("warning: {w}\n"))
        .collect()
}

/// The stderr lines of a run as it printed them: warnings, then why it
/// stopped (`diskbench show` says them again).
pub fn problems_text(result: &RunResult) -> String {
    warnings_text(result) + &stopped_text(result)
}

/// Why a run stopped early, as it said it on stderr; empty when it did not.
pub fn stopped_text(result: &RunResult) -> String {
    let mut out = String::new();
    if result.interrupted {
        out.push_str("diskbench: interrupted; results so far are shown, test files removed\n");
    } else if let Some(e) = &result.error {
        out.push_str(&format!("diskbench: {e}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_are_one_line_each() {
        let text = warnings_text(&testutil::sample_run());
        assert!(text.starts_with("warning: job 'randrw-75': a worker was busy on the CPU 97%"));
        assert_eq!(text.lines().count(), 1);
        assert!(text.ends_with('\n'));
        let mut quiet = testutil::run(vec![]);
        quiet.warnings.clear();
        assert_eq!(warnings_text(&quiet), "");
    }
}
