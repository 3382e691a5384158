//! The report's two tables: the comparison (the table of Brian Cunnie's 2018 benchmark of cloud disks, with the
//! confidence interval and run ids in tooltips) and the runs with the
//! facts that tell two disks apart (host, target, device, labels).

use crate::charts::escape;
use crate::compare::{mean_sd, money, shows_spread, Comparison, Cost, Metric, RunFigures};
use crate::format::{count, ctime_utc, size_both};
use crate::table::{device_text, model_text, rotational_text};
use model::RunRecord;
use std::fmt::Write;

pub(super) fn compare_table(c: &Comparison) -> String {
    if c.groups.is_empty() {
        return "<p>No runs to compare.</p>\n".into();
    }
    let labels = c.label_columns();
    let priced = c.groups.iter().any(|g| g.cost != Cost::Unpriced);
    let mut out = String::from("<div class=\"wide\"><table class=\"compare\">\n<thead><tr>");
    for l in &labels {
        let _ = write!(out, "<th>{}</th>", escape(l));
    }
    // "mean ± sd" heads the columns only when some cell has a spread.
    let what = match shows_spread(c) {
        true => " <small>mean ± sd</small>",
        false => "",
    };
    for m in Metric::ALL {
        let _ = write!(out, "<th class=\"num\">{}{what}</th>", m.title());
    }
    out.push_str("<th class=\"num\">p99 merged</th><th class=\"num\">runs</th>");
    if priced {
        out.push_str("<th class=\"num\">cost/month</th><th class=\"num\">per 1000 IOPS</th><th class=\"num\">per MB/s</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for g in &c.groups {
        out.push_str("<tr>");
        for l in &labels {
            let v = g.labels.get(l).map_or("-".to_string(), |v| escape(v));
            let _ = write!(out, "<td>{v}</td>");
        }
        for m in Metric::ALL {
            let s = g.summary(m);
            let tip = match s {
                None => String::new(),
                Some(s) if !s.has_spread() => " title=\"one run: no spread\"".to_string(),
                Some(s) => format!(
                    " title=\"95% CI {:.4} to {:.4} over {}\"",
                    s.ci95_low,
                    s.ci95_high,
                    count(s.n, "run")
                ),
            };
            let _ = write!(
                out,
                "<td class=\"num\"{tip}>{}</td>",
                escape(&mean_sd(m, s))
            );
        }
        let merged = g
            .p99_latency_us_merged
            .map_or("n/a".into(), crate::charts::scale::latency_us);
        let ids: Vec<String> = g.run_ids.iter().map(|i| i.to_string()).collect();
        let warned: Vec<String> = g
            .warned_runs
            .iter()
            .map(|(id, ..)| format!("<a href=\"#run-{id}\">{id}</a>"))
            .collect();
        let mark = match warned.is_empty() {
            true => String::new(),
            false => format!(
                "<br><small class=\"warned\">{} warned: {}</small>",
                crate::compare::WARNED_MARK,
                warned.join(", ")
            ),
        };
        let _ = write!(
            out,
            "<td class=\"num\">{}</td><td class=\"num\" title=\"run ids {}\">{}{mark}</td>",
            escape(&merged),
            ids.join(", "),
            g.runs
        );
        if priced {
            let cells: [String; 3] = match &g.cost {
                Cost::Unpriced => ["-".into(), "-".into(), "-".into()],
                Cost::Mixed(why) => {
                    let c = format!("<span title=\"{}\">mixed</span>", escape(why));
                    [c.clone(), c.clone(), c]
                }
                Cost::Unknown(why) => {
                    let c = format!("<span title=\"{}\">?</span>", escape(why));
                    [c.clone(), c.clone(), c]
                }
                Cost::Known(f) => [
                    money(f.monthly),
                    f.per_1000_iops.map_or("n/a".into(), money),
                    f.per_mb_per_s.map_or("n/a".into(), money),
                ],
            };
            for cell in cells {
                let _ = write!(out, "<td class=\"num\">{cell}</td>");
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n");
    out
}

/// `key=value` lines, escaped.
fn labels_cell(r: &RunRecord) -> String {
    let parts: Vec<String> = r
        .labels
        .iter()
        .map(|(k, v)| format!("{}={}", escape(k), escape(v)))
        .collect();
    if parts.is_empty() {
        "-".into()
    } else {
        parts.join("<br>")
    }
}

fn host_cell(r: &RunRecord) -> String {
    let h = &r.result.host;
    let known = |s: &str| {
        if s.is_empty() {
            "unknown".to_string()
        } else {
            escape(s)
        }
    };
    format!(
        "{}<br>kernel {}<br>{} × {}<br>RAM {}",
        known(&h.hostname),
        known(&h.kernel),
        known(&h.cpu_model),
        h.cpus,
        size_both(h.mem_bytes)
    )
}

fn target_cell(r: &RunRecord) -> String {
    let Some(t) = r.result.targets.first() else {
        return "unknown".into();
    };
    let opt = |v: &Option<String>| v.as_deref().map_or("unknown".to_string(), escape);
    let mut fs = opt(&t.filesystem);
    if let Some(src) = &t.mount_source {
        let _ = write!(fs, " on {}", escape(src));
    }
    if let Some(o) = &t.mount_options {
        let _ = write!(fs, " ({})", escape(o));
    }
    let size = t.device_bytes.map_or("unknown".into(), size_both);
    let rot = rotational_text(t).map_or(String::new(), |r| format!(", rotational {}", escape(&r)));
    format!(
        "{}<br>{fs}<br>device {}, model {}<br>{size}{rot}",
        escape(&t.path),
        opt(&device_text(t)),
        opt(&model_text(t))
    )
}

/// The figures of the groups that have one run, where the timelines are:
/// one row each instead of a chart of one dot per panel.
pub(super) fn one_run_table(groups: &[(String, &RunRecord)]) -> String {
    if groups.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<p>A group of one run has no run-by-run chart; its figures:</p>\n\
         <div class=\"wide\"><table class=\"one-run\">\n<thead><tr><th>group</th><th>run</th>\
         <th>started (UTC)</th>",
    );
    for m in Metric::ALL {
        let _ = write!(out, "<th class=\"num\">{}</th>", m.title());
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (name, r) in groups {
        let _ = write!(
            out,
            "<tr><td>{}</td><td><a href=\"#run-{id}\">{id}</a></td><td>{}</td>",
            escape(name),
            ctime_utc(r.result.started_unix_ms / 1000),
            id = r.id,
        );
        figure_cells(&mut out, r);
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n");
    out
}

/// A run's four figures as right-aligned cells, `n/a` where it has none.
fn figure_cells(out: &mut String, r: &RunRecord) {
    let f = RunFigures::of(&r.result);
    for m in Metric::ALL {
        let v = f
            .get(m)
            .map_or("n/a".into(), |v| crate::charts::bar::value_text(m, v));
        let _ = write!(out, "<td class=\"num\">{}</td>", escape(&v));
    }
}

pub(super) fn runs_table(runs: &[&RunRecord]) -> String {
    if runs.is_empty() {
        return "<p>No runs.</p>\n".into();
    }
    let mut out = String::from(
        "<div class=\"wide\"><table class=\"runs\">\n<thead><tr><th>run</th><th>started (UTC)</th><th>command</th>\
         <th>labels</th><th>host</th><th>target</th>",
    );
    for m in Metric::ALL {
        let _ = write!(out, "<th class=\"num\">{}</th>", m.title());
    }
    out.push_str("<th>notes</th></tr></thead>\n<tbody>\n");
    for r in runs {
        let _ = write!(
            out,
            "<tr id=\"run-{id}\"><td>{id}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
            ctime_utc(r.result.started_unix_ms / 1000),
            r.kind.name(),
            labels_cell(r),
            host_cell(r),
            target_cell(r),
            id = r.id,
        );
        figure_cells(&mut out, r);
        let mut notes: Vec<String> = r
            .result
            .warnings
            .iter()
            .map(|w| escape(&w.to_string()))
            .collect();
        if let Some(e) = &r.result.error {
            notes.push(format!("error: {}", escape(e)));
        }
        if r.result.interrupted {
            notes.push("interrupted".into());
        }
        let _ = writeln!(out, "<td class=\"notes\">{}</td></tr>", notes.join("<br>"));
    }
    out.push_str("</tbody>\n</table></div>\n");
    out
}
