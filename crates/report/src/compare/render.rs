//! The four outputs of `diskbench compare`: an aligned terminal table laid
//! out like the table of Brian Cunnie's 2018 benchmark of cloud disks (label columns, then IOPS, Read MB/s, Write MB/s as
//! `mean ± sd`), the same as Markdown for blog posts and issues, CSV for
//! spreadsheets (every statistic in its own column) and JSON for programs.

use super::{Comparison, Cost, Group, Metric, Summary};
use crate::format::latency;
use serde_json::{json, Map, Value};
use std::fmt::Write;

fn priced(c: &Comparison) -> bool {
    c.groups.iter().any(|g| g.cost != Cost::Unpriced)
}

/// `3634 ± 12`, `92.0 ± 1.3`, `850 ± 20 us`; the figure alone (`3634`) when
/// one run gave it, as one run has no spread; `n/a` when no run had it.
pub fn mean_sd(metric: Metric, s: Option<&Summary>) -> String {
    let Some(s) = s else {
        return "n/a".to_string();
    };
    if !s.has_spread() {
        return match metric {
            Metric::P99LatencyUs => latency(s.mean * 1e3),
            _ => crate::charts::bar::value_text(metric, s.mean),
        };
    }
    match metric {
        Metric::Iops => format!("{:.0} ± {:.0}", s.mean, s.stddev),
        Metric::ReadMbPerS | Metric::WriteMbPerS => format!("{:.1} ± {:.1}", s.mean, s.stddev),
        Metric::P99LatencyUs => latency_pm(s.mean, s.stddev),
    }
}

/// A latency and its spread in the unit the mean reads best in: `5.50 ± 0.20 ms`.
fn latency_pm(mean_us: f64, sd_us: f64) -> String {
    let text = latency(mean_us * 1e3);
    let (number, unit) = text.split_once(' ').unwrap_or((&text, "us"));
    let scale = match unit {
        "ns" => 1e-3,
        "us" => 1.0,
        "ms" => 1e3,
        _ => 1e6,
    };
    let decimals = number.split('.').nth(1).map_or(0, str::len);
    format!("{number} ± {:.*} {unit}", decimals, sd_us / scale)
}

/// Money without a currency: `12.34`, `0.0123` (3 significant digits below 1).
pub fn money(v: f64) -> String {
    if !v.is_finite() {
        "n/a".to_string()
    } else if v.abs() >= 1.0 || v == 0.0 {
        format!("{v:.2}")
    } else {
        let decimals = (2 - v.abs().log10().floor() as i32).clamp(2, 9) as usize;
        format!("{v:.decimals$}")
    }
}

/// The three cost cells of a group.
fn cost_cells(cost: &Cost) -> [String; 3] {
    let opt = |v: Option<f64>| v.map_or("n/a".to_string(), money);
    match cost {
        Cost::Unpriced => ["-".into(), "-".into(), "-".into()],
        Cost::Mixed(_) => ["mixed".into(), "mixed".into(), "mixed".into()],
        Cost::Unknown(_) => ["?".into(), "?".into(), "?".into()],
        Cost::Known(f) => [money(f.monthly), opt(f.per_1000_iops), opt(f.per_mb_per_s)],
    }
}

/// Header and rows of the human table (terminal and Markdown).
fn human_rows(c: &Comparison) -> (Vec<String>, Vec<Vec<String>>, usize) {
    let labels = c.label_columns();
    let mut header = labels.clone();
    header.extend(Metric::ALL.iter().map(|m| m.title().to_string()));
    header.push("runs".into());
    let priced = priced(c);
    if priced {
        header.extend(["cost/month", "per 1000 IOPS", "per MB/s"].map(String::from));
    }
    let mut rows: Vec<Vec<String>> = Vec::new();
    for g in &c.groups {
        let mut row: Vec<String> = labels
            .iter()
            .map(|k| g.labels.get(k).cloned().unwrap_or_else(|| "-".into()))
            .collect();
        row.extend(Metric::ALL.iter().map(|&m| match g.is_mixed(m) {
            true => "mixed".to_string(),
            false => match m == Metric::P99LatencyUs && !g.p99_approximate_runs.is_empty() {
                true => format!("{}{}", crate::source::APPROX_MARK, mean_sd(m, g.summary(m))),
                false => mean_sd(m, g.summary(m)),
            },
        }));
        row.push(match g.warned_runs.is_empty() {
            true => g.runs.to_string(),
            false => format!("{WARNED_MARK}{}", g.runs),
        });
        if priced {
            row.extend(cost_cells(&g.cost));
        }
        rows.push(row);
    }
    blank_repeats(&mut rows, labels.len());
    (header, rows, labels.len())
}

/// The layout of "Benchmarking the Disk Speed of IaaSes": a label equal to the one above (with all labels left
/// of it equal too) is left blank, so "AWS" heads its rows once.
fn blank_repeats(rows: &mut [Vec<String>], label_columns: usize) {
    for i in (1..rows.len()).rev() {
        let mut same = 0;
        while same < label_columns && rows[i][same] == rows[i - 1][same] {
            same += 1;
        }
        // Keep the last label column: a row always names what makes it differ.
        for cell in rows[i]
            .iter_mut()
            .take(same.min(label_columns.saturating_sub(1)))
        {
            cell.clear();
        }
    }
}

/// Marks a group's run count when some of its runs warned (the notes name them).
pub const WARNED_MARK: &str = "!";

/// What `±` means, for under a table that shows one.
pub const PLUS_MINUS_NOTE: &str = "± is the sample standard deviation of the group's runs \
     (a figure without ± came from one run, which has no spread)";

/// True when some cell of the table reads `mean ± sd`.
pub fn shows_spread(c: &Comparison) -> bool {
    c.groups.iter().any(|g| {
        Metric::ALL
            .iter()
            .any(|&m| !g.is_mixed(m) && g.summary(m).is_some_and(Summary::has_spread))
    })
}

/// Notes under the table: what ± means (when one is shown; on the
/// terminal, where the interval is too), why a group's figures or costs
/// are mixed or unknown.
fn notes(c: &Comparison, terminal: bool) -> String {
    let mut out = String::new();
    match (shows_spread(c), terminal) {
        (true, true) => {
            let _ = writeln!(
                out,
                "{PLUS_MINUS_NOTE}; --format csv or json adds the 95% confidence interval of the mean"
            );
        }
        (true, false) => {
            let _ = writeln!(out, "{PLUS_MINUS_NOTE}");
        }
        (false, _) => {}
    }
    for g in &c.groups {
        for (m, shapes) in &g.mixed {
            let _ = writeln!(
                out,
                "{}: {} not averaged: its runs measured unlike jobs ({}); select runs of one \
                 kind (--command, --label) or label them apart and add that label to --by",
                g.name(),
                m.title(),
                shapes.join("; ")
            );
        }
        if !g.p99_approximate_runs.is_empty() {
            let ids: Vec<String> = g.p99_approximate_runs.iter().map(i64::to_string).collect();
            let _ = writeln!(
                out,
                "{}: ~ p99 latency is approximate: run(s) {} were imported without their \
                 latency histograms, and their p99 is re-derived from histograms rebuilt from \
                 the file's figures",
                g.name(),
                ids.join(", ")
            );
        }
        if !g.warned_runs.is_empty() {
            let runs: Vec<String> = g
                .warned_runs
                .iter()
                .map(|(id, n, kinds)| match (*n, *kinds) {
                    (1, _) => format!("{id} (1 warning)"),
                    (n, 1) => format!("{id} ({n} warnings of one kind)"),
                    (n, k) if n == k => format!("{id} ({n} warnings)"),
                    (n, k) => format!("{id} ({n} warnings of {k} kinds)"),
                })
                .collect();
            let _ = writeln!(
                out,
                "{}: {WARNED_MARK} run(s) {} warned when they ran, so their figures may mislead; \
                 `diskbench show ID` says what each warned of",
                g.name(),
                runs.join(", ")
            );
        }
        match &g.cost {
            Cost::Mixed(why) => {
                let _ = writeln!(out, "{}: costs are mixed: {why}", g.name());
            }
            Cost::Unknown(why) => {
                let _ = writeln!(out, "{}: costs unknown: {why}", g.name());
            }
            _ => {}
        }
    }
    out
}

/// The terminal table: columns aligned (labels left, figures right).
pub fn render_table(c: &Comparison) -> String {
    if c.groups.is_empty() {
        return "no runs to compare\n".to_string();
    }
    let (header, rows, labels) = human_rows(c);
    let all: Vec<Vec<String>> = std::iter::once(header).chain(rows).collect();
    let mut out = aligned(&all, labels);
    out.push_str(&notes(c, true));
    out
}

/// Rows as aligned columns, two spaces apart: the first `labels` columns
/// left-aligned, the figures right-aligned.
pub fn aligned(all: &[Vec<String>], labels: usize) -> String {
    let columns = all.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            all.iter()
                .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in all {
        let mut line = String::new();
        for (i, cell) in r.iter().enumerate() {
            let w = widths[i];
            if i > 0 {
                line.push_str("  ");
            }
            if i < labels {
                let _ = write!(line, "{cell:<w$}");
            } else {
                let _ = write!(line, "{cell:>w$}");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A GitHub-flavoured Markdown table, figures right-aligned.
pub fn render_markdown(c: &Comparison) -> String {
    if c.groups.is_empty() {
        return "_no runs to compare_\n".to_string();
    }
    let (header, rows, labels) = human_rows(c);
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let line = |r: &[String]| {
        let cells: Vec<String> = r.iter().map(|s| cell(s)).collect();
        format!("| {} |\n", cells.join(" | "))
    };
    let mut out = line(&header);
    let rule: Vec<&str> = (0..header.len())
        .map(|i| if i < labels { "---" } else { "---:" })
        .collect();
    let _ = writeln!(out, "| {} |", rule.join(" | "));
    for r in &rows {
        out.push_str(&line(r));
    }
    let notes = notes(c, false);
    if !notes.is_empty() {
        out.push('\n');
        for n in notes.lines() {
            let _ = writeln!(out, "- {}", cell(n));
        }
    }
    out
}

/// RFC 4180 quoting where needed.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn num(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite())
        .map_or(String::new(), |x| x.to_string())
}

/// One row per group; every statistic in its own column; empty = unknown
/// (so is the spread of a figure one run gave).
pub fn render_csv(c: &Comparison) -> String {
    let labels = c.label_columns();
    let mut header: Vec<String> = labels.clone();
    header.push("runs".into());
    for m in Metric::ALL {
        for s in ["mean", "stddev", "ci95_low", "ci95_high"] {
            header.push(format!("{}_{s}", m.key()));
        }
    }
    header.extend(
        [
            "p99_latency_us_merged",
            "monthly_cost",
            "cost_per_1000_iops",
            "cost_per_mb_per_s",
            "p99_latency_us_approximate_runs",
            "warned_runs",
        ]
        .map(String::from),
    );
    let mut out = String::new();
    let line = |cells: Vec<String>| {
        let cells: Vec<String> = cells.iter().map(|s| csv_field(s)).collect();
        cells.join(",") + "\n"
    };
    out.push_str(&line(header));
    for g in &c.groups {
        let mut row: Vec<String> = labels
            .iter()
            .map(|k| g.labels.get(k).cloned().unwrap_or_default())
            .collect();
        row.push(g.runs.to_string());
        for m in Metric::ALL {
            let s = g.summary(m);
            let spread = s.filter(|s| s.has_spread());
            row.extend([
                num(s.map(|s| s.mean)),
                num(spread.map(|s| s.stddev)),
                num(spread.map(|s| s.ci95_low)),
                num(spread.map(|s| s.ci95_high)),
            ]);
        }
        row.push(num(g.p99_latency_us_merged));
        row.extend(match &g.cost {
            Cost::Mixed(_) => ["mixed".to_string(), "mixed".into(), "mixed".into()],
            Cost::Known(f) => [
                num(Some(f.monthly)),
                num(f.per_1000_iops),
                num(f.per_mb_per_s),
            ],
            _ => Default::default(),
        });
        let ids: Vec<String> = g.p99_approximate_runs.iter().map(i64::to_string).collect();
        row.push(ids.join(" "));
        let warned: Vec<String> = g
            .warned_runs
            .iter()
            .map(|(id, ..)| id.to_string())
            .collect();
        row.push(warned.join(" "));
        out.push_str(&line(row));
    }
    out
}

/// A metric's statistics; one run has a mean and `null` spread.
fn summary_json(s: Option<&Summary>) -> Value {
    match s {
        None => Value::Null,
        Some(s) if !s.has_spread() => json!({
            "mean": s.mean,
            "stddev": null,
            "ci95_low": null,
            "ci95_high": null,
        }),
        Some(s) => json!({
            "mean": s.mean,
            "stddev": s.stddev,
            "ci95_low": s.ci95_low,
            "ci95_high": s.ci95_high,
        }),
    }
}

/// The costs as JSON: numbers, `null` when unknown, `"mixed"` when the runs differ.
fn cost_json(cost: &Cost) -> [Value; 3] {
    let n = |v: Option<f64>| v.map_or(Value::Null, |x| json!(x));
    match cost {
        Cost::Mixed(_) => ["mixed", "mixed", "mixed"].map(|s| json!(s)),
        Cost::Known(f) => [json!(f.monthly), n(f.per_1000_iops), n(f.per_mb_per_s)],
        Cost::Unpriced | Cost::Unknown(_) => [Value::Null, Value::Null, Value::Null],
    }
}

fn group_json(g: &Group) -> Value {
    let labels: Map<String, Value> = g
        .labels
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    let [monthly, per_iops, per_mb] = cost_json(&g.cost);
    json!({
        "labels": labels,
        "runs": g.runs,
        "iops": summary_json(g.iops.as_ref()),
        "read_mb_per_s": summary_json(g.read_mb_per_s.as_ref()),
        "write_mb_per_s": summary_json(g.write_mb_per_s.as_ref()),
        "p99_latency_us": summary_json(g.p99_latency_us.as_ref()),
        "p99_latency_us_merged": g.p99_latency_us_merged,
        "p99_latency_us_approximate_runs": g.p99_approximate_runs,
        "warned_runs": g.warned_runs.iter().map(|(id, n, kinds)| json!({"id": id, "warnings": n, "kinds": kinds})).collect::<Vec<Value>>(),
        "monthly_cost": monthly,
        "cost_per_1000_iops": per_iops,
        "cost_per_mb_per_s": per_mb,
        "mixed": g.mixed.iter().map(|(m, shapes)| (m.key().to_string(), json!(shapes))).collect::<Map<String, Value>>(),
    })
}

/// `{"groups": [{"labels", "runs", "iops": {"mean", "stddev", "ci95_low",
/// "ci95_high"}, "read_mb_per_s", "write_mb_per_s", "p99_latency_us",
/// "p99_latency_us_merged", "p99_latency_us_approximate_runs" (runs whose
/// p99 is re-derived from histograms rebuilt on import), "monthly_cost",
/// "cost_per_1000_iops", "cost_per_mb_per_s"}]}`; a metric no run had is
/// `null`, and so are the `stddev` and interval of a metric one run gave
/// (it has no spread).
pub fn render_json(c: &Comparison) -> String {
    let groups: Vec<Value> = c.groups.iter().map(group_json).collect();
    let mut text = serde_json::to_string_pretty(&json!({ "groups": groups }))
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    text.push('\n');
    text
}
