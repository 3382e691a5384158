//! `diskbench report`: one HTML file that holds the whole comparison and
//! works offline, forever: no external URL anywhere (no CDN, no web font,
//! no image by URL), every chart inline SVG, and styles inline. A report
//! attached to an issue or archived next to the data must open the same
//! in five years, on a plane, and must not tell any server it was opened.
//!
//! Sections: the compare table, a bar chart per metric (linear and log
//! pre-rendered; a switch shows one or the other), a run-by-run timeline
//! per group of two runs or more (a group of one run gets a row of a small
//! table instead: a line chart of one dot per panel is a page of nothing),
//! the latency percentile curves, the per-second series of each run
//! (collapsed in `<details>`), and the runs with their host facts.
//!
//! The one script does two things: the log-scale switch, and a self-check
//! after the page is built: it lays out every chart (opening collapsed
//! sections for the moment), counts those that drew something, and writes
//! `<meta name="charts" content="N">` and `<meta name="charts-drawn">`
//! into the page, beside the `charts-expected` count written here, and
//! shows "N of N charts drawn" at the bottom. The browser test reads them.

mod tables;

use crate::charts::{self, bar::group_label, escape};
use crate::compare::{compare, group_runs, shows_spread, Metric, PLUS_MINUS_NOTE};
use crate::format::{count, ctime_utc};
use model::RunRecord;
use std::fmt::Write;

const STYLE: &str = "
body{font-family:'DejaVu Sans','Liberation Sans',Arial,Helvetica,sans-serif;margin:0 auto;max-width:1200px;padding:0 16px 48px;color:#222;background:#fff}
h1{margin:24px 0 4px}h2{margin-top:36px;border-bottom:1px solid #ccc;padding-bottom:4px}
nav a{margin-right:14px}
table{border-collapse:collapse;font-size:13px;margin:8px 0}
th,td{border:1px solid #ccc;padding:4px 8px;vertical-align:top;text-align:left}
th{background:#f2f2f2}td.num,th.num{text-align:right;white-space:nowrap}
tbody tr:nth-child(even){background:#fafafa}
td.notes{max-width:260px;font-size:12px}
.wide{overflow-x:auto}table.compare td{white-space:nowrap}
svg.chart{display:block;max-width:100%;height:auto;margin:12px 0}
body.log svg[data-scale=linear],body:not(.log) svg[data-scale=log]{display:none}
.switch{font-weight:bold;margin:8px 0}
details{margin:8px 0;border:1px solid #ddd;padding:4px 10px}summary{cursor:pointer;font-weight:bold}
.muted{color:#666;font-size:12px}
";

/// Sets the log switch; then the self-check described in the module docs.
const SCRIPT: &str = "
(function(){
var box=document.getElementById('log-scale');
function apply(){document.body.classList.toggle('log',!!(box&&box.checked));}
if(box){box.addEventListener('change',apply);}
var charts=document.querySelectorAll('svg.chart');
var closed=Array.prototype.filter.call(document.querySelectorAll('details'),function(d){return !d.open;});
closed.forEach(function(d){d.open=true;});
var drawn=0;
[false,true].forEach(function(log){
document.body.classList.toggle('log',log);
Array.prototype.forEach.call(charts,function(s){
var scale=s.getAttribute('data-scale');
if(scale?(scale==='log')!==log:log){return;}
try{var r=s.getBoundingClientRect(),b=s.getBBox();
if(r.width>0&&r.height>0&&b.width>0&&b.height>0){drawn++;}}catch(e){}
});
});
closed.forEach(function(d){d.open=false;});
apply();
function meta(name,value){var m=document.createElement('meta');m.name=name;m.content=String(value);document.head.appendChild(m);}
meta('charts',charts.length);meta('charts-drawn',drawn);
document.getElementById('chart-check').textContent=drawn+' of '+charts.length+' charts drawn';
})();
";

/// A standalone SVG made inline: no namespace URL (HTML knows SVG), and
/// `data-scale` for the log switch when given.
fn inline(svg: &str, scale: Option<&str>) -> String {
    let svg = svg.replacen(" xmlns=\"http://www.w3.org/2000/svg\"", "", 1);
    match scale {
        Some(s) => svg.replacen("<svg ", &format!("<svg data-scale=\"{s}\" "), 1),
        None => svg,
    }
}

/// The whole report of `records` grouped by `by` (see [`compare`]).
pub fn render_report(records: &[RunRecord], by: &[String]) -> String {
    let c = compare(records, by);
    let mut body = String::new();
    let mut chart_count = 0usize;
    let mut add = |body: &mut String, svg: &str, scale: Option<&str>| {
        body.push_str(&inline(svg, scale));
        chart_count += 1;
    };

    let mut runs: Vec<&RunRecord> = records.iter().collect();
    runs.sort_by_key(|r| (r.result.started_unix_ms, r.id));
    let span = match (runs.first(), runs.last()) {
        (Some(a), Some(b)) => format!(
            ", {} to {} UTC",
            ctime_utc(a.result.started_unix_ms / 1000),
            ctime_utc(b.result.finished_unix_ms / 1000)
        ),
        _ => String::new(),
    };
    let grouping = if by.is_empty() {
        "identical labels".to_string()
    } else {
        escape(&by.join(", "))
    };
    let _ = write!(
        body,
        "<h1>diskbench report</h1>\n<p>{} in {} (grouped by {grouping}){span}.</p>\n\
         <nav><a href=\"#compare\">Comparison</a><a href=\"#bars\">Charts</a>\
         <a href=\"#timelines\">Run by run</a><a href=\"#percentiles\">Latency percentiles</a>{curves}\
         <a href=\"#series\">Per second</a><a href=\"#runs\">Runs</a></nav>\n",
        count(records.len(), "run"),
        count(c.groups.len(), "group"),
        curves = match crate::curve::lines(records, by).is_empty() {
            true => "",
            false => "<a href=\"#curves\">Saturation curves</a>",
        }
    );

    body.push_str("<h2 id=\"compare\">Comparison</h2>\n");
    body.push_str(&tables::compare_table(&c));
    let spread = match shows_spread(&c) {
        true => format!(
            "{PLUS_MINUS_NOTE}; the 95% confidence interval of the mean is in each cell's tooltip."
        ),
        false => {
            "Each group has one run: its figures are that run's, with no spread to show.".into()
        }
    };
    let _ = writeln!(
        body,
        "<p class=\"muted\">IOPS from the suite's mixed random job, MB/s (10<sup>6</sup> bytes) from its \
         sequential jobs (for other runs: the best job); p99 is the total latency of the IOPS job. \
         {spread} \"p99 merged\" comes from all runs' histograms merged.</p>",
    );

    body.push_str(
        "<h2 id=\"bars\">Charts</h2>\n<p class=\"switch\"><label><input type=\"checkbox\" id=\"log-scale\"> \
         log scale</label> <span class=\"muted\">(for disks that differ by orders of magnitude)</span></p>\n",
    );
    for m in Metric::ALL {
        add(&mut body, &charts::bar_chart(&c, m, false), Some("linear"));
        add(&mut body, &charts::bar_chart(&c, m, true), Some("log"));
    }

    body.push_str("<h2 id=\"timelines\">Run by run</h2>\n");
    let timelines = charts::timeline_charts(records, by);
    if !timelines.is_empty() {
        body.push_str(
            "<p class=\"muted\">Each group's runs in order: a burst-credit cliff shows as a drop.</p>\n",
        );
    }
    for (_, svg) in &timelines {
        add(&mut body, svg, None);
    }
    body.push_str(&tables::one_run_table(&charts::one_run_groups(records, by)));

    body.push_str("<h2 id=\"percentiles\">Latency percentiles</h2>\n");
    add(&mut body, &charts::percentile_chart(records, by), None);

    if let Some(svg) = charts::curve_chart(records, by) {
        body.push_str("<h2 id=\"curves\">Saturation curves</h2>\n");
        add(&mut body, &svg, None);
        body.push_str(&curve_verdicts(records, by));
    }

    body.push_str("<h2 id=\"series\">Per second</h2>\n");
    for (labels, group) in group_runs(records, by) {
        for r in group {
            let series = charts::series_charts(r);
            let _ = writeln!(
                body,
                "<details><summary>{} · run {} · {} UTC · {}</summary>",
                escape(&group_label(by, &labels)),
                r.id,
                ctime_utc(r.result.started_unix_ms / 1000),
                count(series.len(), "chart")
            );
            if series.is_empty() {
                body.push_str("<p>No per-second figures in this run.</p>\n");
            }
            for (_, svg) in &series {
                add(&mut body, svg, None);
            }
            body.push_str("</details>\n");
        }
    }

    body.push_str("<h2 id=\"runs\">Runs</h2>\n");
    body.push_str(&tables::runs_table(&runs));
    let tool = runs
        .first()
        .map_or("diskbench".to_string(), |r| escape(&r.result.tool_version));
    let _ = writeln!(
        body,
        "<p class=\"muted\">Made by {tool}. This file makes no network request. \
         <span id=\"chart-check\">{chart_count} charts</span></p>"
    );

    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"charts-expected\" content=\"{chart_count}\">\n\
         <title>diskbench report</title>\n<link rel=\"icon\" href=\"data:,\">\n\
         <style>{STYLE}</style>\n</head>\n<body>\n{body}<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )
}

#[cfg(test)]
mod tests;

/// Each sweep line's verdict (knee, saturation) under the curve chart.
fn curve_verdicts(records: &[RunRecord], by: &[String]) -> String {
    let mut out = String::new();
    for (name, points) in crate::curve::lines(records, by) {
        let _ = writeln!(
            out,
            "<details open><summary>{}</summary><pre>{}\n{}</pre></details>",
            escape(&name),
            escape(&crate::curve::table(&points)),
            escape(&crate::curve::verdict_text(&points))
        );
    }
    out
}
