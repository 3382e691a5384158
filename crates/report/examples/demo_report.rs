//! Writes the demo history's report and charts, to look at them:
//! `cargo run -p diskbench-report --example demo_report -- DIR`
//! (report.html, and every chart kind as SVG and PNG).

use diskbench_report::charts::{self, svg_to_png};
use diskbench_report::compare::{compare, render_table, Metric};
use diskbench_report::{demo, html::render_report};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| ".".into()));
    let records = demo::records();
    let by = vec!["provider".to_string(), "disk".to_string()];
    std::fs::write(dir.join("report.html"), render_report(&records, &by))?;
    let c = compare(&records, &by);
    print!("{}", render_table(&c));
    let mut svgs = vec![(
        "percentiles".to_string(),
        charts::percentile_chart(&records, &by),
    )];
    for m in Metric::ALL {
        svgs.push((format!("bar-{}", m.key()), charts::bar_chart(&c, m, false)));
        svgs.push((
            format!("bar-{}-log", m.key()),
            charts::bar_chart(&c, m, true),
        ));
    }
    for (i, (_, svg)) in charts::timeline_charts(&records, &by)
        .into_iter()
        .enumerate()
    {
        svgs.push((format!("timeline-{i}"), svg));
    }
    for (job, svg) in charts::series_charts(&records[0]) {
        svgs.push((format!("series-{job}"), svg));
    }
    for (name, svg) in svgs {
        std::fs::write(dir.join(format!("{name}.svg")), &svg)?;
        std::fs::write(dir.join(format!("{name}.png")), svg_to_png(&svg)?)?;
    }
    println!("wrote {}", dir.display());
    Ok(())
}
